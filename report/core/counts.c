/* counts.c - the recording's counted totals: scaling, partial sums over merged inputs, and
 * derived metrics. */
#include "profile.h"

#include "hwprof/hwprof.h"
#include "hwprof/metrics.h"

#include <stdlib.h>

struct hwprof_count profile_count_read(const struct hwprof_file_count *c)
{
	struct hwprof_count k = {
	    .value = c->value, .enabled_ns = c->enabled_ns, .running_ns = c->running_ns};

	if (!c->counted)
		return (struct hwprof_count){
		    .value = c->value, .enabled_ns = c->enabled_ns, .running_ns = c->running_ns};
	/* Multiplexed: the event ran part of the time; extrapolated to the enabled time
	 * (perf_event_open(2), "time_enabled / time_running") as libhwprof does. */
	hwprof_count_scale(&k, c->scale > 0 ? c->scale : 1.0);
	return k;
}

bool profile_count_partial(const struct profile *p, uint32_t i)
{
	return p->count_inputs && i < p->trailer.ncounts && p->count_inputs[i] &&
	       p->count_inputs[i] < p->ninputs;
}

size_t profile_metrics(const struct profile *p, struct hwprof_metric *out, size_t max)
{
	const struct hwprof_file_trailer *t = &p->trailer;
	struct hwprof_metric_input *in;
	size_t n;

	if (!t->ncounts)
		return 0;
	in = calloc(t->ncounts, sizeof(*in));
	if (!in)
		return 0;
	for (uint32_t i = 0; i < t->ncounts; i++) {
		in[i].event = t->counts[i].event;
		/* A sum over part of the inputs would give a wrong ratio: not counted. */
		struct hwprof_count k = profile_count_read(&t->counts[i]);

		in[i].counted = k.counted && !profile_count_partial(p, i);
		in[i].value = k.scaled;
	}
	n = hwprof_metrics_derive(in, t->ncounts, out, max);
	free(in);
	return n;
}
