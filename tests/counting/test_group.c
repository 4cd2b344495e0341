/* test_group.c - counting groups (common/group.c): exact software counts on the real kernel,
 * scaling, multiplexing, the old-kernel path and errors through the fake kernel. */
#include <criterion/criterion.h>

#include <errno.h>
#include <linux/perf_event.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_kernel.h"
#include "hwprof/hwprof.h"

#define PAGE 4096

/* Touches N fresh anonymous pages: exactly N minor page faults (no THP: MADV_NOHUGEPAGE). Not
 * instrumented: ASan's checks would fault in one shadow page per 8 pages touched. */
__attribute__((no_sanitize_address)) static void touch_pages(size_t n)
{
	char *p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(p, MAP_FAILED);
	madvise(p, n * PAGE, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < n; i++)
		((volatile char *)p)[i * PAGE] = 1;
	munmap(p, n * PAGE);
}

Test(group, page_faults_exact_on_real_kernel)
{
	struct hwprof_group *g;
	struct hwprof_count c[2];
	const size_t n = 5000;

	cr_assert_eq(
	    hwprof_group_open(&g, "{page-faults,task-clock}", 0, -1, HWPROF_GROUP_START_DISABLED),
	    0, "%s", hwprof_strerror_last());
	cr_assert_eq(hwprof_group_size(g), 2);
	cr_assert_eq(hwprof_group_read(g, c, 2), 0);
	cr_assert_eq(c[0].value, 0, "zero before enable");
	cr_assert_not(c[0].counted, "never enabled: not counted");
	cr_assert_eq(hwprof_group_enable(g), 0);
	touch_pages(n);
	cr_assert_eq(hwprof_group_disable(g), 0);
	cr_assert_eq(hwprof_group_read(g, c, 2), 0);
	cr_assert(c[0].counted);
	cr_assert(c[0].value >= n && c[0].value <= n + n / 50, "page-faults %llu for %zu pages",
		  (unsigned long long)c[0].value, n);
	cr_assert_eq(c[0].ratio, 1.0);
	cr_assert_eq(c[0].scaled, (double)c[0].value);
	cr_assert_eq(c[0].enabled_ns, c[1].enabled_ns, "group read: one set of times");
	cr_assert_gt(c[1].value, 0, "task-clock ran");
	cr_assert_not(hwprof_group_read_one_by_one(g));
	cr_assert_eq(hwprof_group_read(g, c, 1), -ENOSPC);
	hwprof_group_close(g);
	hwprof_group_close(NULL);
}

Test(group, unsupported_event_names_it)
{
	struct hwprof_group *g = (void *)1;
	struct fake_kernel_config cfg = fake_kernel_defaults();

	cfg.has_pmu = false;
	fake_kernel_install(&cfg);
	cr_assert_eq(hwprof_group_open(&g, "page-faults,LLC-load-misses", 0, -1, 0), -ENOENT);
	cr_assert_null(g);
	cr_assert_not_null(strstr(hwprof_strerror_last(), "LLC-load-misses"), "%s",
			   hwprof_strerror_last());
	cr_assert_not_null(strstr(hwprof_strerror_last(), "not supported"), "%s",
			   hwprof_strerror_last());
	cr_assert_eq(fake_kernel_nfds_open(), 0, "the open page-faults fd was closed again");
	fake_kernel_uninstall();
}

Test(group, real_host_without_pmu_gives_enoent)
{
	struct hwprof_group *g;
	int r = hwprof_group_open(&g, "cycles", 0, -1, 0);

	if (r == 0) {
		hwprof_group_close(g);
		cr_skip_test("this host has a hardware PMU: cycles opened");
	}
	cr_assert_eq(r, -ENOENT, "%d: %s", r, hwprof_strerror_last());
	cr_assert_not_null(strstr(hwprof_strerror_last(), "cycles"), "%s", hwprof_strerror_last());
}

Test(group, malformed_spec)
{
	struct hwprof_group *g;

	cr_assert_eq(hwprof_group_open(&g, "{page-faults", 0, -1, 0), -EINVAL);
	cr_assert_not_null(strstr(hwprof_strerror_last(), "{"), "%s", hwprof_strerror_last());
	cr_assert_eq(hwprof_group_open(&g, "cyclez", 0, -1, 0), -EINVAL);
	cr_assert_not_null(strstr(hwprof_strerror_last(), "cyclez"), "%s", hwprof_strerror_last());
}

/* Counts read(2) calls through the fake kernel. */
static int nreads;
static ssize_t counting_read(int fd, void *buf, size_t len)
{
	nreads++;
	return fake_kernel_sys.read(fd, buf, len);
}

Test(group, multiplexing_scaled_per_event)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	struct hwprof_sys sys;
	struct hwprof_group *g;
	struct hwprof_count c[6];

	cfg.nr_counters = 4;
	fake_kernel_install(&cfg);
	sys = fake_kernel_sys;
	sys.read = counting_read;
	hwprof_sys_set(&sys);
	fake_kernel_set_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 3000000);
	fake_kernel_set_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 2000000);
	fake_kernel_set_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 60000);
	fake_kernel_set_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 600000);
	fake_kernel_set_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 9000);
	fake_kernel_set_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 300000);
	/* Six hardware events on four counters: each runs 4/6 of the time. */
	cr_assert_eq(hwprof_group_open(&g,
				       "{instructions,cycles},{cache-references,cache-misses},"
				       "{branches,branch-misses}",
				       0, -1, 0),
		     0, "%s", hwprof_strerror_last());
	cr_assert_eq(hwprof_group_read(g, c, 6), 0);
	cr_assert_eq(nreads, 3, "one read(2) per kernel group");
	/* running = 1e9 * 4/6 = 666666666 ns; value = 3000000 * running / enabled = 1999999. */
	cr_assert_eq(c[0].value, 1999999, "%llu", (unsigned long long)c[0].value);
	cr_assert_eq(c[0].enabled_ns, 1000000000);
	cr_assert_eq(c[0].running_ns, 666666666);
	cr_assert_float_eq(c[0].ratio, 0.666666666, 1e-12);
	cr_assert_float_eq(c[0].scaled, 1999999.0 * 1000000000 / 666666666, 1e-6);
	cr_assert_float_eq(c[0].scaled, 3000000, 5);
	cr_assert_float_eq(c[1].scaled, 2000000, 5);
	/* The fake truncates value = count * running / enabled: off by under one raw count. */
	cr_assert_float_eq(c[3].scaled, 60000, 2);
	cr_assert_float_eq(c[5].scaled, 9000, 2);
	for (int i = 0; i < 6; i++)
		cr_assert(c[i].counted);
	hwprof_group_close(g);
	cr_assert_eq(fake_kernel_nfds_open(), 0);
	fake_kernel_uninstall();
}

Test(group, each_event_by_its_own_times)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	struct hwprof_group *g;
	struct hwprof_count c[3];

	fake_kernel_install(&cfg);
	fake_kernel_set_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1000);
	fake_kernel_set_times(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 400, 100);
	fake_kernel_set_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1000);
	fake_kernel_set_times(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 400, 400);
	fake_kernel_set_times(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 400, 0);
	cr_assert_eq(hwprof_group_open(&g, "cycles,instructions,branch-misses", 0, -1, 0), 0);
	cr_assert_eq(hwprof_group_read(g, c, 3), 0);
	/* cycles: read 1000*100/400 = 250, scaled back by 400/100 = 1000, ratio 0.25. */
	cr_assert_eq(c[0].value, 250);
	cr_assert_float_eq(c[0].scaled, 1000, 1e-9);
	cr_assert_float_eq(c[0].ratio, 0.25, 1e-12);
	cr_assert_float_eq(c[1].scaled, 1000, 1e-9);
	cr_assert_eq(c[1].ratio, 1.0);
	cr_assert_not(c[2].counted, "running 0: not counted");
	cr_assert_eq(c[2].scaled, 0);
	hwprof_group_close(g);
	fake_kernel_uninstall();
}

Test(group, scale_math_by_hand)
{
	struct hwprof_count c = {.value = 1234, .enabled_ns = 3000, .running_ns = 1000};

	hwprof_count_scale(&c, 6.103515625e-5); /* uncore_imc cas_count: 64 B in MiB */
	cr_assert_float_eq(c.scaled, 1234 * 3 * 6.103515625e-5, 1e-12);
	cr_assert_float_eq(c.ratio, 1.0 / 3, 1e-12);
	c = (struct hwprof_count){.value = 10, .enabled_ns = 100, .running_ns = 101};
	hwprof_count_scale(&c, 1.0);
	cr_assert_eq(c.scaled, 10.0, "running above enabled never scales down");
	cr_assert_eq(c.ratio, 1.0);
}

/* The one multiplexing flag: counted, and running under HWPROF_MULTIPLEX_FLAG of enabled. */
Test(group, multiplexed_under_ninety_percent)
{
	struct hwprof_count c = {.value = 10, .enabled_ns = 1000, .running_ns = 899};

	cr_assert_float_eq(HWPROF_MULTIPLEX_FLAG, 0.90, 1e-12);
	hwprof_count_scale(&c, 1.0);
	cr_expect(hwprof_count_multiplexed(&c), "ran 89.9%%");
	c = (struct hwprof_count){.value = 10, .enabled_ns = 1000, .running_ns = 900};
	hwprof_count_scale(&c, 1.0);
	cr_expect(!hwprof_count_multiplexed(&c), "ran 90%%: not flagged");
	c = (struct hwprof_count){.value = 0, .enabled_ns = 1000, .running_ns = 0};
	hwprof_count_scale(&c, 1.0);
	cr_expect(!hwprof_count_multiplexed(&c), "never ran: not counted, not multiplexed");
	cr_expect(!hwprof_count_multiplexed(NULL));
}

Test(group, old_kernel_inherit_group_read_one_by_one)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	struct hwprof_group *g;
	struct hwprof_count c[2];
	bool saw_einval = false;

	cfg.old_kernel_inherit_group = true;
	fake_kernel_install(&cfg);
	fake_kernel_set_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 7000);
	fake_kernel_set_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 5000);
	cr_assert_eq(hwprof_group_open(&g, "{instructions,cycles}", 0, -1, HWPROF_GROUP_INHERIT), 0,
		     "%s", hwprof_strerror_last());
	cr_assert(hwprof_group_read_one_by_one(g));
	for (size_t i = 0; i < fake_kernel_nopens(); i++) {
		const struct fake_kernel_open *o = fake_kernel_open_log(i);
		if (o->result == -EINVAL)
			saw_einval = true;
		if (o->result >= 0) {
			cr_assert_eq(o->attr.read_format & PERF_FORMAT_GROUP, 0);
			cr_assert(o->attr.inherit);
		}
	}
	cr_assert(saw_einval);
	cr_assert_eq(hwprof_group_read(g, c, 2), 0);
	cr_assert_eq(c[0].value, 7000);
	cr_assert_eq(c[1].value, 5000);
	hwprof_group_close(g);

	/* Without inherit the same kernel accepts PERF_FORMAT_GROUP. */
	cr_assert_eq(hwprof_group_open(&g, "{instructions,cycles}", 0, -1, 0), 0);
	cr_assert_not(hwprof_group_read_one_by_one(g));
	hwprof_group_close(g);
	fake_kernel_uninstall();
}

Test(group, enable_disable_reset_through_the_leader)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	struct hwprof_group *g;
	struct hwprof_count c[2];

	fake_kernel_install(&cfg);
	cr_assert_eq(
	    hwprof_group_open(&g, "{instructions,cycles}", 0, -1, HWPROF_GROUP_START_DISABLED), 0);
	cr_assert_eq(fake_kernel_open_log(0)->attr.disabled, 1);
	cr_assert_eq(fake_kernel_open_log(0)->attr.read_format,
		     PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID);
	cr_assert_eq(fake_kernel_open_log(1)->group_fd, fake_kernel_open_log(0)->result);
	cr_assert_eq(hwprof_group_read(g, c, 2), 0);
	cr_assert_not(c[0].counted);
	cr_assert_eq(hwprof_group_enable(g), 0);
	cr_assert_eq(hwprof_group_read(g, c, 2), 0);
	cr_assert_eq(c[0].value, 1000000);
	cr_assert_eq(hwprof_group_disable(g), 0);
	cr_assert_eq(hwprof_group_reset(g), 0);
	cr_assert_eq(hwprof_group_read(g, c, 2), 0);
	cr_assert_eq(c[0].value, 0, "reset while disabled reads 0");
	hwprof_group_close(g);
	fake_kernel_uninstall();
}

Test(group, enable_on_exec_and_pinned_on_the_leader_only)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	struct hwprof_group *g;

	fake_kernel_install(&cfg);
	cr_assert_eq(hwprof_group_open(&g, "{instructions,cycles}", getpid(), -1,
				       HWPROF_GROUP_ENABLE_ON_EXEC | HWPROF_GROUP_PINNED |
					   HWPROF_GROUP_INHERIT),
		     0);
	cr_assert(fake_kernel_open_log(0)->attr.enable_on_exec);
	cr_assert(fake_kernel_open_log(0)->attr.pinned);
	cr_assert(fake_kernel_open_log(0)->attr.inherit);
	cr_assert_not(fake_kernel_open_log(1)->attr.enable_on_exec);
	cr_assert_not(fake_kernel_open_log(1)->attr.disabled);
	cr_assert(fake_kernel_open_log(1)->attr.inherit);
	cr_assert_eq(fake_kernel_nioctls() > 0 &&
			 fake_kernel_ioctl_log(fake_kernel_nioctls() - 1)->request ==
			     PERF_EVENT_IOC_ENABLE,
		     0, "not enabled before exec");
	hwprof_group_close(g);
	fake_kernel_uninstall();
}

Test(group, emfile)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	struct hwprof_group *g;

	cfg.max_fds = 2;
	fake_kernel_install(&cfg);
	cr_assert_eq(hwprof_group_open(&g, "instructions,cycles,branches", 0, -1, 0), -EMFILE);
	cr_assert_not_null(strstr(hwprof_strerror_last(), "branches"), "%s",
			   hwprof_strerror_last());
	cr_assert_eq(fake_kernel_nfds_open(), 0);
	fake_kernel_uninstall();
}

/* Writes a fixture /proc with perf_event_paranoid = LEVEL; returns its root. */
static const char *proc_fixture(int level)
{
	static char root[64];

	snprintf(root, sizeof(root), "/tmp/hwprof-proc-%d-%d", (int)getpid(), level);
	cr_assert_eq(fake_proc_write(root, level, 0), 0);
	return root;
}

Test(group, paranoid_levels_through_the_fake)
{
	static const struct {
		int level;
		const char *spec;
	} cases[] = {
	    {2, "cycles:k"}, /* kernel profiling refused at 2 */
	    {3, "cycles"},   /* everything refused at 3 (Debian) */
	    {4, "page-faults"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake_kernel_config cfg = fake_kernel_defaults();
		struct hwprof_group *g;
		char lv[16];

		cfg.paranoid = cases[i].level;
		fake_kernel_install(&cfg);
		setenv("HWPROF_PROC_ROOT", proc_fixture(cases[i].level), 1);
		cr_assert_eq(hwprof_group_open(&g, cases[i].spec, 0, -1, 0), -EACCES);
		snprintf(lv, sizeof(lv), "%d", cases[i].level);
		cr_assert_not_null(strstr(hwprof_strerror_last(), "perf_event_paranoid"), "%s",
				   hwprof_strerror_last());
		cr_assert_not_null(strstr(hwprof_strerror_last(), lv), "level %s: %s", lv,
				   hwprof_strerror_last());
		cr_assert(strstr(hwprof_strerror_last(), "CAP_PERFMON") ||
			      strstr(hwprof_strerror_last(), "sysctl"),
			  "a fix: %s", hwprof_strerror_last());
		fake_kernel_uninstall();
	}
	unsetenv("HWPROF_PROC_ROOT");
	{
		char cmd[96];
		snprintf(cmd, sizeof(cmd), "rm -rf /tmp/hwprof-proc-%d-*", (int)getpid());
		cr_assert_eq(system(cmd), 0);
	}
}

/* For real: drop to `nobody` in a child and open a kernel-mode event. */
Test(group, paranoid_for_real_as_nobody)
{
	struct passwd *pw = getpwnam("nobody");
	int level = hwprof_paranoid(), status;
	pid_t pid;

	if (geteuid() != 0 || !pw)
		cr_skip_test("cannot drop privileges (not root, or no user 'nobody')");
	if (level < 2)
		cr_skip_test("perf_event_paranoid is %d here: kernel counting is allowed", level);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct hwprof_group *g;
		char lv[16];
		int r;
		if (setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0)
			_exit(3);
		r = hwprof_group_open(&g, "page-faults:k", 0, -1, 0);
		snprintf(lv, sizeof(lv), "%d", level);
		if (r != -EACCES)
			_exit(4);
		if (!strstr(hwprof_strerror_last(), "perf_event_paranoid") ||
		    !strstr(hwprof_strerror_last(), lv))
			_exit(5);
		/* User-space counting stays allowed at level 2. */
		if (level == 2) {
			if (hwprof_group_open(&g, "page-faults", 0, -1, 0) != 0)
				_exit(6);
			hwprof_group_close(g);
		}
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	cr_assert_eq(WEXITSTATUS(status), 0, "child step %d failed", WEXITSTATUS(status));
}

Test(group, default_spec_per_host)
{
	cr_assert_str_eq(hwprof_count_default_spec(true),
			 "{instructions,cycles},{cache-references,cache-misses},"
			 "{branches,branch-misses}");
	cr_assert_not_null(strstr(hwprof_count_default_spec(false), "page-faults"));
	cr_assert_not_null(strstr(hwprof_count_default_spec(false), "task-clock"));
}

/* H F22/F31: context switches and migrations are kernel work; counted user-only they read 0
 * whatever happened. The group reports them as not counted, with a reason that fits the host. */
Test(group, kernel_work_counted_user_only_is_not_counted)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	struct hwprof_group *g;
	struct hwprof_count c[3];

	cfg.has_pmu = false; /* paranoid 2, unprivileged: the kernel may not be measured */
	fake_kernel_install(&cfg);
	fake_kernel_set_count(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 70);
	cr_assert_not(hwprof_kernel_countable());
	cr_assert_str_eq(hwprof_count_default_spec(false),
			 "{task-clock,context-switches,cpu-migrations,page-faults}");
	cr_assert_eq(
	    hwprof_group_open(&g, "{context-switches,cpu-migrations,page-faults}", 0, -1, 0), 0,
	    "%s", hwprof_strerror_last());
	cr_assert_eq(hwprof_group_read(g, c, 3), 0);
	cr_assert_not(c[0].counted, "context-switches user-only: not counted, not 0");
	cr_assert_not(c[1].counted, "cpu-migrations user-only: not counted, not 0");
	cr_assert(c[2].counted);
	cr_assert_eq(c[2].scaled, 70.0);
	cr_assert_str_eq(hwprof_count_why_not(hwprof_group_event(g, 0)),
			 "kernel work; needs perf_event_paranoid <= 1 or CAP_PERFMON");
	cr_assert_null(hwprof_count_why_not(hwprof_group_event(g, 2)));
	hwprof_group_close(g);
	fake_kernel_uninstall();

	/* Allowed to measure the kernel: the default counts both modes, as perf's does; a
	 * user-only spelling still cannot count, and the reason says how to fix the spec. */
	cfg.privileged = true;
	fake_kernel_install(&cfg);
	cr_assert(hwprof_kernel_countable());
	cr_assert_str_eq(hwprof_count_default_spec(false),
			 "{task-clock,context-switches:uk,cpu-migrations:uk,page-faults}");
	fake_kernel_set_count(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 39);
	cr_assert_eq(hwprof_group_open(
			 &g, "context-switches:uk,context-switches:u,context-switches", 0, -1, 0),
		     0, "%s", hwprof_strerror_last());
	cr_assert_eq(hwprof_group_read(g, c, 3), 0);
	cr_assert(c[0].counted);
	cr_assert_eq(c[0].scaled, 39.0);
	cr_assert_null(hwprof_count_why_not(hwprof_group_event(g, 0)));
	cr_assert_not(c[1].counted);
	cr_assert_str_eq(hwprof_count_why_not(hwprof_group_event(g, 1)),
			 "kernel work, counted user-only (count it with :uk)");
	cr_assert(c[2].counted, "no modifier: the kernel too");
	cr_assert_eq(c[2].scaled, 39.0);
	hwprof_group_close(g);
	fake_kernel_uninstall();
}

Test(group, null_arguments_are_einval_not_a_crash)
{
	struct hwprof_group *g = NULL;
	struct hwprof_count c = {0};

	cr_assert_eq(hwprof_group_open(NULL, "task-clock", 0, -1, 0), -EINVAL);
	cr_assert_eq(hwprof_group_open_list(NULL, NULL, 0, -1, 0), -EINVAL);
	cr_assert_eq(hwprof_group_enable(NULL), -EINVAL);
	cr_assert_not_null(strstr(hwprof_strerror_last(), "PERF_EVENT_IOC_ENABLE"));
	cr_assert_eq(hwprof_group_disable(NULL), -EINVAL);
	cr_assert_eq(hwprof_group_reset(NULL), -EINVAL);
	cr_assert_eq(hwprof_group_read(NULL, &c, 1), -EINVAL);
	cr_assert_eq(hwprof_group_size(NULL), 0);
	cr_assert_null(hwprof_group_event(NULL, 0));
	hwprof_count_scale(NULL, 1.0);
	hwprof_group_close(NULL);
	cr_assert_eq(hwprof_group_open(&g, NULL, 0, -1, 0), -EINVAL);
	cr_assert_null(g);
}

Test(group, bad_flags_pid_and_cpu_are_named)
{
	struct hwprof_group *g = NULL;
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);

	cr_assert_eq(hwprof_group_open(&g, "task-clock", 0, -1, 0xff00), -EINVAL);
	cr_assert_not_null(strstr(hwprof_strerror_last(), "unknown flags 0xff00"));
	cr_assert_eq(hwprof_group_open(&g, "task-clock", -1, -1, 0), -EINVAL);
	cr_assert_not_null(strstr(hwprof_strerror_last(), "needs a CPU"));
	cr_assert_eq(hwprof_group_open(&g, "task-clock", 0, (int)ncpus, 0), -EINVAL);
	cr_assert_not_null(strstr(hwprof_strerror_last(), "does not exist"), "%s",
			   hwprof_strerror_last());
	cr_assert_null(g);
	/* The real kernel: the calling thread on its last CPU opens. */
	cr_assert_eq(hwprof_group_open(&g, "task-clock", 0, (int)ncpus - 1, 0), 0, "%s",
		     hwprof_strerror_last());
	hwprof_group_close(g);
}
