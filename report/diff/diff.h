/* diff.h - two profiles' rows matched by content: `hwprof diff`'s model.
 *
 * Each profile is grouped by the same --sort keys (rows.h); a row of one matches a row of the
 * other when their keys read the same: the DSO's base name, the function and inline caller
 * names, and for lines the source line's text (whitespace ignored) with its occurrence count
 * since the function's first line, so a line that moved when code was added above it is
 * still the same row. Where a source file cannot be read, or changed after a recording
 * started, lines of that file match by function and line number (counted from the
 * function's first line) on both sides, with a note. Strings are compared by content: each
 * profile interns its own.
 */
#ifndef HWPROF_DIFF_DIFF_H
#define HWPROF_DIFF_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rows.h"

/* A source file's text, as diff_req.source reads it. */
struct diff_source {
	char *const *lines; /* lines[0] is line 1, without the newline */
	size_t nlines;
	uint64_t mtime_ns; /* when it was last saved, ns since the epoch (st_mtim) */
};

/* Reads the source file PATH (as DWARF names it) into *OUT, whose lines stay the reader's
 * and valid until diff_build() returns. Returns false when the file cannot be found. */
typedef bool diff_source_fn(void *ctx, const char *path, struct diff_source *out);

/* The sides of a diff, as indexes of diff_row.side and diff.p. */
enum { DIFF_BASE, DIFF_NEW };

enum diff_status {
	DIFF_COMMON,  /* samples on both sides */
	DIFF_NEW_ROW, /* only in the new profile */
	DIFF_GONE,    /* only in the base profile */
};

/* One side of a row. */
struct diff_side {
	const struct profile_row *row; /* the side's row with this key (the largest when several
					* read the same), NULL: none */
	uint64_t samples;
	double period;
	double share; /* period / the profile's period, 0..1 (rate mode: events per unit of
		       * work, diff_req.per) */
};

/* One row of a diff. */
struct diff_row {
	struct diff_side side[2]; /* [DIFF_BASE], [DIFF_NEW] */
	enum diff_status status;
	bool by_number;	  /* a line matched by function and line number: its source text
			   * was not available */
	double delta;	  /* share points (new - base) * 100; rate mode: the rate's change */
	double relative;  /* (new - base) / base (diff_relative_change()) */
	double z;	  /* the test statistic, positive when the new side is larger */
	double p, p_adj;  /* two-sided p-value, and Holm's adjusted one */
	bool exact;	  /* P is an exact test's (Fisher's; rate mode: the binomial), the
			   * expected counts being too small for the z-test */
	bool significant; /* p_adj <= alpha */
	char *key;	  /* internal: the content key */
};

/* What to compare. */
struct diff_req {
	const enum profile_key *keys; /* NKEYS >= 1, as profile_parse_sort() gives them */
	size_t nkeys;
	double alpha;		/* significance level, in (0, 1) */
	diff_source_fn *source; /* reads source files (with SOURCE_CTX), for their lines */
	void *source_ctx;
	double work[2]; /* rate mode when both > 0: each side's work (e.g.
			 * instructions counted), rows compared as events per WORK /
			 * SCALE; else shares */
	double scale;	/* rate mode: the unit of work (1000 instructions, 1e9 ns) */
};

/* A diff of two profiles. */
struct diff {
	const struct profile *p[2];
	struct diff_row *rows; /* sorted: significant first, then by |delta|, by the larger
				* share of the two sides, then by name */
	size_t nrows;
	size_t ncommon;	     /* rows with samples on both sides */
	size_t nsignificant; /* rows significant at alpha */
	bool rate;	     /* rate mode (diff_req.work) */
	char **notes;	     /* one line each: files matched by line number, and why */
	size_t nnotes, cap_notes;
	struct profile_row *prow[2]; /* internal: each side's rows */
	size_t nprow[2];
};

/* Matches the rows of BASE and NEW (profiles loaded with the same options) by REQ into *D.
 * Returns 0, or -ENOMEM (*D then empty). The profiles must outlive *D. */
int diff_build(struct diff *d, const struct profile *base, const struct profile *new_p,
	       const struct diff_req *req);

/* Frees what D holds (not the profiles). Accepts an empty or zeroed D. */
void diff_release(struct diff *d);

#endif
