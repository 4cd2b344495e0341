/* syswide.h - what `hwprof record -a` / `-C LIST` needs beyond a launched or attached target:
 * the CPUs to record, and the processes that already run when recording starts.
 *
 * A CPU-wide event (pid -1, perf_event_open(2)) samples every task on its CPU, but the kernel
 * sends COMM and MMAP2 records only for what happens after the open: the names and
 * executable mappings of every process already running are read from /proc, as for -p.
 */
#ifndef HWPROF_RECORD_SYSWIDE_H
#define HWPROF_RECORD_SYSWIDE_H

#include <stddef.h>
#include <stdint.h>

#include "attach.h"

/* The CPUs of -C LIST (hwprof_cpulist_parse's format, "0-3,8") into a malloc'd array *OUT
 * in ascending order (the caller frees it), each checked against the online CPUs; LIST NULL means
 * every online CPU. Returns the count (>= 1), or -EINVAL (malformed list) / -ENODEV (a CPU not
 * online, named in ERR, ERRLEN bytes) / -ENOMEM, with ERR saying which and the CPUs that are
 * online. */
int syswide_cpus(const char *list, int **out, char *err, size_t errlen);

/* The processes syswide_synthesize() could not read: how many, and the first one's pid and
 * -errno (e.g. -EACCES for a process whose maps even root may not read). */
struct syswide_skipped {
	size_t n;
	pid_t first;
	int err;
};

/* CPUS (N of them) as a cpulist into BUF (LEN bytes), runs of consecutive CPUs joined
 * ("0-3,8"); a list that does not fit ends in "...". */
void syswide_cpus_text(const int *cpus, int n, char *buf, size_t len);

/* Hands FN the COMM record of every thread and the MMAP record of every executable mapping of
 * every process in /proc (attach_synthesize() for each), stamped TIME (ns, CLOCK_MONOTONIC).
 * A process that ends meanwhile is left out; one whose threads or maps cannot be read
 * otherwise is counted in *SKIPPED (zeroed first; may be NULL). Returns the number of
 * processes read, FN's non-zero return (negated when positive), or -errno when /proc itself
 * cannot be read. */
int syswide_synthesize(uint64_t time, attach_record_fn fn, void *arg,
		       struct syswide_skipped *skipped);

/* The way out of a CPU-wide open refused with EACCES or EPERM, into BUF (LEN bytes): "needs
 * perf_event_paranoid <= 0 (it is N here) or CAP_PERFMON (run as root, ...)", the rule of
 * perf_event_open(2) for pid -1. OPT is the option to drop ("-a"). Returns BUF. */
const char *syswide_denied(const char *opt, char *buf, size_t len);

#endif
