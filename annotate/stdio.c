/* stdio.c - annotate as plain text (--stdio): the header, then function after function. */
#include "header.h"
#include "textfmt.h"
#include "views.h"

#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

char ann_heat_marker(enum ann_heat heat)
{
	return ann_heat_levels[heat <= ANN_HEAT_HOTTEST ? heat : ANN_HEAT_HOTTEST].marker;
}

static void share(char *buf, size_t len, double s)
{
	snprintf(buf, len, "%5.1f%%", 100 * s);
}

/* Prints one line without trailing blanks (an empty source line, a missing source). */
static void print_trimmed(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void print_trimmed(FILE *out, const char *fmt, ...)
{
	char *line = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("out of memory");
	while (n > 0 && line[n - 1] == ' ')
		n--;
	/* Names and paths come from the binary and the sample file: no control bytes. */
	fprintf(out, "%.*s\n", n, hwprof_text_tame(line));
	free(line);
}

/* "called from" lines: each caller's share of the function's inclusive samples, hottest
 * first (at most ANN_CALLERS_SHOWN, then how many more). */
#define ANN_CALLERS_SHOWN 8
static void print_callers(FILE *out, const struct ann_calls *c)
{
	char num[32];

	print_trimmed(out, "   inclusive: %s samples (this function and what it calls)",
		      hwprof_group_digits(c->samples, num, sizeof(num)));
	for (size_t i = 0; i < c->ncallers && i < ANN_CALLERS_SHOWN; i++) {
		const struct ann_caller *k = &c->callers[i];
		const char *file = k->file ? strrchr(k->file, '/') : NULL;
		char at[512] = "";

		if (k->file && k->line)
			snprintf(at, sizeof(at), " at %s:%d", file ? file + 1 : k->file, k->line);
		print_trimmed(out, "   called from %5.1f%%  %s%s", 100 * k->share,
			      k->function ? k->function : "(no caller: outermost frame)", at);
	}
	if (c->ncallers > ANN_CALLERS_SHOWN)
		print_trimmed(out, "   called from ... %zu more callers",
			      c->ncallers - ANN_CALLERS_SHOWN);
}

/* What the view shown is, when instructions were asked for: the view, or why another. */
static void print_view_line(FILE *out, const struct ann_view *v, enum ann_view_mode asked)
{
	if (asked == ANN_VIEW_SOURCE)
		return;
	if (v->mode == ANN_VIEW_MIXED)
		print_trimmed(out, "   view: %s (each source line followed by its instructions)",
			      ann_view_mode_name(v->mode));
	else if (v->mode == ANN_VIEW_ASM && asked == ANN_VIEW_MIXED)
		print_trimmed(out, "   view: %s (no line information for its addresses)",
			      ann_view_mode_name(v->mode));
	else if (v->mode == ANN_VIEW_ASM)
		print_trimmed(out, "   view: %s", ann_view_mode_name(v->mode));
	else
		print_trimmed(out, "   view: %s (no instructions: see the note)",
			      ann_view_mode_name(v->mode));
}

static void print_function(FILE *out, const struct ann_model *m, struct source_cache *src,
			   struct ann_code *code, enum ann_view_mode mode, size_t fi)
{
	const struct ann_func *fn = &m->funcs[fi];
	struct ann_view *v = ann_view_build_mode(m, fi, src, code, mode);
	int sw = ann_digits(v->max_samples), lw = ann_digits((unsigned long long)v->max_line);
	const char *slash = strrchr(fn->dso, '/');
	char num[32], inl[32];
	bool stacks = m->profile->nstacks > 0;

	sw = sw < 7 ? 7 : sw;
	lw = lw < 4 ? 4 : lw;
	fputc('\n', out);
	print_trimmed(out, "== %s  [%s]  %.2f%% of all samples (%s sample%s%s%s%s) ==", fn->name,
		      slash ? slash + 1 : fn->dso, 100 * fn->share,
		      hwprof_group_digits(fn->samples, num, sizeof(num)),
		      fn->samples == 1 ? "" : "s", fn->ninlined ? ", " : "",
		      fn->ninlined ? hwprof_group_digits(fn->ninlined, inl, sizeof(inl)) : "",
		      fn->ninlined ? (fn->ninlined > 1 ? " inlined functions" : " inlined function")
				   : "");
	print_view_line(out, v, mode);
	if (stacks)
		print_callers(out, &v->calls);
	fprintf(out, "   func%% total%%  %s%*s %*s  %s\n", stacks ? "calls% " : "", sw, "samples",
		lw, "line", v->mode == ANN_VIEW_SOURCE ? "source" : "source / instructions");
	for (size_t i = 0; i < v->nrows; i++) {
		const struct ann_row *r = &v->rows[i];
		char sf[16] = "", st[16] = "", ns[32] = "", nl[16] = "", sc[16] = "";

		if (r->samples) {
			share(sf, sizeof(sf), r->share_func);
			share(st, sizeof(st), r->share_total);
			snprintf(ns, sizeof(ns), "%llu", (unsigned long long)r->samples);
		}
		if (stacks && r->kind == ANN_ROW_LINE && r->call_samples)
			share(sc, sizeof(sc), r->call_share_total);
		switch (r->kind) {
		case ANN_ROW_LINE:
			if (r->line > 0)
				snprintf(nl, sizeof(nl), "%d", r->line);
			if (stacks)
				print_trimmed(out, "%c %6s %6s %6s %*s %*s  %s",
					      ann_heat_marker(r->heat), sf, st, sc, sw, ns, lw, nl,
					      r->text ? r->text : "");
			else
				print_trimmed(out, "%c %6s %6s %*s %*s  %s",
					      ann_heat_marker(r->heat), sf, st, sw, ns, lw, nl,
					      r->text ? r->text : "");
			break;
		case ANN_ROW_INSN:
			/* Under a source line, indented; the instructions-only view has no
			 * source to set them apart from. */
			print_trimmed(out, "%c %6s %6s %s%*s %*s  %s%s", ann_heat_marker(r->heat),
				      sf, st, stacks ? "       " : "", sw, ns, lw, "",
				      v->mode == ANN_VIEW_MIXED ? "    " : "", r->text);
			break;
		case ANN_ROW_TITLE:
			print_trimmed(out, "  %6s %6s %*s %*s  -- %s", sf, st, sw, ns, lw, "",
				      r->text);
			break;
		case ANN_ROW_GAP:
		case ANN_ROW_NOTE:
			print_trimmed(out, "  %6s %6s %*s %*s  %s%s", "", "", sw, "", lw, "",
				      r->kind == ANN_ROW_NOTE ? "note: " : "", r->text);
			break;
		}
	}
	ann_view_free(v);
}

int ann_stdio(FILE *out, const struct ann_model *m, struct source_cache *src, const size_t *funcs,
	      size_t nfuncs, size_t more)
{
	return ann_stdio_view(out, m, src, NULL, ANN_VIEW_SOURCE, funcs, nfuncs, more);
}

int ann_stdio_view(FILE *out, const struct ann_model *m, struct source_cache *src,
		   struct ann_code *code, enum ann_view_mode mode, const size_t *funcs,
		   size_t nfuncs, size_t more)
{
	struct ann_header h;

	ann_header_build(&h, m->profile, 100);
	for (size_t i = 0; i < h.n; i++)
		print_trimmed(out, "%s", h.lines[i].text);
	ann_header_release(&h);
	/* Streamed: the header, then each function as soon as its lines are read (a lazy
	 * model reads them function by function), for a reader such as less. */
	fflush(out);
	for (size_t i = 0; i < nfuncs; i++) {
		print_function(out, m, src, code, mode, funcs[i]);
		fflush(out);
	}
	if (more)
		fprintf(out, "\n(%zu more function%s with fewer samples; --limit 0 shows all)\n",
			more, more > 1 ? "s" : "");
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}
