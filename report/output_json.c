/* output_json.c - one object: {"header": {...}, "rows": [...]}. */
#include "output.h"
#include "textfmt.h"

#include "hwprof/metrics.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

static void header(FILE *f, const struct profile *p)
{
	const struct hwprof_file_event *ev = profile_sampling_event(p);
	const struct hwprof_file_trailer *t = &p->trailer;
	struct hwprof_metric m[16];
	size_t nm = profile_metrics(p, m, sizeof(m) / sizeof(m[0]));

	struct profile_lost lost;

	profile_lost(p, &lost);
	fputs("{\"event\":", f);
	hwprof_json_str(f, ev ? ev->name : NULL);
	fprintf(f,
		",\"samples\":%" PRIu64 ",\"samples_read\":%" PRIu64 ",\"lost\":%" PRIu64
		",\"lost_of\":%" PRIu64 ",\"lost_per_event\":%s,\"lost_at_least\":%s"
		",\"throttles\":%" PRIu64,
		p->samples, p->samples_read, lost.lost, lost.of, lost.per_event ? "true" : "false",
		lost.at_least ? "true" : "false", t->throttles);
	fprintf(f, ",\"precise_ip_requested\":%u,\"precise_ip_obtained\":%u",
		ev ? ev->precise_requested : 0, ev ? ev->precise_obtained : 0);
	if (ev)
		fprintf(f, ",\"%s\":%" PRIu64, ev->freq ? "frequency_hz" : "period",
			ev->period_or_freq);
	fputs(",\"duration_ns\":", f);
	if (p->have_trailer)
		fprintf(f, "%" PRIu64, t->duration_ns);
	else
		fputs("null", f);
	fputs(",\"command\":[", f);
	for (uint32_t i = 0; i < p->header.argc; i++) {
		if (i)
			fputc(',', f);
		hwprof_json_str(f, p->header.argv[i]);
	}
	fputs("],\"events\":[", f);
	for (uint32_t i = 0, k = 0; i < p->header.nevents; i++) {
		const struct hwprof_file_event *e = &p->header.events[i];
		if (!e->sampling && i != p->event)
			continue;
		fputs(k++ ? ",{\"name\":" : "{\"name\":", f);
		hwprof_json_str(f, e->name);
		fprintf(f, ",\"shown\":%s,\"samples\":%" PRIu64 "}",
			i == p->event ? "true" : "false",
			p->event_samples ? p->event_samples[i] : 0);
	}
	fputs("],\"cpu\":", f);
	hwprof_json_str(f, p->header.cpu_model);
	fputs(",\"counts\":[", f);
	for (uint32_t i = 0; i < t->ncounts; i++) {
		const struct hwprof_file_count *c = &t->counts[i];
		struct hwprof_count k = profile_count_read(c);
		bool partial = profile_count_partial(p, i);
		bool counted = k.counted && !partial;
		uint32_t inputs_counted = p->count_inputs ? p->count_inputs[i]
					  : k.counted	  ? p->ninputs
							  : 0;
		fputs(i ? ",{\"event\":" : "{\"event\":", f);
		hwprof_json_str(f, c->event);
		/* Counted by some inputs only: a sum over part of the run is no total. */
		if (partial)
			fputs(",\"value\":null,\"enabled_ns\":null,\"running_ns\":null", f);
		else
			fprintf(f,
				",\"value\":%" PRIu64 ",\"enabled_ns\":%" PRIu64
				",\"running_ns\":%" PRIu64,
				c->value, c->enabled_ns, c->running_ns);
		fputs(",\"scaled\":", f);
		if (counted)
			hwprof_json_double(f, k.scaled, 10);
		else
			fputs("null", f);
		fprintf(f, ",\"counted\":%s,\"running_ratio\":", counted ? "true" : "false");
		if (partial)
			fputs("null", f);
		else
			hwprof_json_double(f, k.ratio, 10);
		fputs(",\"unit\":", f);
		hwprof_json_str(f, c->unit);
		fprintf(f, ",\"inputs_counted\":%" PRIu32 ",\"inputs\":%" PRIu32 "}",
			inputs_counted, p->ninputs);
	}
	fputs("],\"metrics\":[", f);
	for (size_t i = 0; i < nm; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		hwprof_json_str(f, m[i].name);
		fputs(",\"value\":", f);
		hwprof_json_double(f, m[i].value, 10);
		fputs(",\"formula\":", f);
		hwprof_json_str(f, m[i].formula);
		fputc('}', f);
	}
	fputs("],\"warnings\":[", f);
	for (size_t i = 0; i < p->nwarnings; i++) {
		if (i)
			fputc(',', f);
		hwprof_json_str(f, p->warnings[i]);
	}
	fputs("],\"notes\":[", f);
	for (size_t i = 0; i < p->nnotes; i++) {
		if (i)
			fputc(',', f);
		hwprof_json_str(f, p->notes[i]);
	}
	fprintf(f, "],\"partial\":%s}", p->partial ? "true" : "false");
}

static void json_frame(FILE *f, const struct cg_frame *fr)
{
	fputs("{\"function\":", f);
	hwprof_json_str(f, fr->unknown ? "[unknown]" : fr->function);
	fputs(",\"file\":", f);
	hwprof_json_str(f, fr->file);
	fputs(",\"line\":", f);
	if (fr->line)
		fprintf(f, "%d", fr->line);
	else
		fputs("null", f);
	fputs(",\"dso\":", f);
	hwprof_json_str(f, fr->dso);
	if (fr->unknown)
		fprintf(f, ",\"offset\":%" PRIu64 "}", fr->offset);
	else
		fputs(",\"offset\":null}", f);
}

/* Each distinct path of T (a node where paths end: its cost beyond its children's) at or
 * above the share limit, the row's frame's callers outward; PATH holds the node ids from the
 * root's first child down to ID (DEPTH of them). Returns how many were printed before, plus
 * its own. */
static size_t json_paths(FILE *f, const struct profile *p, const struct cg_tree *t, uint32_t id,
			 uint32_t *path, size_t depth, size_t printed, const struct output_opts *o)
{
	const struct cg_node *node = &t->v[id];
	double period = node->period;
	uint64_t samples = node->samples;

	for (uint32_t c = node->child; c; c = t->v[c - 1].next) {
		period -= t->v[c - 1].period;
		samples -= t->v[c - 1].samples;
	}
	if (samples && period * 100 >= o->percent_limit * p->period) {
		fprintf(f, "%s{\"samples\":%" PRIu64 ",\"period\":", printed ? "," : "", samples);
		hwprof_json_double(f, period, 10);
		fputs(",\"share\":", f);
		hwprof_json_double(f, p->period > 0 ? period / p->period : 0, 10);
		fputs(",\"frames\":[", f);
		for (size_t k = 0; k < depth; k++) {
			if (k)
				fputc(',', f);
			json_frame(f, &t->v[path[k]].frame);
		}
		fputs("]}", f);
		printed++;
	}
	for (uint32_t c = node->child; c; c = t->v[c - 1].next) {
		path[depth] = c - 1;
		printed = json_paths(f, p, t, c - 1, path, depth + 1, printed, o);
	}
	return printed;
}

static int json_row_paths(FILE *f, const struct profile *p, uint32_t row,
			  const struct output_opts *o)
{
	struct cg_tree t;
	uint32_t *path;

	if (cg_tree_build(p, o->row_of, row, o->children, CG_CALLEE, &t) < 0)
		return -ENOMEM;
	path = malloc(t.n * sizeof(*path));
	if (!path) {
		cg_tree_release(&t);
		return -ENOMEM;
	}
	fputs(",\"call_paths\":[", f);
	json_paths(f, p, &t, 0, path, 0, 0, o);
	fputc(']', f);
	free(path);
	cg_tree_release(&t);
	return 0;
}

int output_json(FILE *f, const struct profile *p, const struct profile_row *rows, size_t n,
		const struct output_opts *o)
{
	fputs("{\"header\":", f);
	header(f, p);
	fprintf(f, ",\"inline\":\"%s\"", o->inline_mode == INLINE_CALLER ? "caller" : "callee");
	if (p->nstacks)
		fprintf(f, ",\"children\":%s,\"stacks\":%zu,\"truncated_samples\":%" PRIu64,
			o->children ? "true" : "false", p->nstacks, p->truncated_samples);
	fputs(",\"rows\":[", f);
	for (size_t i = 0; i < n; i++) {
		const struct profile_row *r = &rows[i];
		fprintf(f, "%s\n{\"samples\":%" PRIu64 ",\"period\":", i ? "," : "", r->samples);
		hwprof_json_double(f, r->period, 10);
		fputs(",\"share\":", f);
		hwprof_json_double(f, r->share, 10);
		fputs(",\"share_ci95\":[", f);
		hwprof_json_double(f, r->ci_lo, 10);
		fputc(',', f);
		hwprof_json_double(f, r->ci_hi, 10);
		fprintf(f,
			"],\"rank_uncertain\":%s,\"file\":", r->rank_uncertain ? "true" : "false");
		hwprof_json_str(f, r->file);
		fputs(",\"line\":", f);
		if (r->line)
			fprintf(f, "%d", r->line);
		else
			fputs("null", f);
		fputs(",\"function\":", f);
		hwprof_json_str(f, r->unknown ? "[unknown]" : r->function);
		fputs(",\"inlined_into\":", f);
		hwprof_json_str(f, r->inlined_into);
		fputs(",\"dso\":", f);
		hwprof_json_str(f, r->dso);
		if (r->offset_mixed)
			fputs(",\"offset\":null", f);
		else
			fprintf(f, ",\"offset\":%" PRIu64, r->offset);
		if (o->children) {
			fprintf(f,
				",\"self_samples\":%" PRIu64 ",\"self_period\":", r->self_samples);
			hwprof_json_double(f, r->self_period, 10);
			fputs(",\"self_share\":", f);
			hwprof_json_double(f, r->self_share, 10);
		}
		if (p->nstacks && o->row_of && json_row_paths(f, p, (uint32_t)i, o) < 0)
			return -ENOMEM;
		fputc('}', f);
	}
	fputs("]}\n", f);
	return ferror(f) ? -EIO : 0;
}
