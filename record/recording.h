/* recording.h - everything one `hwprof record` owns, shared by the files of the command:
 * record.c (the steps), drain.c (rings to file), file_ends.c (the file's header and trailer).
 */
#ifndef HWPROF_RECORD_RECORDING_H
#define HWPROF_RECORD_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "callchain.h"
#include "counting.h"
#include "hwprof/event.h"
#include "hwprof/sampfile.h"
#include "mapfacts.h"
#include "merge.h"
#include "outfile.h"
#include "record_opts.h"
#include "sampler.h"
#include "summary.h"
#include "target.h"
#include "unwind.h"
#include "write_thread.h"

/* Freed by record_cleanup() in record.c. */
struct recording {
	struct record_options opt;
	struct record_target target; /* the command or -p's process, and its pids */
	struct outfile out;
	struct hwprof_event_list events;
	struct counting counting;
	int *cpus; /* -a / -C: the CPUs recorded */
	size_t ncpus;
	struct sampler_config cfg; /* what the sampling events were opened with */
	struct sampler sampler;
	struct hwprof_file_header header;
	struct hwprof_writer *writer;
	struct merge merge;
	struct record_tally tally;
	int write_err;			 /* first -errno of the writer */
	struct unwind *unwind;		 /* --call-graph dwarf: the unwinder, fed in time order */
	struct callchain_stack *unwound; /* ... and its output for one sample */
	struct write_thread *writer_thread; /* with UNWIND: unwinds and writes what the merge
					     * gives, so that the rings stay drained */
	struct mapfacts mapfacts;
};

/* CLOCK_MONOTONIC in ns: the clock of the kernel's records (attr.clockid, sampler.c). */
static inline uint64_t record_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Whether there is neither a command nor a process: `record -a` alone, until ^C. */
static inline bool record_no_target(const struct recording *r)
{
	return !r->target.npids;
}

/* Whether the target is a command record launched, the one kind with an exit status of its
 * own (not -p's process, not `record -a` alone). */
static inline bool record_launched(const struct recording *r)
{
	return !record_no_target(r) && !target_attached(&r->target);
}

#endif
