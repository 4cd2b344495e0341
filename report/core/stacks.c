/* stacks.c - the stack hash and the id map. */
#include "stacks.h"

#include "fnv.h"
#include "grow.h"
#include "idindex.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static size_t hash_ids(const uint32_t *ids, uint32_t n, bool truncated)
{
	uint64_t h = HWPROF_FNV_BASIS ^ truncated;

	for (uint32_t i = 0; i < n; i++)
		h = hwprof_fnv1a_word(h, ids[i]);
	return (size_t)(h ^ (h >> 29));
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

static size_t slot_of(uint32_t key, size_t cap)
{
	return (size_t)((key * 2654435761u) & (cap - 1));
}

int u32_map_set(struct u32_map *m, uint32_t key, uint32_t value)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		uint64_t *s = calloc(cap, sizeof(*s));
		if (!s)
			return -ENOMEM;
		for (size_t k = 0; k < m->cap; k++) {
			if (!m->slots[k])
				continue;
			i = slot_of((uint32_t)(m->slots[k] >> 32), cap);
			while (s[i])
				i = (i + 1) & (cap - 1);
			s[i] = m->slots[k];
		}
		free(m->slots);
		m->slots = s;
		m->cap = cap;
	}
	i = slot_of(key, m->cap);
	while (m->slots[i] && (uint32_t)(m->slots[i] >> 32) != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->slots[i])
		m->n++;
	m->slots[i] = (uint64_t)key << 32 | value;
	return 0;
}

bool u32_map_get(const struct u32_map *m, uint32_t key, uint32_t *value)
{
	size_t i;

	if (!m->cap || !key)
		return false;
	i = slot_of(key, m->cap);
	while (m->slots[i]) {
		if ((uint32_t)(m->slots[i] >> 32) == key) {
			*value = (uint32_t)m->slots[i];
			return true;
		}
		i = (i + 1) & (m->cap - 1);
	}
	return false;
}

void u32_map_release(struct u32_map *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}
