/* funcs.h - the function list of a profile: every function with samples, hottest first, and
 * finding functions by name. Free of curses and output formats.
 *
 * An inline frame counts for the real function it was inlined into (report/core/profile.h:
 * inlined_into), so a function's total holds the samples of everything inlined into it, and
 * an inline function is no function of its own. Functions are keyed by (DSO, name).
 * The model only reads the profile, which must outlive it.
 */
#ifndef HWPROF_ANNOTATE_FUNCS_H
#define HWPROF_ANNOTATE_FUNCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* One function of the profile: a symbol, plus everything inlined into it. */
struct ann_func {
	const char *name; /* owned by the profile; "[unknown]" for samples without symbol */
	const char *dso;  /* owned by the profile */
	uint64_t samples;
	double period;	     /* events */
	double share;	     /* of the profile's period, 0..1 */
	size_t ninlined;     /* distinct inline functions with samples inside it */
	size_t first, nlocs; /* its locations: model->locs[first .. first + nlocs) */
};

struct ann_model {
	const struct profile *profile;
	struct ann_func *funcs; /* hottest first (period, then samples, then name) */
	size_t nfuncs;
	const struct profile_loc **locs; /* the profile's locations grouped by function */
	/* Per location id (profile.locations, nlocations of them): the index in funcs of the
	 * function it is charged to, or KEYMAP_NONE (keymap.h) when that has no samples. */
	size_t *func_of_location;
	/* A profile loaded with profile_options.lazy_lines: its locations' lines are read per
	 * function, when a view first looks at it (ann_model_resolve()); NULL otherwise. */
	struct profile *lazy;
	bool *resolved; /* with LAZY: per function, its locations complete */
};

/* The function location L is charged to: the real (out-of-line) function its inline frames
 * were inlined into (profile.h: inlined_into is the outermost), else its own, else
 * "[unknown]". The string is L's (the profile's). */
const char *ann_charged_to(const struct profile_loc *l);

/* Builds the function list of P (time linear in P's locations, plus sorting the functions).
 * Never fails (allocation failures die). Free with ann_model_free(). */
struct ann_model *ann_model_build(const struct profile *p);

/* ann_model_build() of P, whose pending locations (profile_resolve()) are then completed
 * function by function, by ann_model_resolve(). */
struct ann_model *ann_model_build_lazy(struct profile *p);

/* Completes function FUNC of M: its locations' lines and inline frames, when M's profile left
 * them pending, and its count of inline functions. Every view of FUNC calls it first (lines.h);
 * nothing to do for a profile loaded whole. Allocation failures die. */
void ann_model_resolve(const struct ann_model *m, size_t func);

/* Frees M. Accepts NULL. */
void ann_model_free(struct ann_model *m);

/* Indexes of the functions NAME means, hottest first, into OUT (room for MAX), by the matcher
 * report --function uses (report/core/funcname.h fn_pick): the whole name, the name without its
 * argument list or return type, the linkage (mangled) name, or the base name ("step" or
 * "Walker::step" for "ns::Walker::step(int) const", "work" for "long work<int>(...)") when it
 * names one function; compiler clones ("touch_pages.constprop.0") count as their function.
 * Returns the number found (may exceed MAX; only MAX stored), -EINVAL when the base name
 * fits several functions: then CANDS (LEN bytes; may be NULL) lists them; -ENOMEM. */
long ann_model_find(const struct ann_model *m, const char *name, size_t *out, size_t max,
		    char *cands, size_t len);

/* Indexes of the functions that hold code of the inline function NAME (any name
 * fn_query_match() accepts), hottest first, into OUT (room for MAX): what "annotate touch"
 * shows when touch() exists only inlined into fc() and fd(). Returns the number found (may exceed
 * MAX; only MAX stored). Unlike ann_model_find, every inline function the name matches
 * (full or base name) counts: no ambiguity error. */
long ann_model_find_inlined(const struct ann_model *m, const char *name, size_t *out, size_t max);

/* The functions whose names are closest to NAME (edit distance, case-insensitive; a name
 * containing NAME counts as close), best first, as indexes into OUT (room for MAX).
 * Returns the number stored. */
size_t ann_model_closest(const struct ann_model *m, const char *name, size_t *out, size_t max);

/* The identifier in a function name, as it appears where the function is defined: the last
 * "::" part of fn_base_name() ("long ns::Box<int>::f(int) const" -> "f",
 * "touch_pages.constprop.0" -> "touch_pages"). Written to BUF (LEN bytes, truncated to fit);
 * returns a pointer into BUF. */
const char *ann_name_ident(const char *name, char *buf, size_t len);

/* Whether TEXT contains PATTERN: case-insensitive unless PATTERN has an upper-case letter. */
bool ann_text_matches(const char *text, const char *pattern);

#endif
