/* test_decode.c - perf records (linux/perf_event.h layouts) to sample-file records. */
#include <stddef.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>

#include "decode.h"

#define TYPE                                                                                       \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

static const uint64_t ids[] = {1001, 2002};
static const uint16_t evs[] = {0, 1};
static const struct decode_ctx ctx = {.sample_type = TYPE, .ids = ids, .events = evs, .nids = 2};

/* A record under construction, 8-byte aligned. */
struct rec {
	uint64_t buf[64];
	size_t len;
};

static void begin(struct rec *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = {.type = type, .misc = misc};

	memset(r, 0, sizeof(*r));
	memcpy(r->buf, &h, 8);
	r->len = 8;
}

static void u64(struct rec *r, uint64_t v)
{
	memcpy((char *)r->buf + r->len, &v, 8);
	r->len += 8;
}

static void u32x2(struct rec *r, uint32_t a, uint32_t b)
{
	memcpy((char *)r->buf + r->len, &a, 4);
	memcpy((char *)r->buf + r->len + 4, &b, 4);
	r->len += 8;
}

static void str(struct rec *r, const char *s)
{
	size_t n = strlen(s) + 1, pad = (n + 7) & ~(size_t)7;

	memset((char *)r->buf + r->len, 0, pad);
	memcpy((char *)r->buf + r->len, s, n);
	r->len += pad;
}

/* The sample_id block of sample_id_all: TID, TIME, CPU, IDENTIFIER. */
static void sample_id(struct rec *r, uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu)
{
	u32x2(r, pid, tid);
	u64(r, time);
	u32x2(r, cpu, 0);
	u64(r, 1001);
}

/* The header fields are written through memcpy: r->buf is uint64_t storage. */
static void set_misc(struct rec *r, uint16_t misc)
{
	memcpy((char *)r->buf + offsetof(struct perf_event_header, misc), &misc, sizeof(misc));
}

static void set_type(struct rec *r, uint32_t type)
{
	memcpy((char *)r->buf + offsetof(struct perf_event_header, type), &type, sizeof(type));
}

static const struct perf_event_header *end(struct rec *r)
{
	struct perf_event_header *h = (void *)r->buf;

	h->size = (uint16_t)r->len;
	return h;
}

Test(decode, sample_fields_and_event_by_identifier)
{
	struct rec r;
	struct hwprof_record out;

	begin(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	u64(&r, 2002);	    /* identifier */
	u64(&r, 0x401234);  /* ip */
	u32x2(&r, 77, 78);  /* pid, tid */
	u64(&r, 123456789); /* time */
	u32x2(&r, 1, 0);    /* cpu */
	u64(&r, 250000);    /* period */
	cr_assert_eq(decode_record(&ctx, end(&r), r.len, &out), 1);
	cr_assert_eq(out.type, HWPROF_REC_SAMPLE);
	cr_assert_eq(out.sample.ip, 0x401234);
	cr_assert_eq(out.sample.pid, 77);
	cr_assert_eq(out.sample.tid, 78);
	cr_assert_eq(out.sample.time, 123456789);
	cr_assert_eq(out.sample.cpu, 1);
	cr_assert_eq(out.sample.period, 250000);
	cr_assert_eq(out.sample.event, 1);
	cr_assert_not(out.sample.kernel);

	begin(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	u64(&r, 999);
	u64(&r, 0xffffffff81000000ull);
	u32x2(&r, 1, 1);
	u64(&r, 5);
	u32x2(&r, 0, 0);
	u64(&r, 1);
	cr_assert_eq(decode_record(&ctx, end(&r), r.len, &out), 1);
	cr_assert(out.sample.kernel);
	cr_assert_eq(out.sample.event, 0, "unknown id falls back to event 0");
}

Test(decode, short_sample_is_refused)
{
	struct rec r;
	struct hwprof_record out;

	begin(&r, PERF_RECORD_SAMPLE, 0);
	u64(&r, 1001);
	u64(&r, 0x401234);
	u32x2(&r, 77, 78);
	cr_assert_eq(decode_record(&ctx, end(&r), r.len, &out), -EBADMSG);
}

Test(decode, mmap2_with_and_without_build_id)
{
	struct rec r;
	struct hwprof_record out;
	uint64_t bid[3] = {0, 0, 0};
	unsigned char *b = (unsigned char *)bid;

	begin(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	u32x2(&r, 10, 11);
	u64(&r, 0x555555554000);
	u64(&r, 0x2000);
	u64(&r, 0x1000);
	b[0] = 20;
	for (int i = 0; i < 20; i++)
		b[4 + i] = (unsigned char)(0xa0 + i);
	u64(&r, bid[0]);
	u64(&r, bid[1]);
	u64(&r, bid[2]);
	u32x2(&r, PROT_READ | PROT_EXEC, MAP_PRIVATE);
	str(&r, "/usr/bin/true");
	sample_id(&r, 10, 11, 4242, 1);
	cr_assert_eq(decode_record(&ctx, end(&r), r.len, &out), 1);
	cr_assert_eq(out.type, HWPROF_REC_MMAP);
	cr_assert_eq(out.mmap.pid, 10);
	cr_assert_eq(out.mmap.tid, 11);
	cr_assert_eq(out.mmap.start, 0x555555554000);
	cr_assert_eq(out.mmap.len, 0x2000);
	cr_assert_eq(out.mmap.pgoff, 0x1000);
	cr_assert_eq(out.mmap.time, 4242);
	cr_assert_eq(out.mmap.build_id_size, 20);
	cr_assert_eq(out.mmap.build_id[19], 0xa0 + 19);
	cr_assert_str_eq(out.mmap.filename, "/usr/bin/true");

	/* Without the MMAP_BUILD_ID bit the same bytes are maj/min/ino: no build-id. */
	set_misc(&r, PERF_RECORD_MISC_USER);
	cr_assert_eq(decode_record(&ctx, end(&r), r.len, &out), 1);
	cr_assert_eq(out.mmap.build_id_size, 0);

	/* A data mapping is not kept. */
	begin(&r, PERF_RECORD_MMAP2, 0);
	u32x2(&r, 10, 11);
	u64(&r, 0x1000);
	u64(&r, 0x1000);
	u64(&r, 0);
	u64(&r, 0);
	u64(&r, 0);
	u64(&r, 0);
	u32x2(&r, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	str(&r, "/tmp/data");
	sample_id(&r, 10, 11, 1, 0);
	cr_assert_eq(decode_record(&ctx, end(&r), r.len, &out), 0);
}

Test(decode, unterminated_file_name_is_refused)
{
	struct rec r;
	struct hwprof_record out;

	begin(&r, PERF_RECORD_MMAP2, 0);
	u32x2(&r, 10, 11);
	for (int i = 0; i < 6; i++)
		u64(&r, 0);
	u32x2(&r, PROT_EXEC, 0);
	memcpy((char *)r.buf + r.len, "ABCDEFGH", 8); /* no NUL before the sample_id block */
	r.len += 8;
	sample_id(&r, 10, 11, 1, 0);
	cr_assert_eq(decode_record(&ctx, end(&r), r.len, &out), -EBADMSG);
}

Test(decode, comm_fork_exit)
{
	struct rec r;
	struct hwprof_record out;

	begin(&r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	u32x2(&r, 5, 6);
	str(&r, "wl_pagefault");
	sample_id(&r, 5, 6, 99, 0);
	cr_assert_eq(decode_record(&ctx, end(&r), r.len, &out), 1);
	cr_assert_eq(out.type, HWPROF_REC_COMM);
	cr_assert(out.comm.exec);
	cr_assert_eq(out.comm.time, 99);
	cr_assert_str_eq(out.comm.comm, "wl_pagefault");

	begin(&r, PERF_RECORD_FORK, 0);
	u32x2(&r, 8, 5); /* pid, ppid */
	u32x2(&r, 8, 5); /* tid, ptid */
	u64(&r, 1234);
	sample_id(&r, 8, 8, 1234, 1);
	cr_assert_eq(decode_record(&ctx, end(&r), r.len, &out), 1);
	cr_assert_eq(out.type, HWPROF_REC_FORK);
	cr_assert_eq(out.task.pid, 8);
	cr_assert_eq(out.task.ppid, 5);
	cr_assert_eq(out.task.tid, 8);
	cr_assert_eq(out.task.ptid, 5);
	cr_assert_eq(out.task.time, 1234);

	set_type(&r, PERF_RECORD_EXIT);
	cr_assert_eq(decode_record(&ctx, end(&r), r.len, &out), 1);
	cr_assert_eq(out.type, HWPROF_REC_EXIT);
}

Test(decode, lost_throttle_unthrottle_and_ignored_types)
{
	struct rec r;
	struct hwprof_record out;

	begin(&r, PERF_RECORD_LOST, 0);
	u64(&r, 1001);
	u64(&r, 37);
	sample_id(&r, 0, 0, 777, 1);
	cr_assert_eq(decode_record(&ctx, end(&r), r.len, &out), 1);
	cr_assert_eq(out.type, HWPROF_REC_LOST);
	cr_assert_eq(out.lost.lost, 37);
	cr_assert_eq(out.lost.time, 777);
	cr_assert_eq(out.lost.cpu, 1);

	begin(&r, PERF_RECORD_THROTTLE, 0);
	u64(&r, 555);  /* time */
	u64(&r, 1001); /* id */
	u64(&r, 1001); /* stream_id */
	sample_id(&r, 0, 0, 555, 0);
	cr_assert_eq(decode_record(&ctx, end(&r), r.len, &out), 1);
	cr_assert_eq(out.type, HWPROF_REC_THROTTLE);
	cr_assert_eq(out.lost.time, 555);
	set_type(&r, PERF_RECORD_UNTHROTTLE);
	cr_assert_eq(decode_record(&ctx, end(&r), r.len, &out), 1);
	cr_assert_eq(out.type, HWPROF_REC_UNTHROTTLE);

	begin(&r, PERF_RECORD_SWITCH, 0);
	sample_id(&r, 0, 0, 1, 0);
	cr_assert_eq(decode_record(&ctx, end(&r), r.len, &out), 0);

	/* Too short for its sample_id block. */
	begin(&r, PERF_RECORD_LOST, 0);
	u64(&r, 1);
	cr_assert_eq(decode_record(&ctx, end(&r), r.len, &out), -EBADMSG);
}

Test(decode, sample_id_size)
{
	cr_assert_eq(decode_sample_id_size(TYPE), 32);
	cr_assert_eq(decode_sample_id_size(PERF_SAMPLE_IP), 0);
}
