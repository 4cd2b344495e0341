/* aggregate.c - the (DSO, offset) hash. */
#include "aggregate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static size_t hash_key(uint32_t dso, uint64_t off, size_t cap)
{
	uint64_t h = (off ^ ((uint64_t)dso << 48)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & (cap - 1);
}

int agg_init(struct agg *a)
{
	memset(a, 0, sizeof(*a));
	a->icap = 4096;
	a->index = calloc(a->icap, sizeof(*a->index));
	return a->index ? 0 : -ENOMEM;
}

static int rehash(struct agg *a)
{
	size_t icap = a->icap * 2;
	uint32_t *index = calloc(icap, sizeof(*index));

	if (!index)
		return -ENOMEM;
	for (size_t k = 0; k < a->n; k++) {
		size_t i = hash_key(a->v[k].dso, a->v[k].offset, icap);
		while (index[i])
			i = (i + 1) & (icap - 1);
		index[i] = (uint32_t)(k + 1);
	}
	free(a->index);
	a->index = index;
	a->icap = icap;
	return 0;
}

int agg_intern(struct agg *a, uint32_t dso, uint64_t offset, uint32_t *id)
{
	size_t i = hash_key(dso, offset, a->icap);
	struct agg_entry *e;

	while (a->index[i]) {
		e = &a->v[a->index[i] - 1];
		if (e->offset == offset && e->dso == dso) {
			*id = a->index[i] - 1;
			return 0;
		}
		i = (i + 1) & (a->icap - 1);
	}
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 1024;
		struct agg_entry *v;
		if (cap >= UINT32_MAX)
			return -ENOMEM;
		v = realloc(a->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n] = (struct agg_entry){offset, dso, 0, 0};
	*id = (uint32_t)a->n;
	a->index[i] = (uint32_t)(++a->n);
	if (a->n * 2 > a->icap)
		return rehash(a);
	return 0;
}

int agg_add(struct agg *a, uint32_t dso, uint64_t offset, uint64_t period, uint32_t *id)
{
	uint32_t k;
	int ret = agg_intern(a, dso, offset, &k);

	if (ret < 0)
		return ret;
	a->v[k].samples++;
	a->v[k].period += (double)period;
	if (id)
		*id = k;
	return 0;
}

void agg_release(struct agg *a)
{
	free(a->v);
	free(a->index);
	memset(a, 0, sizeof(*a));
}
