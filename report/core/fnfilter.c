/* fnfilter.c - --function over a symbolized profile: the locations of the picked functions
 * stay, with their stacks.
 *
 * It runs after symbolization because base-name matching must see every function name before
 * it can tell a unique name from an ambiguous one. */
#include "filter.h"

#include "funcname.h"
#include "profile.h"
#include "values.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct name_ref {
	const char *name;
	size_t first; /* index of its hottest location */
};

static int by_name(const void *a, const void *b)
{
	const struct name_ref *x = a, *y = b;

	if (x->name != y->name)
		return (uintptr_t)x->name < (uintptr_t)y->name ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int by_first(const void *a, const void *b)
{
	const struct name_ref *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* --function: each value picks functions by fn_pick(); the locations of none are dropped. */
static int by_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (const char *const *)a,
		  y = (uintptr_t) * (const char *const *)b;

	return x < y ? -1 : x > y;
}

/* Whether L is in one of the N functions NAMES (sorted by pointer): its own or the one it
 * is inlined into. */
static bool picked(const struct profile_loc *l, const char **names, size_t n)
{
	return (l->function && bsearch(&l->function, names, n, sizeof(*names), by_ptr)) ||
	       (l->inlined_into && bsearch(&l->inlined_into, names, n, sizeof(*names), by_ptr));
}

/* The picked functions' names (sorted by pointer), for values_filter(). */
struct picked_set {
	const struct profile *p;
	const char **names;
	size_t n;
};

static bool picked_leaf(void *ctx, uint32_t id)
{
	const struct picked_set *s = ctx;

	return picked(&s->p->locations[id], s->names, s->n);
}

/* The distinct function names of P's locations (interned: one pointer each), hottest first,
 * in a new array of *NP; NULL when out of memory. A location answers to its function and,
 * when that is inlined, to the real function it is inlined into, as perf's --symbols counts
 * all of a function's code. */
static const char **distinct_names(const struct profile *p, size_t *np)
{
	struct name_ref *refs = calloc(2 * p->nlocs + 1, sizeof(*refs));
	const char **names;
	size_t n = 0, keep = 0;

	if (!refs)
		return NULL;
	for (size_t i = 0; i < p->nlocs; i++) {
		if (p->locs[i].function)
			refs[n++] = (struct name_ref){.name = p->locs[i].function, .first = i};
		if (p->locs[i].inlined_into)
			refs[n++] = (struct name_ref){.name = p->locs[i].inlined_into, .first = i};
	}
	qsort(refs, n, sizeof(*refs), by_name);
	for (size_t i = 0, o = 0; i < n; i++)
		if (!o || refs[o - 1].name != refs[i].name)
			refs[o++] = refs[i], keep = o;
	n = keep;
	qsort(refs, n, sizeof(*refs), by_first);
	names = calloc(n + 1, sizeof(*names));
	if (names)
		for (size_t i = 0; i < n; i++)
			names[i] = refs[i].name;
	free(refs);
	*np = n;
	return names;
}

/* Writes into ERR that --function VALUE picks none of the N NAMES (hottest first). */
static void say_unpicked(const char *value, const char **names, size_t n, size_t ninputs,
			 enum inline_mode mode, char *err, size_t errlen)
{
	char seen[512];

	list_strs(seen, sizeof(seen), names, n < 8 ? n : 8);
	snprintf(err, errlen, "--function '%s': no sample has it (the input%s: %s%s%s)", value,
		 ninputs > 1 ? "s hold" : " holds", seen[0] ? seen : "nothing to match",
		 n > 8 ? ", ..." : "",
		 mode == INLINE_CALLER ? "; --inline=caller charges inlined "
					 "functions to their callers"
				       : "");
}

/* Marks in KEEP the ones of the N NAMES (hottest first) that a value of F picks. Returns 0,
 * -EINVAL with ERR set when a value picks none or is ambiguous, or -ENOMEM. */
static int pick_names(const struct filter *f, const char **names, size_t n, bool *keep,
		      size_t ninputs, enum inline_mode mode, char *err, size_t errlen)
{
	bool *pick = calloc(n + 1, sizeof(*pick));
	int ret = 0;

	if (!pick)
		return -ENOMEM;
	for (size_t v = 0; v < f->n && !ret; v++) {
		struct fn_query q;
		char cands[768];
		int got;

		fn_query_init(&q, f->v[v]);
		got = fn_pick(&q, names, n, pick, cands, sizeof(cands));
		fn_query_release(&q);
		if (got == -ENOMEM) {
			ret = -ENOMEM;
		} else if (got == -EINVAL) {
			snprintf(err, errlen,
				 "--function '%s': several functions have that name (%s; give "
				 "one as `hwprof report -s function` prints it)",
				 f->v[v], cands);
			ret = -EINVAL;
		} else if (got <= 0) {
			say_unpicked(f->v[v], names, n, ninputs, mode, err, errlen);
			ret = -EINVAL;
		} else {
			for (size_t i = 0; i < n; i++)
				keep[i] |= pick[i];
		}
	}
	free(pick);
	return ret;
}

/* Keeps P's locations, stacks, data samples and values in one of the N functions NAMES
 * (sorted by pointer), in their order, and sums P's totals over what stays. */
static void keep_picked(struct profile *p, const char **names, size_t n)
{
	size_t keep = 0;

	p->samples = 0;
	p->period = 0;
	for (size_t i = 0; i < p->nlocs; i++) {
		if (!picked(&p->locs[i], names, n))
			continue;
		p->samples += p->locs[i].samples;
		p->period += p->locs[i].period;
		p->locs[keep++] = p->locs[i];
	}
	p->nlocs = keep;
	/* A stack goes with its sampled address. */
	keep = 0;
	p->truncated_samples = 0;
	for (size_t i = 0; i < p->nstacks; i++) {
		if (!picked(&p->locations[p->stacks[i].locs[0]], names, n))
			continue;
		if (p->stacks[i].truncated)
			p->truncated_samples += p->stacks[i].samples;
		p->stacks[keep++] = p->stacks[i];
	}
	p->nstacks = keep;
	/* So does a data sample (its weights stay where they are: data[].first_weight). */
	keep = 0;
	p->data_samples = 0;
	p->data_period = 0;
	for (size_t i = 0; i < p->ndata; i++) {
		if (!picked(&p->locations[p->data[i].loc], names, n))
			continue;
		p->data_samples += p->data[i].samples;
		p->data_period += p->data[i].period;
		p->data[keep++] = p->data[i];
	}
	p->ndata = keep;
	values_filter(p, picked_leaf, &(struct picked_set){p, names, n});
}

int profile_keep_functions(struct profile *p, const char *list, size_t ninputs,
			   enum inline_mode mode, char *err, size_t errlen)
{
	struct filter f = {0};
	const char **names;
	bool *keep_name = NULL;
	size_t n = 0, nchosen = 0;
	int ret;

	ret = filter_parse(&f, "--function", list, false, err, errlen);
	if (ret < 0)
		return ret;
	ret = -ENOMEM;
	names = distinct_names(p, &n);
	if (names)
		keep_name = calloc(n + 1, sizeof(*keep_name));
	if (!keep_name)
		goto out;
	ret = pick_names(&f, names, n, keep_name, ninputs, mode, err, errlen);
	if (ret < 0)
		goto out;
	/* Keep the picked functions' locations, in their period order. */
	for (size_t i = 0; i < n; i++)
		if (keep_name[i])
			names[nchosen++] = names[i];
	qsort(names, nchosen, sizeof(*names), by_ptr);
	keep_picked(p, names, nchosen);
out:
	free(names);
	free(keep_name);
	filter_release(&f);
	return ret;
}
