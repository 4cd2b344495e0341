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
	PROFILE_KEY_LINE,     /* file:line (+ the function and inline caller it belongs to) */
	PROFILE_KEY_FUNCTION, /* function (+ inline caller) */
	PROFILE_KEY_DSO,      /* mapped file */
	PROFILE_KEY_ADDR,     /* instruction address (+ its DSO); rows_insns.h gives the text */
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
	uint32_t group;	       /* internal */
};

/* Parses a --sort list ("function,line") into KEYS (room for MAX). Returns the number of
 * keys, or -EINVAL with ERR naming the bad key and the valid ones. */
int profile_parse_sort(const char *list, enum profile_key *keys, size_t max, char *err,
		       size_t errlen);

/* Groups P's locations by KEYS (NKEYS >= 1), sorted by period descending (ties: samples,
 * then name). Sets *ROWS (caller frees with free(); strings stay owned by P) and *NROWS.
 * Returns 0 or -ENOMEM. */
int profile_rows(const struct profile *p, const enum profile_key *keys, size_t nkeys,
		 struct profile_row **rows, size_t *nrows);

/* What profile_rows_by() groups. */
struct profile_rows_req {
	const enum profile_key *keys; /* NKEYS >= 1 */
	size_t nkeys;
	bool children; /* when P has stacks: rows of every location of a stack (a caller
			* without samples of its own too), sorted by children cost
			* (--children, perf's word); else the self rows of profile_rows() */
};

/* profile_rows() with REQ; *ROW_OF (ROW_OF may be NULL; caller frees with free()) gets,
 * per location id (profile.locations), its row's index in *ROWS or UINT32_MAX when it has
 * none. Returns 0 or -ENOMEM. */
int profile_rows_by(const struct profile *p, const struct profile_rows_req *req,
		    struct profile_row **rows, size_t *nrows, uint32_t **row_of);

/* 95% Wilson score interval for a binomial proportion: K of N (K may be fractional, e.g. a
 * period-weighted share times N). Sets *LO and *HI in 0..1; N == 0 gives [0, 1]. */
void profile_wilson95(double k, double n, double *lo, double *hi);

#endif
