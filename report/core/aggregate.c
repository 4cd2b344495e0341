/* aggregate.c - the (DSO, offset) hash. */
#include "aggregate.h"

#include "fnv.h"
#include "grow.h"
#include "idindex.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_key(uint32_t dso, uint64_t off)
{
	return hwprof_hash_word(off ^ (uint64_t)dso << 48);
}

struct key {
	const struct agg *a;
	uint32_t dso;
	uint64_t offset;
};

static bool same_key(const void *ctx, uint32_t id)
{
	const struct key *k = ctx;
	const struct agg_entry *e = &k->a->v[id];

	return e->offset == k->offset && e->dso == k->dso;
}

static uint64_t entry_hash(const void *ctx, uint32_t id)
{
	const struct agg_entry *e = &((const struct agg *)ctx)->v[id];

	return hash_key(e->dso, e->offset);
}

int agg_init(struct agg *a)
{
	memset(a, 0, sizeof(*a));
	return hwprof_index_rebuild(&a->index, &a->icap, 4096, 0, entry_hash, a);
}

int agg_intern(struct agg *a, uint32_t dso, uint64_t offset, uint32_t *id)
{
	struct key k = {a, dso, offset};
	size_t i = hwprof_index_probe(a->index, a->icap, hash_key(dso, offset), same_key, &k);

	if (a->index[i]) {
		*id = a->index[i] - 1;
		return 0;
	}
	if (a->n + 1 >= UINT32_MAX ||
	    hwprof_grow((void **)&a->v, &a->cap, a->n + 1, sizeof(*a->v)) < 0)
		return -ENOMEM;
	a->v[a->n] = (struct agg_entry){offset, dso, 0, 0};
	*id = (uint32_t)a->n;
	a->index[i] = (uint32_t)(++a->n);
	if (a->n * 2 > a->icap)
		return hwprof_index_rebuild(&a->index, &a->icap, 2 * a->icap, a->n, entry_hash, a);
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
