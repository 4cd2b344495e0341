/* capstone_lib.h - Capstone, the disassembler, loaded the first time a command disassembles
 * (annotate's instruction views, report --sort addr), not at every start-up (dynlib.h).
 * The types and constants are capstone.h's; the functions are called through the table.
 * Internal: not installed.
 */
#ifndef HWPROF_CAPSTONE_LIB_H
#define HWPROF_CAPSTONE_LIB_H

#include <capstone/capstone.h>
#include <stddef.h>

/* Capstone's functions that hwprof calls, each with its capstone.h type. */
struct capstone_lib {
	__typeof__(cs_open) *open;
	__typeof__(cs_option) *option;
	__typeof__(cs_malloc) *malloc;
	__typeof__(cs_disasm_iter) *disasm_iter;
	__typeof__(cs_insn_group) *insn_group;
	__typeof__(cs_free) *free;
	__typeof__(cs_close) *close;
};

/* The table, Capstone loaded on the first call (thread-safe). Returns NULL when it cannot
 * be loaded, with the one line that says why and what to install in ERR (ERRLEN bytes). */
const struct capstone_lib *capstone_lib(char *err, size_t errlen);

#endif
