/* idindex.h - the one open-addressing hash index of the tree's tables. Internal: not
 * installed.
 *
 * A table keeps its entries, keys included, in an array of its own and finds them through an
 * index: CAP uint32_t slots (a power of two), each 0 (empty) or 1 + an entry's position in
 * that array, probed linearly from the key's hash. The table gives the two things only it
 * knows, as static functions (inlined through these helpers): whether entry ID has the key
 * sought, and the hash of entry ID's key for a rebuild.
 *
 *     size_t s = hwprof_index_probe(t->index, t->icap, hash(key), same_key, &key);
 *     if (t->index[s])
 *             return t->index[s] - 1;                    // found
 *     id = ...append the entry...;
 *     t->index[s] = id + 1;
 *     if (2 * (id + 1) > t->icap)                          // half full: double it
 *             return hwprof_index_rebuild(&t->index, &t->icap, 2 * t->icap, id + 1,
 *                                         entry_hash, t);
 */
#ifndef HWPROF_IDINDEX_H
#define HWPROF_IDINDEX_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Whether entry ID (a position in the table's array) has the key CTX describes. */
typedef bool hwprof_index_same_fn(const void *ctx, uint32_t id);
/* The hash of entry ID's key, the same one the lookups of that key probe from. */
typedef uint64_t hwprof_index_hash_fn(const void *ctx, uint32_t id);

/* The slot of SLOTS (CAP of them, a power of two, at least one empty) that holds the entry
 * SAME(CTX, id) accepts, probing from HASH (its low bits: slot HASH & (CAP - 1)); or, when
 * none does, the empty slot where that entry goes. */
static inline size_t hwprof_index_probe(const uint32_t *slots, size_t cap, uint64_t hash,
					hwprof_index_same_fn *same, const void *ctx)
{
	size_t mask = cap - 1, i;

	for (i = (size_t)hash & mask; slots[i]; i = (i + 1) & mask)
		if (same(ctx, slots[i] - 1))
			break;
	return i;
}

/* Replaces *SLOTS (*CAP slots, may be NULL with *CAP 0) by NEWCAP slots (a power of two,
 * greater than N) that hold entries 0 .. N-1, each found from HASH(CTX, id). Returns 0, or
 * -ENOMEM with *SLOTS and *CAP unchanged. */
static inline int hwprof_index_rebuild(uint32_t **slots, size_t *cap, size_t newcap, size_t n,
				       hwprof_index_hash_fn *hash, const void *ctx)
{
	size_t mask = newcap - 1;
	uint32_t *v = calloc(newcap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t id = 0; id < n; id++) {
		size_t i = (size_t)hash(ctx, (uint32_t)id) & mask;

		while (v[i])
			i = (i + 1) & mask;
		v[i] = (uint32_t)id + 1;
	}
	free(*slots);
	*slots = v;
	*cap = newcap;
	return 0;
}

#endif
