/* stackset.c - call stacks interned by content (stackset.h). */
#include "stackset.h"

#include "grow.h"
#include "fnv.h"
#include "idindex.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t stack_hash(const uint64_t *ips, uint32_t nr, uint32_t nr_kernel, bool truncated)
{
	uint64_t h = HWPROF_FNV_BASIS ^ ((uint64_t)nr << 33 | (uint64_t)nr_kernel << 1 | truncated);

	for (uint32_t i = 0; i < nr; i++)
		h = hwprof_fnv1a_word(h, ips[i]);
	return hwprof_hash_fold(h);
}

static bool stack_eq(const struct stackset *s, const struct stackset_entry *k, const uint64_t *ips,
		     uint32_t nr, uint32_t nr_kernel, bool truncated)
{
	return k->nr == nr && k->nr_kernel == nr_kernel && k->truncated == truncated &&
	       (!nr || !memcmp(s->pool + k->off, ips, nr * sizeof(*ips)));
}

struct key {
	const struct stackset *s;
	const uint64_t *ips;
	uint64_t hash;
	uint32_t nr, nr_kernel;
	bool truncated;
};

static bool same_key(const void *ctx, uint32_t id)
{
	const struct key *k = ctx;
	const struct stackset_entry *e = &k->s->v[id];

	return e->hash == k->hash && stack_eq(k->s, e, k->ips, k->nr, k->nr_kernel, k->truncated);
}

static uint64_t entry_hash(const void *ctx, uint32_t id)
{
	return ((const struct stackset *)ctx)->v[id].hash;
}

int stackset_intern(struct stackset *s, const uint64_t *ips, uint32_t nr, uint32_t nr_kernel,
		    bool truncated, uint32_t *id)
{
	if ((s->n + 1u) * 2 > s->nslots &&
	    hwprof_index_rebuild(&s->slots, &s->nslots, s->nslots ? 2 * s->nslots : 1024, s->n,
				 entry_hash, s) < 0)
		return -ENOMEM;

	uint64_t h = stack_hash(ips, nr, nr_kernel, truncated);
	struct key k = {s, ips, h, nr, nr_kernel, truncated};
	size_t j = hwprof_index_probe(s->slots, s->nslots, h, same_key, &k);

	if (s->slots[j]) {
		*id = s->slots[j];
		return 0;
	}
	if (s->n == UINT32_MAX - 1)
		return -EOVERFLOW;
	if (hwprof_grow((void **)&s->v, &s->cap, (size_t)s->n + 1, sizeof(*s->v)) < 0 ||
	    hwprof_grow((void **)&s->pool, &s->pool_cap, s->pool_len + nr, sizeof(*s->pool)) < 0)
		return -ENOMEM;
	if (nr)
		memcpy(s->pool + s->pool_len, ips, nr * sizeof(*ips));
	s->v[s->n] = (struct stackset_entry){.off = s->pool_len,
					     .nr = nr,
					     .nr_kernel = nr_kernel,
					     .truncated = truncated,
					     .hash = h};
	s->pool_len += nr;
	*id = ++s->n;
	s->slots[j] = *id;
	return 1;
}

void stackset_release(struct stackset *s)
{
	free(s->v);
	free(s->pool);
	free(s->slots);
	memset(s, 0, sizeof(*s));
}
