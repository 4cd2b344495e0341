/* aggregate.h - samples summed by (DSO, file offset) before anything is symbolized.
 *
 * A million samples usually hit a few thousand distinct addresses: summing first means each
 * address is symbolized once. An open-addressing hash; entries stay in insertion order.
 */
#ifndef HWPROF_REPORT_AGGREGATE_H
#define HWPROF_REPORT_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>

struct agg_entry {
	uint64_t offset; /* file offset in DSO; for [unknown]/[kernel] the address itself */
	uint32_t dso;
	uint64_t samples;
	double period; /* sum of sample periods */
};

struct agg {
	struct agg_entry *v; /* the distinct keys */
	size_t n, cap;
	uint32_t *index; /* hash slots: 1 + index into v, 0 = empty */
	size_t icap;	 /* power of two */
};

/* Initialises A empty. Returns 0 or -ENOMEM. */
int agg_init(struct agg *a);

/* Adds one sample of PERIOD at (DSO, OFFSET); *ID (ID may be NULL) gets its entry's index in
 * A->v. Returns 0 or -ENOMEM. */
int agg_add(struct agg *a, uint32_t dso, uint64_t offset, uint64_t period, uint32_t *id);

/* The index in A->v of (DSO, OFFSET) into *ID, made with no samples when new (a caller's
 * address in a stack: it has a location but no samples of its own). Returns 0 or -ENOMEM. */
int agg_intern(struct agg *a, uint32_t dso, uint64_t offset, uint32_t *id);

/* Frees A's arrays. */
void agg_release(struct agg *a);

#endif
