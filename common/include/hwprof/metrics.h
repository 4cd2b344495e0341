/* hwprof/metrics.h - derived metrics (IPC, miss rates, MPKI), one place for stat, record's
 * counted totals in report/annotate, and regions. Each metric carries its formula and the
 * counts it came from, and is produced only when all its events were counted.
 */
#ifndef HWPROF_METRICS_H
#define HWPROF_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One input count: the event's spelling (modifiers are ignored when matching) and its
 * multiplexing-scaled value. */
struct hwprof_metric_input {
	const char *event;
	double value;
	bool counted;
};

/* One derived metric. */
struct hwprof_metric {
	char name[48];	   /* "IPC", "LLC miss rate", "LLC-load-misses MPKI", ... */
	double value;	   /* a ratio (0..1 for rates) or per-1000-instructions for MPKI */
	bool percent;	   /* print value*100 with a % sign */
	char formula[192]; /* "instructions / cycles = 1234 / 5678" with the raw numbers */
};

/* Derives every metric whose events are all in IN (N inputs) and counted, into OUT (room
 * for MAX). Returns the number written. Metrics: IPC; L1-dcache miss rate; LLC miss rate
 * (LLC-load-misses/LLC-loads, else cache-misses/cache-references); branch miss rate;
 * dTLB/iTLB miss rates where both events are present; MPKI for every *-misses event when
 * instructions is counted. */
size_t hwprof_metrics_derive(const struct hwprof_metric_input *in, size_t n,
			     struct hwprof_metric *out, size_t max);

#ifdef __cplusplus
}
#endif

#endif
