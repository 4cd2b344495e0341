/* output_json.c - one object: {"header": {...}, "rows": [...]}. */
#include "output.h"
#include "rows_data.h"

#include "datasrc.h"
#include "json.h"
#include "textfmt.h"

#include "hwprof/metrics.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

/* A value with 10 significant digits, or null when not KNOWN. */
static void num_or_null(struct hwprof_jw *j, const char *key, double v, bool known)
{
	if (known)
		hwprof_jw_double(j, key, v, 10);
	else
		hwprof_jw_null(j, key);
}

static void line_or_null(struct hwprof_jw *j, int line)
{
	if (line)
		hwprof_jw_int(j, "line", line);
	else
		hwprof_jw_null(j, "line");
}

static void header_counts(struct hwprof_jw *j, const struct profile *p)
{
	const struct hwprof_file_trailer *t = &p->trailer;

	hwprof_jw_array(j, "counts");
	for (uint32_t i = 0; i < t->ncounts; i++) {
		const struct hwprof_file_count *c = &t->counts[i];
		struct hwprof_count k = profile_count_read(c);
		bool partial = profile_count_partial(p, i);
		bool counted = k.counted && !partial;
		uint32_t inputs_counted = p->count_inputs ? p->count_inputs[i]
					  : k.counted	  ? p->ninputs
							  : 0;
		hwprof_jw_object(j, NULL);
		hwprof_jw_str(j, "event", c->event);
		/* Counted by some inputs only: a sum over part of the run is no total. */
		if (partial) {
			hwprof_jw_null(j, "value");
			hwprof_jw_null(j, "enabled_ns");
			hwprof_jw_null(j, "running_ns");
		} else {
			hwprof_jw_uint(j, "value", c->value);
			hwprof_jw_uint(j, "enabled_ns", c->enabled_ns);
			hwprof_jw_uint(j, "running_ns", c->running_ns);
		}
		num_or_null(j, "scaled", k.scaled, counted);
		hwprof_jw_bool(j, "counted", counted);
		num_or_null(j, "running_ratio", k.ratio, !partial);
		hwprof_jw_str(j, "unit", c->unit);
		hwprof_jw_uint(j, "inputs_counted", inputs_counted);
		hwprof_jw_uint(j, "inputs", p->ninputs);
		hwprof_jw_end(j);
	}
	hwprof_jw_end(j);
}

static void header(struct hwprof_jw *j, const struct profile *p)
{
	const struct hwprof_file_event *ev = profile_sampling_event(p);
	const struct hwprof_file_trailer *t = &p->trailer;
	struct hwprof_metric m[16];
	size_t nm = profile_metrics(p, m, sizeof(m) / sizeof(m[0]));
	struct profile_lost lost;

	profile_lost(p, &lost);
	hwprof_jw_object(j, "header");
	hwprof_jw_str(j, "event", ev ? ev->name : NULL);
	hwprof_jw_uint(j, "samples", p->samples);
	hwprof_jw_uint(j, "samples_read", p->samples_read);
	hwprof_jw_uint(j, "lost", lost.lost);
	hwprof_jw_uint(j, "lost_of", lost.of);
	hwprof_jw_bool(j, "lost_per_event", lost.per_event);
	hwprof_jw_bool(j, "lost_at_least", lost.at_least);
	hwprof_jw_uint(j, "throttles", t->throttles);
	hwprof_jw_uint(j, "precise_ip_requested", ev ? ev->precise_requested : 0);
	hwprof_jw_uint(j, "precise_ip_obtained", ev ? ev->precise_obtained : 0);
	if (ev)
		hwprof_jw_uint(j, ev->freq ? "frequency_hz" : "period", ev->period_or_freq);
	if (p->have_trailer)
		hwprof_jw_uint(j, "duration_ns", t->duration_ns);
	else
		hwprof_jw_null(j, "duration_ns");
	hwprof_jw_str_array(j, "command", p->header.argv, p->header.argc);
	hwprof_jw_bool(j, "system_wide", p->header.system_wide);
	if (p->header.system_wide)
		hwprof_jw_str(j, "cpus", p->header.cpus);
	hwprof_jw_array(j, "events");
	for (uint32_t i = 0; i < p->header.nevents; i++) {
		const struct hwprof_file_event *e = &p->header.events[i];
		if (!e->sampling && i != p->event)
			continue;
		hwprof_jw_object(j, NULL);
		hwprof_jw_str(j, "name", e->name);
		hwprof_jw_bool(j, "shown", i == p->event);
		hwprof_jw_uint(j, "samples", p->event_samples ? p->event_samples[i] : 0);
		hwprof_jw_end(j);
	}
	hwprof_jw_end(j);
	hwprof_jw_str(j, "cpu", p->header.cpu_model);
	header_counts(j, p);
	hwprof_jw_array(j, "metrics");
	for (size_t i = 0; i < nm; i++)
		hwprof_jw_metric(j, &m[i], 10);
	hwprof_jw_end(j);
	hwprof_jw_str_array(j, "warnings", p->warnings, p->nwarnings);
	hwprof_jw_str_array(j, "notes", p->notes, p->nnotes);
	hwprof_jw_bool(j, "partial", p->partial);
	hwprof_jw_end(j);
}

static void json_frame(struct hwprof_jw *j, const struct cg_frame *fr)
{
	hwprof_jw_object(j, NULL);
	hwprof_jw_str(j, "function", fr->unknown ? "[unknown]" : fr->function);
	hwprof_jw_str(j, "file", fr->file);
	line_or_null(j, fr->line);
	hwprof_jw_str(j, "dso", fr->dso);
	if (fr->unknown)
		hwprof_jw_uint(j, "offset", fr->offset);
	else
		hwprof_jw_null(j, "offset");
	hwprof_jw_end(j);
}

/* Each distinct path of T (a node where paths end: its cost beyond its children's) at or
 * above the share limit, the row's frame's callers outward; PATH holds the node ids from the
 * root's first child down to ID (DEPTH of them). */
static void json_paths(struct hwprof_jw *j, const struct profile *p, const struct cg_tree *t,
		       uint32_t id, uint32_t *path, size_t depth, const struct output_opts *o)
{
	const struct cg_node *node = &t->v[id];
	double period = node->period;
	uint64_t samples = node->samples;

	for (uint32_t c = node->child; c; c = t->v[c - 1].next) {
		period -= t->v[c - 1].period;
		samples -= t->v[c - 1].samples;
	}
	if (samples && period * 100 >= o->percent_limit * p->period) {
		hwprof_jw_object(j, NULL);
		hwprof_jw_uint(j, "samples", samples);
		hwprof_jw_double(j, "period", period, 10);
		hwprof_jw_double(j, "share", p->period > 0 ? period / p->period : 0, 10);
		hwprof_jw_array(j, "frames");
		for (size_t k = 0; k < depth; k++)
			json_frame(j, &t->v[path[k]].frame);
		hwprof_jw_end(j);
		hwprof_jw_end(j);
	}
	for (uint32_t c = node->child; c; c = t->v[c - 1].next) {
		path[depth] = c - 1;
		json_paths(j, p, t, c - 1, path, depth + 1, o);
	}
}

static int json_row_paths(struct hwprof_jw *j, const struct profile *p, uint32_t row,
			  const struct output_opts *o)
{
	struct cg_tree t;
	uint32_t *path;

	if (cg_tree_build(p, o->row_of, row, o->children, CG_CALLEE, o->inline_frames, &t) < 0)
		return -ENOMEM;
	path = malloc(t.n * sizeof(*path));
	if (!path) {
		cg_tree_release(&t);
		return -ENOMEM;
	}
	hwprof_jw_array(j, "call_paths");
	json_paths(j, p, &t, 0, path, 0, o);
	hwprof_jw_end(j);
	free(path);
	cg_tree_release(&t);
	return 0;
}

/* A data row's object, cache line, source lines, data source and latency. */
static void json_row_data(struct hwprof_jw *j, const struct profile_row *r)
{
	static const char *const kinds[] = {
	    [PROFILE_DATA_UNKNOWN] = "unknown", [PROFILE_DATA_VAR] = "variable",
	    [PROFILE_DATA_FILE] = "file",	[PROFILE_DATA_HEAP] = "heap",
	    [PROFILE_DATA_STACK] = "stack",	[PROFILE_DATA_ANON] = "anon",
	};
	const struct profile_row_data *d = r->data;
	char buf[1024];

	hwprof_jw_object(j, "data");
	hwprof_jw_str(j, "object", d->object ? row_data_label(r, buf, sizeof(buf)) : NULL);
	hwprof_jw_str(j, "key", d->object);
	hwprof_jw_str(j, "kind", d->object ? kinds[d->kind] : NULL);
	if (d->object && d->elem_lo >= 0) { /* a mixed row's range would span objects */
		hwprof_jw_int(j, "elem_low", d->elem_lo);
		hwprof_jw_int(j, "elem_high", d->elem_hi);
	}
	if (d->base) {
		hwprof_jw_str(j, "cacheline", row_cacheline_label(r, buf, sizeof(buf)));
		hwprof_jw_str(j, "base", d->base);
		hwprof_jw_int(j, "line_offset", d->line);
		hwprof_jw_uint(j, "line_size", d->line_size);
	}
	hwprof_jw_uint(j, "srclines", d->srclines);
	if (d->src_samples) {
		hwprof_jw_uint(j, "src_samples", d->src_samples);
		hwprof_jw_str(j, "served_from", data_level_name(d->level));
		hwprof_jw_double(j, "served_share", d->level_share, 6);
		hwprof_jw_str(j, "tlb", d->tlb ? data_tlb_name(d->tlb) : NULL);
		hwprof_jw_double(j, "tlb_share", d->tlb_share, 6);
	}
	if (d->weighted) {
		hwprof_jw_uint(j, "weighted_samples", d->weighted);
		hwprof_jw_double(j, "latency_mean", d->weight_mean, 6);
		hwprof_jw_double(j, "latency_p90", d->weight_p90, 6);
	}
	hwprof_jw_end(j);
}

static int json_row(struct hwprof_jw *j, const struct profile *p, const struct profile_row *r,
		    uint32_t i, const struct output_opts *o)
{
	hwprof_jw_newline(j);
	hwprof_jw_object(j, NULL);
	hwprof_jw_uint(j, "samples", r->samples);
	hwprof_jw_double(j, "period", r->period, 10);
	hwprof_jw_double(j, "share", r->share, 10);
	hwprof_jw_array(j, "share_ci95");
	hwprof_jw_double(j, NULL, r->ci_lo, 10);
	hwprof_jw_double(j, NULL, r->ci_hi, 10);
	hwprof_jw_end(j);
	hwprof_jw_bool(j, "rank_uncertain", r->rank_uncertain);
	hwprof_jw_str(j, "file", r->file);
	line_or_null(j, r->line);
	hwprof_jw_str(j, "function", r->unknown ? "[unknown]" : r->function);
	hwprof_jw_str(j, "inlined_into", r->inlined_into);
	hwprof_jw_str(j, "dso", r->dso);
	if (r->offset_mixed)
		hwprof_jw_null(j, "offset");
	else
		hwprof_jw_uint(j, "offset", r->offset);
	if (output_has_key(o, PROFILE_KEY_ADDR)) {
		char a[32];

		snprintf(a, sizeof(a), "0x%" PRIx64, r->addr);
		hwprof_jw_str(j, "address", r->addr_mixed || r->unknown ? NULL : a);
		hwprof_jw_str(j, "instruction", r->insn);
	}
	if (r->data)
		json_row_data(j, r);
	if (o->children) {
		hwprof_jw_uint(j, "self_samples", r->self_samples);
		hwprof_jw_double(j, "self_period", r->self_period, 10);
		hwprof_jw_double(j, "self_share", r->self_share, 10);
	}
	if (p->nstacks && o->row_of && json_row_paths(j, p, i, o) < 0)
		return -ENOMEM;
	hwprof_jw_end(j);
	return 0;
}

int output_json(FILE *f, const struct profile *p, const struct profile_row *rows, size_t n,
		const struct output_opts *o)
{
	struct hwprof_jw j;

	hwprof_jw_init(&j, f, true);
	hwprof_jw_object(&j, NULL);
	hwprof_jw_version(&j);
	header(&j, p);
	hwprof_jw_str(&j, "inline", o->inline_mode == INLINE_CALLER ? "caller" : "callee");
	if (p->nstacks) {
		hwprof_jw_bool(&j, "inline_frames", o->inline_frames);
		hwprof_jw_bool(&j, "children", o->children);
		hwprof_jw_uint(&j, "stacks", p->nstacks);
		hwprof_jw_uint(&j, "truncated_samples", p->truncated_samples);
	}
	hwprof_jw_array(&j, "rows");
	for (size_t i = 0; i < n; i++)
		if (json_row(&j, p, &rows[i], (uint32_t)i, o) < 0)
			return -ENOMEM;
	hwprof_jw_end(&j);
	hwprof_jw_end(&j);
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}
