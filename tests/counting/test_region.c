/* test_region.c - regions (common/region.c) on the real kernel with software events: exact page
 * faults, nesting, repetition, threads, fork, errors. Each criterion test is its own process,
 * so each sets HWPROF_EVENTS before its first begin. */
#include <criterion/criterion.h>

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hwprof/hwprof.h"

#define PAGE 4096

/* Not instrumented: ASan would fault in its shadow pages too. */
__attribute__((no_sanitize_address)) static void touch_pages(size_t n)
{
	char *p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(p, MAP_FAILED);
	madvise(p, n * PAGE, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < n; i++)
		((volatile char *)p)[i * PAGE] = 1;
	munmap(p, n * PAGE);
}

struct row {
	char region[64], event[64];
	int thread;
	unsigned long long calls, value, enabled, running;
};

/* Writes the report as CSV to a fresh file and reads the rows back. */
static size_t report_rows(struct row *rows, size_t max)
{
	char path[64], line[512];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/hwprof-region-%d.csv", (int)getpid());
	setenv("HWPROF_OUTPUT", path, 1);
	cr_assert_eq(hwprof_region_report(), 0, "%s", hwprof_strerror_last());
	f = fopen(path, "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(line, sizeof(line), f));
	cr_assert_str_eq(line, "region,thread,calls,event,value,enabled_ns,running_ns,scaled,"
			       "counted\n");
	while (n < max && fgets(line, sizeof(line), f)) {
		struct row *r = &rows[n];
		cr_assert_eq(sscanf(line, "%63[^,],%d,%llu,%63[^,],%llu,%llu,%llu", r->region,
				    &r->thread, &r->calls, r->event, &r->value, &r->enabled,
				    &r->running),
			     7, "%s", line);
		n++;
	}
	fclose(f);
	unlink(path);
	/* The exit report would write the same again: keep the test's output quiet. */
	setenv("HWPROF_OUTPUT", "/dev/null", 1);
	return n;
}

static const struct row *find(const struct row *rows, size_t n, const char *region,
			      const char *event, int thread)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].region, region) && !strcmp(rows[i].event, event) &&
		    (thread < 0 || rows[i].thread == thread))
			return &rows[i];
	return NULL;
}

static void near(unsigned long long got, size_t want)
{
	cr_assert(got >= want && got <= want + want / 50 + 2, "%llu, expected %zu (+2%%)", got,
		  want);
}

Test(region, page_faults_exact)
{
	struct row rows[8];
	size_t n;
	const struct row *r;

	setenv("HWPROF_EVENTS", "page-faults,task-clock", 1);
	cr_assert_eq(hwprof_region_begin("touch"), 0, "%s", hwprof_strerror_last());
	touch_pages(3000);
	cr_assert_eq(hwprof_region_end("touch"), 0, "%s", hwprof_strerror_last());
	n = report_rows(rows, 8);
	cr_assert_eq(n, 2);
	r = find(rows, n, "touch", "page-faults", gettid());
	cr_assert_not_null(r);
	cr_assert_eq(r->calls, 1);
	near(r->value, 3000);
	cr_assert_gt(r->enabled, 0);
	cr_assert_eq(r->enabled, r->running, "software events do not multiplex");
}

Test(region, nested_and_repeated_accumulate)
{
	struct row rows[8];
	size_t n;
	const struct row *r;

	setenv("HWPROF_EVENTS", "page-faults", 1);
	cr_assert_eq(hwprof_region_begin("outer"), 0, "%s", hwprof_strerror_last());
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(hwprof_region_begin("inner"), 0);
		touch_pages(500);
		cr_assert_eq(hwprof_region_end("inner"), 0);
	}
	touch_pages(1000);
	cr_assert_eq(hwprof_region_end("inner"), -EINVAL, "inner is closed");
	cr_assert_not_null(strstr(hwprof_strerror_last(), "outer"), "%s", hwprof_strerror_last());
	cr_assert_eq(hwprof_region_end("outer"), 0);
	cr_assert_eq(hwprof_region_end("outer"), -EINVAL, "nothing open");
	cr_assert_eq(hwprof_region_end(NULL), -EINVAL);
	cr_assert_not_null(
	    strstr(hwprof_strerror_last(), "hwprof_region_end(NULL): no region name"), "%s",
	    hwprof_strerror_last());
	cr_assert_eq(hwprof_region_begin(""), -EINVAL);
	cr_assert_eq(hwprof_region_begin(NULL), -EINVAL);

	n = report_rows(rows, 8);
	cr_assert_eq(n, 2);
	r = find(rows, n, "inner", "page-faults", -1);
	cr_assert_eq(r->calls, 4);
	near(r->value, 2000);
	r = find(rows, n, "outer", "page-faults", -1);
	cr_assert_eq(r->calls, 1);
	near(r->value, 3000);
}

struct worker {
	size_t pages;
	pid_t tid;
	int rc;
};

static void *work(void *p)
{
	struct worker *w = p;
	w->tid = gettid();
	w->rc = hwprof_region_begin("work");
	touch_pages(w->pages);
	if (!w->rc)
		w->rc = hwprof_region_end("work");
	return NULL;
}

Test(region, threads_have_their_own_counts)
{
	struct worker w[2] = {{.pages = 400}, {.pages = 1600}};
	pthread_t t[2];
	struct row rows[8];
	size_t n;

	setenv("HWPROF_EVENTS", "page-faults", 1);
	for (int i = 0; i < 2; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, work, &w[i]), 0);
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		cr_assert_eq(w[i].rc, 0);
	}
	n = report_rows(rows, 8);
	cr_assert_eq(n, 2, "one row per thread, kept after the threads ended");
	for (int i = 0; i < 2; i++) {
		const struct row *r = find(rows, n, "work", "page-faults", w[i].tid);
		cr_assert_not_null(r, "thread %d", (int)w[i].tid);
		cr_assert_eq(r->calls, 1);
		/* A new thread also faults in part of its stack: allow 8 pages. */
		cr_assert(r->value >= w[i].pages && r->value <= w[i].pages + w[i].pages / 50 + 8,
			  "%llu for %zu pages", r->value, w[i].pages);
	}
}

Test(region, fork_child_starts_empty)
{
	struct row rows[8];
	int status;
	pid_t pid;

	setenv("HWPROF_EVENTS", "page-faults", 1);
	cr_assert_eq(hwprof_region_begin("parent"), 0);
	pid = fork();
	if (pid == 0) {
		/* The parent's open region is not the child's. */
		if (hwprof_region_end("parent") != -EINVAL)
			_exit(1);
		if (hwprof_region_begin("child") || hwprof_region_end("child"))
			_exit(2);
		setenv("HWPROF_OUTPUT", "/dev/null", 1);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child step %d",
		  WEXITSTATUS(status));
	cr_assert_eq(hwprof_region_end("parent"), 0);
	cr_assert_eq(report_rows(rows, 8), 1);
	cr_assert_str_eq(rows[0].region, "parent");
}

Test(region, bad_events_variable)
{
	setenv("HWPROF_EVENTS", "page-faultz", 1);
	setenv("HWPROF_OUTPUT", "/dev/null", 1);
	cr_assert_eq(hwprof_region_begin("r"), -EINVAL);
	cr_assert_not_null(strstr(hwprof_strerror_last(), "HWPROF_EVENTS"), "%s",
			   hwprof_strerror_last());
	cr_assert_not_null(strstr(hwprof_strerror_last(), "page-faultz"));
	cr_assert_eq(hwprof_region_end("r"), 0, "the region still counts its calls");
}

Test(region, unsupported_event_enoent)
{
	struct hwprof_group *g;

	if (hwprof_group_open(&g, "cycles", 0, -1, 0) == 0) {
		hwprof_group_close(g);
		cr_skip_test("this host has a hardware PMU: cycles opened");
	}
	setenv("HWPROF_EVENTS", "page-faults,cycles", 1);
	setenv("HWPROF_OUTPUT", "/dev/null", 1);
	cr_assert_eq(hwprof_region_begin("r"), -ENOENT);
	cr_assert_not_null(strstr(hwprof_strerror_last(), "cycles"), "%s", hwprof_strerror_last());
	cr_assert_eq(hwprof_region_end("r"), 0);
}

/* The exit report's message when its file cannot be written goes to the log callback, not
 * to stderr; hwprof_set_log(NULL, NULL) brings the default (stderr) back. */
static void log_to_fd(void *arg, const char *msg)
{
	int fd = *(int *)arg;

	dprintf(fd, "[%s]\n", msg);
}

/* Runs a child that ends a region and exits with $HWPROF_OUTPUT unwritable; returns what it
 * wrote to the pipe given to the log callback (USE_LOG) or to its stderr (not USE_LOG). */
static char *exit_report_message(bool use_log)
{
	static char buf[4096];
	static int fd[2];
	ssize_t n, got = 0;
	int status;
	pid_t pid;

	cr_assert_eq(pipe(fd), 0);
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		close(fd[0]);
		if (use_log)
			hwprof_set_log(log_to_fd, &fd[1]);
		else
			dup2(fd[1], 2);
		setenv("HWPROF_EVENTS", "page-faults", 1);
		setenv("HWPROF_OUTPUT", "/nonexistent-dir/regions.csv", 1);
		if (hwprof_region_begin("r") || hwprof_region_end("r"))
			_exit(2);
		exit(0);
	}
	close(fd[1]);
	while ((n = read(fd[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = 0;
	close(fd[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return buf;
}

#define EXIT_MSG                                                                                   \
	"HWPROF_OUTPUT '/nonexistent-dir/regions.csv': No such file or directory (region table "   \
	"follows on stderr)"

Test(region, exit_message_goes_to_the_log_callback)
{
	cr_expect_str_eq(exit_report_message(true), "[" EXIT_MSG "]\n");
}

Test(region, exit_message_default_is_stderr)
{
	const char *want = "hwprof: " EXIT_MSG "\nhwprof regions of pid";
	const char *s = exit_report_message(false);

	cr_expect(!strncmp(s, want, strlen(want)), "%s", s);
}
