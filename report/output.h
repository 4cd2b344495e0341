/* output.h - `hwprof report`'s output formats over one profile and its rows.
 *
 * Each writer prints the header facts and the rows it is given (already limited); rows come
 * from profile_rows(). Writers return 0 or -errno from the stream (EPIPE, ENOSPC).
 */
#ifndef HWPROF_REPORT_OUTPUT_H
#define HWPROF_REPORT_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "callgraph.h"
#include "rows.h"

struct output_opts {
	const enum profile_key *keys;
	size_t nkeys;
	enum inline_mode inline_mode;
	size_t omitted;		/* rows left out by --limit / --percent-limit (text says so) */
	bool children;		/* the rows are profile_rows_by()'s with children */
	bool callgraph;		/* text: each row's call paths under it; JSON: always
				 * when the profile has stacks */
	enum cg_order order;	/* of the call paths */
	const uint32_t *row_of; /* profile_rows_by()'s, for the call paths; rows[i] is
				 * row i */
	double percent_limit;	/* call-path nodes under this share (percent of the
				 * profile) are left out */
	bool folded_lines;	/* folded: each frame with its :line */
	bool inverted;		/* svg: an icicle, the sampled functions at the root */
	bool inline_frames;	/* call paths and folded stacks: every frame of each
				 * location's inline chain (--inline), not only the
				 * innermost and the real function */
	bool group;		/* text: a column per other sampled event (the value
				 * vector), its share of the same rows (self shares;
				 * needs ROW_OF) */
};

int output_text(FILE *f, const struct profile *p, const struct profile_row *rows, size_t n,
		const struct output_opts *o);
/* The text table of rows grouped by data keys (rows[i].data set; output_data.c), after
 * output_text()'s header: share, interval, samples, served from and TLB (with data sources),
 * latency mean and p90 (with weights), the data object, the cache line with its distinct
 * source lines, and the instruction's line and function when those keys are given. Sets
 * *UNCERTAIN when a row's rank is not settled. Returns 0 or -EIO. */
int output_data_rows(FILE *f, const struct profile *p, const struct profile_row *rows, size_t n,
		     const struct output_opts *o, bool *uncertain);
int output_csv(FILE *f, const struct profile *p, const struct profile_row *rows, size_t n,
	       const struct output_opts *o);
int output_json(FILE *f, const struct profile *p, const struct profile_row *rows, size_t n,
		const struct output_opts *o);
/* Brendan Gregg's folded stacks: one line per distinct stack, its frames outermost first
 * joined by ';', a space and its period ("main;work;memcpy 123"). Ignores ROWS: every stack
 * that passed the filters (a profile without stacks: each sampled address alone). With the
 * data key in O->KEYS: the data samples, each instruction's inline chain and its object as a
 * leaf frame ("main;touch;[data:g.b] 4"). */
int output_folded(FILE *f, const struct profile *p, const struct profile_row *rows, size_t n,
		  const struct output_opts *o);

/* One self-contained SVG flame graph of every stack that passed the filters (flame.h),
 * inline CSS and script, no URL loaded; an icicle with O->INVERTED. Without stacks, each
 * sampled function under its DSO and file. Ignores ROWS. */
int output_svg(FILE *f, const struct profile *p, const struct profile_row *rows, size_t n,
	       const struct output_opts *o);

/* pprof's profile.proto, gzipped (docs/pprof.md): a pair of sample types per sampling event
 * (every event of the value vector, else the shown one), mappings with build-ids, locations
 * with every inline frame as a line, functions, one sample per stack that passed the filters
 * (per sampled address without stacks), comments with the recording's facts.
 * Binary: never to a terminal (report.c refuses). Ignores ROWS and O. Returns 0 or -errno
 * (-EIO: the stream failed). */
int output_pprof(FILE *f, const struct profile *p, const struct profile_row *rows, size_t n,
		 const struct output_opts *o);

/* ---- labels shared by the formats (label.c) ---- */

/* Whether O's sort keys include K (--sort addr adds the address and instruction columns). */
bool output_has_key(const struct output_opts *o, enum profile_key k);

/* "poke (inlined into first)", "main", "[unknown] libfoo.so+0x1234" (nothing known),
 * "[unknown]" (several such addresses), or "" for a mixed row: into BUF. */
const char *row_function_label(const struct profile_row *r, char *buf, size_t len);

/* "file.c:12", "file.c" (line mixed), "??" (no line known, whatever the sort) or "" (the
 * row's locations lie in several files): into BUF. FULL keeps the whole path, else the
 * file's base name. */
const char *row_location_label(const struct profile_row *r, bool full, char *buf, size_t len);

/* The sampling event shown (NULL when the file lists none). */
const struct hwprof_file_event *profile_sampling_event(const struct profile *p);

/* Whether header event I of P is listed by name in headers: the shown one, and the sampling
 * events that have samples (the others are counted in one line, as perf report skips
 * them). */
bool profile_event_listed(const struct profile *p, uint32_t i);

/* The sampling events of P's recording, for headers: "cpu-clock (shown, 9 samples),
 * page-faults (5 samples), and 297 events with no samples" into BUF (LEN bytes). Returns how
 * many sampling events the file names, listed or not. */
size_t profile_events_label(const struct profile *p, char *buf, size_t len);

#endif
