/* header.c - the header lines of annotate (header.h). */
#include "header.h"

#include "cli.h"
#include "hwprof/metrics.h"
#include "output.h"
#include "textfmt.h"

#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ann_digits(unsigned long long n)
{
	int d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

/* Builds one topic ("counted: a  b  c") as items, wrapping at the width with an indent. */
struct topic {
	struct ann_header *h;
	int width;
	size_t indent;
	char *cur;
	size_t len;
	bool warn;
};

static void topic_flush(struct topic *t)
{
	struct ann_header *h = t->h;

	if (!t->cur)
		return;
	xgrow(&h->lines, &h->cap, h->n + 1, sizeof(*h->lines));
	h->lines[h->n++] = (struct ann_header_line){.text = t->cur, .warn = t->warn};
	t->cur = NULL;
	t->len = 0;
	t->warn = false;
}

static void topic_begin(struct topic *t, const char *prefix)
{
	topic_flush(t);
	t->cur = xstrdup(prefix);
	t->len = strlen(prefix);
	t->indent = t->len;
}

/* Adds the N bytes of ITEM to the topic's line, or to a new, indented one when it does not fit
 * after the items already there. */
static void topic_put(struct topic *t, bool warn, const char *item, size_t n)
{
	if (t->len > t->indent && t->width > 0 && t->len + 2 + n > (size_t)t->width) {
		size_t indent = t->indent;

		topic_flush(t);
		t->cur = xmalloc(indent + 1);
		memset(t->cur, ' ', indent);
		t->cur[indent] = '\0';
		t->len = t->indent = indent;
	}
	t->cur = xrealloc(t->cur, t->len + n + 3);
	if (t->len > t->indent) {
		memcpy(t->cur + t->len, "  ", 2);
		t->len += 2;
	}
	memcpy(t->cur + t->len, item, n);
	t->len += n;
	t->cur[t->len] = '\0';
	t->warn |= warn;
}

/* Narrower than this after the indent, an item is not cut: the screen is too small anyway. */
#define ITEM_MIN_WIDTH 16

static void topic_add(struct topic *t, bool warn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void topic_add(struct topic *t, bool warn, const char *fmt, ...)
{
	char item[1024];
	const char *s = item;
	size_t n, room;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(item, sizeof(item), fmt, ap);
	va_end(ap);
	n = strlen(item);
	/* An item wider than the line (a warning naming a long path) is wrapped at its spaces:
	 * cut at the edge, its end, which says the way out, would never be seen. */
	room = t->width > 0 && (size_t)t->width > t->indent ? (size_t)t->width - t->indent : 0;
	while (room >= ITEM_MIN_WIDTH && n > room) {
		size_t cut = room;

		while (cut && s[cut] != ' ')
			cut--;
		if (!cut)
			cut = room; /* one word longer than the line */
		topic_put(t, warn, s, cut);
		s += cut;
		while (*s == ' ')
			s++;
		n = strlen(s);
	}
	if (n || s == item)
		topic_put(t, warn, s, n);
}

bool ann_event_is_hardware(const struct hwprof_file_event *e)
{
	return e->type == PERF_TYPE_HARDWARE || e->type == PERF_TYPE_HW_CACHE ||
	       e->type == PERF_TYPE_RAW;
}

static void event_topic(struct topic *t, const struct profile *p)
{
	const struct hwprof_file_event *e = profile_sampling_event(p);
	char evs[1024];

	topic_begin(t, "event: ");
	if (!e) {
		topic_add(t, true, "unknown (the file names no sampling event)");
		return;
	}
	topic_add(t, false, "%s", e->name);
	{
		char code[128];

		/* A raw, PMU or vendor event: its name and its code together. */
		if (hwprof_event_code(e->type, e->config, e->config1, e->config2, code,
				      sizeof(code)) == 0)
			topic_add(t, false, "%s", code);
	}
	if (e->freq)
		topic_add(t, false, "frequency %llu Hz", (unsigned long long)e->period_or_freq);
	else
		topic_add(t, false, "period %llu", (unsigned long long)e->period_or_freq);
	if (e->precise_max)
		topic_add(t, false, "precise_ip requested P (%u), obtained %u",
			  e->precise_requested, e->precise_obtained);
	else
		topic_add(t, false, "precise_ip requested %u, obtained %u", e->precise_requested,
			  e->precise_obtained);
	if (ann_event_is_hardware(e) && !e->precise_obtained)
		topic_add(t, true, "(skid: a sample's line may follow the one that caused it)");
	/* Every sampling event of the recording, when there are several (one is shown). */
	if (profile_events_label(p, evs, sizeof(evs)) > 1) {
		size_t empty = 0;

		topic_begin(t, "events recorded: ");
		for (uint32_t i = 0; i < p->header.nevents; i++) {
			const struct hwprof_file_event *x = &p->header.events[i];
			uint64_t k = p->event_samples ? p->event_samples[i] : 0;

			if (!x->sampling && i != p->event)
				continue;
			if (!profile_event_listed(p, i)) {
				empty++;
				continue;
			}
			topic_add(t, false, "%s (%s%llu sample%s)", x->name,
				  i == p->event ? "shown, " : "", (unsigned long long)k,
				  k == 1 ? "" : "s");
		}
		if (empty)
			topic_add(t, false, "and %zu event%s with no samples", empty,
				  empty == 1 ? "" : "s");
		topic_add(t, false, "--event NAME shows another");
	}
}

static void samples_topic(struct topic *t, const struct profile *p)
{
	const struct hwprof_file_trailer *tr = &p->trailer;
	struct profile_lost lost;
	char num[32];

	topic_begin(t, "samples: ");
	topic_add(t, false, "%s", hwprof_group_digits(p->samples, num, sizeof(num)));
	profile_lost(p, &lost);
	if (lost.lost)
		topic_add(t, true, "lost: %s%s (%.1f%%%s)", lost.at_least ? "at least " : "",
			  hwprof_group_digits(lost.lost, num, sizeof(num)),
			  lost.of ? 100.0 * (double)lost.lost / (double)lost.of : 0.0,
			  lost.per_event ? "" : " of all events");
	else
		topic_add(t, lost.at_least, "lost: %s", lost.at_least ? "unknown" : "0");
	if (lost.at_least)
		topic_add(t, true, "(a file has no trailer: LOST records only)");
	if (p->have_trailer) {
		if (tr->throttles)
			topic_add(t, true, "throttled: %llu times",
				  (unsigned long long)tr->throttles);
		topic_add(t, false, "duration: %.3f s", (double)tr->duration_ns / 1e9);
	}
	if (p->header.argc) {
		size_t start = profile_command_start(p), n = p->header.argc - start;
		char **words = xcalloc(n, sizeof(*words));
		char *cmd, *slash;

		/* The program's base name: its directory says little and costs a line. */
		memcpy(words, p->header.argv + start, n * sizeof(*words));
		slash = words[0] ? strrchr(words[0], '/') : NULL;
		if (slash && slash[1])
			words[0] = slash + 1;
		cmd = hwprof_argv_line(words, n);
		if (!cmd)
			die("out of memory");
		if (strlen(cmd) >= 160)
			memcpy(cmd + 156, "...", 4);
		topic_add(t, false, "target: %s", cmd);
		free(cmd);
		free(words);
	}
}

static void counted_topic(struct topic *t, const struct profile *p)
{
	const struct hwprof_file_trailer *tr = &p->trailer;
	struct hwprof_metric metrics[32];
	size_t nmetrics;
	struct hwprof_count worst = {0}; /* the counted total with the lowest ratio */
	const char *worst_event = NULL;
	char num[32];

	topic_begin(t, "counted: ");
	if (!p->have_trailer) {
		topic_add(t, true, "unknown (the file was cut short before its counted totals)");
		return;
	}
	if (!tr->ncounts) {
		topic_add(t, false, "none (recorded without a counting group)");
		return;
	}
	for (uint32_t i = 0; i < tr->ncounts; i++) {
		const struct hwprof_file_count *c = &tr->counts[i];
		struct hwprof_count k = profile_count_read(c);

		if (profile_count_partial(p, i)) {
			/* Merged inputs, some without it: a sum over part of the run. */
			topic_add(t, true, "%s counted in %u of %u inputs (no total)", c->event,
				  p->count_inputs[i], p->ninputs);
			continue;
		}
		if (!k.counted) {
			topic_add(t, true, "%s not counted", c->event);
			continue;
		}
		topic_add(t, false, "%s %s%s%s", c->event,
			  hwprof_count_text(k.scaled, c->unit, num, sizeof(num)),
			  c->unit[0] ? " " : "", c->unit);
		/* Only a total that ran part of its time names the lowest ratio. */
		if (k.ratio < 1.0 && (!worst_event || k.ratio < worst.ratio)) {
			worst = k;
			worst_event = c->event;
		}
	}
	/* Multiplexing gets a line of its own only when it is flagged. */
	if (worst_event && !hwprof_count_multiplexed(&worst))
		topic_add(t, false, "multiplexing: lowest %s ran %.0f%%", worst_event,
			  100 * worst.ratio);
	else if (!worst_event)
		topic_add(t, false, "multiplexing: none");
	nmetrics = profile_metrics(p, metrics, sizeof(metrics) / sizeof(metrics[0]));
	if (nmetrics) {
		topic_begin(t, "metrics: ");
		for (size_t i = 0; i < nmetrics; i++)
			topic_add(t, false, "%s %s", metrics[i].name,
				  hwprof_metric_text(&metrics[i], num, sizeof(num)));
	}
	if (worst_event && hwprof_count_multiplexed(&worst)) {
		topic_begin(t, "multiplexing: ");
		topic_add(t, true,
			  "%s ran %.0f%% of the time, under %.0f%%: its count is a scaled estimate",
			  worst_event, 100 * worst.ratio, 100 * HWPROF_MULTIPLEX_FLAG);
	}
}

void ann_header_build(struct ann_header *h, const struct profile *p, int width)
{
	struct topic t = {.h = h, .width = width};

	h->lines = NULL;
	h->n = 0;
	h->cap = 0;
	event_topic(&t, p);
	samples_topic(&t, p);
	counted_topic(&t, p);
	for (size_t i = 0; i < p->nwarnings; i++) {
		topic_begin(&t, "warning: ");
		topic_add(&t, true, "%s", p->warnings[i]);
	}
	topic_flush(&t);
}

void ann_header_release(struct ann_header *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->lines[i].text);
	free(h->lines);
	h->lines = NULL;
	h->n = 0;
	h->cap = 0;
}
