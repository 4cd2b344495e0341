/* stat_metrics.c - what `hwprof stat` derives from its counts (see stat_metrics.h): the
 * metrics of common/metrics.c, perf stat's rates per second of task-clock, the bandwidth of
 * byte-unit events, and the -M metrics that cannot be derived, each with its reason.
 */
#include "stat_metrics.h"

#include "cli.h"
#include "stat_open.h"
#include "hwprof/hwprof.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The CPUs the command kept busy (task-clock over the elapsed time) and each other counted
 * event's rate per second of task-clock, the two numbers perf stat prints beside the counts.
 * Needs a counted task-clock (its unit is ns). Returns how many were written to OUT (room
 * for MAX). */
static size_t derive_rates(const struct hwprof_event_list *list, const struct ev_stat *st,
			   double elapsed, struct metric_out *out, size_t max)
{
	size_t tc = list->n, k = 0;
	double secs;

	for (size_t i = 0; i < list->n && tc == list->n; i++)
		if (list->ev[i].type == PERF_TYPE_SOFTWARE &&
		    list->ev[i].config == PERF_COUNT_SW_TASK_CLOCK && st[i].counted_runs)
			tc = i;
	if (tc == list->n || (secs = stat_mean(&st[tc]) / 1e9) <= 0)
		return 0;
	if (elapsed > 0 && k < max) {
		struct metric_out *mo = &out[k++];
		*mo = (struct metric_out){.unit = ""};
		snprintf(mo->m.name, sizeof(mo->m.name), "CPUs utilized");
		mo->m.value = secs / elapsed;
		snprintf(mo->m.formula, sizeof(mo->m.formula), "%.6f s / %.6f s", secs, elapsed);
	}
	for (size_t i = 0; i < list->n && k < max; i++) {
		struct metric_out *mo;

		if (i == tc || !st[i].counted_runs || bw_unit_bytes(list->ev[i].unit) ||
		    !strcmp(hwprof_event_unit(&list->ev[i]), "ns"))
			continue;
		mo = &out[k++];
		*mo = (struct metric_out){.unit = "/s"};
		snprintf(mo->m.name, sizeof(mo->m.name), "%.40s/s", list->ev[i].spec);
		mo->m.value = stat_mean(&st[i]) / secs;
		snprintf(mo->m.formula, sizeof(mo->m.formula), "%.0f / %.6f s", stat_mean(&st[i]),
			 secs);
	}
	return k;
}

/* The metric inputs of LIST: each event by its canonical name where it has one (PAPI_TOT_INS
 * and cpu-cycles are "instructions" and "cycles" to the metrics), into IN (list->n), and in
 * WHY the short reason of an unsupported one ("not supported on this host"), held in BUF
 * (list->n * 64 bytes). */
static void metric_inputs(const struct hwprof_event_list *list, const struct ev_stat *st,
			  struct hwprof_metric_input *in, const char **why, char *buf,
			  char (*names)[128])
{
	for (size_t i = 0; i < list->n; i++) {
		const struct hwprof_event *ev = &list->ev[i];
		char *w = buf + i * 64;

		if (ev->type == PERF_TYPE_RAW ||
		    hwprof_event_name_of(ev->type, ev->config, names[i], sizeof(names[i])) < 0)
			snprintf(names[i], sizeof(names[i]), "%s", ev->name);
		in[i] = (struct hwprof_metric_input){.event = names[i],
						     .value = stat_mean(&st[i]),
						     .counted = st[i].counted_runs > 0};
		why[i] = NULL;
		if (st[i].unsupported) {
			/* The reason without its advice: "not supported on this host". */
			const char *r = stat_unsupported_why(list, st, i);
			snprintf(w, 64, "%.*s", (int)strcspn(r, "(;"), r);
			for (size_t n = strlen(w); n && w[n - 1] == ' ';)
				w[--n] = '\0';
			why[i] = w;
		}
	}
}

size_t stat_metrics_why_not(const struct stat_opts *o, const struct hwprof_event_list *list,
			    const struct ev_stat *st, const struct metric_out *m, size_t nm,
			    bool as_error)
{
	struct hwprof_metric_input *in = xcalloc(list->n, sizeof(*in));
	const char **why = xcalloc(list->n, sizeof(*why));
	char *buf = xcalloc(list->n, 64), line[512], spec[128], (*names)[128];
	const char *name, *canon;
	size_t said = 0;

	names = xcalloc(list->n, sizeof(*names));
	metric_inputs(list, st, in, why, buf, names);
	for (size_t i = 0; hwprof_metric_name_at(i, &name) == 0; i++) {
		bool asked = false, done = false;
		int r;

		hwprof_metric_events(name, spec, sizeof(spec), &canon);
		for (const char *p = o->metrics; p && *p;) {
			size_t k = strcspn(p, ",");
			char one[64];
			const char *c2;
			snprintf(one, sizeof(one), "%.*s", (int)k, p);
			if (hwprof_metric_events(one, spec, sizeof(spec), &c2) == 0 &&
			    !strcmp(c2, canon))
				asked = true;
			p += k + (p[k] == ',');
		}
		for (size_t k = 0; k < nm; k++)
			done |= !strcmp(m[k].m.name, canon);
		/* 1: some of its inputs are in the list (asked for or not); 2: none. */
		r = hwprof_metric_why_not(name, in, list->n, why, line, sizeof(line));
		if (done || r <= 0 || (r == 2 && !asked))
			continue;
		if (as_error)
			error("%s", line);
		else
			note("%s", line);
		said++;
	}
	free(names);
	free(buf);
	free(why);
	free(in);
	return said;
}

char *stat_with_metric_events(const char *events, const char *metrics)
{
	char *spec = xstrdup(events ? events : ""), one[64], groups[128];

	for (const char *p = metrics; *p;) {
		size_t k = strcspn(p, ",");
		const char *name;
		char *next;

		snprintf(one, sizeof(one), "%.*s", (int)k, p);
		if (hwprof_metric_events(one, groups, sizeof(groups), NULL) < 0) {
			char known[256] = "";
			size_t at = 0;
			for (size_t i = 0; hwprof_metric_name_at(i, &name) == 0; i++)
				at += (size_t)snprintf(known + at, sizeof(known) - at, "%s%s",
						       i ? ", " : "", name);
			free(spec);
			die_usage("-M '%s': no metric '%s' (metrics: %s)", metrics, one, known);
		}
		next = xasprintf("%s%s%s", spec, *spec ? "," : "", groups);
		free(spec);
		spec = next;
		p += k + (p[k] == ',');
	}
	return spec;
}

size_t stat_derive_metrics(const struct hwprof_event_list *list, const struct ev_stat *st,
			   double elapsed, size_t bw_first, struct metric_out *out, size_t max)
{
	struct hwprof_metric_input *in = xcalloc(list->n, sizeof(*in));
	struct hwprof_metric m[64];
	size_t n, k = 0;

	const char **why = xcalloc(list->n, sizeof(*why));
	char *buf = xcalloc(list->n, 64), (*names)[128] = xcalloc(list->n, sizeof(*names));

	metric_inputs(list, st, in, why, buf, names);
	n = hwprof_metrics_derive(in, list->n, m, 64);
	for (size_t i = 0; i < n && k < max; i++)
		out[k++] = (struct metric_out){m[i], ""};
	k += derive_rates(list, st, elapsed, out + k, max - k);
	/* Bandwidth of byte-unit events (uncore CAS counts scaled to MiB by their .scale). */
	for (size_t i = 0; i < bw_first && k < max && elapsed > 0; i++) {
		double b = bw_unit_bytes(list->ev[i].unit);
		if (!b || !st[i].counted_runs)
			continue;
		struct metric_out *mo = &out[k++];
		*mo = (struct metric_out){.unit = "GB/s"};
		snprintf(mo->m.name, sizeof(mo->m.name), "%.30s bandwidth", list->ev[i].name);
		mo->m.value = stat_mean(&st[i]) * b / 1e9 / elapsed;
		snprintf(mo->m.formula, sizeof(mo->m.formula), "%.60s %.2f %.8s * %.0f B / %.6f s",
			 list->ev[i].name, stat_mean(&st[i]), list->ev[i].unit, b, elapsed);
	}
	free(names);
	free(buf);
	free(why);
	free(in);
	return k;
}

void stat_finish_bandwidth(struct stat_bw *bw, const struct hwprof_event_list *list,
			   const struct ev_stat *st, double elapsed)
{
	double *mean = xcalloc(list->n, sizeof(*mean));
	bool *counted = xcalloc(list->n, sizeof(*counted));

	for (size_t i = 0; i < list->n; i++) {
		mean[i] = stat_mean(&st[i]);
		counted[i] = st[i].counted_runs > 0;
	}
	stat_bw_finish(bw, list, mean, counted, elapsed);
	free(counted);
	free(mean);
}
