/* flame.c - a flame graph's frames from the profile's stacks (flame.h).
 *
 * flamegraph.pl's way: sort the stacks by their frames, then each stack shares with the one
 * before it the frames they begin with and opens new ones where it differs. A frame's x is
 * the period of all the stacks sorted before its first one, so no second pass is needed and
 * siblings come out ordered by name. */
#include "flame.h"
#include "output.h"
#include "textfmt.h"
#include "grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int cmp_frame(const struct flame_node *a, const struct flame_node *b)
{
	int c = hwprof_namecmp(a->name, b->name);

	if (!c)
		c = hwprof_namecmp(a->dso, b->dso);
	if (!c)
		c = (int)a->inlined - (int)b->inlined;
	if (!c)
		c = (int)a->group - (int)b->group;
	if (!c)
		c = (int)a->data - (int)b->data;
	return c;
}

int flame_cmp(const struct flame_node *a, size_t na, const struct flame_node *b, size_t nb)
{
	for (size_t i = 0; i < na && i < nb; i++) {
		int c = cmp_frame(&a[i], &b[i]);
		if (c)
			return c;
	}
	return na < nb ? -1 : na > nb ? 1 : 0;
}

int flame_start(struct flame *fl)
{
	*fl = (struct flame){0};
	fl->v = calloc(64, sizeof(*fl->v));
	if (!fl->v)
		return -ENOMEM;
	fl->cap = 64;
	fl->n = 1;
	fl->v[0].name = "all";
	return 0;
}

int flame_add(struct flame *fl, const struct flame_node *frames, size_t n, uint64_t samples,
	      double period)
{
	struct flame_node *root = &fl->v[0];
	double x = root->period;
	size_t d = 0;

	if (hwprof_grow((void **)&fl->path, &fl->path_cap, n + 1, sizeof(*fl->path)) < 0)
		return -ENOMEM;
	fl->path[0] = 0;
	root->period += period;
	root->samples += samples;
	/* The frames this stack shares with the last one, as far as both read the same. */
	for (; d < n && d + 1 < fl->npath; d++) {
		struct flame_node *node = &fl->v[fl->path[d + 1]];
		if (cmp_frame(node, &frames[d]))
			break;
		node->period += period;
		node->samples += samples;
		if (hwprof_namecmp(node->file, frames[d].file))
			node->file = NULL;
		if (node->line != frames[d].line)
			node->line = 0;
	}
	for (; d < n; d++) {
		if (hwprof_grow((void **)&fl->v, &fl->cap, fl->n + 1, sizeof(*fl->v)) < 0)
			return -ENOMEM;
		struct flame_node *node = &fl->v[fl->n];
		*node = frames[d];
		node->parent = fl->path[d];
		node->depth = (uint32_t)d + 1;
		node->x = x;
		node->period = period;
		node->samples = samples;
		if (node->depth > fl->max_depth)
			fl->max_depth = node->depth;
		fl->path[d + 1] = (uint32_t)fl->n++;
	}
	fl->npath = n + 1;
	return 0;
}

/* One stack's frames, in the flat array of all of them. */
struct stack_ref {
	size_t first, n;
	uint64_t samples;
	double period;
};

struct build {
	struct flame_node *frames;
	size_t n, cap;
	struct stack_ref *stacks;
};

static int push(struct build *b, const struct flame_node *f)
{
	if (hwprof_grow((void **)&b->frames, &b->cap, b->n + 1, sizeof(*b->frames)) < 0)
		return -ENOMEM;
	b->frames[b->n++] = *f;
	return 0;
}

static struct flame_node node_of(const struct cg_frame *f)
{
	struct flame_node node = {.name = f->function,
				  .dso = f->dso,
				  .file = f->file,
				  .line = f->line,
				  .inlined = f->inlined};

	if (!f->function && f->unknown && f->dso) {
		node.name = path_base(f->dso);
		node.unknown = true;
	} else if (!f->function) {
		node.name = "[unknown]";
	}
	return node;
}

static int by_frames(const void *x, const void *y, void *ctx)
{
	const struct stack_ref *a = x, *b = y;
	const struct flame_node *v = ctx;

	return flame_cmp(v + a->first, a->n, v + b->first, b->n);
}

/* Stack I's frames in ORDER into B, and its place there into B->stacks[I]. Without stacks,
 * the location's DSO and file come first, as boxes of their own. */
static int collect(const struct profile *p, size_t i, enum flame_order order, bool inline_all,
		   struct cg_frames *fr, struct build *b)
{
	struct stack_ref *s = &b->stacks[i];

	if (cg_stack_frames(p, i, inline_all, fr, &s->samples, &s->period) < 0)
		return -ENOMEM;
	s->first = b->n;
	if (!p->nstacks && fr->n) {
		const struct cg_frame *leaf = &fr->v[fr->n - 1];
		struct flame_node dso = {
		    .name = path_base(leaf->dso), .dso = leaf->dso, .group = true};
		struct flame_node file = {.name = leaf->file ? path_base(leaf->file) : "??",
					  .dso = leaf->dso,
					  .file = leaf->file,
					  .group = true};
		if (push(b, &dso) < 0 || push(b, &file) < 0)
			return -ENOMEM;
	}
	for (size_t k = 0; k < fr->n; k++) {
		size_t at = order == FLAME_ROOTS_OUT ? k : fr->n - 1 - k;
		struct flame_node node = node_of(&fr->v[at]);
		if (push(b, &node) < 0)
			return -ENOMEM;
	}
	s->n = b->n - s->first;
	return 0;
}

/* Data sample group I of P as a stack into B (see flame_build_data()). */
static int collect_data(const struct profile *p, size_t i, enum flame_order order, bool inline_all,
			struct build *b)
{
	const struct profile_data *d = &p->data[i];
	struct cg_frame chain[CG_MAX_CHAIN];
	size_t k = cg_loc_chain(p, &p->locations[d->loc], inline_all, chain, CG_MAX_CHAIN);
	struct flame_node leaf = {.name = d->object ? d->object : "[unknown]", .data = true};
	struct stack_ref *s = &b->stacks[i];

	s->samples = d->samples;
	s->period = d->period;
	s->first = b->n;
	if (order == FLAME_LEAVES_OUT && push(b, &leaf) < 0)
		return -ENOMEM;
	/* CHAIN is innermost first. */
	for (size_t j = 0; j < k; j++) {
		struct flame_node node = node_of(&chain[order == FLAME_ROOTS_OUT ? k - 1 - j : j]);
		if (push(b, &node) < 0)
			return -ENOMEM;
	}
	if (order == FLAME_ROOTS_OUT && push(b, &leaf) < 0)
		return -ENOMEM;
	s->n = b->n - s->first;
	return 0;
}

static int build(const struct profile *p, enum flame_order order, bool inline_all, bool data,
		 struct flame *fl)
{
	size_t n = data ? p->ndata : cg_stacks_count(p);
	struct build b = {0};
	struct cg_frames fr = {0};
	int ret = -ENOMEM;

	if (flame_start(fl) < 0)
		return -ENOMEM;
	fl->no_stacks = !data && !p->nstacks;
	fl->data = data;
	b.stacks = calloc(n ? n : 1, sizeof(*b.stacks));
	if (!b.stacks)
		goto out;
	for (size_t i = 0; i < n; i++)
		if ((data ? collect_data(p, i, order, inline_all, &b)
			  : collect(p, i, order, inline_all, &fr, &b)) < 0)
			goto out;
	qsort_r(b.stacks, n, sizeof(*b.stacks), by_frames, b.frames);
	for (size_t i = 0; i < n; i++)
		if (flame_add(fl, b.frames + b.stacks[i].first, b.stacks[i].n, b.stacks[i].samples,
			      b.stacks[i].period) < 0)
			goto out;
	ret = 0;
out:
	free(fr.v);
	free(b.frames);
	free(b.stacks);
	if (ret < 0)
		flame_release(fl);
	return ret;
}

int flame_build(const struct profile *p, enum flame_order order, bool inline_all, struct flame *fl)
{
	return build(p, order, inline_all, false, fl);
}

int flame_build_data(const struct profile *p, enum flame_order order, bool inline_all,
		     struct flame *fl)
{
	return build(p, order, inline_all, true, fl);
}

void flame_release(struct flame *fl)
{
	free(fl->v);
	free(fl->path);
	*fl = (struct flame){0};
}
