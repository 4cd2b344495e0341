/* test_ring.c - the ring-buffer drain on synthetic buffers laid out like the kernel's. */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"

#define PAGE 4096
#define DATA 4096

/* A control page and a DATA-byte data area, and a producer that writes like the kernel. */
struct fake_ring {
	unsigned char *mem;
	struct perf_event_mmap_page *meta;
	uint64_t head;
};

static void fake_init(struct fake_ring *f, uint64_t start)
{
	f->mem = aligned_alloc(PAGE, PAGE + DATA);
	cr_assert_not_null(f->mem);
	memset(f->mem, 0xee, PAGE + DATA);
	f->meta = (void *)f->mem;
	memset(f->meta, 0, sizeof(*f->meta));
	f->meta->data_head = f->meta->data_tail = f->head = start;
}

/* Writes a record of SIZE bytes (a multiple of 8, >= 16): header, then a u64 sequence number,
 * then bytes derived from it. Returns false when there is no room. Publishes nothing. */
static bool fake_put(struct fake_ring *f, uint16_t size, uint64_t seq)
{
	unsigned char rec[512];
	uint64_t tail = __atomic_load_n(&f->meta->data_tail, __ATOMIC_ACQUIRE);
	struct perf_event_header h = {.type = PERF_RECORD_SAMPLE, .misc = 0, .size = size};

	if (f->head + size - tail > DATA)
		return false;
	memcpy(rec, &h, 8);
	memcpy(rec + 8, &seq, 8);
	for (unsigned i = 16; i < size; i++)
		rec[i] = (unsigned char)(seq * 7 + i);
	for (unsigned i = 0; i < size; i++)
		f->mem[PAGE + ((f->head + i) & (DATA - 1))] = rec[i];
	f->head += size;
	return true;
}

static void fake_publish(struct fake_ring *f)
{
	__atomic_store_n(&f->meta->data_head, f->head, __ATOMIC_RELEASE);
}

struct seen {
	uint64_t next_seq;
	unsigned records, bad_content;
	uint16_t sizes[64];
	long stop_at; /* return 1 when this many records were seen, -1: never */
};

static int check_record(const struct perf_event_header *h, size_t len, void *arg)
{
	struct seen *s = arg;
	const unsigned char *p = (const void *)h;
	uint64_t seq;

	if (s->stop_at >= 0 && s->records == (unsigned)s->stop_at)
		return 1;
	cr_assert_eq(len, h->size);
	cr_assert_eq((uintptr_t)h % 8, 0, "record handed over unaligned");
	memcpy(&seq, p + 8, 8);
	cr_assert_eq(seq, s->next_seq, "record %u: sequence %llu, expected %llu", s->records,
		     (unsigned long long)seq, (unsigned long long)s->next_seq);
	for (unsigned i = 16; i < len; i++)
		if (p[i] != (unsigned char)(seq * 7 + i))
			s->bad_content++;
	if (s->records < 64)
		s->sizes[s->records] = h->size;
	s->records++;
	s->next_seq++;
	return 0;
}

Test(ring, init_uses_layout_and_rejects_odd_sizes)
{
	struct fake_ring f;
	struct ring r;

	fake_init(&f, 0);
	cr_assert_eq(ring_init(&r, f.mem, PAGE + DATA, PAGE), 0);
	cr_assert_eq(r.size, DATA);
	cr_assert_eq(r.data, f.mem + PAGE);
	cr_assert_eq(ring_init(&r, f.mem, PAGE + 3 * PAGE, PAGE), -EINVAL);
	cr_assert_eq(ring_init(&r, f.mem, PAGE, PAGE), -EINVAL);
	/* Kernels since 4.1 publish data_offset/data_size: they win over the fixed layout. */
	f.meta->data_offset = PAGE;
	f.meta->data_size = DATA / 2;
	cr_assert_eq(ring_init(&r, f.mem, PAGE + DATA, PAGE), 0);
	cr_assert_eq(r.size, DATA / 2);
	free(f.mem);
}

Test(ring, drains_in_order_and_releases_space)
{
	struct fake_ring f;
	struct ring r;
	struct seen s = {.stop_at = -1};

	fake_init(&f, 0);
	cr_assert_eq(ring_init(&r, f.mem, PAGE + DATA, PAGE), 0);
	cr_assert_eq(ring_drain(&r, check_record, &s), 0, "empty ring gives no records");
	for (uint64_t i = 0; i < 10; i++)
		cr_assert(fake_put(&f, (uint16_t)(16 + 8 * i), i));
	fake_publish(&f);
	cr_assert_eq(ring_pending(&r), f.head);
	cr_assert_eq(ring_drain(&r, check_record, &s), 10);
	cr_assert_eq(s.records, 10);
	cr_assert_eq(s.sizes[9], 16 + 72);
	cr_assert_eq(s.bad_content, 0);
	cr_assert_eq(f.meta->data_tail, f.head, "tail released up to head");
	cr_assert_eq(ring_pending(&r), 0);
	ring_release(&r);
	free(f.mem);
}

Test(ring, record_wrapping_the_end_is_copied_whole)
{
	struct fake_ring f;
	struct ring r;
	struct seen s = {.next_seq = 100, .stop_at = -1};

	/* Start 16 bytes before the end: the first record straddles it (header in, body out). */
	fake_init(&f, DATA - 16 + 5 * DATA);
	cr_assert_eq(ring_init(&r, f.mem, PAGE + DATA, PAGE), 0);
	cr_assert(fake_put(&f, 24, 100));
	cr_assert(fake_put(&f, 200, 101));
	fake_publish(&f);
	cr_assert_eq(ring_drain(&r, check_record, &s), 2);
	/* Now one that starts 8 bytes before the end: only its header fits before the end. */
	f.head = f.meta->data_tail = (f.head & ~(uint64_t)(DATA - 1)) + 2 * DATA - 8;
	f.meta->data_head = f.head;
	cr_assert(fake_put(&f, 120, 102));
	fake_publish(&f);
	cr_assert_eq(ring_drain(&r, check_record, &s), 1);
	cr_assert_eq(s.records, 3);
	cr_assert_eq(s.bad_content, 0, "wrapped record content damaged");
	cr_assert_eq(f.meta->data_tail, f.head);
	ring_release(&r);
	free(f.mem);
}

Test(ring, many_rounds_over_many_wraps)
{
	struct fake_ring f;
	struct ring r;
	struct seen s = {.stop_at = -1};
	uint64_t seq = 0;
	unsigned rng = 12345;

	fake_init(&f, 0);
	cr_assert_eq(ring_init(&r, f.mem, PAGE + DATA, PAGE), 0);
	for (int round = 0; round < 2000; round++) {
		while (fake_put(
		    &f, (uint16_t)(16 + 8 * (((rng = rng * 1103515245 + 12345) >> 16) % 50)),
		    seq)) {
			seq++;
			if (rng % 7 == 0)
				break;
		}
		fake_publish(&f);
		cr_assert_geq(ring_drain(&r, check_record, &s), 0);
	}
	cr_assert_eq(s.records, seq);
	cr_assert_gt(f.head, 50 * DATA, "the test wrapped the ring many times");
	cr_assert_eq(s.bad_content, 0);
	cr_assert_eq(r.bad, 0);
	ring_release(&r);
	free(f.mem);
}

Test(ring, callback_stop_leaves_the_rest)
{
	struct fake_ring f;
	struct ring r;
	struct seen s = {.stop_at = 3};

	fake_init(&f, 0);
	cr_assert_eq(ring_init(&r, f.mem, PAGE + DATA, PAGE), 0);
	for (uint64_t i = 0; i < 5; i++)
		cr_assert(fake_put(&f, 24, i));
	fake_publish(&f);
	cr_assert_eq(ring_drain(&r, check_record, &s), 1);
	cr_assert_eq(f.meta->data_tail, 3 * 24, "the stopping record stays in the ring");
	s.stop_at = -1;
	cr_assert_eq(ring_drain(&r, check_record, &s), 2);
	cr_assert_eq(s.records, 5);
	ring_release(&r);
	free(f.mem);
}

static void put_raw_header(struct fake_ring *f, uint16_t size, uint64_t advance)
{
	struct perf_event_header h = {.type = PERF_RECORD_SAMPLE, .size = size};

	memcpy(f->mem + PAGE + (f->head & (DATA - 1)), &h, 8);
	f->head += advance;
}

Test(ring, malformed_sizes_skip_the_rest)
{
	static const uint16_t bad[] = {0, 4, 20, 4000};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fake_ring f;
		struct ring r;
		struct seen s = {.stop_at = -1};

		fake_init(&f, 64);
		cr_assert_eq(ring_init(&r, f.mem, PAGE + DATA, PAGE), 0);
		cr_assert(fake_put(&f, 32, 0));
		put_raw_header(&f, bad[i], 64);
		fake_publish(&f);
		cr_assert_eq(ring_drain(&r, check_record, &s), 1, "size %u", bad[i]);
		cr_assert_eq(r.bad, 1, "size %u counted as malformed", bad[i]);
		cr_assert_eq(f.meta->data_tail, f.head, "skipped to head");
		ring_release(&r);
		free(f.mem);
	}
}

/* A producer thread and a draining consumer, as with the kernel: only the barriers keep the
 * records intact. */
struct race {
	struct fake_ring f;
	uint64_t n;
};

static void *producer(void *arg)
{
	struct race *x = arg;

	for (uint64_t seq = 0; seq < x->n;) {
		if (fake_put(&x->f, (uint16_t)(16 + 8 * (seq % 31)), seq)) {
			seq++;
			if (seq % 5 == 0)
				fake_publish(&x->f);
		} else {
			fake_publish(&x->f);
			sched_yield(); /* full: let the consumer run on a busy machine */
		}
	}
	fake_publish(&x->f);
	return NULL;
}

Test(ring, concurrent_producer)
{
	struct race x = {.n = 50000};
	struct ring r;
	struct seen s = {.stop_at = -1};
	pthread_t t;

	fake_init(&x.f, 0);
	cr_assert_eq(ring_init(&r, x.f.mem, PAGE + DATA, PAGE), 0);
	cr_assert_eq(pthread_create(&t, NULL, producer, &x), 0);
	while (s.records < x.n) {
		long got = ring_drain(&r, check_record, &s);
		cr_assert_geq(got, 0);
		if (!got)
			sched_yield();
	}
	pthread_join(t, NULL);
	cr_assert_eq(s.records, x.n);
	cr_assert_eq(s.bad_content, 0);
	cr_assert_eq(r.bad, 0);
	ring_release(&r);
	free(x.f.mem);
}
