/* test_record_cmd.c - `hwprof record` on a host with a PMU, through the fake kernel: the
 * default miss event, the precise_ip step-down stored in the file, the skid warning, and the
 * counted totals in the trailer. The target is real (/bin/true); the events are fake, so no
 * samples arrive. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "cli.h"
#include "fake_kernel.h"
#include "hwprof/sampfile.h"

static struct hwprof_sys with_set_output;

/* The fake kernel answers PERF_EVENT_IOC_SET_OUTPUT with -ENOTTY; the real one takes it. */
static int fake_ioctl(int fd, unsigned long request, unsigned long arg)
{
	if (request == PERF_EVENT_IOC_SET_OUTPUT)
		return 0;
	return fake_kernel_sys.ioctl(fd, request, arg);
}

static char path[] = "/tmp/hwprof-record-cmd-XXXXXX";

static void install(int max_precise)
{
	struct fake_kernel_config k = fake_kernel_defaults();
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	close(fd);
	k.allow_mmap = true;
	k.max_precise = max_precise;
	k.privileged = true;
	fake_kernel_install(&k);
	with_set_output = fake_kernel_sys;
	with_set_output.ioctl = fake_ioctl;
	hwprof_sys_set(&with_set_output);
	cli_set_prefix("hwprof record");
	cr_redirect_stderr();
}

static struct hwprof_reader *open_file(void)
{
	struct hwprof_reader *r;
	char err[256];

	cr_assert_eq(hwprof_reader_open(&r, path, err, sizeof(err)), 0, "%s", err);
	return r;
}

static void read_stderr(char *buf, size_t len)
{
	FILE *f = cr_get_redirected_stderr();
	size_t n;

	fflush(stderr);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
}

Test(record_cmd, default_event_with_a_pmu_is_a_precise_miss_event)
{
	char *argv[] = {"record", "-o", path, "--", "/bin/true", NULL};
	char err[4096];
	struct hwprof_reader *r;
	const struct hwprof_file_header *h;
	struct hwprof_record rec;

	install(2);
	cr_assert_eq(cmd_record(5, argv), 0);
	read_stderr(err, sizeof(err));
	r = open_file();
	h = hwprof_reader_header(r);
	cr_assert_str_eq(h->events[0].name, "LLC-load-misses:P");
	cr_assert(h->events[0].sampling);
	cr_assert(h->events[0].precise_max);
	cr_assert_eq(h->events[0].precise_obtained, 2, "the step-down found the host's level");
	cr_assert_geq(h->events[0].precise_requested, 2);
	cr_assert(h->events[0].freq);
	cr_assert_eq(h->events[0].period_or_freq, 4000);
	/* The counting group of `hwprof stat` with a PMU, beside the sampling event. */
	cr_assert_eq(h->nevents, 7);
	cr_assert_str_eq(h->events[1].name, "instructions");
	cr_assert_not(h->events[1].sampling);
	while (hwprof_reader_next(r, &rec) == 1)
		;
	cr_assert_eq(hwprof_reader_status(r, NULL), HWPROF_READ_OK);
	const struct hwprof_file_trailer *t = hwprof_reader_trailer(r);
	cr_assert_not_null(t);
	cr_assert_eq(t->exit_status, 0);
	cr_assert_eq(t->ncounts, 6);
	cr_assert(t->counts[0].counted);
	cr_assert_gt(t->counts[0].value, 0);
	cr_assert_gt(t->counts[0].enabled_ns, 0);
	cr_assert_null(strstr(err, "skid"), "%s", err);
	cr_assert(strstr(err, "0 samples"), "summary line: %s", err);
	hwprof_reader_close(r);
	unlink(path);
	fake_kernel_uninstall();
}

Test(record_cmd, hardware_event_without_precise_warns_about_skid)
{
	char *argv[] = {"record",     "-e", "cycles:P",	 "-o", path,
			"--no-count", "--", "/bin/true", NULL};
	char err[4096];
	struct hwprof_reader *r;

	install(0);
	cr_assert_eq(cmd_record(8, argv), 0);
	read_stderr(err, sizeof(err));
	cr_assert(strstr(err, "skid"), "%s", err);
	cr_assert(strstr(err, "refused"), "step-down note: %s", err);
	r = open_file();
	cr_assert_eq(hwprof_reader_header(r)->events[0].precise_obtained, 0);
	cr_assert_eq(hwprof_reader_header(r)->nevents, 1, "--no-count");
	hwprof_reader_close(r);
	unlink(path);
	fake_kernel_uninstall();
}

/* Samples the kernel dropped on a full ring with no LOST record after them (the ring was
 * still full when the target ended) are known only from the event's own PERF_FORMAT_LOST:
 * record writes them as one LOST record (cpu UINT32_MAX), stores each event's count and
 * lost count, and its summary and trailer say them. */
Test(record_cmd, lost_samples_no_lost_record_announced_are_counted)
{
	char *argv[] = {"record", "-e",		"page-faults", "-c",	    "1", "-o",
			path,	  "--no-count", "--",	       "/bin/true", NULL};
	char err[4096], want[64];
	struct hwprof_reader *r;
	struct hwprof_record rec;
	uint64_t lost_recs = 0, ncpu = (uint64_t)sysconf(_SC_NPROCESSORS_ONLN);
	bool ours = false;

	install(3);
	fake_kernel_set_count(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 149);
	fake_kernel_set_lost(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 38);
	cr_assert_eq(cmd_record(10, argv), 0);
	read_stderr(err, sizeof(err));
	snprintf(want, sizeof(want), "0 samples, %llu lost", (unsigned long long)(38 * ncpu));
	cr_assert(strstr(err, want), "summary line: %s", err);
	r = open_file();
	while (hwprof_reader_next(r, &rec) == 1) {
		if (rec.type != HWPROF_REC_LOST)
			continue;
		lost_recs += rec.lost.lost;
		ours |= rec.lost.cpu == UINT32_MAX;
	}
	cr_assert_eq(lost_recs, 38 * ncpu);
	cr_assert(ours, "the LOST record is record's own");
	const struct hwprof_file_trailer *t = hwprof_reader_trailer(r);
	cr_assert_not_null(t);
	cr_assert_eq(t->lost, 38 * ncpu);
	cr_assert_not_null(t->sampled);
	cr_assert(t->sampled[0].count_known && t->sampled[0].lost_known);
	cr_assert_eq(t->sampled[0].count, 149 * ncpu);
	cr_assert_eq(t->sampled[0].lost, 38 * ncpu);
	hwprof_reader_close(r);
	unlink(path);
	fake_kernel_uninstall();
}
