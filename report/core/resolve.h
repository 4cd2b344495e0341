/* resolve.h - one location's symbolization written into the profile (its fields from a
 * lookup's answer, its inline chain as profile lines), shared by the loader's symbolization and
 * profile_resolve(), which completes the locations a lazy load left pending (profile.h:
 * profile_options.lazy_lines). Internal to report/core.
 */
#ifndef HWPROF_REPORT_CORE_RESOLVE_H
#define HWPROF_REPORT_CORE_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "functions.h"
#include "profile.h"
#include "symbolize.h"

/* What profile_resolve() still has to read (profile.lazy). */
struct profile_lazy {
	bool *pending;	       /* per location id: resolved by its symbol only, no line yet */
	enum inline_mode mode; /* the load's */
	uint32_t *loc_index;   /* per location id: its index in locs[] + 1 (0: not there);
				* made by the first profile_resolve() */
	size_t lines_cap;      /* entries allocated at profile.lines */
};

/* LOC's function, inline caller, file:line, call site and UNKNOWN from lookup answer R. */
void loc_set_result(struct profile_loc *loc, const struct sym_result *r);

/* Appends the N frames F as P's lines (room for them must be allocated at p->lines), their
 * functions interned in FNS (P's function table), and makes them LOC's chain (first_line,
 * nlines). Returns 0 or -ENOMEM. */
int lines_append(struct profile *p, struct fn_table *fns, const struct sym_frame *f, uint32_t n,
		 struct profile_loc *loc);

/* Frees Z. Accepts NULL. */
void profile_lazy_free(struct profile_lazy *z);

#endif
