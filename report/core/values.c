/* values.c - the value vector: one table of every sampling event's stacks.
 *
 * Why beside the shown event's tables and not instead of them: rows, call paths, folded
 * stacks and annotate show one event (their shares are of one unit), and the vector costs
 * nothing when one event was sampled, the common case. Only a consumer that shows every
 * event (pprof's sample types) reads it. The union is made once, at the end: each other
 * event's stacks were interned on their own while reading, so a sample costs one hash
 * lookup whatever its event. */
#include "values.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct vbuild {
	struct stack_table all;	    /* every distinct stack; the entries' own samples unused */
	struct profile_value *vals; /* all.n x ncols */
	size_t cap;		    /* entries VALS has room for */
	uint32_t ncols;
};

/* Adds SAMPLES of PERIOD in column COL to stack IDS[0..N). Returns 0 or -ENOMEM. */
static int add(struct vbuild *v, const uint32_t *ids, uint32_t n, bool truncated, uint32_t col,
	       uint64_t samples, double period)
{
	size_t i;

	if (stack_table_intern(&v->all, ids, n, truncated, 0, 0, &i) < 0)
		return -ENOMEM;
	if (i >= v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 1024;
		struct profile_value *p;
		while (cap <= i)
			cap *= 2;
		p = realloc(v->vals, cap * v->ncols * sizeof(*p));
		if (!p)
			return -ENOMEM;
		memset(p + v->cap * v->ncols, 0, (cap - v->cap) * v->ncols * sizeof(*p));
		v->vals = p;
		v->cap = cap;
	}
	v->vals[i * v->ncols + col].samples += samples;
	v->vals[i * v->ncols + col].period += period;
	return 0;
}

int values_build(struct profile *p, const struct stack_table *other, uint32_t nother,
		 bool (*keep)(void *ctx, uint32_t id), void *ctx)
{
	struct vbuild v = {0};
	uint32_t *col = calloc(p->header.nevents + 1, sizeof(*col)), shown = UINT32_MAX;
	int ret = -ENOMEM;

	if (!col)
		return -ENOMEM;
	/* A column per event with stacks, and the shown event's, in header order. */
	for (uint32_t k = 0; k < p->header.nevents; k++)
		if (k == p->event || (k < nother && other[k].n))
			col[k] = v.ncols++;
		else
			col[k] = UINT32_MAX;
	if (p->event < p->header.nevents)
		shown = col[p->event];
	if (v.ncols < 2 || shown == UINT32_MAX) {
		free(col);
		return 0;
	}
	p->value_event = calloc(v.ncols, sizeof(*p->value_event));
	if (!p->value_event)
		goto out;
	for (uint32_t k = 0; k < p->header.nevents; k++)
		if (col[k] != UINT32_MAX)
			p->value_event[col[k]] = k;
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *s = &p->stacks[i];
		if (add(&v, s->locs, s->n, s->truncated, shown, s->samples, s->period) < 0)
			goto out;
	}
	for (size_t i = 0; !p->nstacks && i < p->nlocs; i++)
		if (add(&v, &p->locs[i].id, 1, false, shown, p->locs[i].samples,
			p->locs[i].period) < 0)
			goto out;
	for (uint32_t k = 0; k < nother && k < p->header.nevents; k++) {
		if (k == p->event)
			continue;
		for (size_t i = 0; i < other[k].n; i++) {
			const struct stack_entry *e = &other[k].v[i];
			const uint32_t *ids = other[k].ids + e->first;
			if (keep(ctx, ids[0]) &&
			    add(&v, ids, e->n, e->truncated, col[k], e->samples, e->period) < 0)
				goto out;
		}
	}
	p->nvalues = v.ncols;
	p->vsamples = calloc(v.all.n + 1, sizeof(*p->vsamples));
	p->vsample_locs = malloc((v.all.nids + 1) * sizeof(*p->vsample_locs));
	p->loc_values = calloc(p->nlocations * v.ncols + 1, sizeof(*p->loc_values));
	if (!p->vsamples || !p->vsample_locs || !p->loc_values)
		goto out;
	if (v.all.nids)
		memcpy(p->vsample_locs, v.all.ids, v.all.nids * sizeof(*v.all.ids));
	p->vsample_values = v.vals;
	v.vals = NULL;
	for (size_t i = 0; i < v.all.n; i++) {
		const struct stack_entry *e = &v.all.v[i];
		const struct profile_value *vals = p->vsample_values + i * v.ncols;
		struct profile_value *leaf = p->loc_values + (size_t)v.all.ids[e->first] * v.ncols;
		p->vsamples[i] = (struct profile_vsample){.locs = p->vsample_locs + e->first,
							  .n = e->n,
							  .truncated = e->truncated,
							  .values = vals};
		for (uint32_t c = 0; c < v.ncols; c++) {
			leaf[c].samples += vals[c].samples;
			leaf[c].period += vals[c].period;
		}
	}
	p->nvsamples = v.all.n;
	ret = 0;
out:
	if (ret < 0)
		p->nvalues = 0;
	free(v.vals);
	stack_table_release(&v.all);
	free(col);
	return ret;
}

void values_filter(struct profile *p, bool (*keep)(void *ctx, uint32_t id), void *ctx)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nvsamples; i++)
		if (keep(ctx, p->vsamples[i].locs[0]))
			p->vsamples[n++] = p->vsamples[i];
	p->nvsamples = n;
}
