/* stat_output.h - what `hwprof stat` prints: the counts, spread over the runs, derived metrics,
 * bandwidth and times, as text (perf stat's layout), CSV or JSON (-f), written to stderr (no
 * -o, so that stdout stays the counted program's), standard output (-o -) or a file.
 */
#ifndef HWPROF_STAT_OUTPUT_H
#define HWPROF_STAT_OUTPUT_H

#include <stddef.h>

#include "stat.h"
#include "stat_bandwidth.h"
#include "stat_counts.h"
#include "stat_metrics.h"
#include "stat_run.h"

/* What the outputs print, none of it owned. */
struct stat_result {
	const struct stat_opts *o;
	const struct hwprof_event_list *list; /* the rows: the boxes summed into one dropped */
	const struct ev_stat *st;	      /* per row of LIST */
	const struct runs_done *rd;
	const struct run_times *times;
	const struct metric_out *metrics;
	size_t nmetrics;
	const char *cpu;	  /* the host's CPU model */
	const char *cmd;	  /* the command line; NULL without a command */
	const struct stat_bw *bw; /* --bandwidth's result; NULL without it */
};

/* The descriptor the counts of O go to: -o FILE opened (created, truncated), stdout for
 * "-o -", stderr without -o. Returns it, or -1 after an error message naming -o. */
int stat_output_open(const struct stat_opts *o);

/* Writes R in R->o's format (-f) to FD (stat_output_open(); closed here when a file). The
 * notes and warnings held since cli_hold_messages() are printed first, or dropped when the
 * JSON on stderr carries them. Returns 0, or -1 after an error message (a write that failed,
 * with its errno). Dies when out of memory. */
int stat_output_write(const struct stat_result *r, int fd);

#endif
