/* rows.c - locations grouped by the --sort keys into rows, with share intervals. */
#include "rows.h"

#include "closest.h"
#include "fnv.h"
#include "idindex.h"
#include "rows_data.h"
#include "textfmt.h"

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
    {"data", PROFILE_KEY_DATA},		{"cacheline", PROFILE_KEY_CACHELINE},
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
	bool seen[PROFILE_KEY_CACHELINE + 1] = {false};

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
			 "--sort '%s': %s%s%s%s%s%s (keys: line, function, dso, addr, data, "
			 "cacheline, each once; e.g. --sort function,line)",
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
		snprintf(err, errlen,
			 "--sort '%s': no key (keys: line, function, dso, addr, data, cacheline)",
			 list);
		return -EINVAL;
	}
	return (int)n;
}

/* The grouping key of one location; fields outside the keys are cleared. Strings are
 * interned, so pointers compare as strings do. */
struct key {
	const char *dso, *file, *function, *inlined_into;
	const char *decl, *decl_into; /* --sort function: FUNCTION's and INLINED_INTO's
				       * declaration files (two statics of one name) */
	int line;
	uint64_t offset; /* only for locations nothing is known about */
	uint64_t addr;	 /* --sort addr */
	/* --sort data: the object; --sort cacheline: the line in its base object */
	const char *object, *base;
	uint64_t base_start;
	int64_t cline;
	size_t loc; /* the location's index, or with data keys the item's (profile.data) */
};

/* The declaration file of FUNCTION as the frame of L's inline chain with that name has it
 * (profile_function.file, DW_AT_decl_file), or NULL: what tells two static functions of one
 * name in two files apart. */
static const char *decl_file_of(const struct profile *p, const struct profile_loc *l,
				const char *function)
{
	uint32_t n = 0;
	const struct profile_line *ln = function ? profile_loc_lines(p, l, &n) : NULL;

	for (uint32_t i = 0; i < n; i++) {
		const struct profile_function *f =
		    ln[i].function < p->nfunctions ? &p->functions[ln[i].function] : NULL;
		if (f && f->name == function) /* interned: one pointer per name */
			return f->file;
	}
	return NULL;
}

static void make_key(const struct profile *p, const struct profile_loc *l,
		     const enum profile_key *keys, size_t nkeys, struct key *k)
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
			k->decl = decl_file_of(p, l, l->function);
			k->decl_into = decl_file_of(p, l, l->inlined_into);
			break;
		case PROFILE_KEY_DSO:
			break;
		case PROFILE_KEY_ADDR:
			k->addr = l->addr;
			k->offset = l->offset;
			break;
		case PROFILE_KEY_DATA:
		case PROFILE_KEY_CACHELINE:
			break; /* data_key() */
		}
	}
}

/* The cache line of data item D: its first byte from D's base, for LINE_SIZE-byte lines
 * aligned in the address space. A variable's lines are those of its image's link-time
 * addresses, which keep their alignment at run time up to the segment's (a page at least);
 * elsewhere D->align is where the base starts in its page. */
static int64_t line_of(const struct profile_data *d, uint32_t line_size)
{
	int64_t start = d->image ? (int64_t)d->base_start : (int64_t)d->align;
	int64_t at = start + (int64_t)d->offset;

	return (at & ~(int64_t)(line_size - 1)) - start;
}

/* The data part of item D's key. */
static void data_key(const struct profile_data *d, const enum profile_key *keys, size_t nkeys,
		     uint32_t line_size, struct key *k)
{
	for (size_t i = 0; i < nkeys; i++) {
		if (keys[i] == PROFILE_KEY_DATA) {
			k->object = d->object;
		} else if (keys[i] == PROFILE_KEY_CACHELINE && d->image) {
			/* An image's variables share its lines: two in one line are one
			 * row (false sharing between variables, perf c2c's case). */
			k->base = d->image;
			k->base_start = UINT64_MAX; /* apart from the file's offsets */
			k->cline = (int64_t)d->base_start + line_of(d, line_size);
		} else if (keys[i] == PROFILE_KEY_CACHELINE) {
			k->base = d->base;
			k->base_start = d->base_start;
			k->cline = line_of(d, line_size);
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
	    (c = ptrcmp(x->inlined_into, y->inlined_into)) || (c = ptrcmp(x->decl, y->decl)) ||
	    (c = ptrcmp(x->decl_into, y->decl_into)))
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if ((c = ptrcmp(x->object, y->object)) || (c = ptrcmp(x->base, y->base)))
		return c;
	if (x->base_start != y->base_start)
		return x->base_start < y->base_start ? -1 : 1;
	if (x->cline != y->cline)
		return x->cline < y->cline ? -1 : 1;
	return x->loc < y->loc ? -1 : x->loc > y->loc;
}

static bool same_group(const struct key *x, const struct key *y)
{
	return x->dso == y->dso && x->file == y->file && x->function == y->function &&
	       x->inlined_into == y->inlined_into && x->decl == y->decl &&
	       x->decl_into == y->decl_into && x->line == y->line && x->offset == y->offset &&
	       x->addr == y->addr && x->object == y->object && x->base == y->base &&
	       x->base_start == y->base_start && x->cline == y->cline;
}

static int rowcmp(const void *a, const void *b)
{
	const struct profile_row *x = a, *y = b;
	int c;

	if (x->period != y->period)
		return x->period < y->period ? 1 : -1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	if (x->other_share != y->other_share)
		return x->other_share < y->other_share ? 1 : -1;
	if ((c = hwprof_namecmp(x->function, y->function)) ||
	    (c = hwprof_namecmp(x->inlined_into, y->inlined_into)) ||
	    (c = hwprof_namecmp(x->file, y->file)))
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if ((c = hwprof_namecmp(x->dso, y->dso)))
		return c;
	if (x->data && y->data) {
		const struct profile_row_data *a = x->data, *b = y->data;
		if ((c = hwprof_namecmp(a->object, b->object)) ||
		    (c = hwprof_namecmp(a->base, b->base)))
			return c;
		return a->line < b->line ? -1 : a->line > b->line;
	}
	return 0;
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

/* Adds stack S (number I) to row R unless it is there already (STAMP: the last stack each
 * row took). */
static void add_stack(const struct profile_stack *s, size_t i, uint32_t r, struct profile_row *rows,
		      size_t *stamp)
{
	if (r == UINT32_MAX || stamp[r] == i + 1)
		return;
	stamp[r] = i + 1;
	rows[r].samples += s->samples;
	rows[r].period += s->period;
}

/* Self and children of ROWS (ROW_OF by location id, then by location id for the function a
 * location's code was inlined into) from P's stacks: a stack counts once in each row it
 * passes through (recursion does not count a row twice), as its self in the row of its
 * sampled address. */
static void sum_stacks(const struct profile *p, const uint32_t *row_of, struct profile_row *rows,
		       size_t n, size_t *stamp)
{
	const uint32_t *outer_of = row_of + p->nlocations;

	for (size_t r = 0; r < n; r++)
		stamp[r] = 0;
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *s = &p->stacks[i];
		struct profile_row *leaf = &rows[row_of[s->locs[0]]];

		leaf->self_samples += s->samples;
		leaf->self_period += s->period;
		for (uint32_t j = 0; j < s->n; j++) {
			uint32_t nmid;
			const uint32_t *mid = profile_row_of_mids(p, row_of, s->locs[j], &nmid);

			add_stack(s, i, row_of[s->locs[j]], rows, stamp);
			add_stack(s, i, outer_of[s->locs[j]], rows, stamp);
			for (uint32_t d = 0; d < nmid; d++)
				add_stack(s, i, mid[d], rows, stamp);
		}
	}
}

/* The outer frame of location L, inlined code (cg_loc_frames()' second frame): the real
 * function at the call site, as a location of its own for the rows' keys. */
static struct profile_loc outer_frame(const struct profile_loc *l)
{
	struct profile_loc o = *l;

	o.function = l->inlined_into;
	o.inlined_into = NULL;
	o.file = l->call_file;
	o.line = l->call_line;
	o.call_file = NULL;
	o.call_line = 0;
	return o;
}

/* A middle inline frame of location L (profile_loc_lines()' line LN, neither the first nor
 * the last): its function at its line, inlined into L's real function, as a location of its
 * own for the rows' keys. */
static struct profile_loc mid_frame(const struct profile *p, const struct profile_loc *l,
				    const struct profile_line *ln)
{
	struct profile_loc o = *l;

	o.function = ln->function < p->nfunctions ? p->functions[ln->function].name : NULL;
	o.file = ln->file;
	o.line = ln->line;
	return o;
}

/* The middle inline frames of location L that get rows (REQ's inline_frames): its chain's
 * lines but the first and the last. */
static uint32_t nmids_of(const struct profile *p, const struct profile_loc *l)
{
	uint32_t n = 0;

	if (l->inlined_into)
		profile_loc_lines(p, l, &n);
	return n >= 3 ? n - 2 : 0;
}

/* row_of's layout (profile_rows_by()): [0, N) rows of the locations, [N, 2N) rows of their
 * outer frames, [2N, 3N) each location's first entry in [3N, 3N + middle frames), the rows of
 * the middle inline frames (N = nlocations). */
const uint32_t *profile_row_of_mids(const struct profile *p, const uint32_t *row_of, uint32_t loc,
				    uint32_t *n)
{
	uint32_t first = loc < p->nlocations ? row_of[2 * p->nlocations + loc] : UINT32_MAX;

	*n = first == UINT32_MAX ? 0 : nmids_of(p, &p->locations[loc]);
	return *n ? row_of + 3 * p->nlocations + first : NULL;
}

/* Sorts the N rows R by cost, maps ROW_OF's groups (NMID middle frames) to the rows' places
 * (POS: room for N) and sets the shares, intervals and rank flags. */
static void finish_rows(const struct profile *p, struct profile_row *r, size_t n, uint32_t *row_of,
			size_t nmid, uint32_t *pos)
{
	for (size_t i = 0; i < n; i++)
		r[i].group = (uint32_t)i;
	qsort(r, n, sizeof(*r), rowcmp);
	/* row_of said the group; now the row's place. */
	for (size_t i = 0; i < n; i++)
		pos[r[i].group] = (uint32_t)i;
	for (size_t i = 0; i < 3 * p->nlocations + nmid; i++)
		/* [2N, 3N) holds slots, not rows (profile_row_of_mids()). */
		if (row_of[i] != UINT32_MAX && (i < 2 * p->nlocations || i >= 3 * p->nlocations))
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
}

/* A row_of map of P (profile_row_of_mids()'s layout, room for NMID middle frames) with no
 * row for any location, or NULL without memory. */
static uint32_t *new_row_of(const struct profile *p, size_t nmid)
{
	size_t n = 3 * p->nlocations + nmid;
	uint32_t *row_of = malloc((n ? n : 1) * sizeof(*row_of));

	for (size_t i = 0; row_of && i < n; i++)
		row_of[i] = UINT32_MAX;
	return row_of;
}

/* Gives the caller *R (N rows) and *ROW_OF (when it asked for it: ROW_OF_OUT), leaving NULL
 * behind for the cleanup. */
static void hand_out(struct profile_row **r, size_t n, uint32_t **row_of, struct profile_row **rows,
		     size_t *nrows, uint32_t **row_of_out)
{
	*rows = *r;
	*nrows = n;
	*r = NULL;
	if (row_of_out) {
		*row_of_out = *row_of;
		*row_of = NULL;
	}
}

int profile_rows(const struct profile *p, const enum profile_key *keys, size_t nkeys,
		 struct profile_row **rows, size_t *nrows)
{
	struct profile_rows_req req = {.keys = keys, .nkeys = nkeys};

	return profile_rows_by(p, &req, rows, nrows, NULL);
}

/* Row R shows no file, line, function or address: no key asked for them (printed empty). */
static void clear_location(struct profile_row *r)
{
	r->file = r->function = r->inlined_into = NULL;
	r->line = 0;
	r->unknown = false;
	r->offset = r->addr = 0;
	r->file_mixed = r->function_mixed = r->offset_mixed = r->addr_mixed = true;
}

/* The row shows the data fields its items agree on. */
static void merge_data(struct profile_row_data *rd, const struct profile_data *d, int64_t line,
		       bool first)
{
	if (first) {
		rd->kind = d->kind;
		rd->object = d->object;
		rd->elem_lo = rd->elem_hi = d->elem;
		rd->base = d->base;
		rd->base_start = d->base_start;
		rd->line = line;
		return;
	}
	if (rd->object != d->object)
		rd->object = NULL;
	if (d->elem >= 0 && (rd->elem_lo < 0 || d->elem < rd->elem_lo))
		rd->elem_lo = d->elem;
	if (d->elem > rd->elem_hi)
		rd->elem_hi = d->elem;
	/* One line of an image's variables: named in the first variable of it. */
	if (d->image && (d->base_start < rd->base_start ||
			 (d->base_start == rd->base_start && strcmp(d->base, rd->base) < 0))) {
		rd->base = d->base;
		rd->base_start = d->base_start;
		rd->line = line;
	} else if (!d->image && (rd->base != d->base || rd->base_start != d->base_start)) {
		rd->base = NULL;
	}
}

bool profile_keys_have(const enum profile_key *keys, size_t nkeys, enum profile_key key)
{
	for (size_t i = 0; i < nkeys; i++)
		if (keys[i] == key)
			return true;
	return false;
}

static bool has_key(const struct profile_rows_req *req, enum profile_key key)
{
	return profile_keys_have(req->keys, req->nkeys, key);
}

/* The hash of K's fields, those same_group() compares. */
static uint64_t key_hash(const struct key *k)
{
	uint64_t h = HWPROF_FNV_BASIS;
	const uint64_t w[] = {
	    (uintptr_t)k->dso,		(uintptr_t)k->file, (uintptr_t)k->function,
	    (uintptr_t)k->inlined_into, (uintptr_t)k->decl, (uintptr_t)k->decl_into,
	    (uint64_t)k->line,		k->offset,	    k->addr,
	    (uintptr_t)k->object,	(uintptr_t)k->base, k->base_start,
	    (uint64_t)k->cline};

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		h = hwprof_fnv1a_word(h, w[i]);
	return h;
}

/* The groups found so far by group_items(), and the key a lookup looks for. */
struct groups {
	const struct key *k;  /* each group's key */
	const uint64_t *hash; /* and its key_hash() */
	const struct key *want;
	uint64_t want_hash;
};

static bool same_group_id(const void *ctx, uint32_t id)
{
	const struct groups *g = ctx;

	return g->hash[id] == g->want_hash && same_group(&g->k[id], g->want);
}

static uint64_t group_hash(const void *ctx, uint32_t id)
{
	return ((const struct groups *)ctx)->hash[id];
}

/* The groups of data items by key, hashed (a million items in a few hundred rows need no sort):
 * *GROUP_OF per item, K[g] each group's key; returns the number of groups, or -ENOMEM. */
static long group_items(const struct profile *p, const struct profile_rows_req *req,
			uint32_t line_size, bool loc_keys, struct key *k, uint32_t *group_of)
{
	size_t icap = 0, n = 0;
	uint32_t *index = NULL;
	uint64_t *hash = malloc((p->ndata ? p->ndata : 1) * sizeof(*hash));
	struct groups g = {.k = k, .hash = hash};
	long ret = -ENOMEM;

	if (!hash || hwprof_index_rebuild(&index, &icap, 1024, 0, group_hash, &g) < 0)
		goto out;
	for (size_t i = 0; i < p->ndata; i++) {
		const struct profile_data *d = &p->data[i];
		struct key key;
		size_t j;

		make_key(p, &p->locations[d->loc], req->keys, req->nkeys, &key);
		if (!has_key(req, PROFILE_KEY_DSO) && !loc_keys)
			key.dso = NULL;
		data_key(d, req->keys, req->nkeys, line_size, &key);
		g.want = &key;
		g.want_hash = key_hash(&key);
		j = hwprof_index_probe(index, icap, g.want_hash, same_group_id, &g);
		if (index[j]) {
			group_of[i] = index[j] - 1;
			continue;
		}
		k[n] = key;
		hash[n] = g.want_hash;
		index[j] = (uint32_t)n + 1;
		group_of[i] = (uint32_t)n++;
		if (n * 2 > icap &&
		    hwprof_index_rebuild(&index, &icap, 2 * icap, n, group_hash, &g) < 0)
			goto out;
	}
	ret = (long)n;
out:
	free(index);
	free(hash);
	return ret;
}

/* Rows of profile.data (data.h) by REQ's keys: see rows.h. */
static int data_rows(const struct profile *p, const struct profile_rows_req *req,
		     struct profile_row **rows, size_t *nrows, uint32_t **row_of_out)
{
	uint32_t line_size = req->line_size ? req->line_size : 64;
	size_t nin = p->ndata, n = 0;
	struct key *k = malloc((nin ? nin : 1) * sizeof(*k));
	/* The rows and their data parts in one block: one free(). */
	struct profile_row *r = calloc(nin ? nin : 1, sizeof(*r) + sizeof(struct profile_row_data));
	struct profile_row_data *rd = (struct profile_row_data *)(r + (nin ? nin : 1));
	uint32_t *row_of = new_row_of(p, 0);
	uint32_t *group_of = malloc((nin ? nin : 1) * sizeof(*group_of));
	size_t *items = malloc((nin ? nin : 1) * sizeof(*items)), *first = NULL;
	struct rows_data_scratch scratch = {0};
	bool loc_keys = has_key(req, PROFILE_KEY_LINE) || has_key(req, PROFILE_KEY_FUNCTION) ||
			has_key(req, PROFILE_KEY_ADDR);
	long groups;
	int ret = -ENOMEM;

	if (!k || !r || !row_of || !items || !group_of)
		goto out;
	groups = group_items(p, req, line_size, loc_keys, k, group_of);
	if (groups < 0)
		goto out;
	n = (size_t)groups;
	/* Each group's items together, in item order (a counting sort). */
	first = calloc(n + 1, sizeof(*first));
	if (!first)
		goto out;
	for (size_t i = 0; i < nin; i++)
		first[group_of[i] + 1]++;
	for (size_t g = 0; g < n; g++)
		first[g + 1] += first[g];
	for (size_t i = 0; i < nin; i++)
		items[first[group_of[i]]++] = i;
	for (size_t g = n; g > 0; g--)
		first[g] = first[g - 1];
	first[0] = 0;
	for (size_t g = 0; g < n; g++) {
		for (size_t i = first[g]; i < first[g + 1]; i++) {
			const struct profile_data *d = &p->data[items[i]];
			merge_loc(&r[g], &p->locations[d->loc], i == first[g]);
			merge_data(&rd[g], d, line_of(d, line_size), i == first[g]);
			r[g].samples += d->samples;
			r[g].period += d->period;
		}
		r[g].data = &rd[g];
		r[g].self_samples = r[g].samples;
		r[g].self_period = r[g].period;
		if (rows_data_stats(p, items + first[g], first[g + 1] - first[g], &rd[g],
				    &scratch) < 0)
			goto out;
	}
	for (size_t i = 0; i < n; i++) {
		rd[i].line_size = line_size;
		if (!has_key(req, PROFILE_KEY_CACHELINE))
			rd[i].base = NULL, rd[i].line = 0;
		if (loc_keys)
			continue;
		/* No location key: what one instruction says is not the row's. */
		if (!has_key(req, PROFILE_KEY_DSO))
			r[i].dso = NULL;
		clear_location(&r[i]);
	}
	finish_rows(p, r, n, row_of, 0, (uint32_t *)k);
	hand_out(&r, n, &row_of, rows, nrows, row_of_out);
	ret = 0;
out:
	rows_data_scratch_release(&scratch);
	free(k);
	free(r);
	free(row_of);
	free(items);
	free(group_of);
	free(first);
	return ret;
}

/* every_event: appends to K (*M entries) a key for each location (index OTHERS_FROM + its id)
 * that another event sampled and the shown event did not, and sums each value column's period
 * into COL_TOTAL (P->nvalues). Returns 0 or -ENOMEM. */
static int add_others(const struct profile *p, const struct profile_rows_req *req, struct key *k,
		      size_t *m, size_t others_from, double *col_total)
{
	uint32_t nv = p->nvalues;
	bool *shown = calloc(p->nlocations ? p->nlocations : 1, sizeof(*shown));

	if (!shown)
		return -ENOMEM;
	for (size_t i = 0; i < p->nlocs; i++)
		if (p->locs[i].id < p->nlocations)
			shown[p->locs[i].id] = true;
	for (size_t i = 0; i < p->nlocations; i++) {
		const struct profile_value *v = p->loc_values + i * nv;
		bool any = false;
		for (uint32_t c = 0; c < nv; c++) {
			col_total[c] += v[c].period;
			any = any || v[c].samples;
		}
		if (!any || shown[i])
			continue;
		make_key(p, &p->locations[i], req->keys, req->nkeys, &k[*m]);
		k[(*m)++].loc = others_from + i;
	}
	free(shown);
	return 0;
}

/* The shares of location ID's period in each value column but the shown event's, summed. */
static double other_share(const struct profile *p, uint32_t id, const double *col_total)
{
	const struct profile_value *v = p->loc_values + (size_t)id * p->nvalues;
	double sum = 0;

	if (id >= p->nlocations)
		return 0;
	for (uint32_t c = 0; c < p->nvalues; c++)
		if (p->value_event[c] != p->event && col_total[c] > 0)
			sum += v[c].period / col_total[c];
	return sum;
}

/* The location key LOC names below NIN (profile_rows_by()): a location of P's, with
 * CHILDREN by id, else a sampled one (locs[]) or, from OTHERS_FROM, another event's. */
static const struct profile_loc *in_loc(const struct profile *p, bool children, size_t others_from,
					size_t loc)
{
	if (children)
		return &p->locations[loc];
	return loc >= others_from ? &p->locations[loc - others_from] : &p->locs[loc];
}

/* Which of P's locations a stack holds, by location id (calloc'ed), or NULL without memory. */
static bool *in_stacks(const struct profile *p)
{
	bool *used = calloc(p->nlocations ? p->nlocations : 1, sizeof(*used));

	for (size_t i = 0; used && i < p->nstacks; i++)
		for (uint32_t j = 0; j < p->stacks[i].n; j++)
			used[p->stacks[i].locs[j]] = true;
	return used;
}

/* Keys, from K[M] on, of the middle inline frames of location I (nmids_of()): each kept in
 * MID at slot *NM on, its key's loc MID_FROM + slot, its row to go to row_of's last part at
 * that slot (profile_row_of_mids()), the first slot noted in ROW_OF. A frame keyed as the
 * location is (OWN: --sort addr, dso) gets no key: it is that row, and would mix its function
 * and line into it. Returns the new M. */
static size_t add_mid_keys(const struct profile *p, const struct profile_rows_req *req, size_t i,
			   const struct key *own, struct profile_loc *mid, size_t *nm,
			   size_t mid_from, struct key *k, size_t m, uint32_t *row_of)
{
	const struct profile_loc *l = &p->locations[i];
	uint32_t nl, count = nmids_of(p, l);
	const struct profile_line *ln = count ? profile_loc_lines(p, l, &nl) : NULL;

	if (count)
		row_of[2 * p->nlocations + i] = (uint32_t)*nm;
	for (uint32_t d = 1; d <= count; d++, (*nm)++) {
		mid[*nm] = mid_frame(p, l, &ln[d]);
		make_key(p, &mid[*nm], req->keys, req->nkeys, &k[m]);
		if (!same_group(&k[m], own))
			k[m++].loc = mid_from + *nm;
	}
	return m;
}

/* What profile_rows_by() groups: the keys K[M] of its locations and the rows R[N] they
 * make. The locations grouped: the sampled ones (locs[]), or with CHILDREN every one a
 * stack holds. After them, from index NIN: with OTHERS the locations only other events
 * sampled; with CHILDREN the outer frames (OUTER) of those that are inlined code, to give
 * the stacks through them to the function they were inlined into, and from MID_FROM with
 * MIDS the frames between (MID, NMID of them). */
struct grouping {
	const struct profile *p;
	const struct profile_rows_req *req;
	bool children, others, mids;
	size_t nin, others_from, mid_from, nmid;
	struct key *k;
	size_t m;
	struct profile_row *r;
	size_t n;
	uint32_t *row_of;
	double *col_total;
	struct profile_loc *outer, *mid;
	bool *used; /* with CHILDREN: which locations a stack holds */
};

/* Sets G (zeroed) up to group P's locations by REQ: what it groups, and its arrays. Returns
 * 0 or -ENOMEM (grouping_release() frees what was allocated). */
static int grouping_init(struct grouping *g, const struct profile *p,
			 const struct profile_rows_req *req)
{
	g->p = p;
	g->req = req;
	g->children = req->children && p->nstacks;
	g->others = req->every_event && !g->children && p->nvalues;
	g->mids = g->children && req->inline_frames;
	g->nin = g->children ? p->nlocations : p->nlocs;
	g->others_from = g->nin;
	g->mid_from = g->nin + p->nlocations;
	for (size_t i = 0; g->mids && i < p->nlocations; i++)
		g->nmid += nmids_of(p, &p->locations[i]);
	size_t room = g->nin + (g->others || g->children ? p->nlocations : 0) + g->nmid;
	g->k = calloc(room ? room : 1, sizeof(*g->k));
	g->r = calloc(room ? room : 1, sizeof(*g->r));
	g->row_of = new_row_of(p, g->nmid);
	g->col_total = g->others ? calloc(p->nvalues, sizeof(*g->col_total)) : NULL;
	g->mid = g->nmid ? malloc(g->nmid * sizeof(*g->mid)) : NULL;
	if (!g->k || !g->r || !g->row_of || (g->others && !g->col_total) || (g->nmid && !g->mid))
		return -ENOMEM;
	if (g->children) {
		g->used = in_stacks(p);
		g->outer = malloc((g->nin ? g->nin : 1) * sizeof(*g->outer));
		if (!g->used || !g->outer)
			return -ENOMEM;
	}
	return 0;
}

/* Frees G's arrays (not G). */
static void grouping_release(struct grouping *g)
{
	free(g->k);
	free(g->r);
	free(g->row_of);
	free(g->used);
	free(g->outer);
	free(g->mid);
	free(g->col_total);
}

/* Makes G's keys: each location's, with CHILDREN its outer and middle inline frames', with
 * OTHERS the locations' only other events sampled. Returns 0 or -ENOMEM. */
static int make_keys(struct grouping *g)
{
	const struct profile *p = g->p;
	const struct profile_rows_req *req = g->req;
	struct key *k = g->k;
	size_t m = 0, nouter = 0, nm = 0;

	for (size_t i = 0; i < g->nin; i++) {
		const struct profile_loc *l = g->children ? &p->locations[i] : &p->locs[i];
		if (g->children && !g->used[i])
			continue;
		size_t own = m;
		make_key(p, l, req->keys, req->nkeys, &k[m]);
		k[m++].loc = i;
		if (g->children && l->inlined_into) {
			/* An outer frame keyed as its location (--sort addr, dso) is that row. */
			g->outer[nouter] = outer_frame(l);
			make_key(p, &g->outer[nouter], req->keys, req->nkeys, &k[m]);
			if (!same_group(&k[m], &k[m - 1]))
				k[m++].loc = g->nin + nouter++;
		}
		if (g->mids)
			m = add_mid_keys(p, req, i, &k[own], g->mid, &nm, g->mid_from, k, m,
					 g->row_of);
	}
	if (g->others && add_others(p, req, k, &m, g->others_from, g->col_total) < 0)
		return -ENOMEM;
	g->m = m;
	return 0;
}

/* Sorts G's keys and merges each group's into one row of G's rows, noting in row_of the row
 * of each location, outer and middle frame. */
static void group_keys(struct grouping *g)
{
	const struct profile *p = g->p;
	const struct key *k = g->k;
	struct profile_row *r = g->r;
	uint32_t *row_of = g->row_of;
	const struct profile_loc *mid = g->mid, *outer = g->outer;
	bool children = g->children;
	size_t nin = g->nin, others_from = g->others_from, mid_from = g->mid_from, n = 0;

	qsort(g->k, g->m, sizeof(*g->k), keycmp);
	for (size_t i = 0; i < g->m; i++) {
		bool is_mid = children && k[i].loc >= mid_from;
		bool is_outer = children && !is_mid && k[i].loc >= nin;
		const struct profile_loc *l = is_mid ? &mid[k[i].loc - mid_from]
					      : is_outer
						  ? &outer[k[i].loc - nin]
						  : in_loc(p, children, others_from, k[i].loc);
		bool first = i == 0 || !same_group(&k[i], &k[i - 1]);
		if (first)
			n++;
		merge_loc(&r[n - 1], l, first);
		if (!children && k[i].loc < others_from) {
			r[n - 1].samples += l->samples;
			r[n - 1].period += l->period;
			r[n - 1].self_samples = r[n - 1].samples;
			r[n - 1].self_period = r[n - 1].period;
		}
		if (is_mid)
			row_of[3 * p->nlocations + (k[i].loc - mid_from)] = (uint32_t)(n - 1);
		else if (l->id < p->nlocations)
			row_of[(is_outer ? p->nlocations : 0) + l->id] = (uint32_t)(n - 1);
		if (g->others)
			r[n - 1].other_share += other_share(p, l->id, g->col_total);
	}
	g->n = n;
}

/* Whether REQ asks for the DSO alone: what one location says is not the row's then. */
static bool dso_only(const struct profile_rows_req *req)
{
	bool only = true;

	for (size_t i = 0; i < req->nkeys; i++)
		only = only && req->keys[i] == PROFILE_KEY_DSO;
	return only;
}

int profile_rows_by(const struct profile *p, const struct profile_rows_req *req,
		    struct profile_row **rows, size_t *nrows, uint32_t **row_of_out)
{
	struct grouping g = {0};
	size_t *stamp = NULL;
	int ret = -ENOMEM;

	*rows = NULL;
	*nrows = 0;
	if (row_of_out)
		*row_of_out = NULL;
	if (has_key(req, PROFILE_KEY_DATA) || has_key(req, PROFILE_KEY_CACHELINE))
		return data_rows(p, req, rows, nrows, row_of_out);
	if (grouping_init(&g, p, req) < 0 || make_keys(&g) < 0)
		goto out;
	group_keys(&g);
	if (g.children) {
		stamp = calloc(g.n ? g.n : 1, sizeof(*stamp));
		if (!stamp)
			goto out;
		sum_stacks(p, g.row_of, g.r, g.n, stamp);
		for (size_t i = 0; i < g.n; i++)
			g.r[i].children = true;
	}
	if (dso_only(req))
		for (size_t i = 0; i < g.n; i++)
			clear_location(&g.r[i]);
	finish_rows(p, g.r, g.n, g.row_of, g.nmid, (uint32_t *)g.k);
	hand_out(&g.r, g.n, &g.row_of, rows, nrows, row_of_out);
	ret = 0;
out:
	grouping_release(&g);
	free(stamp);
	return ret;
}
