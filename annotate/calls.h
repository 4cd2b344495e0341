/* calls.h - a function's callers and the inclusive cost of the calls its lines make, from the
 * profile's stacks (report/core/profile.h: profile.stacks). Free of curses and output formats.
 *
 * A stack passes through function F when one of its locations is charged to F (funcs.h: an
 * inline frame counts for the function it was inlined into). F's caller in that stack is the
 * location just outside F's innermost frame; a line of F makes a call in that stack when a
 * caller's location (return address - 1) lies on it. Each stack counts once per caller and
 * once per line, however often it recurses.
 */
#ifndef HWPROF_ANNOTATE_CALLS_H
#define HWPROF_ANNOTATE_CALLS_H

#include <stddef.h>
#include <stdint.h>

#include "funcs.h"

struct ann_caller {
	const char *function; /* the caller's function ("[unknown]" when none), or NULL: F
			       * was the outermost frame of the stack (no caller) */
	const char *file;     /* its call site; NULL, 0 when unknown */
	int line;
	uint64_t samples;
	double period;
	double share; /* of F's inclusive period, 0..1 */
};

/* The inclusive cost of the calls made on one line of F's own code. */
struct ann_line_calls {
	const char *file;
	int line;
	uint64_t samples;
	double period;
	const char *callee;	/* the function called there with the most of PERIOD */
	const char *callee_dso; /* its DSO */
	size_t stamp;		/* internal */
	double callee_period;	/* internal */
};

struct ann_calls {
	uint64_t samples; /* inclusive: the samples whose stack passes through F */
	double period;
	struct ann_caller *callers; /* hottest first */
	size_t ncallers;
	struct ann_line_calls *lines; /* unsorted */
	size_t nlines;
};

/* F's callers and line costs (all zero when the profile has no stacks). Strings stay owned by
 * the profile. Never fails (allocation failures die). Release with ann_calls_release(). */
void ann_calls_build(const struct ann_model *m, size_t func, struct ann_calls *c);

/* The calls made at FILE:LINE (FILE interned by the profile: compared by pointer), or NULL. */
const struct ann_line_calls *ann_calls_at(const struct ann_calls *c, const char *file, int line);

/* Frees C's arrays. */
void ann_calls_release(struct ann_calls *c);

#endif
