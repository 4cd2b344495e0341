/* stat_counts.h - the counts of `hwprof stat`'s events over its runs: each run's reading (the
 * run fields, filled as the run's groups are read), the boxes of one uncore PMU summed into one
 * row, the runs kept into sums, and the mean, spread and counted share the outputs print.
 */
#ifndef HWPROF_STAT_COUNTS_H
#define HWPROF_STAT_COUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/hwprof.h"

/* Per event, over the runs kept and CPUs. */
struct ev_stat {
	double sum, sumsq, min, max; /* of the scaled value per counted run */
	unsigned counted_runs;
	uint64_t enabled_ns, running_ns; /* summed over runs and CPUs */
	double run_scaled;		 /* this run, summed over CPUs */
	uint64_t run_enabled_ns, run_running_ns;
	bool run_counted;
	char *unsupported; /* why the host cannot count the event (probed alone); NULL: it
			    * can, or may. malloc'd, freed by stat_counts_free() */
};

/* Which entry of LIST each is summed into: the boxes of one uncore PMU spelled without its
 * number (same spec, other PMU) into the first of them. Returns a malloc'd array INTO of
 * list->n entries (the caller frees it; dies when out of memory): INTO[i] is I for the first
 * box and for an event of its own. */
size_t *stat_box_sums(const struct hwprof_event_list *list);

/* Adds each box's counts of the run just read (the run fields of ST, N entries) into its
 * first box (INTO, stat_box_sums()) and zeroes its own. */
void stat_run_sum_boxes(struct ev_stat *st, const size_t *into, size_t n);

/* Leaves in LIST and ST the rows to show: the entries summed into another (INTO) are dropped,
 * their unsupported text freed; LIST->n is the number left. */
void stat_drop_summed_boxes(struct hwprof_event_list *list, struct ev_stat *st, const size_t *into);

/* Adds the run just read (the run fields of ST, N entries) to the statistics: times, and for
 * an event counted in it its value to the sums, min and max. */
void stat_run_keep(struct ev_stat *st, size_t n);

/* Frees ST (N entries, as many as its event list holds; NULL: nothing) and the unsupported
 * texts it holds. */
void stat_counts_free(struct ev_stat *st, size_t n);

/* The mean of the counted runs' scaled values; 0 when none counted. */
double stat_mean(const struct ev_stat *s);

/* The sample standard deviation (n - 1) of the counted runs as % of the mean; 0 for fewer than
 * two runs or a mean of 0. */
double stat_stddev_pct(const struct ev_stat *s);

/* The event's times summed over runs and CPUs as a count (hwprof_count_scale()): its ratio is
 * the share of the enabled time it was counted. */
struct hwprof_count stat_running(const struct ev_stat *s);

/* stat_running()'s ratio in %. */
double stat_running_pct(const struct ev_stat *s);

#endif
