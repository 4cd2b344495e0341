/* target.h - what `hwprof record` records: a command it launches, or a process it attaches
 * to with -p; the stop signals it takes (^C, SIGTERM, SIGHUP), passed on to a launched target;
 * and the end of the target, reaped without blocking.
 *
 * Call order: target_init; target_block_signals; target_check_command then target_launch, or
 * target_attach (the output file is created in between by the caller, so that a bad -o fails
 * before the target is forked); the events are opened on PIDS; target_stop_pending;
 * target_go; then, in the drain loop, target_ended; target_close at the end.
 */
#ifndef HWPROF_RECORD_TARGET_H
#define HWPROF_RECORD_TARGET_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "hwprof/sampfile.h"
#include "launch.h"

struct record_target {
	struct launch launch; /* without -p: the launched child; launch.pid -1 once reaped */
	char **argv;	      /* the command: the caller's, or read from /proc with -p */
	bool owned_argv;      /* ARGV was read from /proc (-p) and is freed by target_close */
	pid_t *pids;	      /* what the events are opened on: the child, or -p's threads */
	size_t npids;
	int pidfd; /* -p: readable when the process ends; -1 without -p */
	/* Processes the FORK records announced and no EXIT record ended (without -p). */
	pid_t *forked;
	size_t nforked, forked_cap;
	/* Every process of the target: the launched child or -p's, and each FORK announced
	 * (whose JIT maps record keeps, jitmaps.h). */
	pid_t *seen;
	size_t nseen, seen_cap;
	/* After a stop signal: when it came (CLOCK_MONOTONIC ns), and 0, 1 or 2 for nothing
	 * passed on yet, the signal passed on, SIGKILL sent. */
	uint64_t stop_at;
	int forwarded;
	bool reaped; /* the launched child was reaped into target_ended's *WSTATUS */
};

/* Adds process PID to T->seen (once). */
void target_seen(struct record_target *t, pid_t pid);

/* Sets T up with nothing launched or attached. */
void target_init(struct record_target *t);

/* Whether T is a process attached with -p (else a launched command). */
static inline bool target_attached(const struct record_target *t)
{
	return t->pidfd >= 0;
}

/* Checks before anything is created that ARGV[0] can be executed and that OUTPUT is not the
 * very program. Returns 0, or after an error message EXIT_NOT_EXECUTED (the exec would fail)
 * or EXIT_USAGE (-o names the program). */
int target_check_command(char **argv, const char *output);

/* Forks ARGV (not copied: it must outlive T) waiting for target_go (launch_prepare). Returns
 * 0 with T->pids = {the child}, or EXIT_FATAL after an error message. */
int target_launch(struct record_target *t, char **argv);

/* With -p PID: refuses a kernel thread, a process this user may not sample (the cause of
 * the EACCES the kernel would give) and a zombie; reads its threads into T->pids, its command
 * line into T->argv, and opens a pidfd to see it end. Returns 0, or EXIT_FATAL after an error
 * message naming PID and a way out. */
int target_attach(struct record_target *t, pid_t pid);

/* Blocks SIGINT, SIGTERM, SIGHUP and SIGCHLD, which then arrive only inside ppoll(UNBLOCKED)
 * (the current mask without them, written to *UNBLOCKED): a stop signal ends the recording
 * with a complete file (target_stop_signal), SIGCHLD wakes the loop to reap the target. */
void target_block_signals(sigset_t *unblocked);

/* The stop signal received (SIGINT, SIGTERM or SIGHUP), or 0. */
int target_stop_signal(void);

/* A stop signal (SIGINT, SIGTERM or SIGHUP) that came while they were blocked by
 * target_block_signals and has not been taken by ppoll() yet (sigpending(2)), or 0. */
int target_stop_pending(void);

/* Releases the launched target to exec. Returns 0, or EXIT_NOT_EXECUTED after an error
 * message when the exec failed (the child is still reaped by target_close). */
int target_go(struct record_target *t);

/* Keeps the set of processes (not threads) a launched target started and that have not
 * ended, from the FORK and EXIT records REC in time order: for target_ended's signals and
 * target_note_descendants. Other record types are ignored. */
void target_track(struct record_target *t, const struct hwprof_record *rec);

/* For the launched target, once per turn of the drain loop at time NOW (CLOCK_MONOTONIC ns):
 * reaps it without blocking and, after a stop signal, passes the signal on to it and what it
 * started after 100 ms (a terminal's ^C reached them too and may do), then SIGKILL after 3 s.
 * Returns whether the recording is over: the target was reaped (its status in *WSTATUS) and, after
 * a stop signal, nothing of its process group runs on. Stops of the target are left to the shell's
 * job control or to whoever stopped it. */
bool target_ended(struct record_target *t, uint64_t now, int *wstatus);

/* After a launched target exited by itself: a note naming how many of the processes it
 * started still run (a daemon-like command), which were recorded up to then only. */
void target_note_descendants(const struct record_target *t);

/* Kills (SIGKILL) and reaps a launched target still there, closes the pidfd, frees what T
 * owns. */
void target_close(struct record_target *t);

#endif
