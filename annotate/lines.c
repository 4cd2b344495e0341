/* lines.c - the per-line model: one function's rows (lines.h). */
#include "lines.h"

#include "cli.h"
#include "keymap.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const struct ann_heat_level ann_heat_levels[ANN_HEAT_HOTTEST + 1] = {
    [ANN_HEAT_NONE] = {0, ' ', "none"},	      [ANN_HEAT_LOW] = {ANN_HOT_LINE_SHARE, '.', "low"},
    [ANN_HEAT_WARM] = {0.05, ':', "warm"},    [ANN_HEAT_HOT] = {0.20, '+', "hot"},
    [ANN_HEAT_HOTTEST] = {2, '#', "hottest"},
};

enum ann_heat ann_heat_of(double share)
{
	enum ann_heat h = ANN_HEAT_NONE;

	/* NONE is a share of exactly 0 (no samples); each later level starts where the one
	 * before it ends. */
	if (share <= 0)
		return h;
	while (h < ANN_HEAT_HOTTEST && share >= ann_heat_levels[h].limit)
		h++;
	return h;
}

char *ann_heat_legend(char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int h = ANN_HEAT_LOW; h <= ANN_HEAT_HOTTEST && o < len; h++) {
		const struct ann_heat_level *l = &ann_heat_levels[h];

		if (h < ANN_HEAT_HOTTEST)
			o += (size_t)snprintf(buf + o, len - o, "%c under %g%%  ", l->marker,
					      100 * l->limit);
		else
			o += (size_t)snprintf(buf + o, len - o, "%c %g%% or more", l->marker,
					      100 * ann_heat_levels[h - 1].limit);
	}
	return buf;
}

static const char *nz(const char *s)
{
	return s ? s : "";
}

/* ---- one function's rows ----------------------------------------------------------------- */

struct entry {
	int line;
	uint64_t samples;
	double period;
};

struct callsite {
	const char *file;
	int line;
	double period;
};

/* The locations of one function that share a file and an inline function. */
struct section {
	const char *inl;  /* inline function, NULL for the function's own code */
	const char *file; /* NULL: no line information */
	uint64_t samples;
	double period;
	struct entry *e;
	size_t n, cap;
	struct callsite calls[8]; /* an inline function's call sites, the first 8 seen
				   * (locations come hottest first) */
	size_t ncalls, more_calls;
	size_t *insns; /* the mixed view: its instructions (indexes into the view's asm),
			* by line then address; ICUR the next to show */
	size_t ninsns, icur;
};

static int entry_cmp(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;

	return (a->line > b->line) - (a->line < b->line);
}

/* Own code first, inline functions next, no line information last; hotter first within. */
static int section_cmp(const void *pa, const void *pb)
{
	const struct section *a = pa, *b = pb;
	int ra = (a->file == NULL) * 2 + (a->inl != NULL),
	    rb = (b->file == NULL) * 2 + (b->inl != NULL);

	if (ra != rb)
		return ra - rb;
	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	ra = strcmp(nz(a->inl), nz(b->inl));
	return ra ? ra : strcmp(nz(a->file), nz(b->file));
}

static void add_callsite(struct section *s, const struct profile_loc *l)
{
	size_t cap = sizeof(s->calls) / sizeof(s->calls[0]);

	if (!l->call_file || l->call_line <= 0)
		return;
	for (size_t i = 0; i < s->ncalls; i++) {
		if (s->calls[i].line == l->call_line && !strcmp(s->calls[i].file, l->call_file)) {
			s->calls[i].period += l->period;
			return;
		}
	}
	if (s->ncalls < cap)
		s->calls[s->ncalls++] = (struct callsite){
		    .file = l->call_file, .line = l->call_line, .period = l->period};
	else
		s->more_calls++;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

struct builder {
	struct ann_view *v;
	size_t cap;
	double func_period, total_period;
	bool hinted;	      /* the way out for a missing source is said once per function */
	const char *own_file; /* the section's file when it is the function's own code */
	struct section *sec;  /* the mixed view: the section being laid out */
	const char *cur_file; /* the file of the section being laid out */
	int label_width;      /* the instruction views: columns of an instruction's label */
};

static char *own(struct builder *b, char *s)
{
	struct ann_view *v = b->v;

	if (v->nowned % 16 == 0)
		v->owned = xrealloc(v->owned, (v->nowned + 16) * sizeof(*v->owned));
	v->owned[v->nowned++] = s;
	return s;
}

static struct ann_row *push(struct builder *b, enum ann_row_kind kind)
{
	struct ann_view *v = b->v;

	if (v->nrows == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 64;
		v->rows = xrealloc(v->rows, b->cap * sizeof(*v->rows));
	}
	v->rows[v->nrows] = (struct ann_row){.kind = kind};
	return &v->rows[v->nrows++];
}

static void fill_shares(struct builder *b, struct ann_row *r, uint64_t samples, double period)
{
	r->samples = samples;
	r->period = period;
	r->share_func = b->func_period > 0 ? period / b->func_period : 0;
	r->share_total = b->total_period > 0 ? period / b->total_period : 0;
}

static void push_text(struct builder *b, enum ann_row_kind kind, char *text)
{
	push(b, kind)->text = own(b, text);
}

/* An instruction's row: its marks (> a hot jump lands here, ! the likely cause of a hot one's
 * samples under skid), its label (the address; the symbol + offset in the instructions-only
 * view) and its disassembly. */
static void push_insn(struct builder *b, const struct ann_insn *in)
{
	struct ann_row *r = push(b, ANN_ROW_INSN);
	char label[320];

	if (b->v->mode == ANN_VIEW_ASM)
		snprintf(label, sizeof(label), "%s+0x%llx", in->sym ? in->sym : "?",
			 (unsigned long long)in->off);
	else
		snprintf(label, sizeof(label), "%llx", (unsigned long long)in->addr);
	r->insn = in;
	r->line = in->line;
	r->file = in->file;
	r->text = own(b, xasprintf("%c%c %*s  %s", in->hot_jump_target ? '>' : ' ',
				   in->skid_cause ? '!' : ' ', b->label_width, label, in->text));
	if (in->samples) {
		fill_shares(b, r, in->samples, in->period);
		r->heat = (enum ann_heat)in->heat;
		r->hot = in->hot;
	}
}

/* The mixed view: the instructions of the current section on LINE, next in its list. */
static void push_insns(struct builder *b, int line)
{
	struct section *s = b->sec;
	const struct ann_asm *a = &b->v->insns;

	while (s->icur < s->ninsns && a->v[s->insns[s->icur]].line == line)
		push_insn(b, &a->v[s->insns[s->icur++]]);
}

static void push_line(struct builder *b, int line, const char *text, const struct entry *e)
{
	struct ann_row *r = push(b, ANN_ROW_LINE);

	r->line = line;
	r->text = text;
	r->file = b->cur_file;
	if (b->own_file && line > 0) {
		const struct ann_line_calls *c = ann_calls_at(&b->v->calls, b->own_file, line);
		if (c) {
			r->call_samples = c->samples;
			r->call_share_total = b->total_period > 0 ? c->period / b->total_period : 0;
			r->callee = c->callee;
			r->callee_dso = c->callee_dso;
		}
	}
	if (e && e->samples) {
		fill_shares(b, r, e->samples, e->period);
		r->heat = ann_heat_of(r->share_func);
		r->hot = r->heat >= ANN_HEAT_WARM;
	}
	if (b->sec && e)
		push_insns(b, e->line);
}

/* Whether TEXT, a source line, starts a definition of the function IDENT: IDENT followed by
 * '(' in a line that starts in column 0 (calls inside a body are indented). */
static bool defines(const char *text, const char *ident, size_t n)
{
	const char *s = text;

	if (!n || !*text || isspace((unsigned char)*text) || strchr("#/*}", *text))
		return false;
	while ((s = memmem(s, strlen(s), ident, n))) {
		const char *after = s + n;
		bool start_ok = s == text || !(isalnum((unsigned char)s[-1]) || s[-1] == '_');

		while (*after == ' ')
			after++;
		if (start_ok && *after == '(')
			return true;
		s += n;
	}
	return false;
}

/* The first line (1-based) of the definition of NAME that contains line FIRST, or 0. A return
 * type on the line above ("static int\nf(void)") is included. */
static int find_start(const struct source_file *f, const char *name, int first)
{
	char buf[1024];
	const char *ident = ann_name_ident(name, buf, sizeof(buf));
	size_t len = strlen(ident);

	for (int l = first; l >= 1 && l > first - 400; l--) {
		if (!defines(f->lines[l - 1], ident, len))
			continue;
		if (l > 1) {
			const char *above = f->lines[l - 2];

			if (*above && !isspace((unsigned char)*above) && !strchr("#/*}", *above) &&
			    !strchr(above, ';') && !strchr(above, '{') && !strchr(above, '}'))
				return l - 1;
		}
		return l;
	}
	return 0;
}

/* The line (1-based) of the brace that closes the first body opened at or after line START,
 * skipping braces in comments, strings and character literals; 0 when none closes. What
 * bounds a member function ("  void go() { ... }") or a one-line function, where a closing
 * brace in column 0 belongs to a later function. */
static int matching_brace(const struct source_file *f, int start)
{
	bool opened = false, in_comment = false;
	int depth = 0;

	for (int l = start; l >= 1 && l <= (int)f->nlines && l < start + 4000; l++) {
		char quote = 0;

		for (const char *s = f->lines[l - 1]; *s; s++) {
			if (in_comment) {
				if (s[0] == '*' && s[1] == '/')
					in_comment = false, s++;
			} else if (quote) {
				if (*s == '\\' && s[1])
					s++;
				else if (*s == quote)
					quote = 0;
			} else if (s[0] == '/' && s[1] == '/') {
				break;
			} else if (s[0] == '/' && s[1] == '*') {
				in_comment = true, s++;
			} else if (*s == '"' || *s == '\'') {
				quote = *s;
			} else if (*s == '{') {
				depth++, opened = true;
			} else if (*s == '}' && opened && --depth == 0) {
				return l;
			}
		}
	}
	return 0;
}

/* The last line of the function whose samples end at LAST: the brace matching its body when
 * START (its first line, or 0 when not found) is known and that brace is at or after LAST,
 * else the first closing brace in column 0 at or after LAST; 0 when neither. */
static int find_end(const struct source_file *f, int start, int last)
{
	int end = start ? matching_brace(f, start) : 0;

	if (end >= last)
		return end;
	for (int l = last; l <= (int)f->nlines && l < last + 2000; l++)
		if (f->lines[l - 1][0] == '}')
			return l;
	return 0;
}

static void emit_found(struct builder *b, const struct section *s, const struct source_file *f,
		       const char *fname)
{
	int first = 0, last = 0, start, end, nlines = (int)f->nlines;
	size_t k = 0;
	bool *shown;

	for (size_t i = 0; i < s->n; i++) {
		if (s->e[i].line <= 0)
			continue;
		if (!first)
			first = s->e[i].line;
		last = s->e[i].line;
	}
	/* Samples without a line number (line 0) in this file come first. */
	for (; k < s->n && s->e[k].line <= 0; k++)
		push_line(b, 0, own(b, xstrdup("(no line number)")), &s->e[k]);
	if (!first)
		return;
	if (last > nlines)
		push_text(b, ANN_ROW_NOTE,
			  xasprintf("%s has %d lines but samples fall on line %d: is it the "
				    "file that was compiled? (--source-dir, --prefix-map)",
				    f->path, nlines, last));
	if (first > nlines)
		goto beyond;
	start = find_start(f, fname, first);
	end = last <= nlines ? find_end(f, start, last) : 0;
	start = start ? start : (first > ANN_CONTEXT ? first - ANN_CONTEXT : 1);
	if (!end)
		end = last + ANN_CONTEXT < nlines ? last + ANN_CONTEXT : nlines;
	shown = xcalloc((size_t)(end - start + 1), sizeof(*shown));
	/* Show the first and last lines (signature, closing brace) and the context of samples. */
	for (int l = start; l <= end && l < start + ANN_CONTEXT; l++)
		shown[l - start] = true;
	for (int l = end; l >= start && l > end - ANN_CONTEXT; l--)
		shown[l - start] = true;
	for (size_t i = k; i < s->n && s->e[i].line <= end; i++)
		for (int l = s->e[i].line - ANN_CONTEXT; l <= s->e[i].line + ANN_CONTEXT; l++)
			if (l >= start && l <= end)
				shown[l - start] = true;
	for (int l = start; l <= end;) {
		int run = 0;

		while (l + run <= end && !shown[l + run - start])
			run++;
		if (run > ANN_GAP_FOLD) {
			push_text(b, ANN_ROW_GAP,
				  xasprintf("... %d lines without samples (%d-%d) ...", run, l,
					    l + run - 1));
			l += run;
			continue;
		}
		for (int stop = l + (run ? run : 1); l < stop; l++) {
			const struct entry *e = k < s->n && s->e[k].line == l ? &s->e[k++] : NULL;

			push_line(b, l, f->lines[l - 1], e);
		}
	}
	free(shown);
beyond:
	for (; k < s->n; k++)
		push_line(b, s->e[k].line, NULL, &s->e[k]);
}

static void emit_section_rows(struct builder *b, const struct section *s, struct source_cache *src,
			      const char *func_name)
{
	const struct source_file *f = s->file ? source_get(src, s->file) : NULL;
	const char *shown_path = f && f->path ? f->path : s->file;
	struct ann_row *title;
	char *text;

	b->own_file = s->inl ? NULL : s->file;
	b->cur_file = s->file;
	if (s->inl && s->ncalls) {
		const struct callsite *c = &s->calls[0];
		size_t others = s->ncalls - 1 + s->more_calls;

		for (size_t i = 1; i < s->ncalls; i++)
			if (s->calls[i].period > c->period)
				c = &s->calls[i];
		text = xasprintf("inlined %s (%s), called at %s:%d%s", s->inl,
				 s->file ? base_name(s->file) : "no line information",
				 base_name(c->file), c->line,
				 others ? (others == 1 ? " and 1 other place" : " and other places")
					: "");
	} else if (s->inl) {
		text = xasprintf("inlined %s (%s)", s->inl,
				 shown_path ? shown_path : "no line information");
	} else if (s->file) {
		text = xstrdup(shown_path);
	} else {
		text = xstrdup("no line information");
	}
	title = push(b, ANN_ROW_TITLE);
	title->text = own(b, text);
	fill_shares(b, title, s->samples, s->period);

	if (!s->file) {
		struct entry all = {.line = 0, .samples = s->samples, .period = s->period};

		push_line(b, 0,
			  own(b, xasprintf("(addresses without line information in %s)",
					   base_name(nz(b->v->model->funcs[b->v->func].dso)))),
			  &all);
		return;
	}
	if (f->path) {
		const char *dso = b->v->model->funcs[b->v->func].dso;
		struct stat st;

		/* DWARF's lines are those of the source as compiled: a source saved after the
		 * binary was linked may have moved them. */
		if (dso && stat(dso, &st) == 0 &&
		    (f->mtime.tv_sec > st.st_mtim.tv_sec ||
		     (f->mtime.tv_sec == st.st_mtim.tv_sec &&
		      f->mtime.tv_nsec > st.st_mtim.tv_nsec)))
			push_text(b, ANN_ROW_NOTE,
				  xasprintf("%s is newer than %s: if it was edited after the "
					    "build, lines may have moved under the samples "
					    "(rebuild and record again)",
					    base_name(f->path), base_name(dso)));
		emit_found(b, s, f, s->inl ? s->inl : func_name);
		return;
	}
	push_text(
	    b, ANN_ROW_NOTE,
	    xasprintf("source not found, looked for: %s", f->looked_for ? f->looked_for : s->file));
	if (!b->hinted)
		push_text(b, ANN_ROW_NOTE,
			  xstrdup("(point at it with --source-dir DIR or --prefix-map OLD=NEW)"));
	b->hinted = true;
	for (size_t i = 0; i < s->n; i++)
		push_line(b, s->e[i].line,
			  s->e[i].line > 0 ? NULL : own(b, xstrdup("(no line number)")), &s->e[i]);
}

/* S's rows; in the mixed view each line's instructions after it, and after the last row those
 * of lines not shown (none, unless the source changed under the line table). */
static void emit_section(struct builder *b, struct section *s, struct source_cache *src,
			 const char *func_name)
{
	b->sec = b->v->mode == ANN_VIEW_MIXED ? s : NULL;
	emit_section_rows(b, s, src, func_name);
	if (b->sec && s->icur < s->ninsns) {
		push_text(b, ANN_ROW_NOTE, xstrdup("instructions of lines not shown above:"));
		while (s->icur < s->ninsns)
			push_insn(b, &b->v->insns.v[s->insns[s->icur++]]);
	}
	b->sec = NULL;
}

/* Sorts S's entries by line and merges equal lines. */
static void merge_lines(struct section *s)
{
	size_t out = 0;

	qsort(s->e, s->n, sizeof(*s->e), entry_cmp);
	for (size_t i = 0; i < s->n; i++) {
		if (out && s->e[out - 1].line == s->e[i].line) {
			s->e[out - 1].samples += s->e[i].samples;
			s->e[out - 1].period += s->e[i].period;
			continue;
		}
		s->e[out++] = s->e[i];
	}
	s->n = out;
}

const char *ann_view_mode_name(enum ann_view_mode mode)
{
	switch (mode) {
	case ANN_VIEW_MIXED:
		return "source+instructions";
	case ANN_VIEW_ASM:
		return "instructions";
	default:
		return "source";
	}
}

/* Orders a section's instructions by line, then address. */
static int insn_cmp(const void *pa, const void *pb, void *arg)
{
	const struct ann_insn *v = arg, *a = &v[*(const size_t *)pa], *b = &v[*(const size_t *)pb];

	if (a->line != b->line)
		return (a->line > b->line) - (a->line < b->line);
	return (a->addr > b->addr) - (a->addr < b->addr);
}

static struct section *section_of(struct keymap *km, struct section *secs, size_t *nsecs,
				  const char *inl, const char *file)
{
	size_t si = keymap_get_or_add(km, inl, file, NULL, *nsecs);
	struct section *s = &secs[si];

	if (si == *nsecs) {
		(*nsecs)++;
		s->inl = inl;
		s->file = file;
	}
	return s;
}

static void add_entry(struct section *s, int line, uint64_t samples, double period)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 8;
		s->e = xrealloc(s->e, s->cap * sizeof(*s->e));
	}
	s->e[s->n++] = (struct entry){.line = line, .samples = samples, .period = period};
}

/* The notes above an instruction view: what the IPs of its samples are worth, and samples
 * its instructions do not hold. */
static void push_asm_notes(struct builder *b)
{
	const struct ann_asm *a = &b->v->insns;
	const struct hwprof_file_event *e = NULL;
	const struct profile *p = b->v->model->profile;

	if (p->header.nevents && p->event < p->header.nevents)
		e = &p->header.events[p->event];
	if (a->skid == ANN_SKID_LIKELY)
		push_text(b, ANN_ROW_NOTE,
			  xasprintf("skid: %s was sampled with precise_ip 0, so a sample's IP is "
				    "the instruction after the one that caused it, or a few after; "
				    "'!' marks the memory access just before each hot instruction, "
				    "the likely cause",
				    e ? e->name : "the event"));
	else if (a->skid == ANN_SKID_EXACT)
		push_text(
		    b, ANN_ROW_NOTE,
		    xasprintf("%s was sampled with precise_ip %u: the IPs are exact "
			      "(PEBS/IBS), a hot instruction is the one that caused its samples",
			      e ? e->name : "the event", e ? e->precise_obtained : 1));
	if (a->samples_outside)
		push_text(b, ANN_ROW_NOTE,
			  xasprintf("%llu samples at no instruction read: %s",
				    (unsigned long long)a->samples_outside, a->why));
}

/* The instructions-only view: each symbol's instructions in address order. */
static void emit_asm(struct builder *b, bool no_lines)
{
	const struct ann_asm *a = &b->v->insns;

	for (size_t i = 0; i < a->n; i++) {
		if (!i || a->v[i].sym != a->v[i - 1].sym) {
			struct ann_row *t = push(b, ANN_ROW_TITLE);
			uint64_t samples = 0;
			double period = 0;

			for (size_t k = i; k < a->n && a->v[k].sym == a->v[i].sym; k++)
				samples += a->v[k].samples, period += a->v[k].period;
			t->text = own(b, xasprintf("%s%s", a->v[i].sym ? a->v[i].sym : "?",
						   no_lines ? " (no line information: instructions "
							      "by symbol + offset)"
							    : ""));
			fill_shares(b, t, samples, period);
		}
		push_insn(b, &a->v[i]);
	}
}

/* The widest instruction label of the view. */
static int label_width(const struct ann_view *v)
{
	int w = 1;

	for (size_t i = 0; i < v->insns.n; i++) {
		const struct ann_insn *in = &v->insns.v[i];
		char label[320];
		int n = v->mode == ANN_VIEW_ASM
			    ? snprintf(label, sizeof(label), "%s+0x%llx", in->sym ? in->sym : "?",
				       (unsigned long long)in->off)
			    : snprintf(label, sizeof(label), "%llx", (unsigned long long)in->addr);

		w = n > w ? n : w;
	}
	return w;
}

struct ann_view *ann_view_build(const struct ann_model *m, size_t func, struct source_cache *src)
{
	return ann_view_build_mode(m, func, src, NULL, ANN_VIEW_SOURCE);
}

/* Sets V's instructions and mode for MODE (the source view when the function has no code to
 * show, asm when its code has no lines). Returns the note that says why there is no code,
 * or NULL. */
static char *view_mode(struct ann_view *v, struct ann_code *code, const struct ann_model *m,
		       size_t func, enum ann_view_mode mode)
{
	char *no_code = NULL;

	v->mode = mode;
	if (mode != ANN_VIEW_SOURCE) {
		ann_asm_build(&v->insns, code, m, func);
		if (!v->insns.n) {
			no_code = xasprintf("no instructions to show: %s", v->insns.why);
			v->mode = ANN_VIEW_SOURCE;
		} else if (mode == ANN_VIEW_MIXED && !v->insns.have_lines) {
			v->mode = ANN_VIEW_ASM;
		}
	}
	return no_code;
}

/* The sections of function FN of M for view V (*NSECS of them), sorted, their lines merged:
 * a section per file and inline function, with its locations' lines and, in the mixed view,
 * every line with code and its instructions. */
static struct section *view_sections(const struct ann_model *m, const struct ann_func *fn,
				     const struct ann_view *v, size_t *nsecs)
{
	struct section *secs = xcalloc(fn->nlocs + v->insns.n + 1, sizeof(*secs));
	struct keymap km;

	keymap_init(&km, 16);
	for (size_t i = 0; i < fn->nlocs && v->mode != ANN_VIEW_ASM; i++) {
		const struct profile_loc *l = m->locs[fn->first + i];
		const char *inl = l->inlined_into && l->function ? l->function : NULL;
		struct section *s = section_of(&km, secs, nsecs, inl, l->file);

		add_entry(s, l->file ? l->line : 0, l->samples, l->period);
		s->samples += l->samples;
		s->period += l->period;
		if (inl)
			add_callsite(s, l);
	}
	/* The mixed view: every line with code is shown (an entry without samples), each
	 * instruction in its line's section. */
	for (size_t i = 0; i < v->insns.n && v->mode == ANN_VIEW_MIXED; i++) {
		const struct ann_insn *in = &v->insns.v[i];
		struct section *s = section_of(&km, secs, nsecs, in->inl, in->file);

		add_entry(s, in->line, 0, 0);
		if (s->ninsns % 16 == 0)
			s->insns = xrealloc(s->insns, (s->ninsns + 16) * sizeof(*s->insns));
		s->insns[s->ninsns++] = i;
	}
	keymap_release(&km);
	for (size_t i = 0; i < *nsecs; i++) {
		merge_lines(&secs[i]);
		if (secs[i].ninsns)
			qsort_r(secs[i].insns, secs[i].ninsns, sizeof(size_t), insn_cmp,
				v->insns.v);
	}
	qsort(secs, *nsecs, sizeof(*secs), section_cmp);
	return secs;
}

/* Sets V's summary of its rows: the widest line number and sample count, the hottest row,
 * and the hot lines and instructions that TAB goes through. */
static void index_rows(struct ann_view *v)
{
	size_t nhot_insn = 0;
	double best = -1;

	for (size_t i = 0; i < v->nrows; i++) {
		const struct ann_row *r = &v->rows[i];
		bool counts =
		    v->mode == ANN_VIEW_SOURCE ? r->kind == ANN_ROW_LINE : r->kind == ANN_ROW_INSN;

		if (r->kind != ANN_ROW_LINE && r->kind != ANN_ROW_INSN)
			continue;
		if (r->kind == ANN_ROW_LINE && r->line > v->max_line)
			v->max_line = r->line;
		if (r->samples > v->max_samples)
			v->max_samples = r->samples;
		if (counts && r->samples && r->period > best) {
			best = r->period;
			v->hottest = i;
		}
		if (r->hot && r->kind == ANN_ROW_LINE)
			v->nhot++;
		if (r->hot && r->kind == ANN_ROW_INSN)
			nhot_insn++;
	}
	v->hot = xmalloc((v->nhot ? v->nhot : 1) * sizeof(*v->hot));
	v->hot_insn = xmalloc((nhot_insn ? nhot_insn : 1) * sizeof(*v->hot_insn));
	for (size_t i = 0, n = 0; i < v->nrows; i++) {
		if (v->rows[i].kind == ANN_ROW_LINE && v->rows[i].hot)
			v->hot[n++] = i;
		if (v->rows[i].kind == ANN_ROW_INSN && v->rows[i].hot)
			v->hot_insn[v->nhot_insn++] = i;
	}
	/* Instructions only: TAB goes from hot instruction to hot instruction. */
	if (v->mode == ANN_VIEW_ASM) {
		free(v->hot);
		v->hot = xmalloc((v->nhot_insn ? v->nhot_insn : 1) * sizeof(*v->hot));
		memcpy(v->hot, v->hot_insn, v->nhot_insn * sizeof(*v->hot));
		v->nhot = v->nhot_insn;
	}
}

struct ann_view *ann_view_build_mode(const struct ann_model *m, size_t func,
				     struct source_cache *src, struct ann_code *code,
				     enum ann_view_mode mode)
{
	const struct ann_func *fn = &m->funcs[func];
	struct ann_view *v = xcalloc(1, sizeof(*v));
	struct builder b = {.v = v, .func_period = fn->period, .total_period = m->profile->period};
	struct section *secs;
	size_t nsecs = 0;
	char *no_code;

	ann_model_resolve(m, func); /* before anything reads its locations */
	v->model = m;
	v->func = func;
	no_code = view_mode(v, code, m, func, mode);
	b.label_width = label_width(v);
	ann_calls_build(m, func, &v->calls);
	if (no_code)
		push_text(&b, ANN_ROW_NOTE, no_code);
	if (v->mode != ANN_VIEW_SOURCE)
		push_asm_notes(&b);
	secs = view_sections(m, fn, v, &nsecs);
	for (size_t i = 0; i < nsecs; i++) {
		emit_section(&b, &secs[i], src, fn->name);
		free(secs[i].e);
		free(secs[i].insns);
	}
	free(secs);
	if (v->mode == ANN_VIEW_ASM)
		emit_asm(&b, !v->insns.have_lines);
	index_rows(v);
	return v;
}

void ann_view_free(struct ann_view *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->nowned; i++)
		free(v->owned[i]);
	free(v->owned);
	free(v->rows);
	free(v->hot);
	free(v->hot_insn);
	ann_asm_release(&v->insns);
	ann_calls_release(&v->calls);
	free(v);
}

/* The next (DIR > 0) or previous of the N row indexes HOT (in row order) after / before
 * FROM, wrapping around; FROM when N is 0. */
static size_t next_of(const size_t *hot, size_t n, size_t from, int dir)
{
	if (!n)
		return from;
	if (dir > 0) {
		for (size_t i = 0; i < n; i++)
			if (hot[i] > from)
				return hot[i];
		return hot[0];
	}
	for (size_t i = n; i-- > 0;)
		if (hot[i] < from)
			return hot[i];
	return hot[n - 1];
}

size_t ann_view_next_hot(const struct ann_view *v, size_t from, int dir)
{
	return next_of(v->hot, v->nhot, from, dir);
}

size_t ann_view_next_hot_insn(const struct ann_view *v, size_t from, int dir)
{
	return next_of(v->hot_insn, v->nhot_insn, from, dir);
}

size_t ann_view_search(const struct ann_view *v, size_t from, int dir, const char *pattern)
{
	if (!v->nrows || !*pattern)
		return (size_t)-1;
	for (size_t step = 1; step <= v->nrows; step++) {
		size_t i = dir > 0 ? (from + step) % v->nrows
				   : (from + v->nrows - step % v->nrows) % v->nrows;

		if (v->rows[i].text && ann_text_matches(v->rows[i].text, pattern))
			return i;
	}
	return (size_t)-1;
}
