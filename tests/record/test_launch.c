/* test_launch.c - the launch handshake, exec-failure reporting, the target's process group. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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

/* Without a controlling terminal (a script, CI) the target gets a group of its own. The test
 * leaves any terminal it was started from first: setsid() in criterion's worker. */
Test(launch, child_is_its_own_process_group_without_a_terminal)
{
	char *argv[] = {"/bin/sh", "-c", "exit 0", NULL};
	struct launch l;

	setsid();
	cr_assert_eq(launch_prepare(&l, argv), 0);
	cr_assert_eq(l.pgid, l.pid, "setpgid by the parent");
	cr_assert_eq(getpgid(l.pid), l.pid);
	cr_assert_neq(getpgid(l.pid), getpgrp());
	cr_assert_not(l.have_modes, "no terminal, no modes to restore");
	cr_assert_eq(launch_go(&l), 0);
	cr_assert_eq(WEXITSTATUS(wait_status(l.pid)), 0);
}

/* The child's children are reached by launch_kill, even when they ignore the signal the
 * child dies of (H F27). */
Test(launch, kill_reaches_the_whole_group)
{
	char pids[128], script[1024];
	char *argv[] = {"/bin/sh", "-c", script, NULL};
	struct launch l;
	int a = 0, b = 0;
	FILE *f;

	setsid(); /* no controlling terminal: the target's own group */
	snprintf(pids, sizeof(pids), "%s/pids", dir);
	snprintf(script, sizeof(script),
		 "trap '' TERM; sleep 30 & A=$!; sleep 30 & echo $A $! > %s.tmp; mv %s.tmp %s; "
		 "wait",
		 pids, pids, pids);
	cr_assert_eq(launch_prepare(&l, argv), 0);
	cr_assert_eq(launch_go(&l), 0);
	for (int i = 0; i < 200 && access(pids, F_OK); i++)
		usleep(10 * 1000);
	f = fopen(pids, "r");
	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "%d %d", &a, &b), 2);
	fclose(f);
	cr_assert_eq(getpgid(a), l.pid, "a grandchild is in the target's group");
	cr_assert_eq(launch_kill(&l, 0), 0, "probe: the group is there");
	cr_assert_eq(launch_kill(&l, SIGTERM), 0);
	usleep(100 * 1000);
	cr_assert_eq(kill(l.pid, 0), 0, "the shell ignores SIGTERM (trap '')");
	cr_assert_eq(launch_kill(&l, SIGKILL), 0);
	int st = wait_status(l.pid);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	/* The sleeps are not our children: wait until they are gone or only zombies. */
	for (int i = 0; i < 200; i++) {
		char path[64], buf[256] = "", *p;
		int gone = 0;
		int ids[2] = {a, b};

		for (int k = 0; k < 2; k++) {
			snprintf(path, sizeof(path), "/proc/%d/stat", ids[k]);
			f = fopen(path, "r");
			if (!f || !fgets(buf, sizeof(buf), f) || !(p = strrchr(buf, ')')) ||
			    p[2] == 'Z' || p[2] == 'X')
				gone++;
			if (f)
				fclose(f);
		}
		if (gone == 2)
			return;
		usleep(10 * 1000);
	}
	cr_assert_fail("a grandchild survived SIGKILL to the group");
}

Test(launch, kill_without_a_group_reaches_the_child)
{
	char *argv[] = {"/bin/sh", "-c", "exec sleep 30", NULL};
	struct launch l;

	cr_assert_eq(launch_prepare(&l, argv), 0);
	cr_assert_eq(launch_go(&l), 0);
	l.pgid = 0; /* as when setpgid failed */
	cr_assert_eq(launch_kill(&l, SIGKILL), 0);
	int st = wait_status(l.pid);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	cr_assert_eq(launch_kill(&l, 0), -ESRCH, "reaped: nothing left to signal");
}
