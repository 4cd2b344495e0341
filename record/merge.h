/* merge.h - putting the records of several per-CPU ring buffers back in time order.
 *
 * A thread that migrates leaves its records in more than one ring, and the rings are drained
 * one after the other, so record keeps what it drained in a queue and writes out only what
 * can no longer be overtaken: records stamped before the moment the current drain round
 * started (less a margin for the time the kernel takes between stamping a record and
 * publishing it). Times are attr.clockid (CLOCK_MONOTONIC) ns.
 */
#ifndef HWPROF_RECORD_MERGE_H
#define HWPROF_RECORD_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "hwprof/sampfile.h"

struct merge_entry;

struct merge {
	struct merge_entry *e; /* the queue, unsorted until a flush */
	size_t n, cap;
	uint64_t seq; /* arrival order, to keep equal times stable */
};

/* The time stamp of REC in ns (the field of its type). */
uint64_t merge_record_time(const struct hwprof_record *rec);

/* Queues a copy of REC (its strings copied too). Returns 0 or -ENOMEM. */
int merge_add(struct merge *m, const struct hwprof_record *rec);

/* The same, with BLOB (LEN bytes, malloc'd; may be NULL) queued beside it: what the record
 * needs when it is written, e.g. a sample's copied user stack. The queue owns BLOB from the
 * call on, failure included, and frees it once the record was emitted. Returns 0 or -ENOMEM. */
int merge_add_blob(struct merge *m, const struct hwprof_record *rec, void *blob, size_t len);

/* Called for each record flushed, in time order, with the blob queued beside it in *BLOB
 * (NULL, 0 for none): the callee may take it (then it sets *BLOB to NULL and frees it itself),
 * else it is freed after the call. A non-zero return stops the flush (the record and its blob,
 * if not taken, stay queued) and is returned by merge_flush. */
typedef int (*merge_emit_fn)(const struct hwprof_record *rec, void **blob, size_t len, void *arg);

/* Hands every queued record stamped at or before UPTO (UINT64_MAX: all) to EMIT in time
 * order (arrival order for equal times) and drops them. Returns 0 or EMIT's return. */
int merge_flush(struct merge *m, uint64_t upto, merge_emit_fn emit, void *arg);

/* Frees the queue, its strings and blobs. M may be reused afterwards (it is zeroed). */
void merge_free(struct merge *m);

#endif
