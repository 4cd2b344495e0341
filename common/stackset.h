/* stackset.h - call stacks interned by content: each distinct stack (its callers, kernel part
 * and truncated bit) gets one id, 1, 2, 3, ... in the order first seen. Used by the sample
 * file writer (sampfile_write.c) and the perf.data reader (report/core/input_perf.c), which
 * both turn one stack per sample into a table of distinct ones. Internal: not installed.
 */
#ifndef HWPROF_STACKSET_H
#define HWPROF_STACKSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One interned stack: its entries are stackset.pool[off .. off + nr). */
struct stackset_entry {
	size_t off;
	uint32_t nr, nr_kernel;
	bool truncated;
	uint64_t hash;
};

/* Zero-initialised is empty. */
struct stackset {
	struct stackset_entry *v; /* [id - 1] */
	uint32_t n;
	size_t cap;
	uint64_t *pool; /* every stack's entries, back to back */
	size_t pool_len, pool_cap;
	uint32_t *slots; /* open addressing: id, 0 empty; NSLOTS a power of 2 */
	size_t nslots;
};

/* Interns IPS[NR] (NR may be 0) with NR_KERNEL (<= NR) and TRUNCATED: *ID gets its id (>= 1).
 * Returns 1 when the stack is new (copied into S), 0 when S held it, -ENOMEM, or -EOVERFLOW
 * after UINT32_MAX - 1 stacks. */
int stackset_intern(struct stackset *s, const uint64_t *ips, uint32_t nr, uint32_t nr_kernel,
		    bool truncated, uint32_t *id);

/* Stack ID (1 .. s->n) of S: its entry, whose entries are S->pool + entry->off. */
static inline const struct stackset_entry *stackset_get(const struct stackset *s, uint32_t id)
{
	return &s->v[id - 1];
}

/* Frees S's arrays and empties it. */
void stackset_release(struct stackset *s);

#endif
