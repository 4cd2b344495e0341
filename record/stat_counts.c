/* stat_counts.c - the counts of `hwprof stat`'s events over its runs (see stat_counts.h). */
#include "stat_counts.h"

#include "cli.h"
#include "hwprof/hwprof.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The parser spells the boxes of one uncore PMU given without its number
 * ("uncore_imc/cas_count_read/" for uncore_imc_0..N, common/event.c) as one event per box, all
 * with the same spec; perf stat shows them as one count, their sum. */
size_t *stat_box_sums(const struct hwprof_event_list *list)
{
	size_t *into = xcalloc(list->n ? list->n : 1, sizeof(*into));

	for (size_t i = 0; i < list->n; i++) {
		const struct hwprof_event *e = &list->ev[i];

		into[i] = i;
		for (size_t k = 0; k < i && into[i] == i; k++)
			if (into[k] == k && e->kind == HWPROF_EV_PMU &&
			    list->ev[k].kind == HWPROF_EV_PMU && strcmp(e->pmu, list->ev[k].pmu) &&
			    !strcmp(e->spec, list->ev[k].spec))
				into[i] = k;
	}
	return into;
}

void stat_run_sum_boxes(struct ev_stat *st, const size_t *into, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct ev_stat *to = &st[into[i]], *s = &st[i];

		if (into[i] == i)
			continue;
		to->run_scaled += s->run_scaled;
		to->run_counted |= s->run_counted;
		to->run_enabled_ns += s->run_enabled_ns;
		to->run_running_ns += s->run_running_ns;
		s->run_scaled = 0;
		s->run_counted = false;
		s->run_enabled_ns = s->run_running_ns = 0;
	}
}

void stat_drop_summed_boxes(struct hwprof_event_list *list, struct ev_stat *st, const size_t *into)
{
	size_t k = 0;

	for (size_t i = 0; i < list->n; i++) {
		if (into[i] != i) {
			free(st[i].unsupported);
			continue;
		}
		list->ev[k] = list->ev[i];
		st[k++] = st[i];
	}
	list->n = k;
}

void stat_run_keep(struct ev_stat *st, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct ev_stat *s = &st[i];
		s->enabled_ns += s->run_enabled_ns;
		s->running_ns += s->run_running_ns;
		if (!s->run_counted)
			continue;
		if (!s->counted_runs || s->run_scaled < s->min)
			s->min = s->run_scaled;
		if (!s->counted_runs || s->run_scaled > s->max)
			s->max = s->run_scaled;
		s->sum += s->run_scaled;
		s->sumsq += s->run_scaled * s->run_scaled;
		s->counted_runs++;
	}
}

void stat_counts_free(struct ev_stat *st, size_t n)
{
	for (size_t i = 0; st && i < n; i++)
		free(st[i].unsupported);
	free(st);
}

double stat_mean(const struct ev_stat *s)
{
	return s->counted_runs ? s->sum / s->counted_runs : 0;
}

double stat_stddev_pct(const struct ev_stat *s)
{
	double m = stat_mean(s), var;
	unsigned n = s->counted_runs;

	if (n < 2 || m == 0)
		return 0;
	var = (s->sumsq - n * m * m) / (n - 1);
	return var > 0 ? 100.0 * sqrt(var) / fabs(m) : 0;
}

/* As libhwprof reads a count, so that its ratio is the share of the enabled time. */
struct hwprof_count stat_running(const struct ev_stat *s)
{
	struct hwprof_count c = {.enabled_ns = s->enabled_ns, .running_ns = s->running_ns};

	hwprof_count_scale(&c, 1.0);
	return c;
}

double stat_running_pct(const struct ev_stat *s)
{
	return 100.0 * stat_running(s).ratio;
}
