/* test_launch.c - the launch handshake and exec-failure reporting. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch.h"

static char dir[] = "/tmp/hwprof-launch-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(launch, .init = setup, .fini = teardown);

static int wait_status(pid_t pid)
{
	int st = -1;

	cr_assert_eq(waitpid(pid, &st, 0), pid);
	return st;
}

Test(launch, check_finds_and_explains)
{
	char path[256];
	int fd;

	cr_assert_eq(launch_check("/bin/sh"), 0);
	cr_assert_eq(launch_check("sh"), 0, "found in $PATH");
	cr_assert_eq(launch_check("./no-such-program"), ENOENT);
	cr_assert_eq(launch_check("no-such-program-in-path"), ENOENT);
	cr_assert_eq(launch_check(""), ENOENT);
	cr_assert_eq(launch_check(dir), EISDIR, "a directory is not a program");
	snprintf(path, sizeof(path), "%s/plain", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	cr_assert_geq(fd, 0);
	close(fd);
	/* root passes access(X_OK) only when some execute bit is set. */
	cr_assert_eq(launch_check(path), EACCES);
}

Test(launch, target_waits_for_the_go)
{
	char marker[256], script[512];
	char *argv[] = {"/bin/sh", "-c", script, NULL};
	struct launch l;

	snprintf(marker, sizeof(marker), "%s/ran", dir);
	snprintf(script, sizeof(script), "echo yes > %s; exit 7", marker);
	cr_assert_eq(launch_prepare(&l, argv), 0);
	cr_assert_gt(l.pid, 0);
	usleep(200 * 1000);
	cr_assert_neq(access(marker, F_OK), 0, "the target ran before the handshake");
	cr_assert_eq(launch_go(&l), 0);
	cr_assert_eq(l.go_fd, -1);
	cr_assert_eq(l.err_fd, -1);
	int st = wait_status(l.pid);
	cr_assert(WIFEXITED(st));
	cr_assert_eq(WEXITSTATUS(st), 7, "the target's own status");
	cr_assert_eq(access(marker, F_OK), 0);
}

Test(launch, exec_failure_comes_back_as_errno)
{
	char *argv[] = {"./definitely-not-here", NULL};
	struct launch l;

	cr_assert_eq(launch_prepare(&l, argv), 0);
	cr_assert_eq(launch_go(&l), ENOENT);
	int st = wait_status(l.pid);
	cr_assert(WIFEXITED(st));
	cr_assert_eq(WEXITSTATUS(st), 127, "exit 127 like a shell");
}

Test(launch, exec_of_non_executable_file)
{
	char path[256];
	char *argv[] = {path, NULL};
	struct launch l;
	int fd;

	snprintf(path, sizeof(path), "%s/notexec", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "hello\n", 6), 6);
	close(fd);
	cr_assert_eq(launch_prepare(&l, argv), 0);
	cr_assert_eq(launch_go(&l), EACCES);
	wait_status(l.pid);
}

Test(launch, abort_before_go_never_runs_the_target)
{
	char marker[256], script[512];
	char *argv[] = {"/bin/sh", "-c", script, NULL};
	struct launch l;

	snprintf(marker, sizeof(marker), "%s/ran", dir);
	snprintf(script, sizeof(script), "echo yes > %s", marker);
	cr_assert_eq(launch_prepare(&l, argv), 0);
	launch_abort(&l);
	cr_assert_eq(l.pid, -1, "reaped");
	cr_assert_neq(access(marker, F_OK), 0, "the target ran after an abort");
}

Test(launch, child_gets_an_empty_signal_mask)
{
	char *argv[] = {"/bin/sh", "-c", "grep -q '^SigBlk:[[:space:]]*0*$' /proc/self/status",
			NULL};
	sigset_t block, old;
	struct launch l;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	cr_assert_eq(launch_prepare(&l, argv), 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
	cr_assert_eq(launch_go(&l), 0);
	int st = wait_status(l.pid);
	cr_assert(WIFEXITED(st));
	cr_assert_eq(WEXITSTATUS(st), 0, "the target inherited blocked signals");
}
