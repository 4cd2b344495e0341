/* callgraph.c - a row's call paths as a tree of frames. */
#include "callgraph.h"
#include "rows.h"
#include "textfmt.h"
#include "grow.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t cg_loc_frames(const struct profile_loc *l, struct cg_frame out[2])
{
	out[0] = (struct cg_frame){.function = l->function,
				   .file = l->file,
				   .line = l->line,
				   .dso = l->dso,
				   .offset = l->offset,
				   .unknown = l->unknown,
				   .inlined = l->inlined_into != NULL};
	if (!l->inlined_into)
		return 1;
	out[1] = (struct cg_frame){.function = l->inlined_into,
				   .file = l->call_file,
				   .line = l->call_line,
				   .dso = l->dso,
				   .offset = l->offset};
	return 2;
}

size_t cg_loc_chain(const struct profile *p, const struct profile_loc *l, bool all,
		    struct cg_frame *out, size_t max)
{
	struct cg_frame two[2];
	const struct profile_line *lines = NULL;
	uint32_t n = 0;
	size_t m;

	if (all)
		lines = profile_loc_lines(p, l, &n);
	if (!n) {
		m = cg_loc_frames(l, two);
		m = m < max ? m : max;
		memcpy(out, two, m * sizeof(*out));
		return m;
	}
	for (m = 0; m < n && m < max; m++) {
		const struct profile_function *fn =
		    lines[m].function < p->nfunctions ? &p->functions[lines[m].function] : NULL;
		out[m] = (struct cg_frame){.function = fn ? fn->name : NULL,
					   .file = lines[m].file,
					   .line = lines[m].line,
					   .dso = l->dso,
					   .offset = l->offset,
					   .unknown = !m && l->unknown};
	}
	return m;
}

size_t cg_stacks_count(const struct profile *p)
{
	return p->nstacks ? p->nstacks : p->nlocs;
}

static int push_frame(struct cg_frames *out, const struct cg_frame *f)
{
	if (hwprof_grow((void **)&out->v, &out->cap, out->n + 1, sizeof(*out->v)) < 0)
		return -ENOMEM;
	out->v[out->n++] = *f;
	return 0;
}

int cg_stack_frames(const struct profile *p, size_t i, bool inline_all, struct cg_frames *out,
		    uint64_t *samples, double *period)
{
	const struct profile_loc *table = p->nstacks ? p->locations : p->locs;
	uint32_t self = (uint32_t)i;
	const uint32_t *ids = &self;
	uint32_t n = 1;

	out->n = 0;
	if (p->nstacks) {
		const struct profile_stack *s = &p->stacks[i];
		ids = s->locs;
		n = s->n;
		*samples = s->samples;
		*period = s->period;
		if (s->truncated &&
		    push_frame(out, &(struct cg_frame){.function = "[truncated]"}) < 0)
			return -ENOMEM;
	} else {
		*samples = p->locs[i].samples;
		*period = p->locs[i].period;
	}
	for (uint32_t k = n; k-- > 0;) {
		struct cg_frame fr[CG_MAX_CHAIN];
		size_t m = cg_loc_chain(p, &table[ids[k]], inline_all, fr, CG_MAX_CHAIN);
		while (m-- > 0)
			if (push_frame(out, &fr[m]) < 0)
				return -ENOMEM;
	}
	return 0;
}

bool cg_frame_eq(const struct cg_frame *a, const struct cg_frame *b)
{
	if (a->function != b->function || a->file != b->file || a->line != b->line ||
	    a->dso != b->dso || a->unknown != b->unknown)
		return false;
	/* Nothing known: each address is its own frame. */
	return !a->unknown || a->offset == b->offset;
}

const char *cg_frame_label(const struct cg_frame *f, bool full, char *buf, size_t len)
{
	const char *file = f->file ? f->file : "??", *s;

	if (!full && (s = strrchr(file, '/')))
		file = s + 1;
	if (f->unknown) {
		s = f->dso ? strrchr(f->dso, '/') : NULL;
		snprintf(buf, len, "[unknown] %s+0x%" PRIx64,
			 s	  ? s + 1
			 : f->dso ? f->dso
				  : "",
			 f->offset);
	} else if (f->line) {
		snprintf(buf, len, "%s:%d %s", file, f->line, f->function ? f->function : "??");
	} else {
		snprintf(buf, len, "%s %s", file, f->function ? f->function : "??");
	}
	return hwprof_text_tame(buf);
}

static int new_node(struct cg_tree *t, const struct cg_frame *f, uint32_t *id)
{
	if (t->n >= UINT32_MAX - 1 ||
	    hwprof_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)) < 0)
		return -ENOMEM;
	t->v[t->n] = (struct cg_node){.frame = *f};
	*id = (uint32_t)t->n++;
	return 0;
}

/* The child of node AT reading F (made when new) into *AT. */
static int step(struct cg_tree *t, uint32_t *at, const struct cg_frame *f)
{
	uint32_t c = t->v[*at].child, id;

	for (; c; c = t->v[c - 1].next)
		if (cg_frame_eq(&t->v[c - 1].frame, f)) {
			*at = c - 1;
			return 0;
		}
	if (new_node(t, f, &id) < 0)
		return -ENOMEM;
	t->v[id].next = t->v[*at].child;
	t->v[*at].child = id + 1;
	*at = id;
	return 0;
}

/* The frames of stack S outward from its frame J (the row's), into *V (grown as needed):
 * J's own inline callers first, then each caller's frames. OUTER: the row's frame is J's
 * outermost (the function J's code was inlined into), its inline callers none; else DEPTH is
 * the row's frame in J's chain (0 its innermost, up to a middle frame of INLINE_ALL's). */
static int path_frames(const struct profile *p, const struct profile_stack *s, uint32_t j,
		       bool outer, uint32_t depth, bool inline_all, struct cg_frame **v,
		       size_t *cap, size_t *n)
{
	*n = 0;
	for (uint32_t k = j; k < s->n; k++) {
		struct cg_frame fr[CG_MAX_CHAIN];
		size_t m = cg_loc_chain(p, &p->locations[s->locs[k]], inline_all, fr, CG_MAX_CHAIN);
		if (hwprof_grow((void **)v, cap, *n + m + 1, sizeof(**v)) < 0)
			return -ENOMEM;
		for (size_t i = k != j ? 0 : outer ? m : depth + 1; i < m; i++)
			(*v)[(*n)++] = fr[i];
	}
	if (s->truncated)
		(*v)[(*n)++] = (struct cg_frame){.function = "[truncated]"};
	return 0;
}

static int by_period(const void *a, const void *b, void *ctx)
{
	const struct cg_node *v = ctx, *x = &v[*(const uint32_t *)a - 1],
			     *y = &v[*(const uint32_t *)b - 1];

	if (x->period != y->period)
		return x->period < y->period ? 1 : -1;
	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

/* Each node's children sorted, hottest first. */
static int sort_children(struct cg_tree *t)
{
	uint32_t *ids = NULL;
	size_t cap = 0;

	for (size_t i = 0; i < t->n; i++) {
		size_t m = 0;
		for (uint32_t c = t->v[i].child; c; c = t->v[c - 1].next) {
			if (hwprof_grow((void **)&ids, &cap, m + 1, sizeof(*ids)) < 0) {
				free(ids);
				return -ENOMEM;
			}
			ids[m++] = c;
		}
		if (m < 2)
			continue;
		qsort_r(ids, m, sizeof(*ids), by_period, t->v);
		t->v[i].child = ids[0];
		for (size_t k = 0; k < m; k++)
			t->v[ids[k] - 1].next = k + 1 < m ? ids[k + 1] : 0;
	}
	free(ids);
	return 0;
}

/* The depth in location LOC's inline chain of its middle frame in row ROW
 * (profile_row_of_mids()), or 0 when none is. */
static uint32_t mid_depth(const struct profile *p, const uint32_t *row_of, uint32_t loc,
			  uint32_t row)
{
	uint32_t n;
	const uint32_t *mid = profile_row_of_mids(p, row_of, loc, &n);

	for (uint32_t d = 0; d < n; d++)
		if (mid[d] == row)
			return d + 1;
	return 0;
}

int cg_tree_build(const struct profile *p, const uint32_t *row_of, uint32_t row, bool children,
		  enum cg_order order, bool inline_all, struct cg_tree *t)
{
	struct cg_frame root = {0}, *path = NULL;
	size_t cap = 0, n;
	uint32_t id;
	int ret = -ENOMEM;

	memset(t, 0, sizeof(*t));
	if (new_node(t, &root, &id) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *s = &p->stacks[i];
		uint32_t j = 0, at = 0, depth = 0;
		bool self = row_of[s->locs[0]] == row, outer = false;

		for (; !self && children && j < s->n; j++) {
			if (row_of[s->locs[j]] == row)
				break;
			if (row_of[p->nlocations + s->locs[j]] == row) {
				outer = true;
				break;
			}
			if ((depth = mid_depth(p, row_of, s->locs[j], row)))
				break;
		}
		if (j == s->n || (!self && !children))
			continue;
		if (path_frames(p, s, j, outer, depth, inline_all, &path, &cap, &n) < 0)
			goto out;
		t->v[0].samples += s->samples;
		t->v[0].period += s->period;
		for (size_t k = 0; k < n; k++) {
			if (step(t, &at, &path[order == CG_CALLEE ? k : n - 1 - k]) < 0)
				goto out;
			t->v[at].samples += s->samples;
			t->v[at].period += s->period;
		}
	}
	ret = sort_children(t);
out:
	free(path);
	if (ret < 0)
		cg_tree_release(t);
	return ret;
}

void cg_tree_release(struct cg_tree *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}
