/* diff_output.h - `hwprof diff`'s output formats (text, CSV, JSON) over one diff.
 *
 * Each writer prints the facts of both sides and the rows it is given (already limited, in
 * the diff's order). Writers return 0 or -errno from the stream (EPIPE, ENOSPC).
 */
#ifndef HWPROF_DIFF_OUTPUT_H
#define HWPROF_DIFF_OUTPUT_H

#include <stdio.h>

#include "diff.h"

struct diff_output_opts {
	const enum profile_key *keys;
	size_t nkeys;
	const char *inputs[2]; /* each side's files, as one label ("a.data" or "a,b") */
	double alpha;
	size_t omitted;	  /* rows left out by --limit / --percent-limit */
	const char *unit; /* rate mode: what a row's value counts, "per 1k instructions";
			   * NULL: shares */
};

typedef int diff_output_fn(FILE *f, const struct diff *d, const struct diff_row *rows, size_t n,
			   const struct diff_output_opts *o);

diff_output_fn diff_output_text, diff_output_csv, diff_output_json;

/* ---- labels shared by the formats (diff_label.c) ---- */

/* Row R's function as report names it ("work", "poke (inlined into first)", "[unknown]"),
 * from the new side's row when it has one: into BUF. */
const char *diff_function_label(const struct diff_row *r, char *buf, size_t len);

/* Row R's place: "wl.c:12", or "wl.c:12->22" when the line moved, from base to new; the
 * base name of the file; "" when the keys hold no line: into BUF. */
const char *diff_location_label(const struct diff_row *r, char *buf, size_t len);

/* "common", "new" or "gone". */
const char *diff_status_name(enum diff_status s);

/* The sampled event's name of P ("" when the file lists none). */
const char *diff_event_name(const struct profile *p);

#endif
