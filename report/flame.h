/* flame.h - a flame graph's frames and their layout, from a profile's stacks.
 *
 * A frame is a function on a path from the root: the stacks that pass through the same
 * functions in the same order share their frames, as in Brendan Gregg's flamegraph.pl. Each
 * frame spans [x, x + period) of the profile's period; a frame's children lie side by side
 * inside it, ordered by name. Nothing here prints (output_svg.c draws).
 */
#ifndef HWPROF_REPORT_FLAME_H
#define HWPROF_REPORT_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "callgraph.h"

struct flame_node {
	const char *name; /* the function, "[truncated]", or "[unknown]"; with UNKNOWN the
			   * DSO's base name (drawn as "[libc.so.6]"); the profile's string */
	const char *dso;  /* the frame's DSO path, NULL for the root and [truncated] */
	const char *file; /* the source file when every merged frame had the same, else NULL */
	int line;	  /* the line when every merged frame had the same, else 0 */
	bool inlined;	  /* inlined code (the frame under it is the function it went into) */
	bool unknown;	  /* nothing known but the DSO: NAME is its base name */
	bool group;	  /* no stacks: a DSO's or a file's box, not a function's */
	bool data;	  /* --sort data: a data object, NAME its key (profile_data.object),
			   * drawn "[data:NAME]" */
	uint32_t parent;  /* index into flame.v; the root (v[0]) is its own parent */
	uint32_t depth;	  /* 0 for the root ("all"), 1 for the outermost frames */
	double x;	  /* start, in the profile's period units */
	double period;	  /* width, in the same units: the period of the stacks through it */
	uint64_t samples;
};

struct flame {
	struct flame_node *v; /* v[0] the root, all the profile's period; then the others,
			       * each after its parent */
	size_t n, cap;
	uint32_t max_depth; /* of any node */
	bool no_stacks;	    /* the profile has no call stacks: each location alone under
			     * its DSO and file (stacks DSO;file;function) */
	bool data;	    /* flame_build_data()'s: the leaves are data objects */
	uint32_t *path;	    /* flame_add()'s: the last stack's nodes, path[0] the root */
	size_t npath, path_cap;
};

enum flame_order {
	FLAME_ROOTS_OUT, /* a flame graph: the outermost callers at the root, leaves on top */
	FLAME_LEAVES_OUT /* inverted (icicle): the sampled functions at the root, their
			  * callers outward */
};

/* Builds FL from every stack of P (cg_stacks_count()) in ORDER; INLINE_ALL: each location's
 * whole inline chain (cg_loc_chain()). Returns 0 (release FL with flame_release()) or
 * -ENOMEM. */
int flame_build(const struct profile *p, enum flame_order order, bool inline_all, struct flame *fl);

/* The same from P's data sample groups (profile.data, --sort data): each a stack of its
 * instruction's frames (the inline chain, cg_loc_chain(); data samples keep no callers) and
 * the object it touched as the leaf (a node with DATA set). Returns 0 or -ENOMEM. */
int flame_build_data(const struct profile *p, enum flame_order order, bool inline_all,
		     struct flame *fl);

/* Starts FL empty (the root alone). Returns 0 or -ENOMEM. */
int flame_start(struct flame *fl);

/* Adds one stack of N frames (the root's side first) with SAMPLES and PERIOD to FL. Stacks
 * must come in flame_cmp() order: a stack shares with the one added before it the frames
 * they begin with, and its new frames start where that one ended. Returns 0 or -ENOMEM. */
int flame_add(struct flame *fl, const struct flame_node *frames, size_t n, uint64_t samples,
	      double period);

/* strcmp()-like order of two stacks of frames (the root's side first): by each frame's name,
 * DSO and inlined flag; a stack before the longer ones it begins. */
int flame_cmp(const struct flame_node *a, size_t na, const struct flame_node *b, size_t nb);

/* Frees FL's nodes. */
void flame_release(struct flame *fl);

#endif
