/* stacks.c - the stack hash and the id map. */
#include "stacks.h"

#include "fnv.h"
#include "grow.h"
#include "idindex.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_ids(const uint32_t *ids, uint32_t n, bool truncated)
{
	uint64_t h = HWPROF_FNV_BASIS ^ truncated;

	for (uint32_t i = 0; i < n; i++)
		h = hwprof_fnv1a_word(h, ids[i]);
	return hwprof_hash_fold(h);
}

static bool same(const struct stack_table *t, const struct stack_entry *e, const uint32_t *ids,
		 uint32_t n, bool truncated)
{
	return e->n == n && e->truncated == truncated &&
	       !memcmp(t->ids + e->first, ids, n * sizeof(*ids));
}

struct key {
	const struct stack_table *t;
	const uint32_t *ids;
	uint32_t n;
	bool truncated;
};

static bool same_key(const void *ctx, uint32_t id)
{
	const struct key *k = ctx;

	return same(k->t, &k->t->v[id], k->ids, k->n, k->truncated);
}

static uint64_t entry_hash(const void *ctx, uint32_t id)
{
	const struct stack_table *t = ctx;
	const struct stack_entry *e = &t->v[id];

	return hash_ids(t->ids + e->first, e->n, e->truncated);
}

static int rehash(struct stack_table *t)
{
	return hwprof_index_rebuild(&t->index, &t->icap, t->icap ? 2 * t->icap : 1024, t->n,
				    entry_hash, t);
}

int stack_table_add(struct stack_table *t, const uint32_t *ids, uint32_t n, bool truncated,
		    uint64_t samples, double period)
{
	return stack_table_intern(t, ids, n, truncated, samples, period, NULL);
}

int stack_table_intern(struct stack_table *t, const uint32_t *ids, uint32_t n, bool truncated,
		       uint64_t samples, double period, size_t *index)
{
	struct key k = {t, ids, n, truncated};
	size_t i;

	if (!t->icap && rehash(t) < 0)
		return -ENOMEM;
	i = hwprof_index_probe(t->index, t->icap, hash_ids(ids, n, truncated), same_key, &k);
	if (t->index[i]) {
		struct stack_entry *e = &t->v[t->index[i] - 1];

		e->samples += samples;
		e->period += period;
		if (index)
			*index = t->index[i] - 1;
		return 0;
	}
	/* Stack ids and index slots are uint32_t. */
	if (t->n + 1 >= UINT32_MAX / 2 || t->nids + n >= UINT32_MAX / 2 ||
	    hwprof_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)) < 0 ||
	    hwprof_grow((void **)&t->ids, &t->capids, t->nids + n, sizeof(*t->ids)) < 0)
		return -ENOMEM;
	memcpy(t->ids + t->nids, ids, n * sizeof(*ids));
	t->v[t->n] = (struct stack_entry){t->nids, n, truncated, samples, period};
	t->nids += n;
	if (index)
		*index = t->n;
	t->index[i] = (uint32_t)(++t->n);
	if (t->n * 2 > t->icap)
		return rehash(t);
	return 0;
}

void stack_table_release(struct stack_table *t)
{
	free(t->v);
	free(t->ids);
	free(t->index);
	memset(t, 0, sizeof(*t));
}

static uint64_t pair_hash(const void *ctx, uint32_t id)
{
	return hwprof_hash_word(((const struct u32_map *)ctx)->v[id].key);
}

struct pair_key {
	const struct u32_map *m;
	uint32_t key;
};

static bool same_pair(const void *ctx, uint32_t id)
{
	const struct pair_key *k = ctx;

	return k->m->v[id].key == k->key;
}

/* The slot of KEY in M's index (M->icap > 0): empty when M has no such key. */
static size_t pair_slot(const struct u32_map *m, uint32_t key)
{
	struct pair_key k = {m, key};

	return hwprof_index_probe(m->index, m->icap, hwprof_hash_word(key), same_pair, &k);
}

int u32_map_set(struct u32_map *m, uint32_t key, uint32_t value)
{
	size_t i;

	if (!m->icap && hwprof_index_rebuild(&m->index, &m->icap, 256, 0, pair_hash, m) < 0)
		return -ENOMEM;
	i = pair_slot(m, key);
	if (m->index[i]) {
		m->v[m->index[i] - 1].value = value;
		return 0;
	}
	if (m->n + 1 >= UINT32_MAX ||
	    hwprof_grow((void **)&m->v, &m->cap, m->n + 1, sizeof(*m->v)) < 0)
		return -ENOMEM;
	m->v[m->n] = (struct u32_pair){key, value};
	m->index[i] = (uint32_t)++m->n;
	if (m->n * 2 > m->icap &&
	    hwprof_index_rebuild(&m->index, &m->icap, 2 * m->icap, m->n, pair_hash, m) < 0) {
		m->index[i] = 0; /* the index stays as it was: without KEY */
		m->n--;
		return -ENOMEM;
	}
	return 0;
}

bool u32_map_get(const struct u32_map *m, uint32_t key, uint32_t *value)
{
	size_t i;

	if (!m->icap)
		return false;
	i = pair_slot(m, key);
	if (!m->index[i])
		return false;
	*value = m->v[m->index[i] - 1].value;
	return true;
}

void u32_map_release(struct u32_map *m)
{
	free(m->v);
	free(m->index);
	memset(m, 0, sizeof(*m));
}
