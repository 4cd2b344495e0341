/* functions.c - the function table: interned by the fields' (interned) pointers. */
#include "functions.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

static uint64_t fn_hash(const struct profile_function *f)
{
	uint64_t h = (uintptr_t)f->name * 0x9e3779b97f4a7c15ull;

	h = (h ^ (uintptr_t)f->system_name) * 0xff51afd7ed558ccdull;
	h = (h ^ (uintptr_t)f->file) * 0xc4ceb9fe1a85ec53ull;
	return (h ^ (uint64_t)(uint32_t)f->start_line) * 0x9e3779b97f4a7c15ull;
}

static bool fn_eq(const struct profile_function *a, const struct profile_function *b)
{
	return a->name == b->name && a->system_name == b->system_name && a->file == b->file &&
	       a->start_line == b->start_line;
}

static int rehash(struct fn_table *t, size_t icap)
{
	uint32_t *index = calloc(icap, sizeof(*index));

	if (!index)
		return -ENOMEM;
	for (size_t k = 0; k < t->n; k++) {
		size_t i = (size_t)(fn_hash(&t->v[k]) >> 32) & (icap - 1);
		while (index[i])
			i = (i + 1) & (icap - 1);
		index[i] = (uint32_t)k + 1;
	}
	free(t->index);
	t->index = index;
	t->icap = icap;
	return 0;
}

int fn_table_init(struct fn_table *t)
{
	*t = (struct fn_table){0};
	t->v = calloc(16, sizeof(*t->v));
	if (!t->v)
		return -ENOMEM;
	t->cap = 16;
	t->n = 1;
	return rehash(t, 64);
}

int fn_table_intern(struct fn_table *t, const struct profile_function *f, uint32_t *id)
{
	size_t i;

	if (!f->name && !f->system_name && !f->file && !f->start_line) {
		*id = 0;
		return 0;
	}
	for (i = (size_t)(fn_hash(f) >> 32) & (t->icap - 1); t->index[i];
	     i = (i + 1) & (t->icap - 1))
		if (fn_eq(&t->v[t->index[i] - 1], f)) {
			*id = t->index[i] - 1;
			return 0;
		}
	if (t->n == t->cap) {
		size_t cap = t->cap * 2;
		struct profile_function *v =
		    cap < UINT32_MAX ? realloc(t->v, cap * sizeof(*v)) : NULL;
		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n] = *f;
	*id = (uint32_t)t->n++;
	t->index[i] = *id + 1;
	return t->n * 2 > t->icap ? rehash(t, t->icap * 2) : 0;
}

void fn_table_release(struct fn_table *t)
{
	free(t->v);
	free(t->index);
	*t = (struct fn_table){0};
}
