/* match.c - two profiles' rows matched by what they say, not by where they are.
 *
 * A rebuild moves everything a profile indexes by: addresses, string-pool pointers, often line
 * numbers. What survives a rebuild is text: the DSO's file name, the function's name, the
 * source line itself. So each row gets a key string made of those, in the order of the
 * --sort keys, and the two sides' rows are merged by sorting the keys together.
 *
 * A line's text alone is ambiguous (two "}" in one function); its occurrence count since the
 * function's first line (DW_AT_decl_line) tells them apart and is unchanged by code added
 * above the function or elsewhere in it after the line. The text read must be the text
 * compiled: a source saved after a recording started may not be, so its lines, on both sides
 * (a key must be made the same way on each), fall back to the function and the line number
 * counted from the function's first line, which still survives code added above the
 * function.
 */
#include "diff.h"

#include "grow.h"
#include "output.h"
#include "stats.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keys joins its fields with a byte no name holds. */
#define SEP '\x1f'

/* A source file's base name and whether its lines can be matched by text on both sides. */
struct file_mode {
	const char *base;
	bool by_number;
	const char *why; /* when BY_NUMBER: what was wrong, and on which side */
};

struct ctx {
	const struct diff_req *req;
	const struct profile *p[2];
	struct diff *d;
	struct file_mode *files;
	size_t nfiles, capfiles;
};

/* An entry of the merge: one side's row and its key. */
struct entry {
	char *key;
	int side;
	size_t row;
};

/* Whether the DSO of base name BASE is the same build on both sides (the same build-id): its
 * line numbers are then the same lines, and need no text to match. */
static bool same_build(const struct ctx *c, const char *dso)
{
	const struct profile_mapping *m[2] = {NULL, NULL};
	const char *base = path_base(dso);

	for (int side = 0; side < 2; side++)
		for (size_t i = 0; i < c->p[side]->nmappings && !m[side]; i++)
			if (!strcmp(path_base(c->p[side]->mappings[i].file), base))
				m[side] = &c->p[side]->mappings[i];
	return m[0] && m[1] && m[0]->build_id_size && m[0]->build_id_size == m[1]->build_id_size &&
	       !memcmp(m[0]->build_id, m[1]->build_id, m[0]->build_id_size);
}

static struct file_mode *file_mode(struct ctx *c, const char *path)
{
	const char *base = path_base(path);

	for (size_t i = 0; i < c->nfiles; i++)
		if (!strcmp(c->files[i].base, base))
			return &c->files[i];
	return NULL;
}

/* Whether PATH's text at the lines of side SIDE's rows can be read: found, and not saved
 * after the recording started. Else WHY says what is wrong (for the note). */
static bool source_usable(struct ctx *c, int side, const char *path, struct diff_source *f,
			  const char **why)
{
	const struct profile *p = c->p[side];

	if (!c->req->source(c->req->source_ctx, path, f)) {
		*why = side == DIFF_BASE ? "not found (base)" : "not found (new)";
		return false;
	}
	if (p->header.start_time_ns && f->mtime_ns > p->header.start_time_ns) {
		*why = side == DIFF_BASE ? "saved after the base was recorded"
					 : "saved after the new profile was recorded";
		return false;
	}
	return true;
}

/* One note for the files whose lines match by number: the first few named, with why. */
static int note_by_number(struct ctx *c)
{
	char list[512] = "";
	size_t n = 0, len = 0;

	for (size_t i = 0; i < c->nfiles; i++) {
		const struct file_mode *m = &c->files[i];
		if (!m->by_number)
			continue;
		if (n++ < 3 && len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s: %s",
						n > 1 ? "; " : "", m->base, m->why);
	}
	if (!n)
		return 0;
	if (n > 3 && len < sizeof(list))
		snprintf(list + len, sizeof(list) - len, "; and %zu more", n - 3);
	return profile_push_line(&c->d->notes, &c->d->nnotes, &c->d->cap_notes,
				 "%zu source file%s of a rebuilt DSO unread (%s): %s lines are "
				 "matched by function and line number from the function's start",
				 n, n > 1 ? "s" : "", list, n > 1 ? "their" : "its");
}

/* Decides, per source file base name, text or line numbers, from both sides' rows. Returns
 * 0 or -ENOMEM. */
static int decide_files(struct ctx *c)
{
	struct diff *d = c->d;

	for (int side = 0; side < 2; side++) {
		for (size_t i = 0; i < d->nprow[side]; i++) {
			const struct profile_row *r = &d->prow[side][i];
			struct diff_source f;
			struct file_mode *m;
			const char *why = NULL;
			bool ok;

			if (!r->file || !r->line || same_build(c, r->dso))
				continue;
			ok = source_usable(c, side, r->file, &f, &why);
			if (ok && (size_t)r->line > f.nlines) {
				ok = false;
				why = "shorter than its lines";
			}
			m = file_mode(c, r->file);
			if (!m) {
				if (hwprof_grow((void **)&c->files, &c->capfiles, c->nfiles + 1,
						sizeof(*c->files)) < 0)
					return -ENOMEM;
				m = &c->files[c->nfiles++];
				*m = (struct file_mode){.base = path_base(r->file)};
			}
			if (!ok && !m->by_number) {
				m->by_number = true;
				m->why = why;
			}
		}
	}
	return note_by_number(c);
}

/* Writes S without whitespace: the line's text as the compiler reads it, whatever the
 * indentation. */
static void put_text(FILE *k, const char *s)
{
	for (; *s; s++)
		if (!isspace((unsigned char)*s))
			fputc(*s, k);
}

static bool same_text(const char *a, const char *b)
{
	for (;;) {
		while (*a && isspace((unsigned char)*a))
			a++;
		while (*b && isspace((unsigned char)*b))
			b++;
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++, b++;
	}
}

/* The line part of row R's key: its text and occurrence since line START, or its number
 * from START. */
static void put_line(struct ctx *c, FILE *k, const struct profile_row *r, int start)
{
	const struct file_mode *m = r->file ? file_mode(c, r->file) : NULL;
	struct diff_source f;

	fprintf(k, "%s%c", path_base(r->file), SEP);
	if (!r->line) {
		fputs("?", k);
		return;
	}
	if (same_build(c, r->dso)) {
		fprintf(k, "@%d", r->line);
		return;
	}
	if (start <= 0 || start > r->line)
		start = 1;
	if (!m || m->by_number || !c->req->source(c->req->source_ctx, r->file, &f) ||
	    (size_t)r->line > f.nlines) {
		fprintf(k, "#%d", r->line - start);
		return;
	}
	const char *text = f.lines[r->line - 1];
	int nth = 0;

	for (int i = start; i < r->line; i++)
		nth += same_text(f.lines[i - 1], text);
	fputs("=", k);
	put_text(k, text);
	fprintf(k, "%c%d", SEP, nth);
}

/* Row R's key under the --sort keys; START its function's first line (0: unknown). Returns
 * a malloc'd string, or NULL. */
static char *row_key(struct ctx *c, const struct profile_row *r, int start)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *k = open_memstream(&buf, &len);

	if (!k)
		return NULL;
	fprintf(k, "%s", path_base(r->dso));
	for (size_t i = 0; i < c->req->nkeys; i++) {
		enum profile_key key = c->req->keys[i];

		if (key == PROFILE_KEY_DSO)
			continue;
		fputc(SEP, k);
		if (r->unknown && key == PROFILE_KEY_LINE && !r->offset_mixed)
			fprintf(k, "[unknown]+0x%" PRIx64, r->offset);
		else
			fprintf(k, "%s%c%s",
				r->unknown    ? "[unknown]"
				: r->function ? r->function
					      : "",
				SEP, r->inlined_into ? r->inlined_into : "");
		if (key == PROFILE_KEY_LINE) {
			fputc(SEP, k);
			put_line(c, k, r, start);
		}
	}
	if (fclose(k)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The first line of each of side SIDE's rows' functions (DW_AT_decl_line), through the
 * locations: the inline frame of the row's function. START gets one per row (0 unknown). */
static void function_starts(const struct profile *p, const struct profile_row *rows,
			    const uint32_t *row_of, int *start)
{
	for (size_t i = 0; i < p->nlocations; i++) {
		const struct profile_loc *l = &p->locations[i];
		const struct profile_line *chain;
		uint32_t r = row_of[i], n;

		if (r == UINT32_MAX || start[r] || !rows[r].function)
			continue;
		chain = profile_loc_lines(p, l, &n);
		for (uint32_t j = 0; j < n; j++) {
			const struct profile_function *fn = &p->functions[chain[j].function];
			if (fn->name == rows[r].function) {
				start[r] = fn->start_line ? fn->start_line : -1;
				break;
			}
		}
	}
}

static int by_key(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	if (x->side != y->side)
		return x->side - y->side;
	return x->row < y->row ? -1 : x->row > y->row;
}

static int by_significance(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	double dx = fabs(x->delta), dy = fabs(y->delta);
	double hx = fmax(x->side[DIFF_BASE].share, x->side[DIFF_NEW].share);
	double hy = fmax(y->side[DIFF_BASE].share, y->side[DIFF_NEW].share);

	if (x->significant != y->significant)
		return x->significant ? -1 : 1;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	/* Equal change (none, often): the hotter row first, as report orders them. */
	if (hx != hy)
		return hx > hy ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* A side's samples on ROW are binomial among its samples (share mode) or Poisson over its
 * work (rate mode): the row's value, z, and p. */
static void row_numbers(struct diff *d, const struct diff_req *req, struct diff_row *row)
{
	struct diff_side *b = &row->side[DIFF_BASE], *n = &row->side[DIFF_NEW];
	const struct profile *pb = d->p[DIFF_BASE], *pn = d->p[DIFF_NEW];

	if (d->rate) {
		/* Expected samples per unit of work: work / mean period. */
		double eb = req->work[0] * (double)pb->samples / pb->period;
		double en = req->work[1] * (double)pn->samples / pn->period;

		b->share = b->period / req->work[0] * req->scale;
		n->share = n->period / req->work[1] * req->scale;
		row->delta = n->share - b->share;
		double q = en / (eb + en), k = (double)(b->samples + n->samples);

		row->z = diff_two_rate_z((double)b->samples, eb, (double)n->samples, en);
		row->exact = k * q < 5 || k * (1 - q) < 5;
		row->p = row->exact ? diff_binomial_p(n->samples, b->samples + n->samples, q) : NAN;
	} else {
		b->share = pb->period > 0 ? b->period / pb->period : 0;
		n->share = pn->period > 0 ? n->period / pn->period : 0;
		row->delta = diff_delta_points(b->share, n->share);
		double kb = b->share * (double)pb->samples, kn = n->share * (double)pn->samples;

		row->z = diff_two_proportion_z(kb, (double)pb->samples, kn, (double)pn->samples);
		/* Too few expected samples for the normal approximation (a rare row, or sides of
		 * very different sizes): Fisher's exact test on the counts. */
		row->exact = !diff_z_fair(kb, (double)pb->samples, kn, (double)pn->samples);
		row->p = row->exact ? diff_fisher_p((uint64_t)llround(kb), pb->samples,
						    (uint64_t)llround(kn), pn->samples)
				    : NAN;
	}
	row->relative = diff_relative_change(b->share, n->share);
	if (isnan(row->p)) /* the z-test, or an exact test too large to sum */
		row->p = diff_p_two_sided(row->z);
	row->status = !b->row ? DIFF_NEW_ROW : !n->row ? DIFF_GONE : DIFF_COMMON;
	/* put_line()'s mark of a line keyed by its number. */
	row->by_number = strstr(row->key, (char[]){SEP, '#', '\0'}) != NULL;
}

/* Merges the sorted entries E into D's rows. */
static int merge(struct diff *d, const struct diff_req *req, struct entry *e, size_t n)
{
	d->rows = calloc(n ? n : 1, sizeof(*d->rows));
	if (!d->rows)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct diff_row *row;
		const struct profile_row *r = &d->prow[e[i].side][e[i].row];
		struct diff_side *s;

		if (!d->nrows || strcmp(d->rows[d->nrows - 1].key, e[i].key)) {
			row = &d->rows[d->nrows++];
			row->key = e[i].key;
		} else {
			row = &d->rows[d->nrows - 1];
			free(e[i].key);
		}
		e[i].key = NULL;
		s = &row->side[e[i].side];
		if (!s->row || r->period > s->row->period)
			s->row = r;
		s->samples += r->samples;
		s->period += r->period;
	}
	for (size_t i = 0; i < d->nrows; i++) {
		struct diff_row *row = &d->rows[i];
		row_numbers(d, req, row);
		d->ncommon += row->status == DIFF_COMMON;
	}
	return 0;
}

static int significance(struct diff *d, double alpha)
{
	double *p = malloc((d->nrows ? d->nrows : 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < d->nrows; i++)
		p[i] = d->rows[i].p;
	if (diff_holm(p, d->nrows, p) < 0) {
		free(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < d->nrows; i++) {
		d->rows[i].p_adj = p[i];
		d->rows[i].significant = p[i] <= alpha;
		d->nsignificant += d->rows[i].significant;
	}
	free(p);
	qsort(d->rows, d->nrows, sizeof(*d->rows), by_significance);
	return 0;
}

/* Each side's rows, grouped by REQ's keys, with their functions' first lines in START[]. */
static int side_rows(struct diff *d, int side, const struct diff_req *req, int **start)
{
	const struct profile *p = d->p[side];
	struct profile_rows_req rr = {.keys = req->keys, .nkeys = req->nkeys};
	uint32_t *row_of = NULL;

	if (profile_rows_by(p, &rr, &d->prow[side], &d->nprow[side], &row_of) < 0)
		return -ENOMEM;
	*start = calloc(d->nprow[side] ? d->nprow[side] : 1, sizeof(**start));
	if (!*start) {
		free(row_of);
		return -ENOMEM;
	}
	function_starts(p, d->prow[side], row_of, *start);
	free(row_of);
	return 0;
}

int diff_build(struct diff *d, const struct profile *base, const struct profile *new_p,
	       const struct diff_req *req)
{
	struct ctx c = {.req = req, .p = {base, new_p}, .d = d};
	struct entry *e = NULL;
	int *start[2] = {NULL, NULL};
	size_t n = 0;
	int ret = -ENOMEM;

	memset(d, 0, sizeof(*d));
	d->p[DIFF_BASE] = base;
	d->p[DIFF_NEW] = new_p;
	d->rate = req->work[0] > 0 && req->work[1] > 0 && base->period > 0 && new_p->period > 0;
	for (int side = 0; side < 2; side++)
		if (side_rows(d, side, req, &start[side]) < 0)
			goto out;
	if (decide_files(&c) < 0)
		goto out;
	e = calloc(d->nprow[0] + d->nprow[1] + 1, sizeof(*e));
	if (!e)
		goto out;
	for (int side = 0; side < 2; side++)
		for (size_t i = 0; i < d->nprow[side]; i++) {
			e[n] = (struct entry){.side = side, .row = i};
			e[n].key = row_key(&c, &d->prow[side][i], start[side][i]);
			if (!e[n++].key)
				goto out;
		}
	qsort(e, n, sizeof(*e), by_key);
	if (merge(d, req, e, n) < 0 || significance(d, req->alpha) < 0)
		goto out;
	ret = 0;
out:
	if (e)
		for (size_t i = 0; i < n; i++)
			free(e[i].key);
	free(e);
	free(start[0]);
	free(start[1]);
	free(c.files);
	if (ret < 0)
		diff_release(d);
	return ret;
}

void diff_release(struct diff *d)
{
	for (size_t i = 0; i < d->nrows; i++)
		free(d->rows[i].key);
	free(d->rows);
	for (size_t i = 0; i < d->nnotes; i++)
		free(d->notes[i]);
	free(d->notes);
	free(d->prow[0]);
	free(d->prow[1]);
	memset(d, 0, sizeof(*d));
}
