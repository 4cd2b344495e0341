/* diff_json.c - one object: {"base": {...}, "new": {...}, "test": {...}, "rows": [...]}. */
#include "diff_output.h"
#include "json.h"

#include <errno.h>
#include <math.h>

static void side(struct hwprof_jw *j, const char *key, const char *inputs, const struct profile *p)
{
	hwprof_jw_object(j, key);
	hwprof_jw_str(j, "inputs", inputs);
	hwprof_jw_str(j, "event", diff_event_name(p));
	hwprof_jw_uint(j, "samples", p->samples);
	hwprof_jw_uint(j, "samples_read", p->samples_read);
	hwprof_jw_end(j);
}

static void line_or_null(struct hwprof_jw *j, const char *key, const struct profile_row *r)
{
	if (r && r->line)
		hwprof_jw_int(j, key, r->line);
	else
		hwprof_jw_null(j, key);
}

static void row(struct hwprof_jw *j, const struct diff_row *r)
{
	const struct profile_row *b = r->side[DIFF_BASE].row, *n = r->side[DIFF_NEW].row;
	const struct profile_row *s = n ? n : b;

	hwprof_jw_newline(j);
	hwprof_jw_object(j, NULL);
	hwprof_jw_str(j, "status", diff_status_name(r->status));
	hwprof_jw_bool(j, "significant", r->significant);
	hwprof_jw_double(j, "p", r->p, 6);
	hwprof_jw_double(j, "p_adjusted", r->p_adj, 6);
	hwprof_jw_str(j, "test", r->exact ? "exact" : "z");
	hwprof_jw_uint(j, "base_samples", r->side[DIFF_BASE].samples);
	hwprof_jw_uint(j, "new_samples", r->side[DIFF_NEW].samples);
	hwprof_jw_double(j, "base_value", r->side[DIFF_BASE].share, 10);
	hwprof_jw_double(j, "new_value", r->side[DIFF_NEW].share, 10);
	hwprof_jw_double(j, "delta", r->delta, 10);
	/* null for a row that is new or gone: no finite ratio */
	hwprof_jw_double(j, "relative_change", r->relative, 10);
	hwprof_jw_str(j, "file", s->file);
	line_or_null(j, "base_line", b);
	line_or_null(j, "new_line", n);
	hwprof_jw_str(j, "function", s->unknown ? "[unknown]" : s->function);
	hwprof_jw_str(j, "inlined_into", s->inlined_into);
	hwprof_jw_str(j, "dso", s->dso);
	hwprof_jw_str(j, "matched_by", !s->line ? "name" : r->by_number ? "line_number" : "text");
	hwprof_jw_end(j);
}

int diff_output_json(FILE *f, const struct diff *d, const struct diff_row *rows, size_t n,
		     const struct diff_output_opts *o)
{
	struct hwprof_jw j;

	hwprof_jw_init(&j, f, false);
	hwprof_jw_object(&j, NULL);
	hwprof_jw_version(&j);
	side(&j, "base", o->inputs[DIFF_BASE], d->p[DIFF_BASE]);
	side(&j, "new", o->inputs[DIFF_NEW], d->p[DIFF_NEW]);
	hwprof_jw_object(&j, "test");
	hwprof_jw_str(&j, "values", o->unit ? "rate" : "share");
	hwprof_jw_str(&j, "unit", o->unit);
	hwprof_jw_str(&j, "method",
		      o->unit ? "two-rate z-test (Poisson)" : "two-proportion z-test (pooled)");
	hwprof_jw_str(&j, "correction", "holm");
	hwprof_jw_double(&j, "alpha", o->alpha, 6);
	hwprof_jw_uint(&j, "rows", d->nrows);
	hwprof_jw_uint(&j, "rows_in_both", d->ncommon);
	hwprof_jw_uint(&j, "significant", d->nsignificant);
	hwprof_jw_uint(&j, "omitted", o->omitted);
	hwprof_jw_end(&j);
	hwprof_jw_array(&j, "notes");
	for (size_t i = 0; i < d->nnotes; i++)
		hwprof_jw_str(&j, NULL, d->notes[i]);
	hwprof_jw_end(&j);
	hwprof_jw_array(&j, "rows");
	for (size_t i = 0; i < n; i++)
		row(&j, &rows[i]);
	hwprof_jw_end(&j);
	hwprof_jw_end(&j);
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}
