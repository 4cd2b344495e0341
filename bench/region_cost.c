/* region_cost.c - what a libhwprof region costs: ns per hwprof_region_begin/end pair, next to
 * one hwprof_group_read() and one plain read(2) of the same kernel group.
 *
 *   region_cost [ITERATIONS]        (events: $HWPROF_EVENTS, default as `hwprof stat`)
 *
 * A begin/end pair reads the group twice, so it costs at least two read(2) calls; the rest is
 * the library's bookkeeping (per-thread lookup, the region's accumulator, a mutex).
 */
#include <hwprof/hwprof.h>

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Opens the first kernel group of SPEC by hand (perf_event_open(2), PERF_FORMAT_GROUP) and
 * returns the leader's fd, or -1. */
static int open_raw(const char *spec, size_t *nmembers)
{
	struct hwprof_event_list list = {0};
	char err[256];
	int leader = -1;

	*nmembers = 0;
	if (hwprof_events_parse(spec, &list, err, sizeof(err)) < 0) {
		fprintf(stderr, "region_cost: %s\n", err);
		return -1;
	}
	for (size_t i = 0; i < list.n && list.ev[i].group == list.ev[0].group; i++) {
		struct perf_event_attr attr;
		int fd;
		hwprof_event_to_attr(&list.ev[i], &attr);
		attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
		fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, leader, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			perror("region_cost: perf_event_open");
			break;
		}
		if (leader < 0)
			leader = fd;
		(*nmembers)++;
	}
	hwprof_events_free(&list);
	return leader;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 0) : 200000;
	const char *spec = getenv("HWPROF_EVENTS");
	struct hwprof_group *g;
	struct hwprof_count c[64];
	uint64_t buf[3 + 2 * 64];
	size_t nraw;
	double t0, raw, lib, pair;
	int fd;

	if (n < 1)
		n = 1;
	if (!spec || !*spec)
		spec = hwprof_count_default_spec(hwprof_host_has_pmu());
	/* The region table at exit is not what this program measures. */
	setenv("HWPROF_OUTPUT", "/dev/null", 0);

	fd = open_raw(spec, &nraw);
	if (fd < 0)
		return 1;
	/* Warm up caches and the CPU's frequency before the first timed loop. */
	for (long i = 0; i < n / 4 + 1; i++)
		if (read(fd, buf, sizeof(buf)) < 0)
			return perror("region_cost: read"), 1;
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		if (read(fd, buf, sizeof(buf)) < 0)
			return perror("region_cost: read"), 1;
	raw = (now_ns() - t0) / (double)n;

	if (hwprof_group_open(&g, spec, 0, -1, 0) < 0) {
		fprintf(stderr, "region_cost: %s\n", hwprof_strerror_last());
		return 1;
	}
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		hwprof_group_read(g, c, 64);
	lib = (now_ns() - t0) / (double)n;

	if (hwprof_region_begin("warm-up") < 0 || hwprof_region_end("warm-up") < 0) {
		fprintf(stderr, "region_cost: %s\n", hwprof_strerror_last());
		return 1;
	}
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		hwprof_region_begin("r");
		hwprof_region_end("r");
	}
	pair = (now_ns() - t0) / (double)n;

	printf("events: %s (%zu in the first group, %zu in all)\n", spec, nraw,
	       hwprof_group_size(g));
	printf("iterations: %ld\n", n);
	printf("read(2) of one group            %8.0f ns\n", raw);
	printf("hwprof_group_read (all groups)  %8.0f ns\n", lib);
	printf("region begin/end pair           %8.0f ns\n", pair);
	hwprof_group_close(g);
	close(fd);
	return 0;
}
