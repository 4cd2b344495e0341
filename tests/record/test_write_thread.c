/* test_write_thread.c - records handed to a thread of their own, in order, blobs included. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "write_thread.h"

struct seen {
	uint64_t times[2000];
	int n, fail_at, idle, bad;
	size_t blob_bytes;
};

static int take(const struct hwprof_record *rec, void **blob, size_t len, void *arg)
{
	struct seen *s = arg;

	if (s->n == s->fail_at)
		return -28; /* -ENOSPC */
	s->times[s->n++] = rec->sample.time;
	if (*blob) {
		/* No criterion assertion here: it must not run on another thread. */
		s->bad += ((unsigned char *)*blob)[len - 1] != (unsigned char)rec->sample.time;
		s->blob_bytes += len;
	}
	return 0;
}

static void idle(void *arg)
{
	((struct seen *)arg)->idle++;
}

static void push(struct write_thread *t, uint64_t time, size_t len, int want)
{
	struct hwprof_record r = {.type = HWPROF_REC_SAMPLE};
	unsigned char *b = len ? malloc(len) : NULL;

	if (b)
		memset(b, (int)(time & 0xff), len);
	r.sample.time = time;
	cr_assert_eq(write_thread_push(t, &r, b, len), want);
}

Test(write_thread, every_record_in_order_with_its_blob)
{
	static struct seen s = {.fail_at = -1};
	struct write_thread *t;

	/* A bound of 64 KiB: the pushes wait for the thread now and then. */
	cr_assert_eq(write_thread_start(&t, take, idle, &s, 64 << 10), 0);
	for (uint64_t i = 1; i <= 2000; i++)
		push(t, i, i % 3 ? 8192 : 0, 0);
	cr_assert_eq(write_thread_stop(t), 0);
	cr_assert_eq(s.n, 2000);
	for (int i = 0; i < 2000; i++)
		cr_assert_eq(s.times[i], (uint64_t)i + 1);
	cr_assert_eq(s.blob_bytes, 1334 * 8192ull);
	cr_assert_eq(s.bad, 0, "each blob came with its own record");
	cr_assert_eq(write_thread_stop(NULL), 0);
}

Test(write_thread, the_first_error_sticks)
{
	static struct seen s = {.fail_at = 10};
	struct write_thread *t;
	int ret = 0;

	cr_assert_eq(write_thread_start(&t, take, NULL, &s, 1 << 20), 0);
	for (uint64_t i = 1; i <= 100 && !ret; i++) {
		struct hwprof_record r = {.type = HWPROF_REC_SAMPLE};
		r.sample.time = i;
		unsigned char *b = malloc(16);
		memset(b, (int)i, 16);
		ret = write_thread_push(t, &r, b, 16);
		if (!ret && i == 50)
			while (!ret) { /* until the thread got to record 11 */
				r.sample.time = 1000;
				ret = write_thread_push(t, &r, NULL, 0);
			}
	}
	cr_assert_eq(ret, -28, "a push after the error returns it");
	cr_assert_eq(write_thread_stop(t), -28);
	cr_assert_eq(s.n, 10, "nothing after the failed record");
}

Test(write_thread, idle_comes_about_once_a_second)
{
	static struct seen s = {.fail_at = -1};
	struct write_thread *t;
	struct timespec pause = {1, 600000000};

	cr_assert_eq(write_thread_start(&t, take, idle, &s, 1 << 20), 0);
	nanosleep(&pause, NULL);
	cr_assert_eq(write_thread_stop(t), 0);
	cr_assert_geq(s.idle, 1, "no record came for 1.6 s");
	cr_assert_leq(s.idle, 2);
}
