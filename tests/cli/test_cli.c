/* The CLI's one reporter (cli.h): message shapes, the errno variants and the exit codes. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "hwprof/event.h"
#include "hwprof/hwprof.h"

static void redirect(void)
{
	cr_redirect_stderr();
	cli_set_prefix("hwprof test");
}

Test(cli, error_returns_minus_one, .init = redirect)
{
	cr_expect_eq(error("%s: bad", "x"), -1);
	fflush(stderr);
	cr_expect_stderr_eq_str("hwprof test: error: x: bad\n");
}

Test(cli, error_errno_names_the_cause_where_m_stands, .init = redirect)
{
	errno = EINTR;
	cr_expect_eq(error_errno(ENOENT, "%s: %m (choose another with -o)", "out"), -1);
	cr_expect_eq(errno, EINTR, "error_errno keeps the caller's errno");
	fflush(stderr);
	cr_expect_stderr_eq_str(
	    "hwprof test: error: out: No such file or directory (choose another with -o)\n");
}

Test(cli, error_errno_takes_a_library_minus_errno, .init = redirect)
{
	error_errno(-EACCES, "open: %m");
	fflush(stderr);
	cr_expect_stderr_eq_str("hwprof test: error: open: Permission denied\n");
}

Test(cli, warning_errno_says_warning, .init = redirect)
{
	warning_errno(-EMFILE, "counts: %m (recording samples only)");
	fflush(stderr);
	cr_expect_stderr_eq_str(
	    "hwprof test: warning: counts: Too many open files (recording samples only)\n");
}

Test(cli, error_status_returns_the_exit_status, .init = redirect)
{
	cr_expect_eq(error_status(EXIT_FATAL, "-p %d: gone", 7), EXIT_FATAL);
	cr_expect_eq(error_status(EXIT_NOT_EXECUTED, "nope"), 127);
	fflush(stderr);
	cr_expect_stderr_eq_str("hwprof test: error: -p 7: gone\nhwprof test: error: nope\n");
}

Test(cli, error_errno_status_returns_the_exit_status, .init = redirect)
{
	cr_expect_eq(error_errno_status(EXIT_FATAL, ESRCH, "-p 7: %m"), EXIT_FATAL);
	fflush(stderr);
	cr_expect_stderr_eq_str("hwprof test: error: -p 7: No such process\n");
}

/* Runs FN in a child with stderr on a pipe; returns the first line it wrote and sets
 * *STATUS to its exit status. */
static char *in_child(void (*fn)(void), int *status)
{
	static char buf[512];
	int fd[2], ws;
	ssize_t n, got = 0;
	pid_t pid;

	cr_assert_eq(pipe(fd), 0);
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		dup2(fd[1], 2);
		close(fd[0]);
		cli_set_prefix("hwprof test");
		fn();
		_exit(99);
	}
	close(fd[1]);
	while ((n = read(fd[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = 0;
	/* Only the first line: LeakSanitizer may add its own in a child of a threaded runner. */
	if (strchr(buf, '\n'))
		strchr(buf, '\n')[1] = 0;
	close(fd[0]);
	cr_assert_eq(waitpid(pid, &ws, 0), pid);
	cr_assert(WIFEXITED(ws));
	*status = WEXITSTATUS(ws);
	return buf;
}

static void call_die(void)
{
	die("out of memory");
}

static void call_die_errno(void)
{
	die_errno(-ENOMEM, "allocating: %m");
}

Test(cli, die_says_fatal_and_exits_2)
{
	int status;

	cr_expect_str_eq(in_child(call_die, &status), "hwprof test: fatal: out of memory\n");
	cr_expect_eq(status, EXIT_FATAL);
}

Test(cli, die_errno_says_fatal_and_the_cause)
{
	int status;

	cr_expect_str_eq(in_child(call_die_errno, &status),
			 "hwprof test: fatal: allocating: Cannot allocate memory\n");
	cr_expect_eq(status, EXIT_FATAL);
}

/* The library's message gets hwprof's way out, as one line in the shape messages had when the
 * library wrote the commands itself. */
static const char *see_of(const char *spec, char *err, size_t len)
{
	struct hwprof_event_list l;

	cr_assert_lt(hwprof_events_parse(spec, &l, err, len), 0);
	return cli_see(err);
}

Test(cli, see_adds_the_command_to_a_library_message)
{
	char err[256];

	cr_expect_str_eq(see_of("cyclez", err, sizeof(err)),
			 "unknown event 'cyclez' (did you mean 'cycles'? see 'hwprof list')");
	cr_expect_str_eq(see_of("zzzzqqqq", err, sizeof(err)),
			 "unknown event 'zzzzqqqq' (see 'hwprof list')");
	cr_expect_str_eq(see_of("", err, sizeof(err)),
			 "empty event list (name an event, e.g. 'cpu-clock'; see 'hwprof list')");
	cr_expect_str_eq(see_of(".x/event=1/", err, sizeof(err)),
			 "bad PMU name '.x' in '.x/event=1/' (see 'hwprof list pmu')");
	cr_expect_str_eq(see_of("PAPI_L2_DCM", err, sizeof(err)),
			 "PAPI preset 'PAPI_L2_DCM': no generic event counts L2 data misses; name "
			 "the CPU's own L2 event (see 'hwprof list vendor')");
	cr_expect_str_eq(see_of("PAPI_NOPE", err, sizeof(err)),
			 "unknown PAPI preset 'PAPI_NOPE' (hwprof takes the presets that a generic "
			 "event counts; see 'hwprof list')");
	/* Nothing to add: the message itself. */
	cr_expect_eq(see_of("{cycles}:x", err, sizeof(err)), err);
}

/* The library names no hwprof command: each way out is the CLI's. */
Test(cli, library_messages_name_no_command)
{
	struct hwprof_event_list l;
	const char *name, *event, *why;
	char err[256];

	for (size_t i = 0; hwprof_papi_preset_at(i, &name, &event, &why) == 0; i++)
		cr_expect(!why || !strstr(why, "hwprof "), "%s: %s", name, why);
	cr_assert_lt(hwprof_events_parse("PAPI_NOPE", &l, err, sizeof(err)), 0);
	cr_expect_null(strstr(err, "hwprof list"), "%s", err);
	cr_expect_eq(hwprof_see_last(), HWPROF_SEE_EVENTS);
	cr_assert_lt(hwprof_events_parse("PAPI_FP_OPS", &l, err, sizeof(err)), 0);
	cr_expect_eq(hwprof_see_last(), HWPROF_SEE_VENDOR_EVENTS);
}

/* Runs, in a child, glibc's error(3) with STATUS (then, if it returns, exit(cli_finish(
 * EXIT_PARTIAL)) as a command's return would) after cli_set_prefix(); OUT gets its stderr.
 * Returns the child's exit status. */
static int child_error3(int status, char *out, size_t len)
{
	void (*glibc_error)(int, int, const char *, ...) = dlsym(RTLD_DEFAULT, "error");
	int fds[2], st;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	cr_assert_not_null(glibc_error, "glibc's error(3) not found");
	cr_assert_eq(pipe(fds), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(fds[1], STDERR_FILENO);
		cli_set_prefix("hwprof report");
		glibc_error(status, ENOMEM, "%s", "cannot allocate memory");
		exit(cli_finish(EXIT_PARTIAL));
	}
	close(fds[1]);
	/* glibc writes the message in pieces: read to the end. */
	while ((n = read(fds[0], out + got, len - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(fds[0]);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "status %#x: %s", st, out);
	return WEXITSTATUS(st);
}

/* A library's error(3) call (libdw's and libelf's when out of memory) is a fatal error of
 * the command: its prefix, exit 2, not glibc's default exit status 1 (hwprof's "partial"). */
Test(cli, library_error3_is_fatal)
{
	char out[256];

	cr_expect_eq(child_error3(EXIT_FAILURE, out, sizeof(out)), EXIT_FATAL, "%s", out);
	cr_expect_str_eq(out, "hwprof report: fatal: cannot allocate memory: Cannot allocate "
			      "memory\n");
}

/* error(0, ...) returns: the command's own exit 1 (partial) afterwards stays 1. */
Test(cli, library_error3_warning_keeps_the_commands_status)
{
	char out[256];

	cr_expect_eq(child_error3(0, out, sizeof(out)), EXIT_PARTIAL, "%s", out);
}
