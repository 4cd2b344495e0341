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

/* The metrics that can be asked for by name (stat -M): their names, the I-th into *NAME
 * ("IPC", "LLC-miss-rate", "branch-miss-rate", ...). Returns 0, or -ENOENT past the end. */
int hwprof_metric_name_at(size_t i, const char **name);

/* The events metric NAME needs (matched without regard to case, '-' and ' ' alike: "IPC",
 * "branch miss rate"), as one event group spec into BUF (LEN bytes), e.g.
 * "{instructions,cycles}", and its canonical name into *CANON (static; may be NULL).
 * Returns 0, or -ENOENT for a name that is no metric. */
int hwprof_metric_events(const char *name, char *buf, size_t len, const char **canon);

/* Why metric NAME (as for hwprof_metric_events) cannot be derived from IN (N inputs; WHY,
 * NULL or N entries, says why each input that was not counted was not, e.g. "not supported
 * on this host", NULL entries meaning "not counted"): one line into BUF, "IPC: needs cycles
 * and instructions (not supported on this host)", naming the missing inputs and their
 * reasons ("not in the event list" for an absent one). Returns 1 when written and some input
 * is in IN, 2 when written and none is, 0 when every input was counted (the metric can be
 * derived; BUF ""), -ENOENT for no such metric. */
int hwprof_metric_why_not(const char *name, const struct hwprof_metric_input *in, size_t n,
			  const char *const *why, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
