/* test_data.c - the data side of report/core (data.h) and its rows: hand-made recordings with
 * data mappings and samples carrying addresses, data sources and weights (the paths of
 * mem-loads and ibs_op, which this host cannot record); PERF_SAMPLE_DATA_SRC decoded against
 * the kernel's own encodings (linux/perf_event.h). */
#include <criterion/criterion.h>

#include "fixture.h"

#include "datasrc.h"
#include "rows.h"
#include "rows_data.h"

#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>

/* ---- DATA_SRC ---------------------------------------------------------------------------- */

#define S(a, s) PERF_MEM_S(a, s)

Test(data, data_src_kernel_encodings)
{
	static const struct {
		const char *what;
		uint64_t v;
		enum data_level level;
		bool hit, miss, load, store;
		enum data_tlb tlb;
		bool remote_hitm, locked;
	} cases[] = {
	    {"nothing known", 0, DATA_LVL_UNKNOWN, false, false, false, false, DATA_TLB_UNKNOWN,
	     false, false},
	    {"PERF_MEM_NA", S(OP, NA) | S(LVL, NA) | S(SNOOP, NA) | S(LOCK, NA) | S(TLB, NA),
	     DATA_LVL_UNKNOWN, false, false, false, false, DATA_TLB_UNKNOWN, false, false},
	    /* Intel PEBS load latency (arch/x86/events/intel/ds.c): L1 hit, TLB L1 hit */
	    {"L1 hit",
	     S(OP, LOAD) | S(LVL, HIT) | S(LVL, L1) | S(SNOOP, NONE) | S(TLB, HIT) | S(TLB, L1),
	     DATA_LVL_L1, true, false, true, false, DATA_TLB_HIT, false, false},
	    {"LFB hit", S(OP, LOAD) | S(LVL, HIT) | S(LVL, LFB) | S(SNOOP, NONE), DATA_LVL_LFB,
	     true, false, true, false, DATA_TLB_UNKNOWN, false, false},
	    {"L2 hit", S(OP, LOAD) | S(LVL, HIT) | S(LVL, L2) | S(SNOOP, NONE), DATA_LVL_L2, true,
	     false, true, false, DATA_TLB_UNKNOWN, false, false},
	    {"L3 hit, HITM", S(OP, LOAD) | S(LVL, HIT) | S(LVL, L3) | S(SNOOP, HITM), DATA_LVL_L3,
	     true, false, true, false, DATA_TLB_UNKNOWN, true, false},
	    {"local DRAM, TLB miss (walker)",
	     S(OP, LOAD) | S(LVL, MISS) | S(LVL, LOC_RAM) | S(SNOOP, MISS) | S(TLB, MISS) |
		 S(TLB, WK),
	     DATA_LVL_LOCAL_RAM, false, true, true, false, DATA_TLB_MISS, false, false},
	    {"remote DRAM 1 hop", S(OP, LOAD) | S(LVL, MISS) | S(LVL, REM_RAM1),
	     DATA_LVL_REMOTE_RAM, false, true, true, false, DATA_TLB_UNKNOWN, false, false},
	    {"remote cache 2 hops", S(OP, LOAD) | S(LVL, HIT) | S(LVL, REM_CCE2),
	     DATA_LVL_REMOTE_CACHE, true, false, true, false, DATA_TLB_UNKNOWN, false, false},
	    {"uncached", S(OP, LOAD) | S(LVL, UNC), DATA_LVL_UNCACHED, false, false, true, false,
	     DATA_TLB_UNKNOWN, false, false},
	    {"store, locked", S(OP, STORE) | S(LVL, NA) | S(LOCK, LOCKED), DATA_LVL_UNKNOWN, false,
	     false, false, true, DATA_TLB_UNKNOWN, false, true},
	    /* mem_lvl_num wins over mem_lvl (AMD IBS, newer Intel): RAM + remote */
	    {"lvl_num RAM remote", S(OP, LOAD) | S(LVL, HIT) | S(LVLNUM, RAM) | S(REMOTE, REMOTE),
	     DATA_LVL_REMOTE_RAM, true, false, true, false, DATA_TLB_UNKNOWN, false, false},
	    {"lvl_num RAM local", S(OP, LOAD) | S(LVLNUM, RAM), DATA_LVL_LOCAL_RAM, false, false,
	     true, false, DATA_TLB_UNKNOWN, false, false},
	    {"lvl_num L2 over lvl L3", S(OP, LOAD) | S(LVL, L3) | S(LVLNUM, L2), DATA_LVL_L2, false,
	     false, true, false, DATA_TLB_UNKNOWN, false, false},
	    {"lvl_num any cache remote", S(OP, LOAD) | S(LVLNUM, ANY_CACHE) | S(REMOTE, REMOTE),
	     DATA_LVL_REMOTE_CACHE, false, false, true, false, DATA_TLB_UNKNOWN, false, false},
	    {"lvl_num LFB", S(OP, LOAD) | S(LVLNUM, LFB), DATA_LVL_LFB, false, false, true, false,
	     DATA_TLB_UNKNOWN, false, false},
	    {"lvl_num NA falls back to lvl", S(OP, LOAD) | S(LVL, L1) | S(LVLNUM, NA), DATA_LVL_L1,
	     false, false, true, false, DATA_TLB_UNKNOWN, false, false},
	    {"lvl_num CXL", S(OP, LOAD) | S(LVLNUM, CXL), DATA_LVL_CXL, false, false, true, false,
	     DATA_TLB_UNKNOWN, false, false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct data_src d;
		data_src_decode(cases[i].v, &d);
		cr_assert_eq(d.level, cases[i].level, "%s: level %d", cases[i].what, d.level);
		cr_assert_eq(d.hit, cases[i].hit, "%s", cases[i].what);
		cr_assert_eq(d.miss, cases[i].miss, "%s", cases[i].what);
		cr_assert_eq(d.load, cases[i].load, "%s", cases[i].what);
		cr_assert_eq(d.store, cases[i].store, "%s", cases[i].what);
		cr_assert_eq(d.tlb, cases[i].tlb, "%s", cases[i].what);
		cr_assert_eq(d.snoop_hitm, cases[i].remote_hitm, "%s", cases[i].what);
		cr_assert_eq(d.locked, cases[i].locked, "%s", cases[i].what);
	}
	struct data_src d;
	data_src_decode(S(OP, LOAD) | S(LVLNUM, RAM) | S(REMOTE, REMOTE) | S(HOPS, 2), &d);
	cr_assert_eq(d.hops, PERF_MEM_HOPS_2);
	cr_assert_str_eq(data_level_name(DATA_LVL_LOCAL_RAM), "local DRAM");
	cr_assert_str_eq(data_level_name(DATA_LVL_UNKNOWN), "-");
	cr_assert_str_eq(data_tlb_name(DATA_TLB_MISS), "TLB miss");
}

/* ---- hand-made recordings ---------------------------------------------------------------- */

#define L1  (S(OP, LOAD) | S(LVL, HIT) | S(LVL, L1) | S(TLB, HIT))
#define RAM (S(OP, LOAD) | S(LVL, MISS) | S(LVL, LOC_RAM) | S(TLB, MISS))

Test(data, regions_sources_and_latency_per_row)
{
	struct profile_options o = {.data = true};
	struct builder *b;
	char err[256];

	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	begin_data(b);
	data_map(b, 0x10000, 0x21000, 0, "[heap]", PROT_READ | PROT_WRITE);
	data_map(b, 0x7ff000000000, 0x21000, 0, "[stack]", PROT_READ | PROT_WRITE);
	data_map(b, 0x7f0000000000, 0x4000, 0x2000, "/data/table.bin", PROT_READ);
	data_map(b, 0x7e0000000000, 0x100000, 0, "//anon", PROT_READ | PROT_WRITE);
	/* [heap]: 9 loads from L1 at 4..12 cycles, 1 from DRAM at 300. */
	for (int i = 0; i < 9; i++)
		mem_sample(b, 0x401000, 0x10040 + 8 * (uint64_t)i, L1, 4 + (uint64_t)i);
	mem_sample(b, 0x401000, 0x10100, RAM, 300);
	/* The file: offsets 0x2010 and 0x3ff8 of it. */
	mem_sample(b, 0x401010, 0x7f0000000010, RAM, 200);
	mem_sample(b, 0x401010, 0x7f0000001ff8, RAM, 220);
	/* The stack, 8 bytes below its top, and 64 KiB below its recorded start: grown. */
	mem_sample(b, 0x401020, 0x7ff000020ff8, L1, 0);
	mem_sample(b, 0x401020, 0x7feffff00000, L1, 0);
	mem_sample(b, 0x401030, 0x7e0000000100, 0, 0);
	mem_sample(b, 0x401030, 0x1234, 0, 0); /* in no mapping */
	struct profile *p = finish(b, err, sizeof(err), 0);
	cr_assert_eq(p->data_samples, 16);
	cr_assert(p->data_weighted);
	cr_assert(p->data_has_src);

	enum profile_key keys[] = {PROFILE_KEY_DATA};
	struct profile_rows_req req = {.keys = keys, .nkeys = 1};
	struct profile_row *rows;
	size_t n;
	cr_assert_eq(profile_rows_by(p, &req, &rows, &n, NULL), 0);
	cr_assert_eq(n, 5);
	const struct profile_row *r = data_row_named(rows, n, "[heap]");
	cr_assert_not_null(r);
	cr_assert_eq(r, &rows[0], "the largest row first");
	cr_assert_eq(r->samples, 10);
	cr_assert_float_eq(r->share, 10.0 / 16, 1e-9);
	cr_assert_eq(r->data->level, DATA_LVL_L1);
	cr_assert_float_eq(r->data->level_share, 0.9, 1e-9);
	cr_assert_eq(r->data->tlb, DATA_TLB_HIT);
	cr_assert_eq(r->data->weighted, 10);
	cr_assert_float_eq(r->data->weight_mean,
			   (4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 300) / 10.0, 1e-9);
	cr_assert_float_eq(r->data->weight_p90, 12, 1e-9, "nearest rank: the 9th of 10");
	cr_assert_eq(r->data->srclines, 1);
	r = data_row_named(rows, n, "/data/table.bin+0x2010-0x3ff8");
	cr_assert_not_null(r, "file offsets: pgoff 0x2000 + 0x10 and + 0x1ff8");
	cr_assert_eq(r->data->level, DATA_LVL_LOCAL_RAM);
	cr_assert_eq(r->data->tlb, DATA_TLB_MISS);
	cr_assert_float_eq(r->data->weight_p90, 220, 1e-9);
	r = data_row_named(rows, n, "[stack]");
	cr_assert_not_null(r);
	cr_assert_eq(r->samples, 2, "the grown stack's sample is the stack's too");
	cr_assert_eq(r->data->weighted, 0);
	r = data_row_named(rows, n, "[anon]");
	cr_assert_not_null(r);
	cr_assert_eq(r->data->src_samples, 0);
	cr_assert_not_null(data_row_named(rows, n, "[unknown]"));
	free(rows);

	/* Cache lines: the heap's samples in two lines of 64 bytes (0x40.. and 0x100), the
	 * stack's counted from its top. */
	keys[0] = PROFILE_KEY_CACHELINE;
	cr_assert_eq(profile_rows_by(p, &req, &rows, &n, NULL), 0);
	char buf[256];
	bool heap40 = false, heap100 = false, stack = false;
	for (size_t i = 0; i < n; i++) {
		row_cacheline_label(&rows[i], buf, sizeof(buf));
		heap40 |= !strcmp(buf, "[heap]+0x40") && rows[i].samples == 8;
		heap100 |= !strcmp(buf, "[heap]+0x100") && rows[i].samples == 1;
		stack |= !strcmp(buf, "[stack]-0x40") && rows[i].samples == 1;
		cr_assert_eq(rows[i].data->line_size, 64);
	}
	cr_assert(heap40 && heap100 && stack);
	free(rows);
	/* 4 KiB lines: the heap is one line. */
	req.line_size = 4096;
	cr_assert_eq(profile_rows_by(p, &req, &rows, &n, NULL), 0);
	cr_assert_eq(rows[0].samples, 10);
	cr_assert_str_eq(row_cacheline_label(&rows[0], buf, sizeof(buf)), "[heap]+0x0");
	free(rows);
	profile_free(p);
}

/* profile_options.data false (report without a data key): the data addresses are not looked
 * at, and the rest of the profile is that of a profile with them. */
Test(data, without_the_data_option_only_the_data_is_left_out)
{
	struct profile *p[2];
	char err[256];

	for (int want = 0; want < 2; want++) {
		struct profile_options o = {.data = want};
		struct builder *b;
		cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
		begin_data(b);
		data_map(b, 0x400000, 0x2000, 0, "/x/prog", PROT_READ | PROT_EXEC);
		data_map(b, 0x10000, 0x21000, 0, "[heap]", PROT_READ | PROT_WRITE);
		for (int i = 0; i < 3; i++)
			mem_sample(b, 0x401000, 0x10040 + 8 * (uint64_t)i, L1, 4);
		mem_sample(b, 0x401010, 0x10100, RAM, 300);
		p[want] = finish(b, err, sizeof(err), 0);
	}
	cr_assert_eq(p[0]->ndata, 0);
	cr_assert_eq(p[0]->data_samples, 0);
	cr_assert_eq(p[1]->data_samples, 4);
	for (int want = 0; want < 2; want++) {
		cr_assert_eq(p[want]->samples, 4);
		cr_assert_eq(samples_of_dso(p[want], "/x/prog"), 4);
		cr_assert_eq(samples_of_dso(p[want], "[heap]"), 0, "a data mapping is no code");
		cr_assert_eq(p[want]->nlocs, 2);
	}
	for (size_t i = 0; i < 2; i++) {
		cr_assert_eq(p[0]->locs[i].offset, p[1]->locs[i].offset);
		cr_assert_eq(p[0]->locs[i].samples, p[1]->locs[i].samples);
		cr_assert_float_eq(p[0]->locs[i].period, p[1]->locs[i].period, 1e-9);
	}
	cr_assert_eq(p[0]->locs[0].samples, 3);
	profile_free(p[0]);
	profile_free(p[1]);
}

/* Without the file's DATA flag, a mapping without PROT_EXEC is code as before (hand-made files
 * of older tests); the samples' addresses still count. */
Test(data, data_mappings_only_in_data_files)
{
	struct profile_options o = {.data = true};
	struct builder *b;
	char err[256];

	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	begin(b, "old.hwprof");
	struct hwprof_record r = {.type = HWPROF_REC_MMAP};
	r.mmap = (struct hwprof_rec_mmap){
	    .pid = 9, .tid = 9, .time = 1, .start = 0x10000, .len = 0x1000, .filename = "/x/prog"};
	cr_assert_eq(builder_add(b, &r), 0);
	add_samples(b, 9, 9, 5, 0x10010, 3, false);
	struct profile *p = finish(b, err, sizeof(err), 0);
	cr_assert_eq(samples_of_dso(p, "/x/prog"), 3);
	cr_assert_eq(p->ndata, 0);
	profile_free(p);
}
