/* test_sampler.c - opening the sampling events per CPU through the fake kernel: attrs, the
 * precise_ip step-down, SET_OUTPUT and ids for several events, and errors. */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <unistd.h>

#include "fake_kernel.h"
#include "hwprof/event.h"
#include "sampler.h"

/* The fake kernel knows no PERF_EVENT_IOC_SET_OUTPUT (-ENOTTY): answer it as the kernel does
 * for two events of the same CPU, and pass everything else on. */
static struct hwprof_sys with_set_output;
static int set_outputs;

static int fake_ioctl(int fd, unsigned long request, unsigned long arg)
{
	if (request == PERF_EVENT_IOC_SET_OUTPUT) {
		set_outputs++;
		return fake_kernel_id(fd) && fake_kernel_id((int)arg) ? 0 : -EBADF;
	}
	return fake_kernel_sys.ioctl(fd, request, arg);
}

static void install(const struct fake_kernel_config *k)
{
	fake_kernel_install(k);
	with_set_output = fake_kernel_sys;
	with_set_output.ioctl = fake_ioctl;
	hwprof_sys_set(&with_set_output);
	set_outputs = 0;
}

static const struct sampler_config cfg = {
    .freq = 4000,
    .pages = 8,
    .enable_on_exec = true,
};

static void parse(const char *spec, struct hwprof_event_list *l)
{
	char err[256];

	cr_assert_eq(hwprof_events_parse(spec, l, err, sizeof(err)), 0, "%s: %s", spec, err);
}

static int online_cpus(void)
{
	int *cpus, n = sampler_online_cpus(&cpus);

	cr_assert_gt(n, 0);
	free(cpus);
	return n;
}

Test(sampler, attrs_per_cpu_with_precise_step_down)
{
	struct fake_kernel_config k = fake_kernel_defaults();
	struct hwprof_event_list l;
	struct sampler s;
	char err[512] = "";
	pid_t pid = getpid();
	int ncpu = online_cpus();

	k.allow_mmap = true;
	k.max_precise = 1;
	install(&k);
	parse("cycles:ppp", &l);
	cr_assert_eq(sampler_open(&s, &l, &cfg, &pid, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(s.ncpus, (size_t)ncpu);
	cr_assert_eq(s.fev[0].precise_requested, 3);
	cr_assert_eq(s.fev[0].precise_obtained, 1);
	cr_assert(s.fev[0].freq);
	cr_assert_eq(s.fev[0].period_or_freq, 4000);
	cr_assert_str_eq(s.fev[0].name, "cycles:uppp"); /* unprivileged: user space */
	/* Successful opens: one per CPU, each on the target with cpu = i. */
	int ok = 0;
	for (size_t i = 0; i < fake_kernel_nopens(); i++) {
		const struct fake_kernel_open *o = fake_kernel_open_log(i);
		if (o->result < 0)
			continue;
		cr_assert_eq(o->pid, pid);
		cr_assert_eq(o->cpu, s.cpus[ok].cpu);
		cr_assert_eq(o->attr.precise_ip, 1);
		cr_assert(o->attr.inherit, "threads and children followed");
		cr_assert(o->attr.enable_on_exec);
		cr_assert(o->attr.disabled);
		cr_assert(o->attr.sample_id_all);
		cr_assert(o->attr.mmap2 && o->attr.comm && o->attr.comm_exec && o->attr.task);
		cr_assert(o->attr.use_clockid);
		cr_assert(o->attr.freq);
		cr_assert_eq(o->attr.sample_freq, 4000);
		cr_assert_eq(o->attr.sample_type, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
						      PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						      PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD);
		cr_assert(o->attr.exclude_kernel, "user space by default");
		ok++;
	}
	cr_assert_eq(ok, ncpu);
	/* Only the first CPU tried the higher levels. */
	cr_assert_eq(fake_kernel_nopens(), (size_t)ncpu + 2);
	cr_assert_eq(s.nids, (size_t)ncpu);
	for (int c = 0; c < ncpu; c++)
		cr_assert_not_null(s.cpus[c].map);
	sampler_close(&s);
	cr_assert_eq(fake_kernel_nfds_open(), 0);
	hwprof_events_free(&l);
	fake_kernel_uninstall();
}

Test(sampler, second_event_shares_the_ring_and_is_told_apart)
{
	struct fake_kernel_config k = fake_kernel_defaults();
	struct hwprof_event_list l;
	struct sampler s;
	char err[512] = "";
	pid_t pid = getpid();
	int ncpu = online_cpus();

	k.allow_mmap = true;
	install(&k);
	parse("cycles,instructions", &l);
	cr_assert_eq(sampler_open(&s, &l, &cfg, &pid, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(set_outputs, ncpu, "one redirect per CPU for the second event");
	/* Side-band records come once: from the first event only. */
	for (size_t i = 0; i < fake_kernel_nopens(); i++) {
		const struct fake_kernel_open *o = fake_kernel_open_log(i);
		bool first = o->attr.config == PERF_COUNT_HW_CPU_CYCLES;
		cr_assert_eq(o->attr.mmap2, first);
		cr_assert_eq(o->attr.task, first);
	}
	cr_assert_eq(s.nids, 2 * (size_t)ncpu);
	for (size_t i = 0; i < s.nids; i++) {
		cr_assert_eq(s.ids[i], fake_kernel_id(s.fds[i]));
		cr_assert_eq(s.idx[i], i % 2);
	}
	sampler_close(&s);
	hwprof_events_free(&l);
	fake_kernel_uninstall();
}

Test(sampler, no_pmu_names_the_event_and_closes_everything)
{
	struct fake_kernel_config k = fake_kernel_defaults();
	struct hwprof_event_list l;
	struct sampler s;
	char err[512] = "";
	pid_t pid = getpid();

	k.allow_mmap = true;
	k.has_pmu = false;
	install(&k);
	parse("cpu-clock,cycles", &l);
	cr_assert_eq(sampler_open(&s, &l, &cfg, &pid, 1, err, sizeof(err)), -ENOENT);
	cr_assert(strstr(err, "cycles"), "%s", err);
	cr_assert(strstr(err, "not supported"), "%s", err);
	cr_assert_eq(fake_kernel_nfds_open(), 0, "cpu-clock's fd closed again");
	hwprof_events_free(&l);
	fake_kernel_uninstall();
}

Test(sampler, refused_mmap_is_an_error_with_a_way_out)
{
	struct fake_kernel_config k = fake_kernel_defaults();
	struct hwprof_event_list l;
	struct sampler s;
	char err[512] = "";
	pid_t pid = getpid();

	install(&k); /* allow_mmap false: EINVAL */
	parse("cpu-clock", &l);
	cr_assert_eq(sampler_open(&s, &l, &cfg, &pid, 1, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "mmap"), "%s", err);
	cr_assert(strstr(err, "-m"), "%s", err);
	cr_assert_eq(fake_kernel_nfds_open(), 0);
	hwprof_events_free(&l);
	fake_kernel_uninstall();
}

Test(sampler, period_mode_and_attached_threads)
{
	struct fake_kernel_config k = fake_kernel_defaults();
	struct sampler_config c = {.period = 1, .pages = 8, .enable_on_exec = false};
	struct hwprof_event_list l;
	struct sampler s;
	char err[512] = "";
	pid_t pids[2] = {getpid(), getpid()};
	int ncpu = online_cpus();

	k.allow_mmap = true;
	install(&k);
	parse("page-faults", &l);
	cr_assert_eq(sampler_open(&s, &l, &c, pids, 2, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(fake_kernel_nopens(), 2 * (size_t)ncpu, "each thread on each CPU");
	cr_assert_eq(set_outputs, ncpu, "the second thread's events share the CPU's ring");
	const struct fake_kernel_open *o = fake_kernel_open_log(0);
	cr_assert_not(o->attr.freq);
	cr_assert_eq(o->attr.sample_period, 1);
	cr_assert_not(o->attr.enable_on_exec);
	cr_assert_not(s.fev[0].freq);
	cr_assert_eq(s.fev[0].period_or_freq, 1);
	sampler_enable(&s);
	for (size_t i = 0; i < 2 * (size_t)ncpu; i++)
		cr_assert_eq(fake_kernel_is_enabled(s.fds[i]), 1);
	sampler_close(&s);
	hwprof_events_free(&l);
	fake_kernel_uninstall();
}

/* The target's CPU time for the summary's rate (H F32): time_running of the first event,
 * summed over the per-CPU events (the target runs on one CPU at a time); other events of the
 * list do not add to it. */
Test(sampler, running_ns_sums_the_first_event_over_cpus)
{
	struct fake_kernel_config k = fake_kernel_defaults();
	struct hwprof_event_list l;
	struct sampler s;
	char err[512] = "";
	pid_t pid = getpid();
	uint64_t ns = 0;
	int ncpu = online_cpus();

	k.allow_mmap = true;
	install(&k);
	parse("cpu-clock,page-faults", &l);
	fake_kernel_set_times(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 300000000, 250000000);
	fake_kernel_set_times(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 900000000, 900000000);
	cr_assert_eq(sampler_open(&s, &l, &cfg, &pid, 1, err, sizeof(err)), 0, "%s", err);
	for (size_t i = 0; i < fake_kernel_nopens(); i++) {
		const struct fake_kernel_open *o = fake_kernel_open_log(i);
		cr_assert_eq(o->attr.read_format, PERF_FORMAT_TOTAL_TIME_ENABLED |
						      PERF_FORMAT_TOTAL_TIME_RUNNING |
						      PERF_FORMAT_LOST);
	}
	cr_assert_eq(sampler_running_ns(&s, &ns), 0);
	cr_assert_eq(ns, (uint64_t)ncpu * 250000000ull, "%llu ns", (unsigned long long)ns);
	sampler_close(&s);
	hwprof_events_free(&l);
	fake_kernel_uninstall();
}

Test(sampler, callchain_asks_for_the_chain_and_a_place_for_it)
{
	struct fake_kernel_config k = fake_kernel_defaults();
	struct sampler_config c = {.period = 1, .pages = 8, .callchain = true, .max_stack = 64};
	struct hwprof_event_list l;
	struct sampler s;
	char err[512] = "";
	pid_t pid = getpid();

	k.allow_mmap = true;
	install(&k);
	parse("page-faults:u,cpu-clock", &l);
	cr_assert_eq(sampler_open(&s, &l, &c, &pid, 1, err, sizeof(err)), 0, "%s", err);
	for (size_t i = 0; i < fake_kernel_nopens(); i++) {
		const struct perf_event_attr *a = &fake_kernel_open_log(i)->attr;
		cr_assert(a->sample_type & PERF_SAMPLE_CALLCHAIN, "open %zu", i);
		cr_assert_eq(a->sample_max_stack, 64, "open %zu", i);
		/* :u has no kernel part to walk; cpu-clock counts the kernel too. */
		cr_assert_eq(a->exclude_callchain_kernel, a->exclude_kernel, "open %zu", i);
	}
	cr_assert(fake_kernel_open_log(0)->attr.exclude_callchain_kernel);
	cr_assert(s.decode.sample_type & PERF_SAMPLE_CALLCHAIN);
	cr_assert_not_null(s.decode.stack);
	cr_assert_eq(s.decode.max_stack, 64);
	sampler_close(&s);
	cr_assert_null(s.decode.stack);

	/* Without -g: no chain, and no place for one. */
	c.callchain = false;
	cr_assert_eq(sampler_open(&s, &l, &c, &pid, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert_not(fake_kernel_open_log(fake_kernel_nopens() - 1)->attr.sample_type &
		      PERF_SAMPLE_CALLCHAIN);
	cr_assert_null(s.decode.stack);
	sampler_close(&s);
	hwprof_events_free(&l);
	fake_kernel_uninstall();
}

/* record --data: every event samples ADDR, the side-band event asks for data mappings;
 * DATA_SRC and WEIGHT only for memory-sampling events (data_mem). */
Test(sampler, data_asks_for_addresses_and_data_mappings)
{
	struct fake_kernel_config k = fake_kernel_defaults();
	struct sampler_config c = {.period = 1, .pages = 8, .data = true};
	struct hwprof_event_list l;
	struct sampler s;
	char err[512] = "";
	pid_t pid = getpid();

	k.allow_mmap = true;
	install(&k);
	parse("page-faults:u,cpu-clock", &l);
	cr_assert_eq(sampler_open(&s, &l, &c, &pid, 1, err, sizeof(err)), 0, "%s", err);
	for (size_t i = 0; i < fake_kernel_nopens(); i++) {
		const struct perf_event_attr *a = &fake_kernel_open_log(i)->attr;
		cr_assert(a->sample_type & PERF_SAMPLE_ADDR, "open %zu", i);
		cr_assert_not(a->sample_type & (PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT),
			      "open %zu: page faults have no data source", i);
		cr_assert_eq(a->mmap_data, a->mmap, "open %zu: with the side band only", i);
	}
	cr_assert(fake_kernel_open_log(0)->attr.mmap_data);
	cr_assert(s.decode.data_mmaps);
	cr_assert(s.decode.sample_type & PERF_SAMPLE_ADDR);
	sampler_close(&s);

	size_t before = fake_kernel_nopens();
	c.data_mem = true;
	cr_assert_eq(sampler_open(&s, &l, &c, &pid, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert(fake_kernel_open_log(before)->attr.sample_type & PERF_SAMPLE_DATA_SRC);
	cr_assert(fake_kernel_open_log(before)->attr.sample_type & PERF_SAMPLE_WEIGHT);
	sampler_close(&s);

	/* Without --data: none of it. */
	before = fake_kernel_nopens();
	c.data = c.data_mem = false;
	cr_assert_eq(sampler_open(&s, &l, &c, &pid, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert_not(fake_kernel_open_log(before)->attr.sample_type & PERF_SAMPLE_ADDR);
	cr_assert_not(fake_kernel_open_log(before)->attr.mmap_data);
	cr_assert_not(s.decode.data_mmaps);
	sampler_close(&s);
	hwprof_events_free(&l);
	fake_kernel_uninstall();
}

Test(sampler, dwarf_call_graph_asks_for_user_registers_and_stack)
{
	struct fake_kernel_config k = fake_kernel_defaults();
	struct sampler_config c = {.period = 1,
				   .pages = 8,
				   .callchain = true,
				   .max_stack = 127,
				   .callchain_kernel_only = true,
				   .stack_user = 8192,
				   .regs_user = 0xff01ff};
	struct hwprof_event_list l;
	struct sampler s;
	char err[512] = "";
	pid_t pid = getpid();

	k.allow_mmap = true;
	install(&k);
	parse("page-faults", &l);
	cr_assert_eq(sampler_open(&s, &l, &c, &pid, 1, err, sizeof(err)), 0, "%s", err);
	for (size_t i = 0; i < fake_kernel_nopens(); i++) {
		const struct perf_event_attr *a = &fake_kernel_open_log(i)->attr;
		cr_assert(a->sample_type & PERF_SAMPLE_REGS_USER, "open %zu", i);
		cr_assert(a->sample_type & PERF_SAMPLE_STACK_USER, "open %zu", i);
		cr_assert_eq(a->sample_regs_user, 0xff01ff, "open %zu", i);
		cr_assert_eq(a->sample_stack_user, 8192, "open %zu", i);
		/* The kernel's chain for the kernel part; the user part is unwound here. */
		cr_assert(a->sample_type & PERF_SAMPLE_CALLCHAIN, "open %zu", i);
		cr_assert(a->exclude_callchain_user, "open %zu", i);
	}
	cr_assert_eq(s.decode.regs_user, 0xff01ff);
	cr_assert_not_null(s.decode.ustack);
	sampler_close(&s);
	cr_assert_null(s.decode.ustack);
	hwprof_events_free(&l);
	fake_kernel_uninstall();
}

/* Over the locked-memory limit a ring is halved until it maps, but not below what holds two
 * samples with their stack copies (sampler_min_pages()): a smaller one would lose them all. */
Test(sampler, ring_halving_stops_at_two_stack_samples)
{
	struct fake_kernel_config k = fake_kernel_defaults();
	size_t page = (size_t)sysconf(_SC_PAGESIZE), min = sampler_min_pages(65528);
	struct sampler_config c = {.period = 1, .pages = 8 * min, .stack_user = 65528};
	struct hwprof_event_list l;
	struct sampler s;
	char err[512] = "";
	pid_t pid = getpid();

	cr_assert_geq(min * page, 2 * (65528 + page));
	cr_assert_lt(min * page / 2, 2 * (65528 + page), "the fewest pages that hold two");
	k.allow_mmap = true;
	k.mmap_max_len = (min / 2 + 1) * page; /* half the floor would map */
	install(&k);
	parse("page-faults", &l);
	cr_assert_lt(sampler_open(&s, &l, &c, &pid, 1, err, sizeof(err)), 0);
	cr_assert(strstr(err, "mmap of the ring buffer") && strstr(err, "locked-memory"), "%s",
		  err);
	sampler_close(&s);
	/* Without stack copies it goes down to 8 pages. */
	c = (struct sampler_config){.period = 1, .pages = 64};
	k.mmap_max_len = 9 * page;
	install(&k);
	cr_assert_eq(sampler_open(&s, &l, &c, &pid, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(s.pages, 8);
	sampler_close(&s);
	hwprof_events_free(&l);
	fake_kernel_uninstall();
}

/* Each sampling event's own value and lost count (PERF_FORMAT_LOST), summed over its per-CPU
 * events, per event of the list: the samples the kernel dropped with no LOST record after
 * them are only known this way. */
Test(sampler, read_totals_sums_value_and_lost_per_event)
{
	struct fake_kernel_config k = fake_kernel_defaults();
	struct hwprof_event_list l;
	struct hwprof_file_sampled t[2];
	struct sampler s;
	char err[512] = "";
	pid_t pid = getpid();
	int ncpu = online_cpus();

	k.allow_mmap = true;
	install(&k);
	parse("page-faults,cpu-clock", &l);
	fake_kernel_set_count(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 149);
	fake_kernel_set_lost(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 38);
	fake_kernel_set_lost(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 2);
	cr_assert_eq(sampler_open(&s, &l, &cfg, &pid, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert(s.format_lost);
	cr_assert_eq(sampler_read_totals(&s, t), 0);
	cr_assert(t[0].count_known && t[0].lost_known);
	cr_assert_eq(t[0].count, 149ull * (uint64_t)ncpu);
	cr_assert_eq(t[0].lost, 38ull * (uint64_t)ncpu);
	cr_assert_eq(t[1].count, 1000000ull * (uint64_t)ncpu);
	cr_assert_eq(t[1].lost, 2ull * (uint64_t)ncpu);
	sampler_close(&s);
	hwprof_events_free(&l);
	fake_kernel_uninstall();
}

/* A kernel before 6.0 refuses PERF_FORMAT_LOST with EINVAL: the events open without it, the
 * counts still read, the lost count is unknown (not 0). */
Test(sampler, format_lost_falls_back_on_old_kernels)
{
	struct fake_kernel_config k = fake_kernel_defaults();
	struct hwprof_event_list l;
	struct hwprof_file_sampled t[1];
	struct sampler s;
	char err[512] = "";
	pid_t pid = getpid();
	uint64_t ns = 0;
	int ncpu = online_cpus();

	k.allow_mmap = true;
	k.old_kernel_no_format_lost = true;
	install(&k);
	parse("page-faults", &l);
	fake_kernel_set_count(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 100);
	cr_assert_eq(sampler_open(&s, &l, &cfg, &pid, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert_not(s.format_lost);
	for (size_t i = 0; i < fake_kernel_nopens(); i++) {
		const struct fake_kernel_open *o = fake_kernel_open_log(i);
		if (o->result >= 0)
			cr_assert_not(o->attr.read_format & PERF_FORMAT_LOST);
	}
	cr_assert_eq(sampler_read_totals(&s, t), 0);
	cr_assert(t[0].count_known);
	cr_assert_eq(t[0].count, 100ull * (uint64_t)ncpu);
	cr_assert_not(t[0].lost_known);
	cr_assert_eq(sampler_running_ns(&s, &ns), 0);
	cr_assert_eq(ns, (uint64_t)ncpu * 1000000000ull);
	sampler_close(&s);
	hwprof_events_free(&l);
	fake_kernel_uninstall();
}

/* record -a / -C: pid -1 on each listed CPU (every task), without inherit, and the PIDS the
 * caller passes are not used. */
Test(sampler, system_wide_opens_every_task_on_the_listed_cpus)
{
	struct fake_kernel_config k = fake_kernel_defaults();
	static const int cpus[] = {0};
	struct sampler_config c = {
	    .freq = 4000, .pages = 8, .system_wide = true, .cpus = cpus, .ncpus = 1};
	struct hwprof_event_list l;
	struct sampler s;
	char err[512] = "";

	k.allow_mmap = true;
	k.privileged = true; /* CPU-wide events need root or CAP_PERFMON at paranoid 2 */
	install(&k);
	parse("page-faults,cpu-clock", &l);
	cr_assert_eq(sampler_open(&s, &l, &c, NULL, 0, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(fake_kernel_nopens(), 2, "two events on the one CPU listed");
	cr_assert_eq(s.ncpus, 1);
	for (size_t i = 0; i < 2; i++) {
		const struct fake_kernel_open *o = fake_kernel_open_log(i);

		cr_assert_eq(o->pid, -1, "every task");
		cr_assert_eq(o->cpu, 0);
		cr_assert_not(o->attr.inherit, "a CPU-wide event sees every task already");
		cr_assert_not(o->attr.enable_on_exec);
	}
	cr_assert(fake_kernel_open_log(0)->attr.task && fake_kernel_open_log(0)->attr.mmap2,
		  "the first event takes the side-band records");
	cr_assert_eq(set_outputs, 1, "the second event shares the CPU's ring");
	sampler_close(&s);
	hwprof_events_free(&l);
	fake_kernel_uninstall();
}
