/* The one reader of numbers from /proc and /sys (host.h): $HWPROF_PROC_ROOT, errors. */
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
