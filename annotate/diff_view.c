/* diff_view.c - one function's source with the base and new shares of each line. */
#include "diff_view.h"

#include "cli.h"
#include "diff.h"
#include "diff_output.h"
#include "filter.h"
#include "source.h"
#include "textfmt.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool ann_diff_source(void *ctx, const char *path, struct diff_source *out)
{
	const struct source_file *f = source_get(ctx, path);

	if (!f->path)
		return false;
	*out = (struct diff_source){
	    .lines = f->lines,
	    .nlines = f->nlines,
	    .mtime_ns = (uint64_t)f->mtime.tv_sec * 1000000000u + (uint64_t)f->mtime.tv_nsec,
	};
	return true;
}

static int load(struct profile **p, const struct profile_options *po, const char *file,
		const char *function)
{
	struct profile_options o = *po;
	char err[1024] = "";

	o.inputs = &file;
	o.ninputs = 1;
	o.functions = NULL;
	if (profile_load(p, &o, err, sizeof(err)) < 0)
		return error("%s: %s", file, cli_see(err));
	/* The warnings first, then FUNCTION: a binary rebuilt since the recording has no names
	 * to match, which the warning says and the name's error would not. */
	for (size_t i = 0; i < (*p)->nwarnings; i++)
		warning("%s: %s", file, (*p)->warnings[i]);
	if (profile_keep_functions(*p, function, 1, o.inline_mode, err, sizeof(err)) < 0) {
		/* The user gave FUNCTION as an operand, not report's --function. */
		const char *what = strncmp(err, "--function ", 11) ? err : err + 11;
		return error("%s: FUNCTION %s", file, what);
	}
	return 0;
}

/* The row of D whose new side is at LINE of FILE (interned in the new profile). */
static const struct diff_row *row_at(const struct diff *d, const char *file, int line)
{
	for (size_t i = 0; i < d->nrows; i++) {
		const struct profile_row *n = d->rows[i].side[DIFF_NEW].row;
		if (n && n->file == file && n->line == line)
			return &d->rows[i];
	}
	return NULL;
}

static void print_row(FILE *out, const struct diff_row *r, int line, const char *text)
{
	if (r)
		fprintf(out, "%6.2f%% %6.2f%% %+7.2f %c", r->side[DIFF_BASE].share * 100,
			r->side[DIFF_NEW].share * 100, r->delta, r->significant ? '*' : ' ');
	else
		fprintf(out, "%7s %7s %7s  ", "", "", "");
	if (line)
		fprintf(out, " %5d  ", line);
	else
		fprintf(out, " %5s  ", "");
	hwprof_text_put(out, text);
	fputc('\n', out);
}

/* The new side's file of the most samples: the one whose source is shown. */
static const char *main_file(const struct diff *d, int *lo, int *hi)
{
	const struct profile_row *best = NULL;

	for (size_t i = 0; i < d->nprow[DIFF_NEW]; i++) {
		const struct profile_row *r = &d->prow[DIFF_NEW][i];
		if (r->file && r->line && (!best || r->period > best->period))
			best = r;
	}
	if (!best)
		return NULL;
	*lo = *hi = best->line;
	for (size_t i = 0; i < d->nprow[DIFF_NEW]; i++) {
		const struct profile_row *r = &d->prow[DIFF_NEW][i];
		if (r->file == best->file && r->line) {
			*lo = r->line < *lo ? r->line : *lo;
			*hi = r->line > *hi ? r->line : *hi;
		}
	}
	return best->file;
}

static void print_view(FILE *out, const struct diff *d, const char *function,
		       struct source_cache *src)
{
	int lo = 0, hi = 0;
	const char *file = main_file(d, &lo, &hi);
	const struct source_file *f = file ? source_get(src, file) : NULL;
	char loc[512];

	for (int s = 0; s < 2; s++)
		fprintf(out, "# %-5s %s: %" PRIu64 " samples in %s\n",
			s ? "new:" : "base:", diff_event_name(d->p[s]), d->p[s]->samples, function);
	fprintf(out,
		"# shares of the function's samples; * significant at 0.05 (two-proportion "
		"z-test, Holm-corrected over %zu lines)\n\n",
		d->nrows);
	fprintf(out, "%7s %7s %7s   %5s  %s\n", "base", "new", "points", "line", "source (new)");
	if (f && f->path) {
		for (int l = lo; l <= hi && (size_t)l <= f->nlines; l++)
			print_row(out, row_at(d, file, l), l, f->lines[l - 1]);
	}
	/* What the source above does not show: lines only in the base, other files. */
	for (size_t i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[i];
		const struct profile_row *n = r->side[DIFF_NEW].row;
		char what[600];

		if (n && f && f->path && n->file == file && n->line >= lo && n->line <= hi)
			continue;
		diff_location_label(r, loc, sizeof(loc));
		snprintf(what, sizeof(what), "%s (%s)", loc,
			 r->status == DIFF_GONE ? "gone: only in the base" : "not shown above");
		print_row(out, r, 0, what);
	}
}

int ann_diff_stdio(FILE *out, const struct profile_options *po, const char *base,
		   const char *new_file, const char *function, struct source_cache *src)
{
	static const enum profile_key line_key = PROFILE_KEY_LINE;
	struct profile *p[2] = {NULL, NULL};
	struct diff d = {0};
	int ret = EXIT_FATAL;

	if (load(&p[DIFF_BASE], po, base, function) < 0 ||
	    load(&p[DIFF_NEW], po, new_file, function) < 0)
		goto out;
	if (strcmp(diff_event_name(p[0]), diff_event_name(p[1]))) {
		error("the base samples '%s' and the new profile '%s': a diff compares one event "
		      "(pick one both have with --event)",
		      diff_event_name(p[0]), diff_event_name(p[1]));
		goto out;
	}
	struct diff_req req = {
	    .keys = &line_key,
	    .nkeys = 1,
	    .alpha = 0.05,
	    .source = ann_diff_source,
	    .source_ctx = src,
	};
	if (diff_build(&d, p[DIFF_BASE], p[DIFF_NEW], &req) < 0)
		die("out of memory");
	print_view(out, &d, function, src);
	for (size_t i = 0; i < d.nnotes; i++)
		note("%s", d.notes[i]);
	ret = fflush(out) || ferror(out) ? EXIT_FATAL : EXIT_OK;
	if (ret)
		error("writing the output: %m");
	else if (p[0]->partial || p[1]->partial)
		ret = EXIT_PARTIAL;
out:
	diff_release(&d);
	profile_free(p[0]);
	profile_free(p[1]);
	return ret;
}
