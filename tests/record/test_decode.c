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
	cr_assert_not(out.mmap.ino_known);

	/* Without the MMAP_BUILD_ID bit the same bytes are maj/min/ino: no build-id, the file's
	 * device and inode (u32 maj, u32 min, u64 ino, little-endian here). */
	set_misc(&r, PERF_RECORD_MISC_USER);
	cr_assert_eq(decode_record(&ctx, end(&r), r.len, &out), 1);
	cr_assert_eq(out.mmap.build_id_size, 0);
	cr_assert(out.mmap.ino_known);
	cr_assert_eq(out.mmap.dev_major, 20);
	cr_assert_eq(out.mmap.dev_minor, 0xa3a2a1a0u);
	cr_assert_eq(out.mmap.ino, 0xabaaa9a8a7a6a5a4ull);
	cr_assert_not(out.mmap.stat_known);

	/* A data mapping is not kept, but with record --data. */
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
	struct decode_ctx data = ctx;
	data.data_mmaps = true;
	cr_assert_eq(decode_record(&data, end(&r), r.len, &out), 1);
	cr_assert_eq(out.mmap.prot, PROT_READ | PROT_WRITE);
	cr_assert_str_eq(out.mmap.filename, "/tmp/data");
}

/* record --data: ADDR after TIME, WEIGHT (or WEIGHT_STRUCT) and DATA_SRC after the stack
 * copy, in linux/perf_event.h's order. */
Test(decode, data_address_weight_and_source)
{
	struct rec r;
	struct hwprof_record out;
	struct decode_ctx c = ctx;

	c.sample_type = TYPE | PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC;
	begin(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	u64(&r, 1001);		    /* identifier */
	u64(&r, 0x401234);	    /* ip */
	u32x2(&r, 7, 7);	    /* pid, tid */
	u64(&r, 99);		    /* time */
	u64(&r, 0x7ffd12345678ull); /* addr */
	u32x2(&r, 0, 0);	    /* cpu */
	u64(&r, 1);		    /* period */
	u64(&r, 187);		    /* weight */
	u64(&r, 0x68100142ull);	    /* data_src */
	cr_assert_eq(decode_record(&c, end(&r), r.len, &out), 1);
	cr_assert_eq(out.sample.addr, 0x7ffd12345678ull);
	cr_assert_eq(out.sample.weight, 187);
	cr_assert_eq(out.sample.data_src, 0x68100142ull);
	cr_assert_eq(out.sample.period, 1);

	/* WEIGHT_STRUCT: var1_dw (the latency) in the low word, var2_w/var3_w above it. */
	c.sample_type = TYPE | PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC;
	cr_assert_eq(decode_record(&c, end(&r), r.len, &out), 1);
	memcpy((char *)r.buf + r.len - 16, &(uint64_t){0x0003000200000120ull}, 8);
	cr_assert_eq(decode_record(&c, end(&r), r.len, &out), 1);
	cr_assert_eq(out.sample.weight, 0x120);

	/* Cut inside DATA_SRC: refused. */
	r.len -= 8;
	cr_assert_eq(decode_record(&c, end(&r), r.len, &out), -EBADMSG);

	/* Page faults: ADDR alone. */
	c.sample_type = TYPE | PERF_SAMPLE_ADDR;
	begin(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	u64(&r, 1001);
	u64(&r, 0x401234);
	u32x2(&r, 7, 7);
	u64(&r, 99);
	u64(&r, 0x55550000a010ull);
	u32x2(&r, 0, 0);
	u64(&r, 1);
	cr_assert_eq(decode_record(&c, end(&r), r.len, &out), 1);
	cr_assert_eq(out.sample.addr, 0x55550000a010ull);
	cr_assert_eq(out.sample.weight, 0);
	cr_assert_eq(out.sample.data_src, 0);
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

/* ---- PERF_SAMPLE_CALLCHAIN ---- */

/* A sample of TYPE | CALLCHAIN at IP with the chain CHAIN[N] (markers included). */
static const struct perf_event_header *chain_sample(struct rec *r, uint16_t misc, uint64_t ip,
						    const uint64_t *chain, size_t n)
{
	begin(r, PERF_RECORD_SAMPLE, misc);
	u64(r, 1001);
	u64(r, ip);
	u32x2(r, 77, 78);
	u64(r, 5000);
	u32x2(r, 1, 0);
	u64(r, 1); /* period */
	u64(r, n);
	for (size_t i = 0; i < n; i++)
		u64(r, chain[i]);
	return end(r);
}

/* Decodes chain_sample(R, MISC, IP, CHAIN, N) with C into OUT. */
static int decode_chain(const struct decode_ctx *c, struct rec *r, uint16_t misc, uint64_t ip,
			const uint64_t *chain, size_t n, struct hwprof_record *out)
{
	const struct perf_event_header *h = chain_sample(r, misc, ip, chain, n);

	return decode_record(c, h, r->len, out);
}

Test(decode, callchain_kernel_and_user_callers)
{
	static struct callchain_stack st;
	struct decode_ctx c = ctx;
	struct rec r;
	struct hwprof_record out;
	/* A kernel sample: the kernel part starts with the sample's ip, the user part with the
	 * user ip where the kernel was entered (a caller, kept). */
	const uint64_t chain[] = {(uint64_t)PERF_CONTEXT_KERNEL,
				  0xffffffff81001000ull,
				  0xffffffff81002000ull,
				  0xffffffff81003000ull,
				  (uint64_t)PERF_CONTEXT_USER,
				  0x401100,
				  0x401200,
				  0x7f0000001000ull};

	c.sample_type |= PERF_SAMPLE_CALLCHAIN;
	c.stack = &st;
	cr_assert_eq(
	    decode_chain(&c, &r, PERF_RECORD_MISC_KERNEL, 0xffffffff81001000ull, chain, 8, &out),
	    1);
	cr_assert_eq(out.sample.ip, 0xffffffff81001000ull);
	cr_assert(out.sample.kernel);
	cr_assert_eq(out.sample.period, 1, "the fields before the chain still read");
	cr_assert_eq(st.nr, 5);
	cr_assert_eq(st.nr_kernel, 2);
	cr_assert_eq(st.ips[0], 0xffffffff81002000ull);
	cr_assert_eq(st.ips[1], 0xffffffff81003000ull);
	cr_assert_eq(st.ips[2], 0x401100);
	cr_assert_eq(st.ips[4], 0x7f0000001000ull);
	cr_assert_not(st.truncated);
}

Test(decode, callchain_user_sample_drops_its_own_ip)
{
	static struct callchain_stack st;
	struct decode_ctx c = ctx;
	struct rec r;
	struct hwprof_record out;
	const uint64_t user[] = {(uint64_t)PERF_CONTEXT_USER, 0x401000, 0x401234, 0x401300};
	/* Entries of a hypervisor or guest context are not callers on this machine. */
	const uint64_t mixed[] = {(uint64_t)PERF_CONTEXT_HV,
				  0x1234,
				  (uint64_t)PERF_CONTEXT_GUEST,
				  0x5678,
				  (uint64_t)PERF_CONTEXT_USER,
				  0x401000,
				  0x401234};
	const uint64_t empty[] = {(uint64_t)PERF_CONTEXT_USER};

	c.sample_type |= PERF_SAMPLE_CALLCHAIN;
	c.stack = &st;
	cr_assert_eq(decode_chain(&c, &r, PERF_RECORD_MISC_USER, 0x401000, user, 4, &out), 1);
	cr_assert_eq(st.nr, 2);
	cr_assert_eq(st.nr_kernel, 0);
	cr_assert_eq(st.ips[0], 0x401234);
	cr_assert_eq(st.ips[1], 0x401300);
	/* The first entry is not the ip (the sample's ip was elsewhere): kept. */
	cr_assert_eq(decode_chain(&c, &r, PERF_RECORD_MISC_USER, 0x401004, user, 4, &out), 1);
	cr_assert_eq(st.nr, 3);
	cr_assert_eq(st.ips[0], 0x401000);
	cr_assert_eq(decode_chain(&c, &r, PERF_RECORD_MISC_USER, 0x999, mixed, 7, &out), 1);
	cr_assert_eq(st.nr, 2);
	cr_assert_eq(st.ips[0], 0x401000);
	cr_assert_eq(st.ips[1], 0x401234);
	cr_assert_eq(decode_chain(&c, &r, PERF_RECORD_MISC_USER, 0x1, empty, 1, &out), 1);
	cr_assert_eq(st.nr, 0);
	cr_assert_not(st.truncated);
}

Test(decode, callchain_at_max_stack_is_truncated)
{
	static struct callchain_stack st;
	struct decode_ctx c = ctx;
	struct rec r;
	struct hwprof_record out;
	const uint64_t chain[] = {(uint64_t)PERF_CONTEXT_USER, 0x401000, 0x401234, 0x401300};

	c.sample_type |= PERF_SAMPLE_CALLCHAIN;
	c.stack = &st;
	c.max_stack = 3; /* the kernel stored 3 entries: as many as it was allowed */
	cr_assert_eq(decode_chain(&c, &r, PERF_RECORD_MISC_USER, 0x401000, chain, 4, &out), 1);
	cr_assert_eq(st.nr, 2);
	cr_assert(st.truncated);
	c.max_stack = 4;
	cr_assert_eq(decode_chain(&c, &r, PERF_RECORD_MISC_USER, 0x401000, chain, 4, &out), 1);
	cr_assert_not(st.truncated);
}

Test(decode, callchain_longer_than_the_record_is_refused)
{
	static struct callchain_stack st;
	struct decode_ctx c = ctx;
	struct rec r;
	struct hwprof_record out;
	const uint64_t chain[] = {(uint64_t)PERF_CONTEXT_USER, 0x401000};

	c.sample_type |= PERF_SAMPLE_CALLCHAIN;
	c.stack = &st;
	chain_sample(&r, PERF_RECORD_MISC_USER, 0x401000, chain, 2);
	uint64_t nr = 3; /* one more than the record holds */
	memcpy((char *)r.buf + r.len - 3 * 8, &nr, 8);
	cr_assert_eq(decode_record(&c, end(&r), r.len, &out), -EBADMSG);
	/* Without a place for the stack the chain is skipped, the sample still decodes. */
	c.stack = NULL;
	cr_assert_eq(decode_chain(&c, &r, PERF_RECORD_MISC_USER, 0x401000, chain, 2, &out), 1);
	cr_assert_eq(out.sample.ip, 0x401000);
}

/* ---- PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER ---- */

/* A sample of TYPE | CALLCHAIN | REGS_USER | STACK_USER with an empty chain, registers
 * 0x100, 0x200, 0x300 (ABI; none when 0), and a stack copy of SIZE bytes 0, 1, 2, ... of
 * which DYN were copied. */
static const struct perf_event_header *ustack_sample(struct rec *r, uint64_t abi, uint64_t size,
						     uint64_t dyn)
{
	begin(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	u64(r, 1001);
	u64(r, 0x401000);
	u32x2(r, 77, 78);
	u64(r, 5000);
	u32x2(r, 1, 0);
	u64(r, 1); /* period */
	u64(r, 0); /* callchain: nr */
	u64(r, abi);
	for (uint64_t i = 1; abi && i <= 3; i++)
		u64(r, i << 8);
	u64(r, size);
	for (uint64_t i = 0; i < size; i += 8)
		u64(r, 0x0706050403020100ull + i * 0x0101010101010101ull);
	if (size)
		u64(r, dyn);
	return end(r);
}

Test(decode, user_registers_and_stack_copy)
{
	static struct callchain_stack st;
	static struct unwind_ustack us;
	struct decode_ctx c = ctx;
	struct rec r;
	struct hwprof_record out;
	uint64_t v;

	c.sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	c.stack = &st;
	c.ustack = &us;
	c.regs_user = (1u << 3) | (1u << 7) | (1u << 8); /* three registers */
	ustack_sample(&r, PERF_SAMPLE_REGS_ABI_64, 32, 24);
	cr_assert_eq(decode_record(&c, end(&r), r.len, &out), 1);
	cr_assert_eq(out.sample.ip, 0x401000);
	cr_assert_eq(st.nr, 0);
	cr_assert_eq(us.abi, PERF_SAMPLE_REGS_ABI_64);
	cr_assert_eq(us.nregs, 3);
	memcpy(&v, us.regs + 16, 8);
	cr_assert_eq(v, 0x300);
	cr_assert_eq(us.size, 24, "dyn_size: the bytes really copied");
	memcpy(&v, us.stack + 8, 8);
	cr_assert_eq(v, 0x0f0e0d0c0b0a0908ull);

	/* A kernel thread: ABI none, no registers, no stack. */
	ustack_sample(&r, PERF_SAMPLE_REGS_ABI_NONE, 0, 0);
	cr_assert_eq(decode_record(&c, end(&r), r.len, &out), 1);
	cr_assert_eq(us.nregs, 0);
	cr_assert_null(us.stack);
	cr_assert_eq(us.size, 0);

	/* Without a place for them the fields are skipped, the sample still decodes. */
	c.ustack = NULL;
	ustack_sample(&r, PERF_SAMPLE_REGS_ABI_64, 16, 16);
	cr_assert_eq(decode_record(&c, end(&r), r.len, &out), 1);
}

Test(decode, user_stack_copy_that_does_not_fit_is_refused)
{
	static struct unwind_ustack us;
	struct decode_ctx c = ctx;
	struct rec r;
	struct hwprof_record out;
	uint64_t big = 4096;

	c.sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	c.ustack = &us;
	c.regs_user = 7;
	ustack_sample(&r, PERF_SAMPLE_REGS_ABI_64, 16, 24); /* dyn_size over size */
	cr_assert_eq(decode_record(&c, end(&r), r.len, &out), -EBADMSG);
	ustack_sample(&r, PERF_SAMPLE_REGS_ABI_64, 16, 8);
	memcpy((char *)r.buf + r.len - 4 * 8, &big, 8); /* size beyond the record */
	cr_assert_eq(decode_record(&c, end(&r), r.len, &out), -EBADMSG);
	c.regs_user = ~0ull; /* 64 registers: more than the record holds */
	ustack_sample(&r, PERF_SAMPLE_REGS_ABI_64, 16, 8);
	cr_assert_eq(decode_record(&c, end(&r), r.len, &out), -EBADMSG);
}
