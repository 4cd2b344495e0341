/* task.h - what /proc says about one task (a process or a thread), for the perf_event_open
 * callers that must tell a task that ended from an event the kernel refused. Internal: not
 * installed. */
#ifndef HWPROF_TASK_H
#define HWPROF_TASK_H

#include <stdbool.h>
#include <sys/types.h>

/* The fields of /proc/TID/stat that hwprof uses (proc(5)). */
struct hwprof_task {
	char comm[64];	     /* the name between the parentheses, e.g. "kthreadd" */
	char state;	     /* R, S, D, T, Z (zombie), X (dead)... */
	unsigned long flags; /* PF_* (include/linux/sched.h), e.g. PF_KTHREAD 0x00200000 */
};

/* Reads /proc/TID/stat (a thread id works as well as a process id) into *T. Returns 0,
 * -ESRCH when no such task exists, -EINVAL for a line that does not parse, or another -errno
 * of reading /proc. */
int hwprof_task_read(pid_t tid, struct hwprof_task *t);

/* Whether TID has ended or is ending: no such task, or a zombie / dead one. A task being
 * torn down makes perf_event_open(2) fail with ESRCH, but also with ENODEV or EINVAL on a
 * group member opened just after its leader; callers ask this to name the real cause. */
bool hwprof_task_gone(pid_t tid);

#endif
