/* functions.c - the function table: interned by the fields' (interned) pointers. */
#include "functions.h"

#include "fnv.h"
#include "grow.h"
#include "idindex.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

static uint64_t fn_hash(const struct profile_function *f)
{
	uint64_t h = hwprof_fnv1a_word(HWPROF_FNV_BASIS, (uintptr_t)f->name);

	h = hwprof_fnv1a_word(h, (uintptr_t)f->system_name);
	h = hwprof_fnv1a_word(h, (uintptr_t)f->file);
	return hwprof_hash_fold(hwprof_fnv1a_word(h, (uint32_t)f->start_line));
}

static bool fn_eq(const struct profile_function *a, const struct profile_function *b)
{
	return a->name == b->name && a->system_name == b->system_name && a->file == b->file &&
	       a->start_line == b->start_line;
}

struct fn_key {
	const struct fn_table *t;
	const struct profile_function *f;
};

static bool same_fn(const void *ctx, uint32_t id)
{
	const struct fn_key *k = ctx;

	return fn_eq(&k->t->v[id], k->f);
}

static uint64_t entry_hash(const void *ctx, uint32_t id)
{
	return fn_hash(&((const struct fn_table *)ctx)->v[id]);
}

int fn_table_init(struct fn_table *t)
{
	*t = (struct fn_table){0};
	t->v = calloc(16, sizeof(*t->v));
	if (!t->v)
		return -ENOMEM;
	t->cap = 16;
	t->n = 1;
	return hwprof_index_rebuild(&t->index, &t->icap, 64, t->n, entry_hash, t);
}

int fn_table_intern(struct fn_table *t, const struct profile_function *f, uint32_t *id)
{
	struct fn_key k = {t, f};
	size_t i;

	if (!f->name && !f->system_name && !f->file && !f->start_line) {
		*id = 0;
		return 0;
	}
	i = hwprof_index_probe(t->index, t->icap, fn_hash(f), same_fn, &k);
	if (t->index[i]) {
		*id = t->index[i] - 1;
		return 0;
	}
	if (t->n + 1 >= UINT32_MAX ||
	    hwprof_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)) < 0)
		return -ENOMEM;
	t->v[t->n] = *f;
	*id = (uint32_t)t->n++;
	t->index[i] = *id + 1;
	return t->n * 2 > t->icap
		   ? hwprof_index_rebuild(&t->index, &t->icap, 2 * t->icap, t->n, entry_hash, t)
		   : 0;
}

void fn_table_release(struct fn_table *t)
{
	free(t->v);
	free(t->index);
	*t = (struct fn_table){0};
}
