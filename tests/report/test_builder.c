/* test_builder.c - report/core's builder fed synthetic records: the MMAP replay across fork and
 * exec, the --pid/--tid/--comm/--dso/--function filters and their errors, inputs of different
 * builds, one sampling event at a time, and the stack table. */
#include <criterion/criterion.h>

#include "fixture.h"
#include "output.h"
#include "rows.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void add_mmap(struct builder *b, uint32_t pid, uint64_t t, uint64_t start, const char *file,
		     uint8_t id)
{
	struct hwprof_record r = {.type = HWPROF_REC_MMAP};

	r.mmap = (struct hwprof_rec_mmap){.pid = pid,
					  .tid = pid,
					  .time = t,
					  .start = start,
					  .len = 0x1000,
					  .pgoff = 0,
					  .prot = 5,
					  .build_id_size = id ? 20 : 0,
					  .filename = file};
	memset(r.mmap.build_id, id, sizeof(r.mmap.build_id));
	cr_assert_eq(builder_add(b, &r), 0);
}

static void add_comm(struct builder *b, uint32_t pid, uint32_t tid, uint64_t t, const char *c,
		     bool exec)
{
	struct hwprof_record r = {.type = HWPROF_REC_COMM};

	r.comm =
	    (struct hwprof_rec_comm){.pid = pid, .tid = tid, .time = t, .exec = exec, .comm = c};
	cr_assert_eq(builder_add(b, &r), 0);
}

static void add_fork(struct builder *b, uint32_t pid, uint32_t ppid, uint64_t t)
{
	struct hwprof_record r = {.type = HWPROF_REC_FORK};

	r.task =
	    (struct hwprof_rec_task){.pid = pid, .ppid = ppid, .tid = pid, .ptid = ppid, .time = t};
	cr_assert_eq(builder_add(b, &r), 0);
}

/* A builder whose process 10 mapped /nonexistent/old at 0x400000 at time 100, exec'ed at
 * 500 and mapped /nonexistent/new there at 600. */
static struct builder *old_exec_new(void)
{
	static const struct profile_options o = {0};
	struct builder *b;
	char err[256];

	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	begin(b, "synthetic");
	add_mmap(b, 10, 100, 0x400000, "/nonexistent/old", 0);
	add_comm(b, 10, 10, 500, "new", true);
	add_mmap(b, 10, 600, 0x400000, "/nonexistent/new", 0);
	return b;
}

/* Records from per-CPU buffers come out of time order: a sample taken before an exec can be
 * read after it, and must still resolve to the old image. */
Test(builder, mmap_replay_follows_time_fork_and_exec)
{
	struct builder *b = old_exec_new();
	struct profile *p;
	char err[256];

	add_samples(b, 10, 10, 400, 0x400010, 3, false); /* before the exec */
	add_samples(b, 10, 10, 700, 0x400010, 5, false); /* after */
	add_fork(b, 11, 10, 800);
	add_samples(b, 11, 11, 900, 0x400020, 7, false); /* the child has the parent's maps */
	add_samples(b, 12, 12, 900, 0x400020, 2, false); /* no maps: [unknown] */
	/* Child 20's exec and new image read before its FORK record. */
	add_comm(b, 20, 20, 1000, "child", true);
	add_mmap(b, 20, 1010, 0x400000, "/nonexistent/child", 0);
	add_samples(b, 20, 20, 1100, 0x400030, 4, false); /* after the exec */
	add_fork(b, 20, 10, 950);
	add_samples(b, 20, 20, 960, 0x400030, 6, false); /* between fork and exec */
	p = finish(b, err, sizeof(err), 0);
	cr_expect_eq(samples_of_dso(p, "/nonexistent/old"), 3);
	cr_expect_eq(samples_of_dso(p, "/nonexistent/new"), 18);
	cr_expect_eq(samples_of_dso(p, "/nonexistent/child"), 4);
	cr_expect_eq(samples_of_dso(p, "[unknown]"), 2);
	cr_expect(has_warning(p, "/nonexistent/new", "deleted or moved"));
	cr_expect(p->partial);
	profile_free(p);
}

static struct builder *two_processes(struct profile_options *o, int want_new)
{
	struct builder *b;
	char err[256] = "";

	cr_assert_eq(builder_new(&b, o, err, sizeof(err)), want_new, "%s", err);
	if (want_new)
		return NULL;
	begin(b, "synthetic");
	add_comm(b, 100, 100, 1, "alpha", true);
	add_comm(b, 200, 200, 1, "beta", true);
	add_comm(b, 200, 201, 2, "beta-worker", false);
	add_samples(b, 100, 100, 10, 0x1000, 10, false);
	add_samples(b, 200, 200, 10, 0x2000, 30, false);
	add_samples(b, 200, 201, 10, 0x3000, 60, false);
	return b;
}

Test(builder, filters_by_pid_tid_comm)
{
	struct profile_options o = {.pids = "200"};
	struct profile *p;
	char err[256] = "";

	p = finish(two_processes(&o, 0), err, sizeof(err), 0);
	cr_expect_eq(p->samples, 90);
	cr_expect_eq(p->samples_read, 100);
	profile_free(p);

	o = (struct profile_options){.tids = "100,201"};
	p = finish(two_processes(&o, 0), err, sizeof(err), 0);
	cr_expect_eq(p->samples, 70);
	profile_free(p);

	o = (struct profile_options){.comms = "beta"};
	p = finish(two_processes(&o, 0), err, sizeof(err), 0);
	cr_expect_eq(p->samples, 30);
	profile_free(p);
}

Test(builder, unknown_filter_values_are_errors)
{
	struct profile_options o = {.pids = "999"};
	char err[256] = "";

	cr_expect_null(finish(two_processes(&o, 0), err, sizeof(err), -EINVAL));
	cr_expect(strstr(err, "--pid '999'") && strstr(err, "100"), "%s", err);

	o = (struct profile_options){.comms = "gamma"};
	finish(two_processes(&o, 0), err, sizeof(err), -EINVAL);
	cr_expect(strstr(err, "--comm 'gamma'") && strstr(err, "alpha"), "%s", err);

	o = (struct profile_options){.pids = "12x"};
	two_processes(&o, -EINVAL);
	o = (struct profile_options){.tids = ","};
	two_processes(&o, -EINVAL);
}

Test(builder, filters_by_dso_and_function)
{
	char out[PATH_MAX];
	const char *in[1] = {out};
	struct profile_options o = {
	    .inputs = in, .ninputs = 1, .functions = "poke", .dsos = "rpt_inline"};
	struct profile *p;
	char err[512];

	tmp_path(out, sizeof(out), "filters.data");
	record(out, need_env("RPT_INLINE"), "500");
	p = load_opts(&o);
	cr_expect(p->samples >= 1900 && p->samples <= 2100, "%lu", (unsigned long)p->samples);
	for (size_t i = 0; i < p->nlocs; i++)
		cr_expect_str_eq(p->locs[i].function, "poke");
	profile_free(p);
	o.functions = "no_such_function";
	cr_expect_eq(profile_load(&p, &o, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "--function 'no_such_function'") != NULL, "%s", err);
	unlink(out);
}

Test(builder, inputs_with_different_builds_are_kept_apart)
{
	struct profile_options o = {0};
	struct builder *b;
	struct profile *p;
	char err[256];

	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	begin(b, "a.data");
	add_mmap(b, 1, 1, 0x400000, "/nonexistent/prog", 0xaa);
	add_samples(b, 1, 1, 2, 0x400010, 3, false);
	cr_assert_eq(builder_end_input(b, NULL, HWPROF_READ_OK, NULL), 0);
	begin(b, "b.data");
	add_mmap(b, 1, 1, 0x400000, "/nonexistent/prog", 0xbb);
	add_samples(b, 1, 1, 2, 0x400010, 4, false);
	p = finish(b, err, sizeof(err), 0);
	cr_expect(has_warning(p, "/nonexistent/prog", "different builds"));
	cr_expect_eq(p->nlocs, 2, "one location per build");
	cr_expect_eq(p->samples, 7);
	profile_free(p);
}

/* Several sampling events in one file: one shown at a time, the others said. */
Test(builder, one_sampling_event_at_a_time)
{
	struct hwprof_file_event evs[2] = {
	    {.name = "cpu-clock", .sampling = true, .period_or_freq = 1000},
	    {.name = "page-faults", .sampling = true, .period_or_freq = 1},
	};
	struct hwprof_file_header h = {.major = 1, .nevents = 2, .events = evs};
	struct hwprof_record r = {.type = HWPROF_REC_SAMPLE};
	struct profile_options o = {0};
	const char *names[] = {NULL, "page-faults", "bogus"};
	struct builder *b;
	struct profile *p;
	char err[256] = "";

	for (int k = 0; k < 3; k++) {
		o.event = names[k];
		cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
		cr_assert_eq(builder_begin_input(b, "two.data", &h), 0);
		for (int i = 0; i < 10; i++) {
			r.sample = (struct hwprof_rec_sample){.pid = 1,
							      .tid = 1,
							      .ip = 0x1000,
							      .period = 1,
							      .event = (uint16_t)(i % 2 ? 1 : 0)};
			if (i >= 6)
				r.sample.event = 1;
			cr_assert_eq(builder_add(b, &r), 0);
		}
		p = finish(b, err, sizeof(err), k == 2 ? -EINVAL : 0);
		if (k == 0) {
			cr_expect_eq(p->samples, 3);
			cr_expect_str_eq(p->header.events[p->event].name, "cpu-clock");
		} else if (k == 1) {
			cr_expect_eq(p->samples, 7);
			cr_expect_str_eq(p->header.events[p->event].name, "page-faults");
		} else {
			cr_expect(strstr(err, "--event 'bogus'") && strstr(err, "cpu-clock"), "%s",
				  err);
		}
		profile_free(p);
	}
}

/* M8: the list of what the input holds ends with "..." only when it was shortened. */
Test(builder, filter_error_lists_end_with_dots_only_when_cut)
{
	struct profile_options o = {.pids = "999"};
	struct builder *b;
	char err[256] = "";

	finish(two_processes(&o, 0), err, sizeof(err), -EINVAL);
	cr_expect(strstr(err, "(the input holds: 100, 200)"), "%s", err);
	o = (struct profile_options){.comms = "gamma"};
	finish(two_processes(&o, 0), err, sizeof(err), -EINVAL);
	cr_expect(strstr(err, "(the input holds: alpha, beta, beta-worker)"), "%s", err);
	o = (struct profile_options){.dsos = "nosuch"};
	finish(two_processes(&o, 0), err, sizeof(err), -EINVAL);
	cr_expect(!strstr(err, "..."), "%s", err);

	o = (struct profile_options){.pids = "999"};
	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	begin(b, "many");
	for (uint32_t pid = 1; pid <= 12; pid++)
		add_samples(b, pid, pid, 10, 0x1000, 1, false);
	finish(b, err, sizeof(err), -EINVAL);
	cr_expect(strstr(err, "(the input holds: 1, 2, 3, 4, 5, 6, 7, 8, ...)"), "%s", err);
}

static void add_stack_samples(struct builder *b, uint32_t pid, uint64_t t, uint64_t ip, int n,
			      uint32_t stack_id)
{
	struct hwprof_rec_sample s = {.pid = pid, .tid = pid, .time = t, .ip = ip, .period = 2};

	for (int i = 0; i < n; i++)
		cr_assert_eq(builder_add_sample(b, &s, stack_id), 0);
}

/* The location of stack S's frame I. */
static const struct profile_loc *frame(const struct profile *p, const struct profile_stack *s,
				       uint32_t i)
{
	cr_assert_lt(i, s->n);
	cr_assert_lt(s->locs[i], p->nlocations);
	return &p->locations[s->locs[i]];
}

static const struct profile_stack *stack_with(const struct profile *p, uint64_t leaf, uint32_t n)
{
	for (size_t i = 0; i < p->nstacks; i++)
		if (p->stacks[i].n == n && frame(p, &p->stacks[i], 0)->offset == leaf)
			return &p->stacks[i];
	return NULL;
}

Test(builder, stacks_interned_with_call_sites_and_stackless_samples)
{
	struct profile_options o = {0};
	const struct profile_stack *s;
	const uint64_t ab[] = {0x400100, 0x400200}, ac[] = {0x400100, 0x400300};
	const uint64_t kern[] = {0xffffffff81000010ull, 0x400100};
	struct builder *b;
	struct profile *p;
	char err[256];

	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	begin(b, "synthetic");
	add_mmap(b, 10, 1, 0x400000, "/nonexistent/prog", 0);
	cr_assert_eq(builder_add_stack(b, 1, ab, 2, 0, false), 0);
	cr_assert_eq(builder_add_stack(b, 2, ac, 2, 0, true), 0);
	cr_assert_eq(builder_add_stack(b, 7, kern, 2, 1, false), 0);
	cr_assert_eq(builder_add_stack(b, 0, ab, 2, 0, false), -EINVAL);
	add_stack_samples(b, 10, 5, 0x400010, 3, 1);
	add_stack_samples(b, 10, 6, 0x400010, 1, 2);
	add_stack_samples(b, 10, 7, 0x400010, 2, 0); /* no stack */
	add_stack_samples(b, 10, 8, 0x400020, 4, 7);
	p = finish(b, err, sizeof(err), 0);
	/* Flat rows as without stacks. */
	cr_expect_eq(p->samples, 10);
	cr_expect_eq(samples_of_dso(p, "/nonexistent/prog"), 10);
	cr_expect_eq(p->nlocs, 2);
	cr_assert_eq(p->nstacks, 4);
	s = stack_with(p, 0x10, 3);
	cr_assert(s && s->samples == 3 && s->period == 6 && !s->truncated);
	/* Callers at return address - 1: the call instruction's last byte. */
	cr_expect_eq(frame(p, s, 1)->offset, 0xff);
	cr_expect_eq(frame(p, s, 2)->offset, 0x1ff);
	cr_expect_eq(frame(p, s, 1)->samples, 0, "a caller's address has no samples of its own");
	s = stack_with(p, 0x10, 1);
	cr_assert(s && s->samples == 2 && s->period == 4, "stackless samples: their own stack");
	cr_expect_eq(p->truncated_samples, 1);
	s = stack_with(p, 0x20, 3);
	cr_assert(s && s->samples == 4);
	cr_expect_str_eq(frame(p, s, 1)->dso, "[kernel]");
	cr_expect_eq(frame(p, s, 1)->offset, 0xffffffff8100000full);
	cr_expect_eq(frame(p, s, 2)->offset, 0xff);
	cr_expect_eq(frame(p, s, 2)->id, s->locs[2]);
	cr_expect(!has_warning(p, "name a stack", NULL));
	profile_free(p);
}

/* Samples of the two-frame stacks of P whose caller lies in DSO. */
static uint64_t caller_samples(const struct profile *p, const char *dso)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->nstacks; i++)
		if (p->stacks[i].n == 2 && !strcmp(frame(p, &p->stacks[i], 1)->dso, dso))
			n += p->stacks[i].samples;
	return n;
}

/* One recorded stack's callers are located for each sample's own process and time: another
 * process, a sample read after a later exec or mmap, a process without mappings. */
Test(builder, one_stack_resolves_per_sample_process_and_time)
{
	const uint64_t ips[] = {0x400201};
	struct builder *b = old_exec_new();
	struct profile *p;
	char err[256];

	add_mmap(b, 12, 1, 0x400000, "/nonexistent/other", 0);
	cr_assert_eq(builder_add_stack(b, 1, ips, 1, 0, false), 0);
	add_stack_samples(b, 10, 700, 0x400010, 2, 1);
	add_stack_samples(b, 10, 400, 0x400010, 3, 1); /* read late: before the exec */
	add_stack_samples(b, 12, 700, 0x400010, 4, 1);
	add_stack_samples(b, 10, 700, 0x400010, 1, 1);
	add_stack_samples(b, 13, 700, 0x400010, 5, 1); /* no mappings */
	add_mmap(b, 10, 800, 0x400000, "/nonexistent/newer", 0);
	add_stack_samples(b, 10, 900, 0x400010, 6, 1);
	add_stack_samples(b, 10, 750, 0x400010, 7, 1); /* read late: before the mmap */
	p = finish(b, err, sizeof(err), 0);
	cr_expect_eq(caller_samples(p, "/nonexistent/old"), 3);
	cr_expect_eq(caller_samples(p, "/nonexistent/new"), 10);
	cr_expect_eq(caller_samples(p, "/nonexistent/other"), 4);
	cr_expect_eq(caller_samples(p, "[unknown]"), 5);
	cr_expect_eq(caller_samples(p, "/nonexistent/newer"), 6);
	profile_free(p);
}

Test(builder, stack_ids_never_given_are_said_and_filters_apply)
{
	struct profile_options o = {.dsos = "b"};
	const uint64_t ips[] = {0x500100};
	struct builder *b;
	struct profile *p;
	char err[256];

	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	begin(b, "synthetic");
	add_mmap(b, 10, 1, 0x400000, "/nonexistent/a", 0);
	add_mmap(b, 10, 1, 0x500000, "/nonexistent/b", 0);
	cr_assert_eq(builder_add_stack(b, 3, ips, 1, 0, false), 0);
	add_stack_samples(b, 10, 5, 0x400010, 3, 3); /* in a: left out with its stack */
	add_stack_samples(b, 10, 5, 0x500010, 2, 3);
	add_stack_samples(b, 10, 5, 0x500010, 1, 9); /* stack 9 never given */
	p = finish(b, err, sizeof(err), 0);
	cr_expect_eq(p->samples, 3);
	cr_assert_eq(p->nstacks, 2);
	for (size_t i = 0; i < p->nstacks; i++)
		cr_expect_str_eq(frame(p, &p->stacks[i], 0)->dso, "/nonexistent/b");
	cr_expect(stack_with(p, 0x10, 2) && stack_with(p, 0x10, 2)->samples == 2);
	cr_expect(stack_with(p, 0x10, 1) && stack_with(p, 0x10, 1)->truncated);
	cr_expect(has_warning(p, "1 samples name a stack", NULL));
	cr_expect(p->partial);
	profile_free(p);
}

static void add_event_samples(struct builder *b, uint16_t event, uint64_t ip, int n,
			      uint64_t period, uint32_t stack_id)
{
	struct hwprof_rec_sample s = {
	    .pid = 10, .tid = 10, .time = 5, .ip = ip, .period = period, .event = event};

	for (int i = 0; i < n; i++)
		cr_assert_eq(builder_add_sample(b, &s, stack_id), 0);
}

static const struct profile_vsample *vsample_with(const struct profile *p, uint64_t leaf,
						  uint32_t n)
{
	for (size_t i = 0; i < p->nvsamples; i++)
		if (p->vsamples[i].n == n && p->locations[p->vsamples[i].locs[0]].offset == leaf)
			return &p->vsamples[i];
	return NULL;
}

/* The value vector: every sampling event's samples per stack and per location, while the
 * rows, stacks and locations stay the shown event's. */
Test(builder, value_vector_holds_every_sampling_event)
{
	struct hwprof_file_event evs[3] = {
	    {.name = "cpu-clock", .sampling = true, .period_or_freq = 1000},
	    {.name = "instructions", .sampling = false},
	    {.name = "page-faults", .sampling = true, .period_or_freq = 1},
	};
	struct hwprof_file_header h = {.major = 1, .nevents = 3, .events = evs};
	const uint64_t ab[] = {0x400100, 0x400200};
	const struct profile_vsample *v;
	const struct profile_value *lv;
	struct profile_options o = {0};
	const char *dsos[] = {NULL, "other"};
	struct builder *b;
	struct profile *p;
	char err[256] = "";

	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	cr_assert_eq(builder_begin_input(b, "three.data", &h), 0);
	add_mmap(b, 10, 1, 0x400000, "/nonexistent/prog", 0);
	cr_assert_eq(builder_add_stack(b, 1, ab, 2, 0, false), 0);
	add_event_samples(b, 0, 0x400010, 3, 1000, 1);
	add_event_samples(b, 2, 0x400010, 2, 1, 1);
	add_event_samples(b, 2, 0x400020, 5, 1, 0);
	add_event_samples(b, 1, 0x400030, 4, 1, 0); /* a counting event's: none */
	p = finish(b, err, sizeof(err), 0);
	/* The shown event's tables as without the others. */
	cr_expect_eq(p->samples, 3);
	cr_expect_eq(p->period, 3000);
	cr_expect_eq(p->nlocs, 1);
	cr_expect_eq(p->nstacks, 1);
	cr_expect_eq(p->stacks[0].samples, 3);
	/* The vector: cpu-clock and page-faults, in header order. */
	cr_assert_eq(p->nvalues, 2);
	cr_expect_eq(p->value_event[0], 0);
	cr_expect_eq(p->value_event[1], 2);
	cr_assert_eq(p->nvsamples, 2);
	v = vsample_with(p, 0x10, 3);
	cr_assert(v);
	cr_expect(v->values[0].samples == 3 && v->values[0].period == 3000);
	cr_expect(v->values[1].samples == 2 && v->values[1].period == 2);
	cr_expect_eq(p->locations[v->locs[1]].offset, 0xff, "callers at their call sites");
	v = vsample_with(p, 0x20, 1);
	cr_assert(v, "a page-faults sample without callers: its address alone");
	cr_expect(v->values[0].samples == 0 && v->values[1].samples == 5);
	lv = p->loc_values + (size_t)v->locs[0] * p->nvalues;
	cr_expect(lv[0].samples == 0 && lv[1].samples == 5 && lv[1].period == 5);
	cr_expect_eq(p->locations[v->locs[0]].samples, 0, "not a sample of the shown event");
	profile_free(p);

	/* --dso keeps the others' stacks as it keeps the shown event's; one event: no vector. */
	for (int k = 0; k < 2; k++) {
		o.dsos = dsos[k];
		cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
		if (k)
			cr_assert_eq(builder_begin_input(b, "three.data", &h), 0);
		else
			begin(b, "one.data");
		add_mmap(b, 10, 1, 0x400000, "/nonexistent/prog", 0);
		add_mmap(b, 10, 1, 0x500000, "/nonexistent/other", 0);
		add_event_samples(b, 0, 0x400010, 3, 1, 0);
		add_event_samples(b, 2, 0x400020, 2, 1, 0);
		add_event_samples(b, 2, 0x500020, 4, 1, 0);
		p = finish(b, err, sizeof(err), 0);
		if (!k) {
			cr_expect_eq(p->nvalues, 0, "one sampling event: no vector");
			cr_expect_eq(p->nvsamples, 0);
		} else {
			cr_expect_eq(p->samples, 0);
			cr_assert_eq(p->nvalues, 2);
			cr_assert_eq(p->nvsamples, 1, "only the stack in 'other'");
			cr_expect_str_eq(p->locations[p->vsamples[0].locs[0]].dso,
					 "/nonexistent/other");
			cr_expect_eq(p->vsamples[0].values[1].samples, 4);
		}
		profile_free(p);
	}
}

/* Whether a line of TEXT holds both A and B. */
static bool line_with(const char *text, const char *a, const char *b)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *end = strchr(l, '\n'), *x = strstr(l, a), *y = strstr(l, b);
		if (x && y && (!end || (x < end && y < end)))
			return true;
	}
	return false;
}

/* --group: the rows are every sampling event's, not only the shown one's. A location that
 * only the other event sampled gets a row (0 of the shown event), and a row's column holds
 * all of that event's samples at the row's locations: each column sums to 100%, as perf's
 * --group. The tester's case: page-faults shown, cpu-clock at one more address. */
Test(builder, group_rows_hold_every_event)
{
	struct hwprof_file_event evs[2] = {
	    {.name = "page-faults", .sampling = true, .period_or_freq = 1},
	    {.name = "cpu-clock", .sampling = true, .period_or_freq = 1000},
	};
	struct hwprof_file_header h = {.major = 1, .nevents = 2, .events = evs};
	enum profile_key key = PROFILE_KEY_ADDR;
	struct profile_rows_req req = {.keys = &key, .nkeys = 1, .every_event = true};
	struct profile_options o = {0};
	struct profile_row *rows;
	uint32_t *row_of;
	struct builder *b;
	struct profile *p;
	char err[256] = "", *text = NULL;
	size_t n, len;
	FILE *f;

	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	cr_assert_eq(builder_begin_input(b, "two.data", &h), 0);
	add_mmap(b, 10, 1, 0x400000, "/nonexistent/prog", 0);
	add_event_samples(b, 0, 0x400010, 3, 1, 0);
	add_event_samples(b, 1, 0x400010, 2, 1000, 0);
	add_event_samples(b, 1, 0x400020, 5, 1000, 0);
	p = finish(b, err, sizeof(err), 0);
	cr_assert_eq(p->nvalues, 2);
	cr_assert_eq(profile_rows_by(p, &req, &rows, &n, &row_of), 0);
	cr_assert_eq(n, 2, "a row for the address only cpu-clock sampled");
	cr_expect(rows[0].offset == 0x10 && rows[0].samples == 3 && rows[0].share == 1.0);
	cr_expect(rows[1].offset == 0x20 && rows[1].samples == 0 && rows[1].share == 0.0);

	struct output_opts oo = {.keys = &key, .nkeys = 1, .row_of = row_of, .group = true};
	f = open_memstream(&text, &len);
	cr_assert_eq(output_text(f, p, rows, n, &oo), 0);
	fclose(f);
	cr_expect(line_with(text, "100.00%~    28.57%", "prog+0x10"),
		  "cpu-clock's 2 of 7 beside 0x10:\n%s", text);
	cr_expect(line_with(text, "  0.00%~    71.43%", "prog+0x20"),
		  "cpu-clock's 5 of 7 at 0x20:\n%s", text);
	free(text);
	free(rows);
	free(row_of);

	/* Without every_event: the shown event's rows, as before. */
	req.every_event = false;
	cr_assert_eq(profile_rows_by(p, &req, &rows, &n, NULL), 0);
	cr_expect_eq(n, 1);
	free(rows);
	profile_free(p);
}

/* Two anonymous executable mappings (a JIT without a map file, as `record -a` meets in any
 * process) share the anonymous DSO: the second lookup compares an empty build-id. */
Test(builder, anonymous_code_mappings_share_one_dso)
{
	struct profile_options o = {0};
	struct builder *b;
	struct profile *p;
	char err[256];

	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	begin(b, "synthetic");
	add_mmap(b, 30, 100, 0x7f0000000000, "//anon", 0);
	add_mmap(b, 30, 110, 0x7f0000100000, "//anon", 0);
	add_samples(b, 30, 30, 200, 0x7f0000000010, 2, false);
	add_samples(b, 30, 30, 210, 0x7f0000100010, 3, false);
	p = finish(b, err, sizeof(err), 0);
	cr_expect_eq(samples_of_dso(p, "//anon"), 5);
	profile_free(p);
}

/* A recording can name any path: a FIFO there now must not block report in open(2). */
Test(builder, fifo_at_a_mapped_path_is_not_opened_blocking, .timeout = 20)
{
	struct profile_options o = {0};
	struct builder *b;
	struct profile *p;
	char err[256], fifo[64];

	snprintf(fifo, sizeof(fifo), "/tmp/hwprof-fifo-%d", (int)getpid());
	unlink(fifo);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	begin(b, "synthetic");
	add_mmap(b, 40, 100, 0x400000, fifo, 0);
	add_samples(b, 40, 40, 200, 0x400010, 3, false);
	p = finish(b, err, sizeof(err), 0);
	unlink(fifo);
	cr_expect_eq(samples_of_dso(p, fifo), 3);
	cr_expect(has_warning(p, fifo, "not a regular file"));
	/* The file that ran is gone: its samples have no lines, the exit is 1. */
	cr_expect(p->partial);
	profile_free(p);
}

/* A file that is not ELF now where the recording saw a build-id was replaced: the profile is
 * partial. Without a recorded identity it may never have been ELF (a mapped data file). */
Test(builder, a_non_elf_file_where_a_build_id_was_recorded_is_partial)
{
	struct profile_options o = {0};
	char err[256], path[64];
	struct builder *b;
	struct profile *p;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/hwprof-notelf-%d", (int)getpid());
	f = fopen(path, "w");
	cr_assert(f);
	fputs("not an ELF file\n", f);
	fclose(f);
	for (uint8_t id = 0; id < 2; id++) {
		cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
		begin(b, "synthetic");
		add_mmap(b, 40, 100, 0x400000, path, id ? 7 : 0);
		add_samples(b, 40, 40, 200, 0x400010, 3, false);
		p = finish(b, err, sizeof(err), 0);
		cr_expect_eq(samples_of_dso(p, path), 3);
		cr_expect(has_warning(p, path, "not an ELF file"));
		cr_expect_eq(p->partial, id == 1, "build-id recorded: %d", id);
		profile_free(p);
	}
	unlink(path);
}

/* A recording of 3 samples in a mapping of MAPPED whose build-id is the test binary's, with
 * the test binary in a build-id cache of perf's layout as .build-id/xx/rest/NAME. */
static struct profile *cached_build(const char *mapped_fmt, const char *name)
{
	struct profile_options o = {0};
	struct hwprof_record r = {.type = HWPROF_REC_MMAP};
	char exe[PATH_MAX], hex[64] = "", cache[64], sh[3 * PATH_MAX], err[256];
	char mapped[PATH_MAX + 16];
	struct builder *b;
	struct profile *p;
	FILE *f;

	self_exe(exe, sizeof(exe));
	snprintf(sh, sizeof(sh), "readelf -n '%s' | sed -n 's/.*Build ID: //p'", exe);
	f = popen(sh, "r");
	cr_assert(f && fgets(hex, sizeof(hex), f));
	pclose(f);
	hex[strcspn(hex, "\n")] = '\0';
	cr_assert_eq(strlen(hex), 40, "the test binary has a 20-byte build-id: %s", hex);
	snprintf(cache, sizeof(cache), "/tmp/hwprof-bidc-%d", (int)getpid());
	snprintf(sh, sizeof(sh),
		 "rm -rf %s && mkdir -p %s/.build-id/%.2s/%s && cp '%s' %s/.build-id/%.2s/%s/%s",
		 cache, cache, hex, hex + 2, exe, cache, hex, hex + 2, name);
	cr_assert_eq(system(sh), 0);
	setenv("PERF_BUILDID_DIR", cache, 1);

	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	begin(b, "synthetic");
	snprintf(mapped, sizeof(mapped), mapped_fmt, exe);
	r.mmap = (struct hwprof_rec_mmap){.pid = 40,
					  .tid = 40,
					  .time = 100,
					  .start = 0x400000,
					  .len = 0x1000,
					  .prot = 5,
					  .build_id_size = 20,
					  .filename = mapped};
	for (int i = 0; i < 20; i++)
		sscanf(hex + 2 * i, "%2hhx", &r.mmap.build_id[i]);
	cr_assert_eq(builder_add(b, &r), 0);
	add_samples(b, 40, 40, 200, 0x400010, 3, false);
	p = finish(b, err, sizeof(err), 0);
	snprintf(sh, sizeof(sh), "rm -rf %s", cache);
	cr_assert_eq(system(sh), 0);
	return p;
}

/* A mapping the kernel marked "(deleted)" (record -p of a process whose binary was removed)
 * is read from perf's build-id cache when the build that ran is there, also when nothing set
 * up libelf before (each test runs in a process of its own). */
Test(builder, a_deleted_mapping_is_read_from_the_build_id_cache)
{
	struct profile *p = cached_build("%s (deleted)", "elf");

	cr_expect_not(p->partial, "%s", p->nwarnings ? p->warnings[0] : "");
	cr_expect_eq(p->nnotes, 1);
	cr_expect(p->nnotes && strstr(p->notes[0], "build-id cache"));
	profile_free(p);
}

/* perf keeps a vDSO of another kernel as .build-id/xx/rest/vdso: a [vdso] whose build-id is
 * not the running kernel's is read from there. */
Test(builder, a_vdso_of_another_kernel_is_read_from_the_build_id_cache)
{
	struct profile *p = cached_build("[vdso]", "vdso");

	cr_expect_not(p->partial, "%s", p->nwarnings ? p->warnings[0] : "");
	cr_expect(p->nnotes && strstr(p->notes[0], "build-id cache"));
	profile_free(p);
}

/* A device can be mapped executable: one at the path now may be what ran, unless a build-id
 * says an ELF file did. */
Test(builder, a_device_at_a_mapped_path_is_partial_only_with_a_build_id)
{
	struct profile_options o = {0};
	char err[256];
	struct builder *b;
	struct profile *p;

	for (uint8_t id = 0; id < 2; id++) {
		cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
		begin(b, "synthetic");
		add_mmap(b, 40, 100, 0x400000, "/dev/zero", id ? 7 : 0);
		add_samples(b, 40, 40, 200, 0x400010, 3, false);
		p = finish(b, err, sizeof(err), 0);
		cr_expect_eq(samples_of_dso(p, "/dev/zero"), 3);
		cr_expect_eq(p->partial, id == 1, "build-id recorded: %d", id);
		profile_free(p);
	}
}
