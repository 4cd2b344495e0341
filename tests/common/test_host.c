/* The one reader of numbers from /proc and /sys (host.h): $HWPROF_PROC_ROOT, errors; the CPU
 * model from /proc/cpuinfo under it. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host.h"

static char root[64];

/* A fixture /proc with sys/kernel/NAME holding TEXT. */
static void fixture(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	if (!root[0]) {
		snprintf(root, sizeof(root), "/tmp/hwprof-proc-%d", (int)getpid());
		snprintf(path, sizeof(path), "mkdir -p %s/sys/kernel", root);
		cr_assert_eq(system(path), 0);
	}
	snprintf(path, sizeof(path), "%s/sys/kernel/%s", root, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

Test(host, proc_numbers_come_from_the_proc_root)
{
	long long v = 0;

	fixture("perf_event_max_sample_rate", "25000\n");
	fixture("garbage", "none\n");
	setenv("HWPROF_PROC_ROOT", root, 1);
	cr_expect_eq(hwprof_read_number("/proc/sys/kernel/perf_event_max_sample_rate", &v), 0);
	cr_expect_eq(v, 25000);
	cr_expect_eq(hwprof_read_number("/proc/sys/kernel/garbage", &v), -EINVAL);
	cr_expect_eq(hwprof_read_number("/proc/sys/kernel/missing", &v), -ENOENT);
	unsetenv("HWPROF_PROC_ROOT");
	cr_expect_eq(hwprof_read_number("/proc/sys/kernel/garbage", &v), -ENOENT,
		     "without the root, the real /proc");
}

/* The CPU model is read under the root too: the header of a recording made in a test names
 * the fixture's CPU, not the host's. */
Test(host, the_cpu_model_comes_from_the_proc_root)
{
	char path[256], model[128];
	FILE *f;

	fixture("unused", "0\n");
	snprintf(path, sizeof(path), "%s/cpuinfo", root);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Fixture CPU @ 1GHz\n", f);
	fclose(f);
	setenv("HWPROF_PROC_ROOT", root, 1);
	cr_expect_eq(hwprof_host_cpu_model(model, sizeof(model)), 0);
	cr_expect_str_eq(model, "Fixture CPU @ 1GHz");
	unsetenv("HWPROF_PROC_ROOT");
}

Test(host, other_paths_are_read_as_given)
{
	char path[128];
	long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/hwprof-num-%d", (int)getpid());
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("-3 trailing\n", f);
	fclose(f);
	setenv("HWPROF_PROC_ROOT", "/nonexistent", 1);
	cr_expect_eq(hwprof_read_number(path, &v), 0);
	cr_expect_eq(v, -3);
	unlink(path);
}

/* The kernel's cpulist format, as /sys/devices/system/cpu/online and record -C write it. */
Test(host, cpulist_ranges_singles_and_errors)
{
	int *cpus = NULL;

	cr_assert_eq(hwprof_cpulist_parse("0-3,8,10-11\n", &cpus), 7);
	int want[] = {0, 1, 2, 3, 8, 10, 11};
	for (int i = 0; i < 7; i++)
		cr_assert_eq(cpus[i], want[i]);
	free(cpus);
	cr_assert_eq(hwprof_cpulist_parse("5", &cpus), 1);
	cr_assert_eq(cpus[0], 5);
	free(cpus);
	cr_assert_eq(hwprof_cpulist_parse("0-65535", &cpus), 65536, "the largest CPU number");
	free(cpus);
	const char *bad[] = {"",   "\n",  "a",	   "1-",    "-1",  "3-1",   "1,,2",
			     "1,", "1,1", "0-2,2", "65536", "1 2", "1\n\n", "99999999999999999999"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(hwprof_cpulist_parse(bad[i], &cpus), -EINVAL, "'%s'", bad[i]);
		cr_assert_null(cpus);
	}
}
