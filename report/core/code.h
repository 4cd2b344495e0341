/* code.h - a mapped file's machine code: one function's instructions with their call and
 * jump targets named, and each address's source line by the rule the profile uses.
 *
 * Annotate's instruction views and report's --sort addr read a mapping's file through the
 * DSO the profile's loader opened (profile_options.keep_code), or open it again through
 * dso.h and symbolize.h (the build-id checked as when loading, separate debug info found the
 * same way); they read the code bytes of the function's symbol range from the file's
 * sections (libelf) and decode them with disasm.h.
 */
#ifndef HWPROF_REPORT_CODE_H
#define HWPROF_REPORT_CODE_H

#include <stddef.h>
#include <stdint.h>

#include "disasm.h"
#include "profile.h"
#include "symbolize.h"

struct code_file;

/* One instruction, its target named. */
struct code_insn {
	struct disasm_insn in;
	const char *target_name; /* DISASM_TARGET: the symbol holding the target ("memcpy@plt",
				  * "work"), owned by the code_file; NULL when none holds it */
	uint64_t target_off;	 /* the target's offset in that symbol */
	char text[224]; /* "mnemonic operands", a named target written as NAME or NAME+0xOFF
			 * ("call memcpy@plt", "jne work+0x40") */
};

/* The instructions of one function symbol. */
struct code_func {
	const char *name;     /* the symbol's name, owned by the code_file */
	uint64_t start, size; /* link-time address and bytes of the symbol */
	struct code_insn *v;  /* in address order */
	size_t n;
};

/* Opens mapping M's file, with extra debug directories DIRS (as profile_options). Returns 0
 * and *OUT, or with WHY (one line naming the file and the cause): -ENOENT for no file to read
 * ([kernel], [unknown], anonymous memory, a deleted file), -ESTALE for a file rebuilt since the
 * recording (another build-id, or the profile could not read it), -ENOTSUP for a machine
 * without a disassembler, -ENOMEM. */
int code_open(struct code_file **out, const struct profile_mapping *m, const char **dirs,
	      size_t ndirs, char *why, size_t whylen);

/* code_open() for mapping MAPPING of P, through the DSO P's loader opened when P kept them
 * (profile_options.keep_code: the file, its symbols and the DWARF read so far are not read
 * again), else as code_open() does. The code_file must be closed before P is freed. Returns
 * as code_open(). */
int code_open_profile(struct code_file **out, const struct profile *p, uint32_t mapping,
		      const char **dirs, size_t ndirs, char *why, size_t whylen);

/* The instructions of the function symbol holding link-time address ADDR into *OUT (release
 * with code_func_release()); without a symbol (a stripped file), of the call frame
 * information entry holding ADDR (.eh_frame, else .debug_frame), named "sub_START" (START in
 * hex). Returns 0, or with WHY: -ENOENT when neither holds ADDR,
 * -ENODATA when its bytes are not in the file (a NOBITS section), -ENOMEM. */
int code_function(struct code_file *f, uint64_t addr, struct code_func *out, char *why,
		  size_t whylen);

/* Frees FN's instructions. */
void code_func_release(struct code_func *fn);

/* What ADDR resolves to under MODE, as the profile's locations do (dso_sym_lookup): the
 * function, inline chain and file:line. Strings owned by F. Returns 0 or -ENOMEM. */
int code_lookup(struct code_file *f, uint64_t addr, enum inline_mode mode, struct sym_result *r);

/* The name of the function symbol holding ADDR and ADDR's offset in it (*OFF), owned by F,
 * else of its call frame information entry as code_function() names it; NULL when none
 * holds it. */
const char *code_symbol(struct code_file *f, uint64_t addr, uint64_t *off);

/* Frees F. Accepts NULL. */
void code_close(struct code_file *f);

#endif
