/* test_perf.c - the perf.data producer (report/core/input_perf.c) on hand-made files
 * (perf_writer.h): what is read, older and newer attrs, several events, callchains, the pipe
 * layout, and bad input (cut at every byte, other byte order, another version, a record of
 * size 0, a data size perf never wrote). perf_data.py checks files of the real perf. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "datasrc.h"
#include "fixture.h"
#include "output.h"
#include "perf_meta.h"
#include "perf_writer.h"

#define PROG "/nonexistent/perf-test-prog"
#define BASE 0x400000ull

static void write_file(const char *path, const struct pw *b)
{
	FILE *f = fopen(path, "wb");

	cr_assert(f);
	cr_assert_eq(fwrite(b->p, 1, b->len, f), b->len);
	fclose(f);
}

/* profile_load() of PATH (EVENT may be NULL): its return value, the profile in *P (NULL on
 * error) and the message in ERR. */
static int load(const char *path, const char *event, struct profile **p, char *err, size_t len)
{
	const char *in[] = {path};
	struct profile_options o = {.inputs = in, .ninputs = 1, .event = event, .data = true};

	err[0] = '\0';
	return profile_load(p, &o, err, len);
}

/* F written under $RPT_TMP as NAME and loaded (EVENT may be NULL), asserted to succeed. */
static struct profile *loaded(const struct pw *f, const char *name, const char *event)
{
	struct profile *p = NULL;
	char path[256], err[512];

	tmp_path(path, sizeof(path), name);
	write_file(path, f);
	cr_assert_eq(load(path, event, &p, err, sizeof(err)), 0, "%s", err);
	return p;
}

/* A recording of PROG: its mapping, its name, N samples at BASE + 0x100 (period 1) and one
 * sample at BASE + 0x200 of period 5, then a LOST of LOST samples, for event id ID. */
static void data_lost(struct pw *d, uint64_t id, int n, uint64_t lost)
{
	pw_comm(d, 42, "prog", 10, id);
	pw_mmap2(d, 42, BASE, 0x1000, 0, PROG, 11, id);
	for (int i = 0; i < n; i++)
		pw_sample(d, BASE + 0x100, 42, 100 + (uint64_t)i, id, 1, NULL, 0);
	pw_sample(d, BASE + 0x200, 42, 1000, id, 5, NULL, 0);
	if (lost)
		pw_lost(d, id, lost, 1001);
}

static void data_of(struct pw *d, uint64_t id, int n)
{
	data_lost(d, id, n, 0);
}

static struct pw_event page_faults(uint64_t id, const char *name)
{
	return (struct pw_event){
	    .attr = pw_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 1, PW_SAMPLE_TYPE),
	    .id = id,
	    .name = name};
}

/* The profiled command within perf's CMDLINE: after "--", else after record's options (a
 * value in the next word for those that take one); none for perf record -a alone; the whole
 * line when it is not perf's. */
Test(perf, the_target_within_perfs_command_line)
{
	static const struct {
		const char *line;
		size_t target;
	} cases[] = {
	    {"perf record -- prog a", 3},
	    {"/usr/bin/perf record -e page-faults -c 1 -o x.data ./prog 1000", 8},
	    {"perf record -g --call-graph dwarf,8192 -F 999 prog", 7},
	    {"perf record -ag -e cycles sleep 1", 5},
	    {"perf record -c1 --output=x prog", 4},
	    {"perf --buildid-dir /tmp/b record -e cycles prog -- x", 6},
	    {"perf mem record prog", 3},
	    {"perf record --proc-map-timeout 500 --synth all --switch-max-files 3 prog", 8},
	    {"perf record -a", 3},
	    {"perf record -e cycles --", 5},
	    {"./prog 1000", 0},
	    {"perf", 1},
	    {"perf mem -p record prog", 4},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[128], *argv[16], *save = NULL;
		size_t argc = 0;
		snprintf(buf, sizeof(buf), "%s", cases[i].line);
		for (char *w = strtok_r(buf, " ", &save); w && argc < 16;
		     w = strtok_r(NULL, " ", &save))
			argv[argc++] = w;
		cr_expect_eq(perf_cmdline_target(argv, argc), cases[i].target, "%s", cases[i].line);
	}
}

/* perf's command line names /nonexistent/perf-test-prog, but nothing of that name was
 * mapped: the guess is not trusted, the whole line is shown. */
Test(perf, a_program_no_mapping_confirms_is_not_named)
{
	struct pw d = {0}, f = {0};
	struct pw_event ev = page_faults(7, NULL);
	struct profile *p;

	pw_comm(&d, 42, "prog", 10, 7);
	pw_sample(&d, BASE + 0x100, 42, 100, 7, 1, NULL, 0);
	pw_file(&f, &ev, 1, &d);
	p = loaded(&f, "unmapped.perf", NULL);
	cr_assert_eq(p->samples_read, 1);
	cr_expect_null(profile_program(p));
	cr_expect_eq(profile_command_start(p), 0);
	profile_free(p);
	free(d.p);
	free(f.p);
}

Test(perf, a_file_reads_as_perf_wrote_it)
{
	struct pw d = {0}, f = {0};
	struct pw_event ev = page_faults(7, "page-faults:u");
	struct profile *p;

	data_lost(&d, 7, 10, 2);
	pw_file(&f, &ev, 1, &d);
	p = loaded(&f, "a.perf", NULL);
	cr_assert_eq(p->samples_read, 11);
	cr_assert_eq(samples_of_dso(p, PROG), 11, "the MMAP2 maps the samples to PROG");
	cr_assert_str_eq(p->header.hostname, "testhost");
	cr_assert_eq(p->header.argc, 3, "perf's own command line");
	cr_assert_str_eq(p->header.argv[2], PROG);
	cr_assert_str_eq(profile_program(p), PROG, "PROG is mapped: the guess holds");
	cr_assert_eq(profile_command_start(p), 2);
	cr_assert_str_eq(p->header.events[0].name, "page-faults:u", "EVENT_DESC's name");
	cr_assert(p->header.events[0].exclude_kernel);
	cr_assert_eq(p->trailer.lost, 2);
	cr_assert(has_warning(p, "2 of 13 samples", "lost"), "LOST records are counted");
	cr_assert_null(strstr(p->warnings[0], "cut short"));
	profile_free(p);
	free(d.p);
	free(f.p);
}

/* perf record 6.1 writes, at the end, a LOST_SAMPLES of each event's PERF_FORMAT_LOST count:
 * the same samples the LOST records of its run already counted. */
Test(perf, lost_and_lost_samples_count_a_loss_once)
{
	struct pw d = {0}, f = {0};
	struct pw_event ev = page_faults(7, "page-faults:u");
	struct profile *p;

	data_lost(&d, 7, 10, 2);
	pw_lost(&d, 7, 1, 1002);
	pw_lost_samples(&d, 7, 3, 1003);
	pw_file(&f, &ev, 1, &d);
	p = loaded(&f, "lost-once.perf", NULL);
	cr_assert_eq(p->trailer.lost, 3, "LOST says 2 + 1, LOST_SAMPLES 3: the same 3");
	profile_free(p);
	free(d.p), d = (struct pw){0};
	free(f.p), f = (struct pw){0};

	/* LOST_SAMPLES larger (the kernel also counts what it dropped without a LOST record) */
	data_lost(&d, 7, 10, 2);
	pw_lost_samples(&d, 7, 5, 1003);
	pw_file(&f, &ev, 1, &d);
	p = loaded(&f, "lost-samples-more.perf", NULL);
	cr_assert_eq(p->trailer.lost, 5);
	profile_free(p);
	free(d.p);
	free(f.p);
}

Test(perf, event_names_from_the_attr_without_event_desc)
{
	struct pw d = {0}, f = {0};
	struct pw_event ev = page_faults(7, NULL);
	struct profile *p;

	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.config = PERF_COUNT_SW_CPU_CLOCK;
	data_of(&d, 7, 3);
	pw_file(&f, &ev, 1, &d);
	p = loaded(&f, "noname.perf", NULL);
	cr_assert_str_eq(p->header.events[0].name, "cpu-clock");
	profile_free(p);
	free(d.p);
	free(f.p);
}

Test(perf, older_and_newer_attr_sizes)
{
	/* PERF_ATTR_SIZE_VER0 (64 bytes: up to bp_len) and a future 200-byte attr: both read, the
	 * fields the file has kept. */
	const uint32_t sizes[] = {PERF_ATTR_SIZE_VER0, PERF_ATTR_SIZE_VER5, 200};

	for (size_t i = 0; i < 3; i++) {
		struct pw d = {0}, f = {0};
		struct pw_event ev = page_faults(7, NULL);
		struct profile *p;

		ev.attr_len = sizes[i];
		data_of(&d, 7, 4);
		pw_file(&f, &ev, 1, &d);
		p = loaded(&f, "size.perf", NULL);
		cr_assert_eq(p->samples_read, 5, "attr of %u bytes", sizes[i]);
		cr_assert_str_eq(p->header.events[0].name, "page-faults");
		profile_free(p);
		free(d.p);
		free(f.p);
	}
}

Test(perf, two_events_split_by_id)
{
	struct pw d = {0}, f = {0};
	struct pw_event ev[2] = {page_faults(7, "page-faults"), page_faults(9, "minor-faults")};
	struct profile *p;

	ev[1].attr.config = PERF_COUNT_SW_PAGE_FAULTS_MIN;
	data_of(&d, 7, 6);
	for (int i = 0; i < 3; i++)
		pw_sample(&d, BASE + 0x300, 42, 2000 + (uint64_t)i, 9, 1, NULL, 0);
	pw_file(&f, ev, 2, &d);
	p = loaded(&f, "two.perf", NULL);
	cr_assert_eq(samples_of_dso(p, PROG), 7, "page-faults shown: its 7 samples");
	cr_assert(has_warning(p, "3 samples of 'minor-faults'", NULL));
	profile_free(p);
	p = loaded(&f, "two.perf", "minor-faults");
	cr_assert_eq(samples_of_dso(p, PROG), 3);
	profile_free(p);
	free(d.p);
	free(f.p);
}

/* perf record -e 'syscalls:sys_enter_*': hundreds of events, most without a sample. As perf
 * report (which skips the empty ones), the first event of the file's order that has samples
 * is shown, and the header names the empty ones in one count. */
Test(perf, the_first_event_with_samples_is_shown)
{
	struct pw d = {0}, f = {0};
	struct pw_event ev[4] = {page_faults(7, "sys_enter_iopl"), page_faults(8, "sys_enter_mmap"),
				 page_faults(9, "sys_enter_read"),
				 page_faults(10, "sys_enter_kill")};
	struct profile *p;
	char label[512];

	pw_comm(&d, 42, "prog", 10, 7);
	pw_mmap2(&d, 42, BASE, 0x1000, 0, PROG, 11, 7);
	for (int i = 0; i < 9; i++)
		pw_sample(&d, BASE + 0x300, 42, 2000 + (uint64_t)i, 9, 1, NULL, 0);
	for (int i = 0; i < 5; i++)
		pw_sample(&d, BASE + 0x200, 42, 3000 + (uint64_t)i, 8, 1, NULL, 0);
	pw_file(&f, ev, 4, &d);
	p = loaded(&f, "many.perf", NULL);
	cr_assert_str_eq(profile_sampling_event(p)->name, "sys_enter_mmap");
	cr_assert_eq(p->samples, 5);
	cr_assert_eq(profile_events_label(p, label, sizeof(label)), 4);
	cr_assert_str_eq(label, "sys_enter_mmap (shown, 5 samples), sys_enter_read (9 samples), "
				"and 2 events with no samples");
	profile_events_label(p, label, 100);
	cr_assert_str_eq(label,
			 "sys_enter_mmap (shown, 5 samples), and 3 more events, 2 of them "
			 "with no samples",
			 "a buffer too short for every name: the rest counted");
	profile_free(p);
	p = loaded(&f, "many.perf", "sys_enter_kill");
	cr_assert_eq(p->samples, 0, "--event still shows an empty one");
	profile_events_label(p, label, sizeof(label));
	cr_assert_str_eq(label, "sys_enter_mmap (5 samples), sys_enter_read (9 samples), "
				"sys_enter_kill (shown, 0 samples), and 1 event with no samples");
	profile_free(p);
	free(d.p);
	free(f.p);
}

Test(perf, callchains_become_stacks)
{
	struct pw d = {0}, f = {0};
	struct pw_event ev = page_faults(7, NULL);
	const uint64_t chain[] = {(uint64_t)PERF_CONTEXT_USER, BASE + 0x100, BASE + 0x510,
				  BASE + 0x620};
	struct profile *p;

	ev.attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
	pw_mmap2(&d, 42, BASE, 0x1000, 0, PROG, 11, 7);
	for (int i = 0; i < 4; i++)
		pw_sample(&d, BASE + 0x100, 42, 100 + (uint64_t)i, 7, 1, chain, 4);
	pw_file(&f, &ev, 1, &d);
	p = loaded(&f, "chain.perf", NULL);
	cr_assert_eq(p->samples_read, 4);
	cr_assert_eq(p->nstacks, 1, "four samples, one stack");
	cr_assert_eq(p->stacks[0].n, 3, "the leaf and its two callers (the repeated ip dropped)");
	cr_assert_eq(p->stacks[0].samples, 4);
	profile_free(p);
	free(d.p);
	free(f.p);
}

Test(perf, pipe_layout_in_a_file)
{
	struct pw d = {0}, f = {0};
	struct pw_event ev = page_faults(7, NULL);
	struct profile *p;

	data_of(&d, 7, 8);
	pw_pipe(&f, &ev, 1, &d);
	p = loaded(&f, "pipe.perf", NULL);
	cr_assert_eq(p->samples_read, 9);
	cr_assert_str_eq(p->header.hostname, "pipehost");
	profile_free(p);
	free(d.p);
	free(f.p);
}

Test(perf, other_types_are_skipped_by_their_size)
{
	struct pw d = {0}, f = {0};
	struct pw_event ev = page_faults(7, NULL);
	struct profile *p;
	size_t at;

	data_of(&d, 7, 2);
	at = pw_begin(&d, PERF_RECORD_SWITCH, 0);
	pw_sample_id(&d, 42, 42, 5000, 7);
	pw_end(&d, at);
	at = pw_begin(&d, 63, 0); /* a kernel type of the future */
	pw_u64(&d, 1);
	pw_end(&d, at);
	at = pw_begin(&d, 71, 0); /* AUXTRACE: its 16-byte payload follows the record */
	pw_u64(&d, 16);
	pw_u64(&d, 0);
	pw_end(&d, at);
	pw_u64(&d, 0xdeadbeef), pw_u64(&d, 0xdeadbeef);
	pw_sample(&d, BASE + 0x100, 42, 6000, 7, 1, NULL, 0);
	pw_file(&f, &ev, 1, &d);
	p = loaded(&f, "skip.perf", NULL);
	cr_assert_eq(p->samples_read, 4);
	cr_assert_not(has_warning(p, "perf.data", NULL), "the read went to the end");
	profile_free(p);
	free(d.p);
	free(f.p);
}

/* ---- data addresses (perf record -d) ----------------------------------------------------- */

#define DATA_TYPE                                                                                  \
	(PW_SAMPLE_TYPE | PERF_SAMPLE_ADDR | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |             \
	 PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |               \
	 PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC)
#define L1_SRC (PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVL, L1))

/* A sample of DATA_TYPE at IP touching ADDR, with every field between the callchain and the
 * weight present (a 4-byte RAW, one branch with hw_idx, three user registers and a 16-byte
 * stack copy), or, when BARE, the short forms (no registers: ABI_NONE, a stack copy of 0). */
static void data_sample(struct pw *b, uint64_t ip, uint64_t addr, uint64_t weight, bool bare)
{
	size_t at = pw_begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);

	pw_u64(b, ip);
	pw_u32(b, 42), pw_u32(b, 42);
	pw_u64(b, 100);
	pw_u64(b, addr);
	pw_u64(b, 7);		    /* ID */
	pw_u32(b, 0), pw_u32(b, 0); /* CPU */
	pw_u64(b, 1);		    /* PERIOD */
	pw_u64(b, 2);		    /* CALLCHAIN nr */
	pw_u64(b, (uint64_t)PERF_CONTEXT_USER), pw_u64(b, ip);
	pw_u32(b, 4), pw_u32(b, 0xaaaaaaaa); /* RAW: size 4, padded with it to 8 */
	pw_u64(b, 1), pw_u64(b, 0);	     /* BRANCH_STACK: nr 1, hw_idx */
	pw_u64(b, ip), pw_u64(b, ip + 8), pw_u64(b, 0);
	if (bare) {
		pw_u64(b, PERF_SAMPLE_REGS_ABI_NONE);
		pw_u64(b, 0); /* STACK_USER: size 0, no dyn_size */
	} else {
		pw_u64(b, PERF_SAMPLE_REGS_ABI_64);
		pw_u64(b, 1), pw_u64(b, 2), pw_u64(b, 3);
		pw_u64(b, 16), pw_u64(b, 0), pw_u64(b, 0), pw_u64(b, 8);
	}
	pw_u64(b, 0xbeef00000000ull | weight); /* WEIGHT_STRUCT: var2_w, var3_w above var1_dw */
	pw_u64(b, L1_SRC);
	pw_end(b, at);
}

/* perf record -d: the samples' ADDR, DATA_SRC and WEIGHT_STRUCT, after RAW, BRANCH_STACK,
 * REGS_USER and STACK_USER, and the data mappings (MMAP2 and MMAP with MISC_MMAP_DATA). */
Test(perf, data_addresses_and_their_mappings)
{
	struct pw d = {0}, f = {0};
	struct pw_event ev = page_faults(7, NULL);
	struct profile *p;

	ev.attr.sample_type = DATA_TYPE;
	ev.attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
	ev.attr.sample_regs_user = 0x7;
	ev.attr.sample_stack_user = 16;
	ev.attr.mmap_data = 1;
	pw_comm(&d, 42, "prog", 10, 7);
	pw_mmap2(&d, 42, BASE, 0x1000, 0, PROG, 11, 7);
	pw_mmap2_prot(&d, 42, 0x10000, 0x21000, 0, 3 /* PROT_READ | PROT_WRITE */, "[heap]", 12, 7);
	pw_mmap(&d, true, 42, 0x7f0000000000, 0x4000, 0x2000, "/data/table.bin", 13, 7);
	data_sample(&d, BASE + 0x100, 0x10040, 10, false);
	data_sample(&d, BASE + 0x100, 0x10048, 20, true);
	data_sample(&d, BASE + 0x100, 0x10050, 30, false);
	data_sample(&d, BASE + 0x200, 0x7f0000000010, 40, true);
	data_sample(&d, BASE + 0x200, 0x1234, 0, false);
	pw_file(&f, &ev, 1, &d);
	p = loaded(&f, "data.perf", NULL);
	cr_assert(p->header.data, "ADDR in sample_type: a recording with data addresses");
	cr_assert_eq(p->samples_read, 5);
	cr_assert_eq(samples_of_dso(p, PROG), 5, "the data mappings are not code");
	cr_assert_eq(p->data_samples, 5);
	cr_assert(p->data_has_src);
	cr_assert(p->data_weighted);

	enum profile_key keys[] = {PROFILE_KEY_DATA};
	struct profile_rows_req req = {.keys = keys, .nkeys = 1};
	struct profile_row *rows;
	size_t n;
	cr_assert_eq(profile_rows_by(p, &req, &rows, &n, NULL), 0);
	cr_assert_eq(n, 3);
	const struct profile_row *r = data_row_named(rows, n, "[heap]");
	cr_assert_not_null(r);
	cr_assert_eq(r->samples, 3);
	cr_assert_eq(r->data->level, DATA_LVL_L1);
	cr_assert_float_eq(r->data->weight_mean, 20, 1e-9, "var1_dw only");
	r = data_row_named(rows, n, "/data/table.bin+0x2010");
	cr_assert_not_null(r, "MMAP's pgoff 0x2000 + 0x10");
	cr_assert_eq(r->samples, 1);
	cr_assert_float_eq(r->data->weight_mean, 40, 1e-9);
	cr_assert_not_null(data_row_named(rows, n, "[unknown]"));
	free(rows);
	profile_free(p);
	free(d.p);
	free(f.p);
}

/* Without ADDR a data mapping is not read: no recording with data, its range not code. */
Test(perf, data_mappings_without_addresses_are_left_out)
{
	struct pw d = {0}, f = {0};
	struct pw_event ev = page_faults(7, NULL);
	struct profile *p;

	pw_mmap2_prot(&d, 42, BASE, 0x1000, 0, 3, "/data/x.bin", 11, 7);
	pw_sample(&d, BASE + 0x100, 42, 100, 7, 1, NULL, 0);
	pw_file(&f, &ev, 1, &d);
	p = loaded(&f, "nodata.perf", NULL);
	cr_assert_not(p->header.data);
	cr_assert_eq(samples_of_dso(p, "/data/x.bin"), 0);
	cr_assert_eq(p->ndata, 0);
	profile_free(p);
	free(d.p);
	free(f.p);
}

/* ---- bad input ------------------------------------------------------------------------- */

static void refused(const struct pw *f, int want, const char *words)
{
	struct profile *p = NULL;
	char path[256], err[512];

	tmp_path(path, sizeof(path), "bad.perf");
	write_file(path, f);
	cr_assert_eq(load(path, NULL, &p, err, sizeof(err)), want, "%s", err);
	cr_assert_null(p);
	cr_assert(strstr(err, words), "'%s' lacks '%s'", err, words);
	cr_assert_null(strchr(err, '\n'), "one line");
}

Test(perf, other_byte_order_and_versions_are_refused)
{
	struct pw d = {0}, f = {0};
	struct pw_event ev = page_faults(7, NULL);

	data_of(&d, 7, 2);
	pw_file(&f, &ev, 1, &d);
	memcpy(f.p, "2ELIFREP", 8);
	refused(&f, -EPROTONOSUPPORT, "other byte order");
	memcpy(f.p, "PERFILE3", 8);
	refused(&f, -EPROTONOSUPPORT, "format this hwprof does not read");
	memcpy(f.p, "PERFILE2", 8);
	f.p[8] = 120; /* a header size no perf wrote */
	refused(&f, -EPROTONOSUPPORT, "header of 120 bytes");
	f.p[8] = 104;
	memset(f.p + 24, 0xff, 8); /* the attr section's offset */
	refused(&f, -EBADMSG, "attr section");
	free(d.p);
	free(f.p);
}

/* perf record --threads writes a directory: its "data" file has the header and the
 * DIR_FORMAT feature (bit 24), the samples are in data.N beside it. Read alone it would be
 * an empty profile. */
Test(perf, the_header_of_a_perf_data_directory_is_refused)
{
	struct pw d = {0}, f = {0};
	struct pw_event ev = page_faults(7, NULL);

	data_of(&d, 7, 2);
	pw_file(&f, &ev, 1, &d);
	f.p[72 + 3] |= 1; /* bit 24 of the feature bitmap */
	refused(&f, -EPROTONOSUPPORT, "--threads");
	free(d.p);
	free(f.p);
}

/* A version 1 file was "not a hwprof sample file", an offset of 0 "outside the file", a cut
 * at 104 or 200 bytes "attr section ... does not hold its events". */
Test(perf, header_faults_are_named)
{
	struct pw d = {0}, f = {0}, cut = {0};
	struct pw_event ev = page_faults(7, NULL);
	uint64_t zero = 0;

	data_of(&d, 7, 2);
	pw_file(&f, &ev, 1, &d);
	memcpy(f.p, "PERFFILE", 8);
	refused(&f, -EPROTONOSUPPORT, "perf.data version 1 (magic PERFFILE), not supported");
	memcpy(f.p, "PERFILE2", 8);
	for (size_t n = 104; n <= 200; n += 96) {
		cut.len = 0;
		pw_put(&cut, f.p, n);
		refused(&cut, -EBADMSG, "perf.data cut short");
	}
	memcpy(f.p + 40, &zero, 8); /* the data section's offset */
	refused(&f, -EBADMSG, "its data section's offset is 0 (the header is corrupt)");
	free(cut.p);
	free(d.p);
	free(f.p);
}

Test(perf, cut_at_every_byte)
{
	struct pw d = {0}, f = {0}, cut = {0};
	struct pw_event ev = page_faults(7, "page-faults");
	uint64_t last = 0;

	data_of(&d, 7, 5);
	pw_file(&f, &ev, 1, &d);
	for (size_t n = 1; n < f.len; n++) {
		struct profile *p = NULL;
		char path[256], err[512];
		int ret;

		cut.len = 0;
		pw_put(&cut, f.p, n);
		tmp_path(path, sizeof(path), "cut.perf");
		write_file(path, &cut);
		ret = load(path, NULL, &p, err, sizeof(err));
		if (ret < 0) {
			cr_assert(err[0] && !strchr(err, '\n'), "cut at %zu: one line: %s", n, err);
			continue;
		}
		/* A cut in the data or the features: the samples before it, and a warning that
		 * makes the report partial (a cut in the features loses the build-ids). */
		cr_assert(p->samples_read >= last, "cut at %zu: %" PRIu64 " samples after %" PRIu64,
			  n, p->samples_read, last);
		cr_assert(p->samples_read <= 6);
		cr_assert(has_warning(p, "perf.data", "cut short"), "cut at %zu: no warning", n);
		cr_assert(p->partial, "cut at %zu: not partial", n);
		last = p->samples_read;
		profile_free(p);
	}
	free(d.p);
	free(f.p);
	free(cut.p);
}

Test(perf, damaged_data_stops_with_a_warning)
{
	struct pw d = {0}, f = {0};
	struct pw_event ev = page_faults(7, NULL);
	struct profile *p;
	size_t at;

	data_of(&d, 7, 3);
	at = d.len;
	data_of(&d, 7, 3);
	memset(d.p + at + 6, 0, 2); /* a record of size 0: never loops */
	pw_file(&f, &ev, 1, &d);
	p = loaded(&f, "zero.perf", NULL);
	cr_assert_eq(p->samples_read, 4, "the records before it");
	cr_assert(p->partial);
	cr_assert(has_warning(p, "damaged", "record size below 8"));
	profile_free(p);
	/* A sample shorter than its sample_type. */
	free(d.p);
	d = (struct pw){0};
	data_of(&d, 7, 2);
	at = pw_begin(&d, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	pw_u64(&d, BASE);
	pw_end(&d, at);
	pw_file(&f, &ev, 1, &d);
	p = loaded(&f, "short.perf", NULL);
	cr_assert_eq(p->samples_read, 3);
	cr_assert(has_warning(p, "shorter than its fields", NULL));
	profile_free(p);
	free(d.p);
	free(f.p);
}

Test(perf, data_size_perf_never_wrote)
{
	/* perf record killed: the header's data size is still 0, the records are there. */
	struct pw d = {0}, f = {0};
	struct pw_event ev = page_faults(7, NULL);
	struct profile *p;

	data_of(&d, 7, 3);
	pw_file(&f, &ev, 1, &d);
	f.len = 104 + (sizeof(ev.attr) + 16) + 8 + d.len; /* no features either */
	memset(f.p + 48, 0, 8);
	p = loaded(&f, "killed.perf", NULL);
	cr_assert_eq(p->samples_read, 4);
	cr_assert(p->partial);
	cr_assert(has_warning(p, "not finished by perf record", NULL));
	profile_free(p);
	free(d.p);
	free(f.p);
}

/* A killed perf's file: data size 0, and the last record cut where the kill stopped it, or
 * no record at all. Both name the header's 0 and are partial. */
Test(perf, data_size_0_and_cut_or_empty_names_the_header)
{
	struct pw d = {0}, f = {0};
	struct pw_event ev = page_faults(7, NULL);
	size_t head = 104 + (sizeof(ev.attr) + 16) + 8;
	struct profile *p;

	data_of(&d, 7, 3);
	pw_file(&f, &ev, 1, &d);
	f.len = head + d.len - 5; /* no features, the last sample cut */
	memset(f.p + 48, 0, 8);
	p = loaded(&f, "killed-cut.perf", NULL);
	cr_expect_eq(p->samples_read, 3);
	cr_expect(p->partial);
	cr_expect(has_warning(p, "data size is 0", "killed"));
	profile_free(p);
	f.len = head; /* nothing after the ids */
	p = loaded(&f, "killed-empty.perf", NULL);
	cr_expect_eq(p->samples_read, 0);
	cr_expect(p->partial);
	cr_expect(has_warning(p, "data size is 0", "killed"));
	profile_free(p);
	free(d.p);
	free(f.p);
}

/* perf record killed, or a header damaged to say so: with a data size of 0 the records are
 * read to the end of the file, and what follows them (here the feature sections) is not
 * records. The warning names the header's 0, not only the first bad size. */
Test(perf, data_size_0_before_other_bytes_names_the_header)
{
	struct pw d = {0}, f = {0};
	struct pw_event ev = page_faults(7, NULL);
	struct profile *p;

	data_of(&d, 7, 3);
	pw_file(&f, &ev, 1, &d);
	memset(f.p + 48, 0, 8);
	f.p = realloc(f.p, f.len + 64);
	memset(f.p + f.len, 0, 64); /* bytes that are not records */
	f.len += 64;
	p = loaded(&f, "zeroed.perf", NULL);
	cr_assert_eq(p->samples_read, 4);
	cr_assert(p->partial);
	cr_assert(has_warning(p, "data size is 0", "killed"));
	profile_free(p);
	free(d.p);
	free(f.p);
}

Test(perf, records_are_given_in_time_order)
{
	/* perf writes one CPU's buffer after another: a child's sample (time 300) before the FORK
	 * (time 200) that made it. It must still resolve through the parent's mapping. */
	struct pw d = {0}, f = {0};
	struct pw_event ev = page_faults(7, NULL);
	struct profile *p;
	size_t at;

	pw_mmap2(&d, 42, BASE, 0x1000, 0, PROG, 11, 7);
	pw_sample(&d, BASE + 0x100, 43, 300, 7, 1, NULL, 0);
	at = pw_begin(&d, PERF_RECORD_FORK, 0);
	pw_u32(&d, 43), pw_u32(&d, 42), pw_u32(&d, 43), pw_u32(&d, 42);
	pw_u64(&d, 200);
	pw_sample_id(&d, 43, 43, 200, 7);
	pw_end(&d, at);
	at = pw_begin(&d, 68 /* FINISHED_ROUND */, 0);
	pw_end(&d, at);
	pw_sample(&d, BASE + 0x100, 43, 400, 7, 1, NULL, 0);
	pw_file(&f, &ev, 1, &d);
	p = loaded(&f, "order.perf", NULL);
	cr_assert_eq(p->samples_read, 2);
	cr_assert_eq(samples_of_dso(p, PROG), 2, "both samples of the child are in PROG");
	profile_free(p);
	free(d.p);
	free(f.p);
}

/* F (below the pipe's 64 KiB buffer) written into a pipe and loaded from its read end, as
 * `perf record -o - | hwprof report -i -` would: a stream, not a mapped file. */
static struct profile *loaded_from_pipe(const struct pw *f)
{
	struct profile *p = NULL;
	char path[64], err[512];
	int fds[2];

	cr_assert_eq(pipe(fds), 0);
	cr_assert_lt(f->len, 65536);
	cr_assert_eq(write(fds[1], f->p, f->len), (ssize_t)f->len);
	close(fds[1]);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[0]);
	cr_assert_eq(load(path, NULL, &p, err, sizeof(err)), 0, "%s", err);
	close(fds[0]);
	return p;
}

static void finished_round(struct pw *d)
{
	pw_end(d, pw_begin(d, 68 /* FINISHED_ROUND */, 0));
}

Test(perf, a_stream_keeps_records_held_across_rounds)
{
	/* A stream's records wait in memory for their round. Held past a round, out of time
	 * order (A at 500 came before B at 400), each must stay itself: A is pid 42's, in PROG;
	 * B is pid 43's, which mapped nothing. */
	struct pw d = {0}, f = {0};
	struct pw_event ev = page_faults(7, NULL);
	struct profile *p;

	pw_comm(&d, 42, "prog", 10, 7);
	pw_mmap2(&d, 42, BASE, 0x1000, 0, PROG, 11, 7);
	finished_round(&d);
	finished_round(&d);
	pw_sample(&d, BASE + 0x100, 42, 500, 7, 1, NULL, 0);
	pw_sample(&d, BASE + 0x200, 43, 400, 7, 1, NULL, 0);
	finished_round(&d);
	pw_pipe(&f, &ev, 1, &d);
	p = loaded_from_pipe(&f);
	cr_assert_eq(p->samples_read, 2);
	cr_assert_eq(samples_of_dso(p, PROG), 1, "pid 42's sample is in PROG, pid 43's is not");
	profile_free(p);
	free(d.p);
	free(f.p);
}

Test(perf, compressed_records_are_decompressed)
{
	/* The same recording as a_file_reads_as_perf_wrote_it, its records in three COMPRESSED
	 * ones (or COMPRESSED2, newer perfs': a u64 data_size before the zstd bytes, padded to
	 * 8 after them), then a FINISHED_ROUND outside them as perf writes it; as a file and as
	 * a stream. */
	for (int v2 = 0; v2 < 2; v2++) {
		struct pw d = {0}, z = {0}, f = {0};
		struct pw_event ev = page_faults(7, "page-faults");
		struct profile *p;

		data_of(&d, 7, 10);
		pw_compressed_v(&z, &d, 3, v2);
		finished_round(&z);
		pw_file(&f, &ev, 1, &z);
		p = loaded(&f, "z.perf", NULL);
		cr_assert_eq(p->samples_read, 11, "v2 %d", v2);
		cr_assert_eq(samples_of_dso(p, PROG), 11, "the MMAP2 inside maps the samples");
		cr_assert(!has_warning(p, "perf.data", NULL), "%s",
			  p->nwarnings ? p->warnings[0] : "");
		profile_free(p);
		pw_pipe(&f, &ev, 1, &z);
		p = loaded_from_pipe(&f);
		cr_assert_eq(samples_of_dso(p, PROG), 11, "the same from a stream");
		profile_free(p);
		free(d.p);
		free(z.p);
		free(f.p);
	}
}

/* A data_size beyond the record: damaged, the read stops there with a warning. */
Test(perf, compressed2_data_size_beyond_its_record)
{
	struct pw d = {0}, z = {0}, f = {0};
	struct pw_event ev = page_faults(7, "page-faults");
	struct profile *p;
	uint64_t big = 1 << 20;

	data_of(&d, 7, 10);
	pw_compressed_v(&z, &d, 1, true);
	memcpy(z.p + 8, &big, 8);
	pw_file(&f, &ev, 1, &z);
	p = loaded(&f, "z2bad.perf", NULL);
	cr_assert_eq(p->samples_read, 0);
	cr_assert(has_warning(p, "type 83", "damaged"), "%s", p->nwarnings ? p->warnings[0] : "");
	profile_free(p);
	free(d.p);
	free(z.p);
	free(f.p);
}

Test(perf, compressed_records_that_do_not_decompress)
{
	/* Damaged zstd bytes: a partial profile (what came before) and one line naming -z. */
	struct pw d = {0}, z = {0}, f = {0};
	struct pw_event ev = page_faults(7, "page-faults");
	struct profile *p;
	size_t zstd_at;

	data_of(&z, 7, 3);
	data_of(&d, 7, 10);
	zstd_at = z.len + 8; /* after the COMPRESSED record's header */
	pw_compressed(&z, &d, 1);
	for (size_t i = zstd_at + 8; i < z.len; i += 4)
		z.p[i] ^= 0x55; /* the frame's blocks */
	pw_file(&f, &ev, 1, &z);
	p = loaded(&f, "zbad.perf", NULL);
	cr_assert(p->partial);
	cr_assert(has_warning(p, "perf record -z", "does not decompress"), "%s",
		  p->nwarnings ? p->warnings[0] : "(none)");
	cr_assert_geq(p->samples_read, 4, "the records before it are read");
	profile_free(p);
	free(d.p);
	free(z.p);
	free(f.p);
}
