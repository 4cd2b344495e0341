/* rows_insns.h - the instruction text of report's rows under --sort addr ("movb %al,
 * (%rdi)"), read from each row's DSO through report/core/code.h.
 */
#ifndef HWPROF_REPORT_ROWS_INSNS_H
#define HWPROF_REPORT_ROWS_INSNS_H

#include <stddef.h>

#include "rows.h"

struct rows_insns;

/* Sets ROWS[i].insn (N rows of P) for each row at one address of a DSO that can be read:
 * each DSO opened once (separate debug info in DIRS too, as report's), each function
 * disassembled once. A row whose code cannot be read keeps insn NULL. Returns what owns the
 * texts (free it after the rows are printed), or NULL on ENOMEM. */
struct rows_insns *rows_insns_fill(const struct profile *p, struct profile_row *rows, size_t n,
				   const char **dirs, size_t ndirs);

/* Frees R. Accepts NULL. */
void rows_insns_free(struct rows_insns *r);

#endif
