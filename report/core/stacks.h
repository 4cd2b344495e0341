/* stacks.h - call stacks interned by content while samples are read.
 *
 * A stack is a list of location ids (indexes into the builder's distinct addresses), leaf
 * first. Equal lists (and truncation flag) are one entry, which sums its samples and period,
 * so a profile holds each distinct stack once however many samples took it. An open-addressing
 * hash over the lists; entries stay in insertion order.
 */
#ifndef HWPROF_REPORT_STACKS_H
#define HWPROF_REPORT_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stack_entry {
	size_t first; /* its location ids: stack_table.ids[first .. first + n) */
	uint32_t n;
	bool truncated; /* the recorded chain was cut */
	uint64_t samples;
	double period; /* sum of sample periods */
};

struct stack_table {
	struct stack_entry *v;
	size_t n, cap;
	uint32_t *ids; /* every entry's location ids, back to back */
	size_t nids, capids;
	uint32_t *index; /* hash slots: 1 + index into v, 0 = empty */
	size_t icap;	 /* power of two, or 0 before the first add */
};

/* Adds SAMPLES samples of PERIOD (total) to the stack IDS[0..N) (N >= 1), interning it.
 * Returns 0 or -ENOMEM. */
int stack_table_add(struct stack_table *t, const uint32_t *ids, uint32_t n, bool truncated,
		    uint64_t samples, double period);

/* stack_table_add() that also gives the stack's index in T->v into *INDEX (INDEX may be
 * NULL). */
int stack_table_intern(struct stack_table *t, const uint32_t *ids, uint32_t n, bool truncated,
		       uint64_t samples, double period, size_t *index);

/* Frees T's arrays and empties it. */
void stack_table_release(struct stack_table *t);

/* A map of 32-bit keys to 32-bit values (a recording's stack ids to its stacks, a thread's
 * id to its command's). */
struct u32_map {
	struct u32_pair {
		uint32_t key, value;
	} * v; /* in the order first set */
	size_t n, cap;
	uint32_t *index; /* idindex.h slots, or NULL before the first set */
	size_t icap;
};

/* Sets KEY to VALUE. Returns 0 or -ENOMEM (M then unchanged). */
int u32_map_set(struct u32_map *m, uint32_t key, uint32_t value);

/* KEY's value into *VALUE: returns true, or false when KEY was never set. */
bool u32_map_get(const struct u32_map *m, uint32_t key, uint32_t *value);

/* Frees M's arrays and empties it. */
void u32_map_release(struct u32_map *m);

#endif
