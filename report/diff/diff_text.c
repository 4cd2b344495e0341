/* diff_text.c - the human diff: both sides' facts, then one aligned line per row. */
#include "diff_output.h"
#include "output.h"
#include "textfmt.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#define LOC_WIDTH    30
#define FN_MAX_WIDTH 60

static void side_header(FILE *f, const char *what, const char *inputs, const struct profile *p)
{
	fprintf(f, "# %-5s ", what);
	hwprof_text_put(f, inputs);
	fprintf(f, ": %s, %" PRIu64 " samples", diff_event_name(p), p->samples);
	if (p->samples != p->samples_read)
		fprintf(f, " of %" PRIu64 " (filtered)", p->samples_read);
	fputc('\n', f);
}

/* "+50.0%", "new", "gone", or "" (both 0). */
static const char *change_text(const struct diff_row *r, char *buf, size_t len)
{
	if (r->status == DIFF_NEW_ROW)
		return "new";
	if (r->status == DIFF_GONE)
		return "gone";
	if (!isfinite(r->relative))
		return "";
	snprintf(buf, len, "%+.1f%%", r->relative * 100);
	return buf;
}

/* A value of a side: a share in percent, or a rate. */
static void value(FILE *f, const struct diff_output_opts *o, double v)
{
	if (o->unit)
		fprintf(f, "%9.4g ", v);
	else
		fprintf(f, "%7.2f%% ", v * 100);
}

int diff_output_text(FILE *f, const struct diff *d, const struct diff_row *rows, size_t n,
		     const struct diff_output_opts *o)
{
	char loc[4096], fn[4096], ch[32], pv[32];
	size_t fn_width = strlen("function");
	int vw = o->unit ? 9 : 8;

	side_header(f, "base:", o->inputs[DIFF_BASE], d->p[DIFF_BASE]);
	side_header(f, "new:", o->inputs[DIFF_NEW], d->p[DIFF_NEW]);
	if (o->unit)
		fprintf(f, "# values: %s %s\n", diff_event_name(d->p[DIFF_NEW]), o->unit);
	fprintf(f,
		"# rows: %zu (%zu in both); significant at alpha %g: %zu (%s, exact for few "
		"samples, Holm-corrected over the %zu rows)\n\n",
		d->nrows, d->ncommon, o->alpha, d->nsignificant,
		o->unit ? "two-rate z-test" : "two-proportion z-test", d->nrows);
	for (size_t i = 0; i < n && fn_width < FN_MAX_WIDTH; i++) {
		size_t w = hwprof_text_width(diff_function_label(&rows[i], fn, sizeof(fn)));
		fn_width = w > fn_width ? (w < FN_MAX_WIDTH ? w : FN_MAX_WIDTH) : fn_width;
	}
	fprintf(f, "%*s %*s %8s %8s %8s %-4s %-*s  %-*s  %s\n", vw, "base", vw, "new",
		o->unit ? "delta" : "points", "change", "p_adj", "sig", LOC_WIDTH, "file:line",
		(int)fn_width, "function", "dso");
	for (size_t i = 0; i < n; i++) {
		const struct diff_row *r = &rows[i];
		const struct profile_row *s =
		    r->side[DIFF_NEW].row ? r->side[DIFF_NEW].row : r->side[DIFF_BASE].row;

		value(f, o, r->side[DIFF_BASE].share);
		value(f, o, r->side[DIFF_NEW].share);
		if (r->p_adj < 0.001)
			snprintf(pv, sizeof(pv), "<0.001");
		else
			snprintf(pv, sizeof(pv), "%.3f", r->p_adj);
		fprintf(f, o->unit ? "%+8.3g %8s %8s %-4s " : "%+8.2f %8s %8s %-4s ", r->delta,
			change_text(r, ch, sizeof(ch)), pv, r->significant ? "yes" : "no");
		diff_location_label(r, loc, sizeof(loc));
		hwprof_text_column(f, loc, LOC_WIDTH);
		fputs("  ", f);
		hwprof_text_column(f, diff_function_label(r, fn, sizeof(fn)), fn_width);
		fputs("  ", f);
		hwprof_text_put(f, s->dso ? path_base(s->dso) : "");
		if (r->by_number)
			fputs("  (by line number)", f);
		fputc('\n', f);
	}
	if (o->omitted)
		fprintf(f, "... %zu more rows (--limit 0 --percent-limit 0 shows all)\n",
			o->omitted);
	for (size_t i = 0; i < d->nnotes; i++) {
		fputs("# note: ", f);
		hwprof_text_put(f, d->notes[i]);
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}
