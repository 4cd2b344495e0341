/* attach.h - what an already running process looks like, for `hwprof record -p PID`.
 *
 * A process that was not launched by record has threads and mappings from before the events
 * were opened: the kernel sends no MMAP2/COMM records for those, so they are read from /proc
 * (proc(5): /proc/PID/task, /proc/PID/maps, /proc/PID/task/TID/comm, /proc/PID/cmdline) and
 * written as if the kernel had sent them.
 */
#ifndef HWPROF_RECORD_ATTACH_H
#define HWPROF_RECORD_ATTACH_H

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

#endif
