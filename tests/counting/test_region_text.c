/* test_region_text.c - the text table of regions (common/region.c) through the fake kernel:
 * the multiplexing legend only when a value carries its '*' (H F21), and kernel work that may
 * not be measured shown as not counted with the reason (H F22). Each criterion test is its own
 * process, so each sets HWPROF_EVENTS before its first begin. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_kernel.h"
#include "hwprof/hwprof.h"

/* The text table written to stderr by hwprof_region_report(). */
static const char *table(void)
{
	static char buf[8192];
	FILE *err;
	size_t n;

	unsetenv("HWPROF_OUTPUT");
	cr_assert_eq(hwprof_region_report(), 0, "%s", hwprof_strerror_last());
	fflush(stderr);
	err = cr_get_redirected_stderr();
	n = fread(buf, 1, sizeof(buf) - 1, err);
	buf[n] = '\0';
	return buf;
}

/* Sets the times of every event a test uses (a group read reports its leader's). */
static void set_times(uint64_t enabled_ns, uint64_t running_ns)
{
	fake_kernel_set_times(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, enabled_ns,
			      running_ns);
	fake_kernel_set_times(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, enabled_ns, running_ns);
}

/* One region over which page-faults rises from 100 to 300 while the counter runs RUNNING_NS of
 * the 1 ms it is enabled. */
static void one_region(uint64_t running_ns)
{
	fake_kernel_set_count(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 100);
	set_times(1000000, 1000000);
	cr_assert_eq(hwprof_region_begin("work"), 0, "%s", hwprof_strerror_last());
	fake_kernel_set_count(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 300);
	set_times(2000000, 1000000 + running_ns);
	cr_assert_eq(hwprof_region_end("work"), 0, "%s", hwprof_strerror_last());
}

Test(region_text, no_legend_without_a_marked_value, .init = cr_redirect_stderr)
{
	const char *t;

	setenv("HWPROF_EVENTS", "page-faults", 1);
	fake_kernel_install(NULL);
	one_region(1000000);
	t = table();
	cr_assert_not_null(strstr(t, " 200 "), "%s", t);
	cr_assert_null(strstr(t, "multiplexed"), "%s", t);
	cr_assert_null(strchr(t, '*'), "%s", t);
}

Test(region_text, legend_when_a_value_is_marked, .init = cr_redirect_stderr)
{
	const char *t;

	setenv("HWPROF_EVENTS", "page-faults", 1);
	fake_kernel_install(NULL);
	/* Running half the time: 300 * 1.5/2 - 100 = 125 read, scaled by 2 to 250. */
	one_region(500000);
	t = table();
	cr_assert_not_null(strstr(t, " 250*"), "%s", t);
	cr_assert_not_null(strstr(t, "* multiplexed: counted under 90% of the time, scaled"), "%s",
			   t);
}

Test(region_text, kernel_work_not_counted_with_the_reason, .init = cr_redirect_stderr)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	const char *t;

	unsetenv("HWPROF_EVENTS"); /* the default set of a host without a PMU */
	cfg.has_pmu = false;	   /* and perf_event_paranoid 2, unprivileged */
	fake_kernel_install(&cfg);
	one_region(1000000);
	t = table();
	cr_assert_not_null(strstr(t, "context-switches:u: not counted (kernel work; needs "
				     "perf_event_paranoid <= 1 or CAP_PERFMON)"),
			   "%s", t);
	cr_assert_not_null(strstr(t, "cpu-migrations:u: not counted (kernel work;"), "%s", t);
	cr_assert_not_null(strstr(t, "not counted  "), "a cell says it: %s", t);
	cr_assert_not_null(strstr(t, " 200 "), "page-faults still counted: %s", t);
}

/* A region name of 100,000 characters was printed whole: cut to the widest column (40) with
 * an ellipsis, and the columns after it stay in line with the header's. */
Test(region_text, long_name_cut_with_an_ellipsis, .init = cr_redirect_stderr)
{
	static char name[100001];
	const char *t, *row, *head;

	setenv("HWPROF_EVENTS", "page-faults", 1);
	fake_kernel_install(NULL);
	memset(name, 'n', sizeof(name) - 1);
	cr_assert_eq(hwprof_region_begin(name), 0, "%s", hwprof_strerror_last());
	cr_assert_eq(hwprof_region_end(name), 0, "%s", hwprof_strerror_last());
	cr_assert_eq(hwprof_region_begin("short"), 0, "%s", hwprof_strerror_last());
	cr_assert_eq(hwprof_region_end("short"), 0, "%s", hwprof_strerror_last());
	t = table();
	cr_assert(strlen(t) < 2000, "%zu bytes: %.300s", strlen(t), t);
	row = strstr(t, "  nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn\u2026 ");
	cr_assert_not_null(row, "%s", t);
	head = strstr(t, "  region");
	cr_assert_not_null(head, "%s", t);
	/* "thread" ends where the tid ends: 2 + 40 + 1 + 8 columns in. */
	cr_expect(!strncmp(head + 2 + 40 + 1 + 2, "thread", 6), "%s", t);
	cr_assert_not_null(strstr(t, "  short                                    "), "%s", t);
}
