/* ring.h - draining one perf_event_open(2) ring buffer.
 *
 * The kernel writes records into the data area of an mmap'ed perf fd and advances
 * perf_event_mmap_page.data_head; the reader consumes them and advances data_tail
 * (linux/perf_event.h, perf_event_open(2) "MMAP layout"). The protocol:
 *   1. load data_head with acquire semantics (the records before it are then visible),
 *   2. read the records between data_tail and data_head; a record may wrap around the end of
 *      the data area, so it is copied out whole before anyone parses it,
 *   3. store data_tail with release semantics (the kernel may then overwrite that space).
 *
 * A ring works on any memory laid out like the kernel's (one control page, then a data area
 * of a power-of-two size), so the tests drive it with a synthetic buffer.
 */
#ifndef HWPROF_RECORD_RING_H
#define HWPROF_RECORD_RING_H

#include <stddef.h>
#include <stdint.h>

struct perf_event_header;
struct perf_event_mmap_page;

struct ring {
	struct perf_event_mmap_page *meta; /* the control page */
	unsigned char *data;		   /* the data area */
	uint64_t size;			   /* bytes in the data area, a power of two */
	void *copy;			   /* scratch for records that wrap (owned) */
	size_t copy_size;		   /* bytes allocated in COPY */
	uint64_t bad;			   /* malformed headers seen (the rest was skipped) */
};

/* Sets R up on BASE, MAP_LEN bytes mapped from a perf fd (or a synthetic copy): one control
 * page of PAGE_SIZE bytes, then 2^n pages of data. Where the kernel filled in data_offset and
 * data_size (Linux 4.1+) those are used. Returns 0, or -EINVAL when the data area is not a
 * power of two. R does not own BASE. */
int ring_init(struct ring *r, void *base, size_t map_len, size_t page_size);

/* Called once per record, in ring order. REC is 8-byte aligned and LEN == REC->size bytes
 * long; it is valid only during the call. A non-zero return stops the drain (the records
 * before stay consumed, this one and the ones after are left in the ring) and is returned. */
typedef int (*ring_record_fn)(const struct perf_event_header *rec, size_t len, void *arg);

/* Hands every record between data_tail and data_head to FN, then releases their space.
 * Returns the number of records handed over (>= 0), FN's non-zero return, or -ENOMEM.
 * A header with a size under 8 bytes, not a multiple of 8, or past data_head cannot be
 * trusted: the rest of the available data is skipped, R->bad counts it. */
long ring_drain(struct ring *r, ring_record_fn fn, void *arg);

/* Bytes waiting to be read (data_head - data_tail). */
uint64_t ring_pending(const struct ring *r);

/* Frees the scratch buffer. Does not unmap anything. Accepts NULL. */
void ring_release(struct ring *r);

#endif
