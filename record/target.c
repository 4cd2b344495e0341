/* target.c - launching or attaching the recorded target, passing stop signals on, reaping it
 * (see target.h). */
#include "target.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attach.h"
#include "cli.h"
#include "task.h"

/* Set by the signal handlers; read after ppoll() returns (the signals are blocked otherwise). */
static volatile sig_atomic_t got_stop, got_child;

static void on_stop(int sig)
{
	got_stop = sig;
}

static void on_child(int sig)
{
	(void)sig;
	got_child = 1;
}

void target_init(struct record_target *t)
{
	*t = (struct record_target){.pidfd = -1};
	t->launch.pid = -1;
	t->launch.go_fd = t->launch.err_fd = -1;
}

int target_check_command(char **argv, const char *output)
{
	char msg[PATH_MAX + 256];
	int ret = launch_check(argv[0]);

	if (ret)
		return error_status(EXIT_NOT_EXECUTED, "%s",
				    launch_strerror(argv[0], ret, msg, sizeof(msg)));
	/* Creating the output would move the program aside and leave an empty file to exec. */
	if (launch_is_program(argv[0], output)) {
		error("-o %s is the program being recorded (choose another file with -o)", output);
		return EXIT_USAGE;
	}
	return 0;
}

int target_launch(struct record_target *t, char **argv)
{
	int ret = launch_prepare(&t->launch, argv);

	t->argv = argv;
	if (ret < 0)
		return error_errno_status(EXIT_FATAL, ret, "starting %s: %m%s", argv[0],
					  ret == -EMFILE || ret == -ENFILE ? " (raise 'ulimit -n')"
									   : "");
	t->npids = 1;
	t->pids = xcalloc(1, sizeof(*t->pids));
	t->pids[0] = t->launch.pid;
	return 0;
}

int target_attach(struct record_target *t, pid_t pid)
{
	struct attach_target at;
	char **argv = NULL, why[256];
	int n;

	/* Causes the kernel would answer with a bare EACCES, or with nothing at all: a kernel
	 * thread opens fine and never gives a user-space sample. */
	n = attach_inspect(pid, &at);
	if (n == 0 && at.kthread)
		return error_status(EXIT_FATAL,
				    "PID %d (%s) is a kernel thread: hwprof record samples user "
				    "space (choose a user process; 'hwprof stat -p %d' counts its "
				    "CPU time)",
				    (int)pid, at.comm, (int)pid);
	if (n == 0 && attach_denied(pid, &at, why, sizeof(why)))
		return error_status(EXIT_FATAL, "-p %d: %s", (int)pid, why);
	/* The kernel opens events on a zombie and they never fire. */
	if (n == 0 && attach_defunct(pid, &at))
		return error_status(EXIT_FATAL,
				    "-p %d (%s): a zombie (defunct): it has exited and waits for "
				    "its parent to reap it, so it cannot be sampled (choose a "
				    "running process)",
				    (int)pid, at.comm);
	n = attach_threads(pid, &t->pids);
	if (n == -ESRCH)
		return error_status(EXIT_FATAL,
				    "-p %d: no such process (see 'ps' for running processes)",
				    (int)pid);
	if (n < 0)
		return error_errno_status(EXIT_FATAL, n,
					  "-p %d: %m (see 'ps' for running processes)", (int)pid);
	t->npids = (size_t)n;
	n = attach_cmdline(pid, &argv);
	if (n < 0)
		return error_errno_status(EXIT_FATAL, n, "-p %d: reading its command line: %m",
					  (int)pid);
	t->argv = argv;
	t->owned_argv = true;
	t->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (t->pidfd < 0)
		return error_status(EXIT_FATAL, "-p %d: pidfd_open: %m", (int)pid);
	return 0;
}

void target_block_signals(sigset_t *unblocked)
{
	struct sigaction sa = {0};
	sigset_t block;

	/* Signals arrive only inside ppoll(), so the flags are never missed. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP); /* the terminal closed: stop as for SIGTERM, file complete */
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, unblocked);
	sigdelset(unblocked, SIGINT);
	sigdelset(unblocked, SIGTERM);
	sigdelset(unblocked, SIGHUP);
	sigdelset(unblocked, SIGCHLD);
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL);
}

int target_stop_signal(void)
{
	return got_stop;
}

int target_stop_pending(void)
{
	static const int stops[] = {SIGINT, SIGTERM, SIGHUP};
	sigset_t pending;

	if (sigpending(&pending) < 0)
		return 0;
	for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		if (sigismember(&pending, stops[i]) == 1)
			return stops[i];
	return 0;
}

int target_go(struct record_target *t)
{
	char msg[PATH_MAX + 256];
	int ret = launch_go(&t->launch);

	if (ret) {
		ret = ret < 0 ? -ret : ret;
		return error_status(EXIT_NOT_EXECUTED, "%s",
				    launch_strerror(t->argv[0], ret, msg, sizeof(msg)));
	}
	return 0;
}

void target_seen(struct record_target *t, pid_t pid)
{
	for (size_t i = 0; i < t->nseen; i++)
		if (t->seen[i] == pid)
			return;
	if (t->nseen == t->seen_cap) {
		t->seen_cap = t->seen_cap ? 2 * t->seen_cap : 16;
		t->seen = xrealloc(t->seen, t->seen_cap * sizeof(*t->seen));
	}
	t->seen[t->nseen++] = pid;
}

/* A FORK whose pid differs from its ppid is a new process; an EXIT with pid == tid ends one. */
/* Whether PPID is the launched target or a process it started: with -a the FORK records
 * of every task arrive, and only the target's own descendants are its. */
static bool target_descends(const struct record_target *t, pid_t ppid)
{
	if (t->npids && ppid == t->pids[0]) /* the launched child, reaped or not */
		return true;
	for (size_t i = 0; i < t->nforked; i++)
		if (t->forked[i] == ppid)
			return true;
	return false;
}

void target_track(struct record_target *t, const struct hwprof_record *rec)
{
	const struct hwprof_rec_task *task = &rec->task;
	pid_t pid = (pid_t)task->pid;

	if (rec->type == HWPROF_REC_FORK) {
		if (task->pid == task->ppid || !target_descends(t, (pid_t)task->ppid))
			return;
		if (t->nforked == t->forked_cap) {
			t->forked_cap = t->forked_cap ? 2 * t->forked_cap : 16;
			t->forked = xrealloc(t->forked, t->forked_cap * sizeof(*t->forked));
		}
		t->forked[t->nforked++] = pid;
		target_seen(t, pid);
		return;
	}
	if (rec->type != HWPROF_REC_EXIT || task->pid != task->tid)
		return;
	for (size_t i = 0; i < t->nforked; i++) {
		if (t->forked[i] == pid) {
			t->forked[i] = t->forked[--t->nforked];
			return;
		}
	}
}

/* Whether PID is a process that still runs (not a zombie left for its new parent). */
static bool process_alive(pid_t pid)
{
	return !hwprof_task_gone(pid);
}

/* Sends SIG to the target and what it started: its own group, or (sharing hwprof's group on
 * a terminal) the launched process and the descendants the FORK records named. A stopped
 * process (SIGSTOP) is continued so that it can take the signal. Returns whether any of them
 * was still there. */
static bool signal_target(struct record_target *t, int sig)
{
	bool any = launch_kill(&t->launch, sig) == 0;

	if (sig && sig != SIGKILL)
		launch_kill(&t->launch, SIGCONT);
	if (t->launch.pgid > 0)
		return any;
	for (size_t i = 0; i < t->nforked; i++) {
		/* Still in hwprof's group: a pid whose EXIT record was lost and which was
		 * reused by an unrelated process must not be signalled. */
		if (!process_alive(t->forked[i]) || getpgid(t->forked[i]) != getpgrp())
			continue;
		any = true;
		if (sig) {
			kill(t->forked[i], sig);
			if (sig != SIGKILL)
				kill(t->forked[i], SIGCONT);
		}
	}
	return any;
}

/* Passes a stop signal on to the launched target: a terminal's ^C reached it too, so it gets
 * a moment to go by itself first; in the end SIGKILL. */
static void stop_target(struct record_target *t, uint64_t now)
{
	if (!t->stop_at)
		t->stop_at = now;
	if (!t->forwarded && now - t->stop_at > 100000000ull) {
		signal_target(t, got_stop);
		t->forwarded = 1;
	} else if (t->forwarded == 1 && now - t->stop_at > 3000000000ull) {
		signal_target(t, SIGKILL);
		t->forwarded = 2;
	}
}

/* Reaps the launched target without blocking. Returns true when it has ended (*WSTATUS set). */
static bool reap_target(struct record_target *t, int *wstatus)
{
	int st = 0;
	pid_t w = waitpid(t->launch.pid, &st, WNOHANG);

	if (w == t->launch.pid) {
		*wstatus = st;
		/* Reaped: the pid may be reused at once, so nothing signals it any more. */
		t->launch.pid = -1;
		return true;
	}
	return w < 0 && errno == ECHILD;
}

bool target_ended(struct record_target *t, uint64_t now, int *wstatus)
{
	got_child = 0;
	if (!t->reaped)
		t->reaped = reap_target(t, wstatus);
	/* Without a stop signal, what the target leaves running is not ours to end. After the
	 * SIGKILL nothing of the group runs on: only zombies an init that does not reap (a
	 * container's) may keep the group, and kill(2) still finds them. */
	if (t->reaped && (!got_stop || t->forwarded == 2 || !signal_target(t, 0)))
		return true;
	if (got_stop)
		stop_target(t, now);
	return false;
}

/* Not after a stop signal: the target's group was ended on purpose, and what it SIGKILLed may
 * still be on its way out. */
void target_note_descendants(const struct record_target *t)
{
	size_t n = 0;

	if (target_attached(t) || got_stop)
		return;
	for (size_t i = 0; i < t->nforked; i++)
		n += process_alive(t->forked[i]);
	if (n)
		note("%zu descendant process%s of %s %s still running when it exited: recorded "
		     "up to then only (make the command wait for them)",
		     n, n == 1 ? "" : "es", t->argv[0], n == 1 ? "was" : "were");
}

void target_close(struct record_target *t)
{
	if (t->launch.pid > 0) {
		launch_kill(&t->launch, SIGKILL);
		launch_abort(&t->launch);
	}
	free(t->forked);
	t->forked = NULL;
	free(t->seen);
	t->seen = NULL;
	t->nseen = t->seen_cap = 0;
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->pidfd = -1;
	free(t->pids);
	t->pids = NULL;
	if (t->owned_argv) {
		for (char **a = t->argv; *a; a++)
			free(*a);
		free(t->argv);
	}
	t->argv = NULL;
	t->owned_argv = false;
}
