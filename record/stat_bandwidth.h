/* stat_bandwidth.h - `hwprof stat --bandwidth`: the DRAM traffic of the whole machine, from
 * its memory controllers' counters (common/bandwidth.h picks them), next to the platform's
 * peak from its SMBIOS memory devices (common/dmi.h), in text, JSON and CSV.
 *
 * stat counts the events as it counts any uncore event (-a: each box opened with pid -1 on
 * the CPU of its cpumask, scaled by its .scale); this file plans them, sums them per
 * direction and prints the result:
 *   read R GB/s + write W GB/s = T of P GB/s peak (S%)
 * with the DIMM configuration the peak came from, or "peak unknown (why)"; the peak from
 * <sysfs>/firmware/dmi (dmi_memory_read()), else from dmidecode's text. GB/s are 10^9
 * bytes per second of elapsed time.
 */
#ifndef HWPROF_STAT_BANDWIDTH_H
#define HWPROF_STAT_BANDWIDTH_H

#include "bandwidth.h"
#include "dmi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct hwprof_event_list;
struct hwprof_jw;

/* One --bandwidth measurement. Zero it, then stat_bw_events(), stat_bw_locate() after the
 * list is parsed, stat_bw_finish() after the runs, and print. */
struct stat_bw {
	struct bw_plan plan;
	size_t first; /* the list index of plan.ev[0]: the plan's events end the list */
	bool counted; /* some event of the plan counted */
	double read_bytes, write_bytes, any_bytes; /* summed over the boxes; ANY: reads and
						    * writes the counters do not tell apart */
	double elapsed;				   /* seconds the counts are over */
	double peak_bps;			   /* bytes per second; 0 when unknown */
	char peak_why[256];			   /* why the peak is unknown, else "" */
	char peak_from[512];	 /* the DIMMs it came from (dmi_memory_describe) */
	const char *peak_source; /* "SMBIOS" (sysfs), "dmidecode -t 17" (static) */
};

/* Plans the host's memory-controller events into BW and returns EVENTS (NULL: none) with
 * them appended, malloc'd. On a host without memory-controller counters, reports one error
 * naming the cause and what works here instead, and returns NULL. */
char *stat_bw_events(struct stat_bw *bw, const char *events);

/* Notes where the plan's events are in LIST (its last bw->plan.n entries). */
void stat_bw_locate(struct stat_bw *bw, const struct hwprof_event_list *list);

/* Sums the plan's events: MEAN[i] the count of list entry I over the runs (already
 * multiplied by its .scale), COUNTED[i] whether it counted; ELAPSED seconds. Reads the
 * peak. */
void stat_bw_finish(struct stat_bw *bw, const struct hwprof_event_list *list, const double *mean,
		    const bool *counted, double elapsed);

/* The result as text lines, as the JSON member "bandwidth" (an object), or as CSV rows of
 * stat's columns (event,mean,stddev_pct,min,max,running_pct,unit,counted,supported). */
void stat_bw_text(FILE *f, const struct stat_bw *bw);
void stat_bw_json(struct hwprof_jw *j, const struct stat_bw *bw);
void stat_bw_csv(FILE *f, const struct stat_bw *bw);

#endif
