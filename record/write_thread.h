/* write_thread.h - handing records to a thread of their own, in order.
 *
 * `record --call-graph dwarf` unwinds every sample before it is written; done on the thread
 * that drains the rings, a slow stretch of unwinding (a first look at a large file's CFI, a
 * burst of samples) would leave the rings full and the kernel would drop samples. So the
 * draining thread queues each record, in time order, and this thread unwinds and writes
 * them. The queue takes what the kernel sends at any rate up to a bound in bytes; beyond it
 * the draining thread waits (the kernel then drops samples and says so with LOST records).
 */
#ifndef HWPROF_RECORD_WRITE_THREAD_H
#define HWPROF_RECORD_WRITE_THREAD_H

#include <stddef.h>

#include "merge.h"

struct write_thread;

/* Called on the thread for each record, in the order they were queued, with its blob (NULL,
 * 0 for none). A negative return is the thread's error: write_thread_push() and
 * write_thread_stop() return it from then on, and the records after it are dropped. */
typedef merge_emit_fn write_thread_fn;

/* Called on the thread about once a second, between records (also when none come), e.g. to
 * flush buffered output. May be NULL. */
typedef void (*write_thread_idle_fn)(void *arg);

/* Starts the thread into *OUT: FN and IDLE get ARG; MAX_BYTES bounds the bytes queued (the
 * records' blobs and strings). Returns 0 or -errno (ENOMEM, EAGAIN from pthread_create). */
int write_thread_start(struct write_thread **out, write_thread_fn fn, write_thread_idle_fn idle,
		       void *arg, size_t max_bytes);

/* Queues a copy of REC (strings included) and BLOB[LEN] (malloc'd, may be NULL; T owns it from
 * the call on, failure included); waits while the queue holds more than MAX_BYTES. Returns 0,
 * -ENOMEM, or the thread's error. */
int write_thread_push(struct write_thread *t, const struct hwprof_record *rec, void *blob,
		      size_t len);

/* Waits until every queued record went to FN, ends the thread and frees T. Returns 0 or the
 * thread's error. Accepts NULL (returns 0). */
int write_thread_stop(struct write_thread *t);

#endif
