/* ring.c - the reader side of a perf ring buffer (see ring.h for the protocol). */
#include "ring.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

int ring_init(struct ring *r, void *base, size_t map_len, size_t page_size)
{
	struct perf_event_mmap_page *meta = base;
	uint64_t off = page_size, size = map_len > page_size ? map_len - page_size : 0;

	memset(r, 0, sizeof(*r));
	/* data_offset/data_size are 0 on kernels before 4.1; then the layout is fixed. */
	if (meta->data_size && meta->data_offset + meta->data_size <= map_len) {
		off = meta->data_offset;
		size = meta->data_size;
	}
	if (!size || (size & (size - 1)))
		return -EINVAL;
	r->meta = meta;
	r->data = (unsigned char *)base + off;
	r->size = size;
	return 0;
}

uint64_t ring_pending(const struct ring *r)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	return head - r->meta->data_tail;
}

/* Copies LEN bytes starting at ring offset POS into the scratch buffer, unwrapping. */
static void *ring_copy(struct ring *r, uint64_t pos, size_t len)
{
	uint64_t off = pos & (r->size - 1);
	size_t first = len;

	if (len > r->copy_size) {
		void *p = realloc(r->copy, len);
		if (!p)
			return NULL;
		r->copy = p;
		r->copy_size = len;
	}
	if (off + len > r->size)
		first = (size_t)(r->size - off);
	memcpy(r->copy, r->data + off, first);
	memcpy((unsigned char *)r->copy + first, r->data, len - first);
	return r->copy;
}

long ring_drain(struct ring *r, ring_record_fn fn, void *arg)
{
	/* Acquire pairs with the kernel's store of data_head: the records before it are visible. */
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	long n = 0, ret;

	while (tail < head) {
		struct perf_event_header h;
		const struct perf_event_header *rec;
		uint64_t avail = head - tail, off = tail & (r->size - 1);

		/* The header itself is 8 bytes at an 8-byte-aligned offset: it never wraps. */
		if (avail >= sizeof(h))
			memcpy(&h, r->data + off, sizeof(h));
		if (avail < sizeof(h) || h.size < sizeof(h) || (h.size & 7) || h.size > avail) {
			/* Nothing after a bad size can be framed: skip what is there. */
			r->bad++;
			tail = head;
			break;
		}
		if (off + h.size <= r->size) {
			rec = (const void *)(r->data + off);
		} else {
			rec = ring_copy(r, tail, h.size);
			if (!rec) {
				ret = -ENOMEM;
				goto out;
			}
		}
		ret = fn(rec, h.size, arg);
		if (ret)
			goto out;
		tail += h.size;
		n++;
	}
	ret = n;
out:
	/* Release: our reads of the records are done before the kernel may reuse the space. */
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return ret;
}

void ring_release(struct ring *r)
{
	if (!r)
		return;
	free(r->copy);
	r->copy = NULL;
	r->copy_size = 0;
}
