/* rows.h - a profile's locations grouped by sort keys: `hwprof report`'s rows, and the
 * Wilson interval of a share.
 */
#ifndef HWPROF_REPORT_ROWS_H
#define HWPROF_REPORT_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

enum profile_key {
	PROFILE_KEY_LINE,      /* file:line (+ the function and inline caller it belongs to) */
	PROFILE_KEY_FUNCTION,  /* function (+ inline caller) */
	PROFILE_KEY_DSO,       /* mapped file */
	PROFILE_KEY_ADDR,      /* instruction address (+ its DSO); rows_insns.h gives the text */
	PROFILE_KEY_DATA,      /* the data object a sample touched (profile.data): "g.b" */
	PROFILE_KEY_CACHELINE, /* the cache line it touched, in its object: "g+0x40" */
};

/* What a row of data keys says about the data (profile.data); ROW.DATA points to one. */
struct profile_row_data {
	enum profile_data_kind kind;
	const char *object;	  /* the data key ("table[].key"); NULL: the row mixes objects */
	int64_t elem_lo, elem_hi; /* range of the items' elem (profile_data.elem); -1: none */
	const char *base;	  /* --sort cacheline: the object the line is named in: a
				   * region, or the first variable of a line of an image's
				   * variables (counted in the image's link-time addresses) */
	uint64_t base_start;	  /* its start (profile_data.base_start) */
	int64_t line;		  /* --sort cacheline: the line's first byte, from BASE's start
				   * (< 0: the line begins before the object) */
	uint32_t line_size;	  /* bytes per line */
	uint32_t srclines;	  /* distinct source lines (file:line) of its samples */
	uint32_t threads;	  /* reserved: 0 */
	/* With data sources (profile.data_has_src): the level most of its samples were served
	 * from (datasrc.h enum data_level) and their share of the row's samples; the same for
	 * the TLB. */
	int level, tlb;
	double level_share, tlb_share;
	uint64_t src_samples; /* samples with a data source known */
	/* With weights (profile.data_weighted): of its samples with a weight, the mean and the
	 * 90th percentile (nearest rank), core cycles. */
	uint64_t weighted;
	double weight_mean, weight_p90;
};

/* One output row: the locations that share the sort keys' values. A field that differs
 * between the row's locations is NULL / 0 (e.g. line under --sort function). */
struct profile_row {
	const char *dso;
	const char *function;	  /* NULL: unknown */
	const char *inlined_into; /* NULL: not inlined */
	const char *file;	  /* NULL: unknown or mixed */
	int line;		  /* 0: unknown or mixed */
	bool unknown;		  /* nothing known: print `[unknown] dso+0xOFFSET` */
	uint64_t offset;
	uint64_t samples;
	double period;
	double share;	       /* period / profile period, 0..1 */
	double ci_lo, ci_hi;   /* 95% Wilson interval of share (binomial in samples) */
	bool rank_uncertain;   /* interval overlaps a neighbour's: order not settled */
	bool file_mixed;       /* the row's locations lie in several files (file NULL) */
	bool function_mixed;   /* ... in several functions (function NULL) */
	bool offset_mixed;     /* ... at several addresses (offset 0): no one offset */
	bool children;	       /* samples, period, share (and the interval) are the
				* row's children (inclusive) cost: of every stack
				* passing through it, counted once per stack */
	uint64_t self_samples; /* the samples at the row's own addresses (equal to
				* samples without children) */
	double self_period;    /* their period */
	double self_share;     /* self_period / profile period */
	uint64_t addr;	       /* link-time address in DSO (profile_loc.addr); 0 with
				* addr_mixed */
	bool addr_mixed;       /* the row's locations lie at several addresses */
	uint32_t mapping;      /* its DSO's index in profile.mappings (0 when mixed) */
	const char *insn;      /* the instruction at ADDR ("movb %al, (%rdi)"), filled by
				* rows_insns_fill() under --sort addr; else NULL */
	const struct profile_row_data *data; /* rows of data keys: what the row touched;
					      * else NULL (owned by the rows' array) */
	double other_share; /* with profile_rows_req.every_event: the other sampling events'
			     * shares at the row's locations, summed (a tie-break); else 0 */
	uint32_t group;	    /* internal */
};

/* Parses a --sort list ("function,line") into KEYS (room for MAX). Returns the number of
 * keys, or -EINVAL with ERR naming the bad key and the valid ones. */
int profile_parse_sort(const char *list, enum profile_key *keys, size_t max, char *err,
		       size_t errlen);

/* Whether the NKEYS KEYS (a --sort list, profile_parse_sort()) include KEY. */
bool profile_keys_have(const enum profile_key *keys, size_t nkeys, enum profile_key key);

/* Groups P's locations by KEYS (NKEYS >= 1), sorted by period descending (ties: samples,
 * then name). Sets *ROWS (caller frees with free(); strings stay owned by P) and *NROWS.
 * Returns 0 or -ENOMEM. */
int profile_rows(const struct profile *p, const enum profile_key *keys, size_t nkeys,
		 struct profile_row **rows, size_t *nrows);

/* What profile_rows_by() groups. */
struct profile_rows_req {
	const enum profile_key *keys; /* NKEYS >= 1 */
	size_t nkeys;
	bool children;	    /* when P has stacks: rows of every location of a stack (a caller
			     * without samples of its own too), sorted by children cost
			     * (--children, perf's word); else the self rows of profile_rows() */
	uint32_t line_size; /* --sort cacheline: bytes per line, a power of two (0: 64) */
	bool inline_frames; /* --inline, with children: also a row for each frame between a
			     * location's innermost and outermost (a function inlined into
			     * another inlined one), its stacks that frame's children */
	bool every_event;   /* --group, without children: rows also for the locations that only
			     * another sampling event's samples reach (profile.loc_values), with
			     * 0 samples of the shown event; they sort after the shown event's,
			     * by the other events' shares */
};

/* With a DATA or CACHELINE key the rows group profile.data (children ignored): each row's
 * DATA is set, ROW_OF maps no location (every entry UINT32_MAX), and the rows' DATA live in the
 * same allocation as *ROWS (one free()). */

/* profile_rows() with REQ; *ROW_OF (ROW_OF may be NULL; caller frees with free()) maps
 * locations to rows, 3 x profile.nlocations entries and one per middle inline frame: at a
 * location's id its row's index in *ROWS, at nlocations + id, with children, the row of the
 * function the location's code was inlined into (its frame at the call site:
 * cg_loc_frames()' second); UINT32_MAX for none. The rows of the frames between (REQ's
 * inline_frames) are read with profile_row_of_mids(), the rest only through it. Returns 0 or
 * -ENOMEM. */
int profile_rows_by(const struct profile *p, const struct profile_rows_req *req,
		    struct profile_row **rows, size_t *nrows, uint32_t **row_of);

/* The rows, in ROW_OF of profile_rows_by(), of location LOC's inline frames between its
 * innermost and its outermost: *N of them (UINT32_MAX for a frame in its neighbour's row),
 * innermost first, matching profile_loc_lines()' lines 1 .. N; NULL and 0 when there are
 * none (no inline_frames, or a chain of two frames or fewer). */
const uint32_t *profile_row_of_mids(const struct profile *p, const uint32_t *row_of, uint32_t loc,
				    uint32_t *n);

/* 95% Wilson score interval for a binomial proportion: K of N (K may be fractional, e.g. a
 * period-weighted share times N). Sets *LO and *HI in 0..1; N == 0 gives [0, 1]. */
void profile_wilson95(double k, double n, double *lo, double *hi);

#endif
