/* output_text.c - the human report: a header of recording facts, then aligned rows. */
#include "output.h"
#include "textfmt.h"

#include "hwprof/metrics.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LOC_WIDTH 36
/* The instruction column of --sort addr: longer texts are cut. */
#define INSN_WIDTH 32
/* The function column is as wide as its longest name up to FN_MAX_WIDTH: "f (inlined into
 * caller)" must stay whole when it fits on a wide line, a long C++ signature is cut. */
#define FN_MAX_WIDTH 72

/* The header's line of the sampling event EV: its name, code, rate and precision. */
static void print_event(FILE *f, const struct hwprof_file_event *ev)
{
	char code[128];

	fprintf(f, "# event: %s, ", ev->name);
	/* A raw, PMU or vendor event: its name and its code together. */
	if (hwprof_event_code(ev->type, ev->config, ev->config1, ev->config2, code, sizeof(code)) ==
	    0)
		fprintf(f, "%s, ", code);
	if (ev->freq)
		fprintf(f, "%" PRIu64 " Hz", ev->period_or_freq);
	else
		fprintf(f, "period %" PRIu64, ev->period_or_freq);
	fprintf(f, ", precise_ip requested %u, obtained %u%s\n", ev->precise_requested,
		ev->precise_obtained,
		ev->precise_obtained < ev->precise_requested ? " (stepped down)" : "");
}

/* The header's counted totals of P (one line per counted event) and the metrics derived
 * from them. */
static void print_counts(FILE *f, const struct profile *p)
{
	const struct hwprof_file_trailer *t = &p->trailer;
	struct hwprof_metric m[16];
	char num[64];
	size_t nm;

	fprintf(f, "# counted totals (time counted / enabled):\n");
	for (uint32_t i = 0; i < t->ncounts; i++) {
		const struct hwprof_file_count *c = &t->counts[i];
		struct hwprof_count k = profile_count_read(c);

		if (profile_count_partial(p, i)) {
			fprintf(f,
				"#   %-28s counted in %" PRIu32 " of %" PRIu32
				" inputs (no total)\n",
				c->event, p->count_inputs[i], p->ninputs);
			continue;
		}
		if (!k.counted) {
			fprintf(f, "#   %-28s %18s\n", c->event, "not counted");
			continue;
		}
		fprintf(f, "#   %-28s %18s %s  %5.1f%%", c->event,
			hwprof_count_text(k.scaled, c->unit, num, sizeof(num)), c->unit,
			k.ratio * 100);
		if (hwprof_count_multiplexed(&k))
			fprintf(f, "  (multiplexed: under %.0f%%, scaled)",
				100 * HWPROF_MULTIPLEX_FLAG);
		fputc('\n', f);
	}
	nm = profile_metrics(p, m, sizeof(m) / sizeof(m[0]));
	for (size_t i = 0; i < nm; i++)
		fprintf(f, "#   %-28s %18s  %s\n", m[i].name,
			hwprof_metric_text(&m[i], num, sizeof(num)), m[i].formula);
}

/* The recording's facts above the rows. Returns 0, or -ENOMEM. */
static int print_header(FILE *f, const struct profile *p)
{
	const struct hwprof_file_event *ev = profile_sampling_event(p);
	const struct hwprof_file_trailer *t = &p->trailer;
	struct profile_lost lost;

	if (ev)
		print_event(f, ev);
	/* Every sampling event of the recording, when there are several (one is shown). */
	{
		char evs[4096];
		if (profile_events_label(p, evs, sizeof(evs)) > 1)
			fprintf(f, "# events recorded: %s; --event NAME shows another\n", evs);
	}
	fprintf(f, "# samples: %" PRIu64, p->samples);
	if (p->samples != p->samples_read)
		fprintf(f, " of %" PRIu64 " (filtered)", p->samples_read);
	profile_lost(p, &lost);
	/* No trailer and no LOST record: "at least 0" would say nothing. */
	if (lost.at_least && !lost.lost)
		fprintf(f, ", lost: unknown");
	else
		fprintf(f, ", lost: %s%" PRIu64 "%s", lost.at_least ? "at least " : "", lost.lost,
			lost.per_event ? "" : " (of all events)");
	fprintf(f, ", throttled: %" PRIu64, t->throttles);
	if (p->have_trailer)
		fprintf(f, ", duration: %.3f s", (double)t->duration_ns / 1e9);
	fputc('\n', f);
	if (p->header.argc) {
		char *cmd = hwprof_argv_line(p->header.argv, p->header.argc);

		if (!cmd)
			return -ENOMEM;
		fprintf(f, "# command: ");
		hwprof_text_put(f, cmd);
		fputc('\n', f);
		free(cmd);
	}
	if (p->header.system_wide)
		fprintf(f, "# system-wide: every task on %s%s\n",
			p->header.cpus[0] ? "CPUs " : "every CPU", p->header.cpus);
	if (p->header.cpu_model[0] || p->header.kernel[0])
		fprintf(f, "# host: %s, %u CPUs, Linux %s\n", p->header.cpu_model, p->header.ncpus,
			p->header.kernel);
	if (t->ncounts)
		print_counts(f, p);
	fputc('\n', f);
	return 0;
}

/* The children of node ID of T, their shares at column INDENT: a node that is its parent's
 * only child at the parent's cost continues the parent's line of frames under it (a straight
 * chain stays at one indent, so deep recursion does not walk off the screen); where paths
 * branch, each branch gets its share, two columns deeper. */
static void print_children(FILE *f, const struct profile *p, const struct cg_tree *t, uint32_t id,
			   int indent, const struct output_opts *o)
{
	const struct cg_node *node = &t->v[id];
	size_t nkids = 0;
	char label[4096];

	for (uint32_t c = node->child; c; c = t->v[c - 1].next)
		if (t->v[c - 1].period * 100 >= o->percent_limit * p->period)
			nkids++;
	for (uint32_t c = node->child; c; c = t->v[c - 1].next) {
		const struct cg_node *k = &t->v[c - 1];
		bool chain = nkids == 1 && k->period == node->period;
		if (k->period * 100 < o->percent_limit * p->period)
			continue;
		cg_frame_label(&k->frame, false, label, sizeof(label));
		if (chain) /* under the parent's frame */
			fprintf(f, "%*s%s\n", indent + 7, "", label);
		else
			fprintf(f, "%*s%6.2f%%  %s\n", indent, "",
				p->period > 0 ? k->period * 100 / p->period : 0, label);
		print_children(f, p, t, c - 1, chain ? indent : indent + 2, o);
	}
}

static int print_paths(FILE *f, const struct profile *p, uint32_t row, const struct output_opts *o)
{
	struct cg_tree t;

	if (cg_tree_build(p, o->row_of, row, o->children, o->order, o->inline_frames, &t) < 0)
		return -ENOMEM;
	if (t.v[0].child) {
		print_children(f, p, &t, 0, 10, o);
		fputc('\n', f);
	}
	cg_tree_release(&t);
	return 0;
}

/* Long paths keep their end, which names the file. */
static void fit(char *s, size_t width)
{
	size_t len = strlen(s);

	if (len <= width)
		return;
	memmove(s + 3, s + len - (width - 3), width - 3 + 1);
	memcpy(s, "...", 3);
}

/* --group: per printed row and value-vector column, the row's share of that event's period
 * (NROWS x P->nvalues, malloc'd), or NULL without the vector. The row's locations are found
 * through O->row_of; each location's own values are the vector's (profile.loc_values). */
static double *group_shares(const struct profile *p, size_t nrows, const struct output_opts *o)
{
	uint32_t nv = p->nvalues;
	double *share, *total;

	if (!o->group || !nv || !o->row_of)
		return NULL;
	share = calloc(nrows * nv + 1, sizeof(*share));
	total = calloc(nv, sizeof(*total));
	if (!share || !total) {
		free(share);
		free(total);
		return NULL;
	}
	for (size_t i = 0; i < p->nvsamples; i++)
		for (uint32_t c = 0; c < nv; c++)
			total[c] += p->vsamples[i].values[c].period;
	for (size_t i = 0; i < p->nlocations; i++) {
		uint32_t r = o->row_of[i];
		if (r >= nrows)
			continue;
		for (uint32_t c = 0; c < nv; c++)
			share[r * nv + c] += p->loc_values[i * nv + c].period;
	}
	for (size_t r = 0; r < nrows; r++)
		for (uint32_t c = 0; c < nv; c++)
			share[r * nv + c] = total[c] > 0 ? share[r * nv + c] / total[c] : 0;
	free(total);
	return share;
}

/* The width of --group's column C: its event's name, at least a share's. */
static int group_width(const struct profile *p, uint32_t c)
{
	size_t w = strlen(p->header.events[p->value_event[c]].name);

	return w > 7 ? (int)w : 7;
}

/* The width of the function column: as wide as the longest of the N ROWS' function names,
 * at least its title's, at most FN_MAX_WIDTH. */
static size_t function_width(const struct profile_row *rows, size_t n)
{
	size_t fn_width = strlen("function");
	char fn[4096];

	for (size_t i = 0; i < n && fn_width < FN_MAX_WIDTH; i++) {
		row_function_label(&rows[i], fn, sizeof(fn));
		size_t w = hwprof_text_width(fn);
		fn_width = w > fn_width ? (w < FN_MAX_WIDTH ? w : FN_MAX_WIDTH) : fn_width;
	}
	return fn_width;
}

/* The columns' titles: the shares (with GROUP, every other sampled event's too), and with
 * ADDR the address and instruction columns. */
static void print_titles(FILE *f, const struct profile *p, const struct output_opts *o,
			 const double *group, bool addr, size_t fn_width)
{
	if (o->children)
		fprintf(f, "%8s %7s  ", "children", "self");
	else
		fprintf(f, "%7s  ", "share");
	/* --group: every other sampled event's share of the same rows. */
	for (uint32_t c = 0; group && c < p->nvalues; c++)
		if (p->value_event[c] != p->event)
			fprintf(f, "%*s  ", group_width(p, c),
				p->header.events[p->value_event[c]].name);
	if (addr)
		fprintf(f, "%-15s %9s  %-10s %-*s  %-*s  %-*s  %s\n", "95% interval", "samples",
			"address", INSN_WIDTH, "instruction", LOC_WIDTH,
			o->inline_mode == INLINE_CALLER ? "file:line (call site)" : "file:line",
			(int)fn_width, "function", "dso");
	else
		fprintf(f, "%-15s %9s  %-*s  %-*s  %s\n", "95% interval", "samples", LOC_WIDTH,
			o->inline_mode == INLINE_CALLER ? "file:line (call site)" : "file:line",
			(int)fn_width, "function", "dso");
}

/* Row I (R) in the columns print_titles() names; GROUP holds its --group shares. */
static void print_row(FILE *f, const struct profile *p, const struct profile_row *r, size_t i,
		      const struct output_opts *o, const double *group, bool addr, size_t fn_width)
{
	char loc[4096], fn[4096], ci[32];

	row_location_label(r, false, loc, sizeof(loc));
	row_function_label(r, fn, sizeof(fn));
	fit(loc, LOC_WIDTH);
	/* Rounded outward, so that the share (two decimals) stays inside. */
	snprintf(ci, sizeof(ci), "[%.1f, %.1f]", floor(r->ci_lo * 1000) / 10,
		 fmin(ceil(r->ci_hi * 1000) / 10, 100.0));
	if (o->children)
		fprintf(f, "%7.2f%%%c%6.2f%%  ", r->share * 100, r->rank_uncertain ? '~' : ' ',
			r->self_share * 100);
	else
		fprintf(f, "%6.2f%%%c ", r->share * 100, r->rank_uncertain ? '~' : ' ');
	for (uint32_t c = 0; group && c < p->nvalues; c++)
		if (p->value_event[c] != p->event)
			fprintf(f, "%*.2f%%  ", group_width(p, c) - 1,
				group[i * p->nvalues + c] * 100);
	fprintf(f, "%-15s %9" PRIu64 "  ", ci, r->samples);
	if (addr) {
		char a[32] = "", in[INSN_WIDTH + 1];

		if (!r->addr_mixed && !r->unknown)
			snprintf(a, sizeof(a), "0x%" PRIx64, r->addr);
		snprintf(in, sizeof(in), "%s", r->insn ? r->insn : "");
		fprintf(f, "%-10s ", a);
		hwprof_text_column(f, in, INSN_WIDTH);
		fputs("  ", f);
	}
	fprintf(f, "%-*s  ", LOC_WIDTH, loc);
	hwprof_text_column(f, fn, fn_width);
	fputs("  ", f);
	hwprof_text_put(f, r->dso ? path_base(r->dso) : "");
	fputc('\n', f);
}

/* The N ROWS, each with its call paths under -G. Sets *UNCERTAIN when a row's rank is not
 * settled. Returns 0 or -ENOMEM. */
static int print_rows(FILE *f, const struct profile *p, const struct profile_row *rows, size_t n,
		      const struct output_opts *o, bool *uncertain)
{
	bool addr = output_has_key(o, PROFILE_KEY_ADDR);
	size_t fn_width = function_width(rows, n);
	double *group = group_shares(p, n, o);

	if (o->group && p->nvalues && !group)
		return -ENOMEM;
	print_titles(f, p, o, group, addr, fn_width);
	for (size_t i = 0; i < n; i++) {
		print_row(f, p, &rows[i], i, o, group, addr, fn_width);
		*uncertain |= rows[i].rank_uncertain;
		if (o->callgraph && p->nstacks && print_paths(f, p, (uint32_t)i, o) < 0) {
			free(group);
			return -ENOMEM;
		}
	}
	free(group);
	return 0;
}

int output_text(FILE *f, const struct profile *p, const struct profile_row *rows, size_t n,
		const struct output_opts *o)
{
	bool uncertain = false;

	if (print_header(f, p) < 0)
		return -ENOMEM;
	if (!n) {
		if (o->omitted)
			fprintf(f,
				"no row reaches --percent-limit (%zu rows left out; lower it, or "
				"give --percent-limit 0)\n",
				o->omitted);
		else
			fprintf(f, "no samples%s\n", p->samples_read ? " pass the filters" : "");
		return ferror(f) ? -EIO : 0;
	}
	if (rows[0].data) {
		if (output_data_rows(f, p, rows, n, o, &uncertain) < 0)
			return -EIO;
	} else if (print_rows(f, p, rows, n, o, &uncertain) < 0) {
		return -ENOMEM;
	}
	if (o->omitted)
		fprintf(f, "... %zu more rows (--limit 0 --percent-limit 0 shows all)\n",
			o->omitted);
	if (uncertain)
		fprintf(f, "\n~ rank not settled: the row's 95%% interval overlaps a neighbour's "
			   "(record longer or at a higher rate for more samples)\n");
	return ferror(f) ? -EIO : 0;
}
