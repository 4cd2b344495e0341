/* stat_metrics.h - what `hwprof stat` derives from the mean counts (stat_counts.h): the
 * metrics of hwprof/metrics.h (IPC, miss rates, MPKI), the CPUs utilized and each event's rate
 * per second of task-clock as perf stat prints them, the bandwidth of byte-unit events; the
 * events -M asks for, and why a metric cannot be derived from the list.
 */
#ifndef HWPROF_STAT_METRICS_H
#define HWPROF_STAT_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "stat.h"
#include "stat_bandwidth.h"
#include "stat_counts.h"
#include "hwprof/metrics.h"

/* One derived value as the outputs print it. */
struct metric_out {
	struct hwprof_metric m;
	const char *unit; /* after the value: "", "/s" or "GB/s"; static */
};

/* The events -M METRICS (a comma-separated list of metric names) need, after the -e list
 * EVENTS (NULL: none): "EVENTS,{instructions,cycles}". Dies with a usage error naming the
 * known metrics on a name that is no metric. Returns a malloc'd spec the caller frees. */
char *stat_with_metric_events(const char *events, const char *metrics);

/* The metrics of the mean counts ST of LIST over ELAPSED seconds into OUT (room for MAX):
 * hwprof_metrics_derive()'s, then the rates (with a counted task-clock), then the bandwidth of
 * each byte-unit event before BW_FIRST (the --bandwidth events from BW_FIRST on are summed
 * by stat_bandwidth.c instead; list->n when none). Returns how many were written. */
size_t stat_derive_metrics(const struct hwprof_event_list *list, const struct ev_stat *st,
			   double elapsed, size_t bw_first, struct metric_out *out, size_t max);

/* Says why each metric cannot be derived from LIST's counts ST: one line per metric of
 * O->metrics (-M) not among the NM derived ones M, and per other metric whose inputs are
 * partly in the list. Each is an error() when AS_ERROR, else a note(). Returns how many. */
size_t stat_metrics_why_not(const struct stat_opts *o, const struct hwprof_event_list *list,
			    const struct ev_stat *st, const struct metric_out *m, size_t nm,
			    bool as_error);

/* stat_bw_finish() on the mean of each event of LIST over the runs (ST) and ELAPSED
 * seconds. */
void stat_finish_bandwidth(struct stat_bw *bw, const struct hwprof_event_list *list,
			   const struct ev_stat *st, double elapsed);

#endif
