/* attach.h - what an already running process looks like, for `hwprof record -p PID`.
 *
 * A process that was not launched by record has threads and mappings from before the events
 * were opened: the kernel sends no MMAP2/COMM records for those, so they are read from /proc
 * (proc(5): /proc/PID/task, /proc/PID/maps, /proc/PID/task/TID/comm, /proc/PID/cmdline) and
 * written as if the kernel had sent them.
 */
#ifndef HWPROF_RECORD_ATTACH_H
#define HWPROF_RECORD_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hwprof/sampfile.h"

/* The thread ids of PID into a malloc'd array *OUT (the caller frees it). Returns the count
 * (>= 1) or -errno: -ESRCH when PID does not exist, -ENOMEM. */
int attach_threads(pid_t pid, pid_t **out);

/* PID's command line into *ARGV: a malloc'd, NULL-terminated array of malloc'd strings
 * (at least one: the comm name in brackets when the command line is empty, as for kernel
 * threads). Returns the count or -errno. */
int attach_cmdline(pid_t pid, char ***argv);

/* Called for each synthesized record; a non-zero return stops and is returned. */
typedef int (*attach_record_fn)(struct hwprof_record *rec, void *arg);

/* Hands FN a COMM record for each of the N threads TIDS, then an MMAP record for each
 * executable mapping of PID, all stamped TIME (ns, CLOCK_MONOTONIC). Strings in the records
 * are valid during the call. Returns 0, FN's non-zero return, or -errno from /proc. */
int attach_synthesize(pid_t pid, const pid_t *tids, size_t n, uint64_t time, attach_record_fn fn,
		      void *arg);

/* What decides whether PID can be profiled at all, from /proc/PID/stat and /proc/PID/status
 * (proc(5)). */
struct attach_target {
	char comm[64];	/* the name in /proc/PID/stat, e.g. "kthreadd" */
	char state;	/* R, S, D, T, Z (zombie), X (dead)... (proc(5)) */
	bool kthread;	/* PF_KTHREAD in the flags: a kernel thread, no user space */
	uid_t uid[3];	/* real, effective, saved set-user-ID */
	gid_t gid[3];	/* real, effective, saved set-group-ID */
	bool ids_known; /* uid and gid were read */
};

/* Reads PID's name, state and kernel-thread flag from /proc/PID/stat into *T (the ids are
 * left unknown). Returns 0, -ESRCH when PID does not exist, -EINVAL for a line that does not
 * parse, or another -errno from /proc. */
int attach_proc_stat(pid_t pid, struct attach_target *t);

/* Reads PID's name, state, kernel-thread flag and ids into *T. Returns 0, -ESRCH when PID does not
 * exist, or another -errno from /proc. */
int attach_inspect(pid_t pid, struct attach_target *t);

/* Whether T (PID's, from attach_inspect()) is a zombie with no thread left: it has exited and
 * waits for its parent to reap it. Events open on it and never count. A leader that called
 * pthread_exit() is a zombie too, but its other threads still run: false then, as when
 * /proc/PID/task cannot be read. */
bool attach_defunct(pid_t pid, const struct attach_target *t);

/* Whether this process may open per-task perf events on a process that is not its own:
 * CAP_PERFMON, CAP_SYS_ADMIN or CAP_SYS_PTRACE in /proc/self/status CapEff (the kernel's
 * perf_check_permission: perfmon_capable() or ptrace_may_access(PTRACE_MODE_READ_REALCREDS)). */
bool attach_privileged(void);

/* Why the caller may not profile T (PID), as the kernel decides for perf_event_open(2) on a
 * task (ptrace_may_access with real credentials: the caller's real uid and gid must equal
 * the target's real, effective and saved ones), e.g. "process 42 belongs to root, not to you
 * (profile your own processes, or run as root / with CAP_PERFMON)". Written to BUF and
 * returned; NULL when nothing stands in the way (own process, or attach_privileged()). */
const char *attach_denied(pid_t pid, const struct attach_target *t, char *buf, size_t len);

#endif
