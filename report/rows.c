/* rows.c - locations grouped by the --sort keys into rows, with share intervals. */
#include "rows.h"

#include "closest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	enum profile_key key;
} sort_names[] = {
    {"line", PROFILE_KEY_LINE},		{"srcline", PROFILE_KEY_LINE},
    {"function", PROFILE_KEY_FUNCTION}, {"sym", PROFILE_KEY_FUNCTION},
    {"dso", PROFILE_KEY_DSO},		{"addr", PROFILE_KEY_ADDR},
};
#define NSORT_NAMES (sizeof(sort_names) / sizeof(sort_names[0]))

/* Appends "'WORD'" (or "'WORD' (did you mean 'X'?)") to the list in BUF. */
static void add_bad_key(char *buf, size_t len, const char *word, size_t wlen, bool suggest)
{
	size_t at = strlen(buf);
	char w[64], hint[96] = "";

	snprintf(w, sizeof(w), "%.*s", (int)wlen, word);
	if (suggest) {
		struct hwprof_suggest sg;

		hwprof_suggest_init(&sg, w);
		for (size_t k = 0; k < NSORT_NAMES; k++)
			hwprof_suggest_consider(&sg, sort_names[k].name);
		if (*hwprof_suggest_result(&sg))
			snprintf(hint, sizeof(hint), " (did you mean '%s'?)",
				 hwprof_suggest_result(&sg));
	}
	if (at < len)
		snprintf(buf + at, len - at, "%s'%s'%s", at ? ", " : "", w, hint);
}

/* Every bad key is named at once, not only the first or the last: unknown ones, then keys
 * given twice (an alias such as srcline repeats line). */
int profile_parse_sort(const char *list, enum profile_key *keys, size_t max, char *err,
		       size_t errlen)
{
	char unknown[256] = "", twice[256] = "";
	const char *s = list;
	size_t n = 0, nunknown = 0, ntwice = 0;
	bool seen[PROFILE_KEY_ADDR + 1] = {false};

	while (*s) {
		size_t len = strcspn(s, ","), i;
		for (i = 0; i < NSORT_NAMES; i++)
			if (strlen(sort_names[i].name) == len &&
			    !strncmp(sort_names[i].name, s, len))
				break;
		if (i == NSORT_NAMES) {
			add_bad_key(unknown, sizeof(unknown), s, len, true);
			nunknown++;
		} else if (seen[sort_names[i].key]) {
			add_bad_key(twice, sizeof(twice), s, len, false);
			ntwice++;
		} else {
			seen[sort_names[i].key] = true;
			if (n < max)
				keys[n] = sort_names[i].key;
			n++;
		}
		s += len;
		if (*s == ',')
			s++;
	}
	if (nunknown || ntwice || n > max) {
		snprintf(err, errlen,
			 "--sort '%s': %s%s%s%s%s%s (keys: line, function, dso, addr, each once; "
			 "e.g. --sort function,line)",
			 list,
			 nunknown == 1 ? "unknown sort key "
			 : nunknown    ? "unknown sort keys "
				       : "",
			 unknown, nunknown && ntwice ? "; " : "", twice,
			 ntwice == 1 ? " given twice"
			 : ntwice    ? " given again"
				     : "",
			 n > max && !nunknown && !ntwice ? "too many keys" : "");
		return -EINVAL;
	}
	if (!n) {
		snprintf(err, errlen, "--sort '%s': no key (keys: line, function, dso, addr)",
			 list);
		return -EINVAL;
	}
	return (int)n;
}

/* The grouping key of one location; fields outside the keys are cleared. Strings are
 * interned, so pointers compare as strings do. */
struct key {
	const char *dso, *file, *function, *inlined_into;
	int line;
	uint64_t offset; /* only for locations nothing is known about */
	uint64_t addr;	 /* --sort addr */
	size_t loc;
};

static void make_key(const struct profile_loc *l, const enum profile_key *keys, size_t nkeys,
		     struct key *k)
{
	memset(k, 0, sizeof(*k));
	for (size_t i = 0; i < nkeys; i++) {
		k->dso = l->dso;
		switch (keys[i]) {
		case PROFILE_KEY_LINE:
			k->file = l->file;
			k->line = l->line;
			k->function = l->function;
			k->inlined_into = l->inlined_into;
			if (!l->file && !l->function)
				k->offset = l->offset;
			break;
		case PROFILE_KEY_FUNCTION:
			/* Addresses without a function share one "[unknown]" row per DSO. */
			k->function = l->function;
			k->inlined_into = l->inlined_into;
			break;
		case PROFILE_KEY_DSO:
			break;
		case PROFILE_KEY_ADDR:
			k->addr = l->addr;
			k->offset = l->offset;
			break;
		}
	}
}

static int ptrcmp(const void *a, const void *b)
{
	return a == b ? 0 : (uintptr_t)a < (uintptr_t)b ? -1 : 1;
}

static int keycmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	int c;

	if ((c = ptrcmp(x->dso, y->dso)) || (c = ptrcmp(x->file, y->file)) ||
	    (c = ptrcmp(x->function, y->function)) ||
	    (c = ptrcmp(x->inlined_into, y->inlined_into)))
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->loc < y->loc ? -1 : x->loc > y->loc;
}

static bool same_group(const struct key *x, const struct key *y)
{
	return x->dso == y->dso && x->file == y->file && x->function == y->function &&
	       x->inlined_into == y->inlined_into && x->line == y->line && x->offset == y->offset &&
	       x->addr == y->addr;
}

static int rowcmp(const void *a, const void *b)
{
	const struct profile_row *x = a, *y = b;
	int c;

	if (x->period != y->period)
		return x->period < y->period ? 1 : -1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	if ((c = strcmp(x->function ? x->function : "", y->function ? y->function : "")))
		return c;
	if ((c = strcmp(x->file ? x->file : "", y->file ? y->file : "")))
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The row shows a field only when all its locations agree on it. */
static void merge_loc(struct profile_row *r, const struct profile_loc *l, bool first)
{
	if (first) {
		r->dso = l->dso;
		r->function = l->function;
		r->inlined_into = l->inlined_into;
		r->file = l->file;
		r->line = l->line;
		r->unknown = l->unknown;
		r->offset = l->offset;
		r->addr = l->addr;
		r->mapping = l->mapping;
	} else {
		if (r->dso != l->dso)
			r->dso = NULL;
		if (r->function != l->function || r->inlined_into != l->inlined_into)
			r->function = NULL, r->inlined_into = NULL, r->function_mixed = true;
		if (r->function_mixed)
			r->inlined_into = NULL;
		if (r->file != l->file)
			r->file = NULL, r->line = 0, r->file_mixed = true;
		if (r->line != l->line)
			r->line = 0;
		r->unknown = r->unknown && l->unknown;
		if (r->offset != l->offset || r->dso != l->dso)
			r->offset = 0, r->offset_mixed = true;
		if (r->addr != l->addr || r->mapping != l->mapping)
			r->addr = 0, r->mapping = 0, r->addr_mixed = true;
	}
}

/* Self and children of ROWS (ROW_OF by location id) from P's stacks: a stack counts once
 * in each row it passes through (recursion does not count a row twice), as its self in
 * the row of its sampled address. */
static void sum_stacks(const struct profile *p, const uint32_t *row_of, struct profile_row *rows,
		       size_t n, size_t *stamp)
{
	for (size_t r = 0; r < n; r++)
		stamp[r] = 0;
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *s = &p->stacks[i];
		struct profile_row *leaf = &rows[row_of[s->locs[0]]];

		leaf->self_samples += s->samples;
		leaf->self_period += s->period;
		for (uint32_t j = 0; j < s->n; j++) {
			uint32_t r = row_of[s->locs[j]];
			if (stamp[r] == i + 1)
				continue;
			stamp[r] = i + 1;
			rows[r].samples += s->samples;
			rows[r].period += s->period;
		}
	}
}

int profile_rows(const struct profile *p, const enum profile_key *keys, size_t nkeys,
		 struct profile_row **rows, size_t *nrows)
{
	struct profile_rows_req req = {.keys = keys, .nkeys = nkeys};

	return profile_rows_by(p, &req, rows, nrows, NULL);
}

int profile_rows_by(const struct profile *p, const struct profile_rows_req *req,
		    struct profile_row **rows, size_t *nrows, uint32_t **row_of_out)
{
	bool children = req->children && p->nstacks;
	/* The locations grouped: the sampled ones (locs[]), or every one a stack holds. */
	size_t nin = children ? p->nlocations : p->nlocs, m = 0, n = 0;
	struct key *k = calloc(nin ? nin : 1, sizeof(*k));
	struct profile_row *r = calloc(nin ? nin : 1, sizeof(*r));
	uint32_t *row_of = malloc((p->nlocations ? p->nlocations : 1) * sizeof(*row_of));
	size_t *stamp = NULL;
	uint32_t *pos;
	bool *used = NULL;
	int ret = -ENOMEM;

	*rows = NULL;
	*nrows = 0;
	if (row_of_out)
		*row_of_out = NULL;
	if (!k || !r || !row_of)
		goto out;
	for (size_t i = 0; i < p->nlocations; i++)
		row_of[i] = UINT32_MAX;
	if (children) {
		used = calloc(nin ? nin : 1, sizeof(*used));
		if (!used)
			goto out;
		for (size_t i = 0; i < p->nstacks; i++)
			for (uint32_t j = 0; j < p->stacks[i].n; j++)
				used[p->stacks[i].locs[j]] = true;
	}
	for (size_t i = 0; i < nin; i++) {
		const struct profile_loc *l = children ? &p->locations[i] : &p->locs[i];
		if (children && !used[i])
			continue;
		make_key(l, req->keys, req->nkeys, &k[m]);
		k[m++].loc = i;
	}
	qsort(k, m, sizeof(*k), keycmp);
	for (size_t i = 0; i < m; i++) {
		const struct profile_loc *l =
		    children ? &p->locations[k[i].loc] : &p->locs[k[i].loc];
		bool first = i == 0 || !same_group(&k[i], &k[i - 1]);
		if (first)
			n++;
		merge_loc(&r[n - 1], l, first);
		if (!children) {
			r[n - 1].samples += l->samples;
			r[n - 1].period += l->period;
			r[n - 1].self_samples = r[n - 1].samples;
			r[n - 1].self_period = r[n - 1].period;
		}
		if (l->id < p->nlocations)
			row_of[l->id] = (uint32_t)(n - 1);
	}
	if (children) {
		stamp = calloc(n ? n : 1, sizeof(*stamp));
		if (!stamp)
			goto out;
		sum_stacks(p, row_of, r, n, stamp);
		for (size_t i = 0; i < n; i++)
			r[i].children = true;
	}
	/* Only the DSO is asked for: what one location says is not the row's. */
	bool dso_only = true;
	for (size_t i = 0; i < req->nkeys; i++)
		dso_only = dso_only && req->keys[i] == PROFILE_KEY_DSO;
	for (size_t i = 0; dso_only && i < n; i++) {
		r[i].file = r[i].function = r[i].inlined_into = NULL;
		r[i].line = 0;
		r[i].unknown = false;
		r[i].offset = r[i].addr = 0;
		r[i].file_mixed = r[i].function_mixed = r[i].offset_mixed = r[i].addr_mixed =
		    true; /* printed empty */
	}
	for (size_t i = 0; i < n; i++)
		r[i].group = (uint32_t)i;
	qsort(r, n, sizeof(*r), rowcmp);
	/* row_of said the group; now the row's place (groups <= locations: room in k's). */
	pos = (uint32_t *)k;
	for (size_t i = 0; i < n; i++)
		pos[r[i].group] = (uint32_t)i;
	for (size_t i = 0; i < p->nlocations; i++)
		if (row_of[i] != UINT32_MAX)
			row_of[i] = pos[row_of[i]];
	for (size_t i = 0; i < n; i++) {
		r[i].share = p->period > 0 ? r[i].period / p->period : 0;
		r[i].self_share = p->period > 0 ? r[i].self_period / p->period : 0;
		profile_wilson95(r[i].share * (double)p->samples, (double)p->samples, &r[i].ci_lo,
				 &r[i].ci_hi);
	}
	/* A row whose interval overlaps its neighbour's could swap places with it in another
	 * recording of the same run: its rank is not settled by the samples. */
	for (size_t i = 0; i < n; i++)
		r[i].rank_uncertain = (i > 0 && r[i].ci_hi >= r[i - 1].ci_lo) ||
				      (i + 1 < n && r[i].ci_lo <= r[i + 1].ci_hi);
	*rows = r;
	*nrows = n;
	r = NULL;
	if (row_of_out) {
		*row_of_out = row_of;
		row_of = NULL;
	}
	ret = 0;
out:
	free(k);
	free(r);
	free(row_of);
	free(stamp);
	free(used);
	return ret;
}
