/* diff_view.h - `hwprof annotate --diff BASE NEW FUNCTION`: one function's source with each
 * line's base share, new share and change, from a diff (report/diff/diff.h), as plain text.
 */
#ifndef HWPROF_ANNOTATE_DIFF_VIEW_H
#define HWPROF_ANNOTATE_DIFF_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "profile.h"

struct source_cache;
struct diff_source;

/* A diff_source_fn (report/diff/diff.h) over CTX, a struct source_cache: the source file
 * PATH as source_get() finds it. */
bool ann_diff_source(void *ctx, const char *path, struct diff_source *out);

/* Loads BASE and NEW with PO (inputs replaced, --function set to FUNCTION: the shares are of
 * FUNCTION's own samples), matches their lines and prints FUNCTION's source (as the new
 * build has it) to OUT, each line with both shares, the change in points and '*' when it is
 * significant at 0.05. Source is read through SRC. Returns the exit status, after one error
 * line on failure. */
int ann_diff_stdio(FILE *out, const struct profile_options *po, const char *base,
		   const char *new_file, const char *function, struct source_cache *src);

#endif
