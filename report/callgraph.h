/* callgraph.h - the call paths that lead to one row, as a tree, from the profile's stacks.
 *
 * Frames are what a user reads in a call path: a function at a source line. A location of
 * inlined code (callee mode) is two frames, the inlined function at its line and, outward,
 * the function it was inlined into at the call site; a caller's location is already its call
 * site (return address - 1, see profile_stack).
 */
#ifndef HWPROF_REPORT_CALLGRAPH_H
#define HWPROF_REPORT_CALLGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rows.h"

struct cg_frame {
	const char *function; /* NULL: unknown; "[truncated]" for the cut end of a stack */
	const char *file;     /* NULL: unknown */
	int line;	      /* 0: unknown */
	const char *dso;
	uint64_t offset; /* in DSO, when nothing else is known (unknown) */
	bool unknown;
	bool inlined; /* inlined code: the next frame outward is the function it was
		       * inlined into, at the call site */
};

/* The frames of location L, innermost first, into OUT: returns 1, or 2 when L is inlined
 * code with its call site known. Strings stay owned by the profile. */
size_t cg_loc_frames(const struct profile_loc *l, struct cg_frame out[2]);

/* Room for one location's frames in cg_loc_chain() (the symbolizer keeps at most 32 inline
 * frames per address). */
#define CG_MAX_CHAIN 64

/* The frames of location L of P, innermost first, into OUT (room for MAX): with ALL, one per
 * frame of its whole inline chain (profile.lines: the inlined functions between the innermost
 * and the real function too), each at its line (the innermost at L's line, each outer one at
 * the call site of the inlined call it holds); without ALL, or when P has no chain for L,
 * cg_loc_frames()'s. Returns how many were written. */
size_t cg_loc_chain(const struct profile *p, const struct profile_loc *l, bool all,
		    struct cg_frame *out, size_t max);

/* A growable array of frames. */
struct cg_frames {
	struct cg_frame *v;
	size_t n, cap;
};

/* How many stacks a whole-profile view (folded, flame graph) draws from P: its call stacks,
 * or, when P has none, each sampled location (profile.locs) as a stack of itself. */
size_t cg_stacks_count(const struct profile *p);

/* The frames of stack I (< cg_stacks_count(P)) outermost first into OUT (emptied first,
 * grown as needed; the caller frees OUT->v), starting with a "[truncated]" frame when the
 * recorded chain was cut; its samples and period into *SAMPLES and *PERIOD. INLINE_ALL:
 * each location's whole inline chain (cg_loc_chain()). Returns 0 or -ENOMEM. */
int cg_stack_frames(const struct profile *p, size_t i, bool inline_all, struct cg_frames *out,
		    uint64_t *samples, double *period);

/* Whether A and B read the same (strings are interned: compared by pointer). */
bool cg_frame_eq(const struct cg_frame *a, const struct cg_frame *b);

/* "wl.c:12 work", "wl.c work", "?? work" or "[unknown] libc.so.6+0x1234" into BUF (LEN
 * bytes), control characters tamed. FULL keeps the file's whole path. */
const char *cg_frame_label(const struct cg_frame *f, bool full, char *buf, size_t len);

enum cg_order {
	CG_CALLEE, /* a path reads from the row outward: its caller, that one's caller... */
	CG_CALLER, /* from the outermost caller (main) inward to the row */
};

struct cg_node {
	struct cg_frame frame; /* the root's is unset: the root is the row itself */
	uint64_t samples;
	double period;
	uint32_t child, next; /* first child and next sibling: 1 + index into v; 0: none.
			       * Siblings sorted by period, highest first */
};

struct cg_tree {
	struct cg_node *v; /* v[0] the root */
	size_t n, cap;
};

/* The tree of the call paths of row ROW of P (ROW_OF: location id -> row, from
 * profile_rows_by()). A stack belongs to the row when its sampled address is the row's
 * (self), or with CHILDREN when any of its frames is, the outer frame of inlined code
 * included (the innermost such frame: recursion adds one path). A truncated stack ends with a
 * "[truncated]" frame. INLINE_ALL: every location's whole inline chain (cg_loc_chain()). Returns 0
 * (T filled, release with cg_tree_release()) or -ENOMEM. */
int cg_tree_build(const struct profile *p, const uint32_t *row_of, uint32_t row, bool children,
		  enum cg_order order, bool inline_all, struct cg_tree *t);

/* Frees T's nodes. */
void cg_tree_release(struct cg_tree *t);

#endif
