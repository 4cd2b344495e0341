/* test_merge.c - records from several rings back in time order. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"

struct out {
	uint64_t times[32];
	char names[32][32];
	char blobs[32][16];
	int n, stop_after;
	bool take;
};

static int collect(const struct hwprof_record *rec, void **blob, size_t len, void *arg)
{
	struct out *o = arg;

	if (o->stop_after >= 0 && o->n == o->stop_after)
		return 7;
	if (*blob)
		snprintf(o->blobs[o->n], sizeof(o->blobs[0]), "%.*s", (int)len,
			 (const char *)*blob);
	if (*blob && o->take) {
		free(*blob); /* taken: the queue must not free it again */
		*blob = NULL;
	}
	o->times[o->n] = merge_record_time(rec);
	if (rec->type == HWPROF_REC_MMAP)
		snprintf(o->names[o->n], sizeof(o->names[0]), "%s", rec->mmap.filename);
	o->n++;
	return 0;
}

static void add_sample(struct merge *m, uint64_t t)
{
	struct hwprof_record r = {.type = HWPROF_REC_SAMPLE};

	r.sample.time = t;
	cr_assert_eq(merge_add(m, &r), 0);
}

Test(merge, flushes_only_up_to_the_limit_in_time_order)
{
	struct merge m = {0};
	struct out o = {.stop_after = -1};
	/* Two "rings" drained one after the other: CPU 0's then CPU 1's. */
	static const uint64_t cpu0[] = {10, 30, 50, 70}, cpu1[] = {20, 40, 60, 80};

	for (int i = 0; i < 4; i++)
		add_sample(&m, cpu0[i]);
	for (int i = 0; i < 4; i++)
		add_sample(&m, cpu1[i]);
	cr_assert_eq(merge_flush(&m, 55, collect, &o), 0);
	cr_assert_eq(o.n, 5);
	for (int i = 0; i < 5; i++)
		cr_assert_eq(o.times[i], 10 * (uint64_t)(i + 1));
	add_sample(&m, 56); /* arrives late but is still in order */
	cr_assert_eq(merge_flush(&m, UINT64_MAX, collect, &o), 0);
	cr_assert_eq(o.n, 9);
	cr_assert_eq(o.times[5], 56);
	cr_assert_eq(o.times[8], 80);
	cr_assert_eq(m.n, 0);
	merge_free(&m);
}

Test(merge, strings_are_copied_and_equal_times_keep_arrival_order)
{
	struct merge m = {0};
	struct out o = {.stop_after = -1};
	char name[32];
	struct hwprof_record r = {.type = HWPROF_REC_MMAP};

	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "/lib/%d.so", i);
		r.mmap.filename = name;
		r.mmap.time = 5;
		cr_assert_eq(merge_add(&m, &r), 0);
	}
	strcpy(name, "overwritten");
	cr_assert_eq(merge_flush(&m, UINT64_MAX, collect, &o), 0);
	cr_assert_eq(o.n, 3);
	cr_assert_str_eq(o.names[0], "/lib/0.so");
	cr_assert_str_eq(o.names[2], "/lib/2.so");
	merge_free(&m);
}

Test(merge, emit_error_keeps_the_record)
{
	struct merge m = {0};
	struct out o = {.stop_after = 2};

	for (uint64_t t = 1; t <= 4; t++)
		add_sample(&m, t);
	cr_assert_eq(merge_flush(&m, UINT64_MAX, collect, &o), 7);
	cr_assert_eq(m.n, 2);
	o.stop_after = -1;
	cr_assert_eq(merge_flush(&m, UINT64_MAX, collect, &o), 0);
	cr_assert_eq(o.n, 4);
	cr_assert_eq(o.times[2], 3);
	merge_free(&m);
}

Test(merge, a_blob_travels_with_its_record_and_is_freed)
{
	struct merge m = {0};
	struct out o = {.stop_after = 1};
	struct hwprof_record r = {.type = HWPROF_REC_SAMPLE};

	for (uint64_t t = 3; t >= 1; t--) {
		char *b = malloc(8);
		snprintf(b, 8, "b%d", (int)t);
		r.sample.time = t;
		cr_assert_eq(merge_add_blob(&m, &r, b, 2), 0);
	}
	add_sample(&m, 0);
	/* Stopped after the first: the blobs stay queued, then come out in time order. */
	cr_assert_eq(merge_flush(&m, UINT64_MAX, collect, &o), 7);
	cr_assert_eq(o.blobs[0][0], 0);
	o.stop_after = -1;
	o.take = true;
	cr_assert_eq(merge_flush(&m, 2, collect, &o), 0);
	cr_assert_str_eq(o.blobs[1], "b1");
	cr_assert_str_eq(o.blobs[2], "b2");
	merge_free(&m); /* b3 still queued: freed here (ASan sees a leak otherwise) */
}
