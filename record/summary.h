/* summary.h - what `hwprof record` tallies while it drains the rings, and the lines it prints
 * at the end: samples, lost, throttles, bytes per sample, the rate against the target's CPU
 * time, and a warning with a way out for each sign of a poor recording.
 */
#ifndef HWPROF_RECORD_SUMMARY_H
#define HWPROF_RECORD_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "hwprof/hwprof.h"
#include "hwprof/sampfile.h"
#include "sampler.h"
#include "unwind_summary.h"

/* Counted by record as records pass from the rings to the file. */
struct record_tally {
	uint64_t samples;	   /* SAMPLE records written */
	uint64_t lost;		   /* samples the kernel dropped on a full ring */
	uint64_t throttles;	   /* THROTTLE records: the kernel capped the sample rate */
	uint64_t bad;		   /* malformed records from the kernel, skipped */
	uint64_t stacks_truncated; /* samples whose callchain was cut at --max-stack */
	uint64_t user_chains;	   /* -g: samples in user space with a callchain */
	uint64_t user_no_caller;   /* of those, the ones with no user caller, not cut */
};

/* What the summary says beside the tally. */
struct record_summary {
	const char *output;		       /* the sample file, stat(2)ed for its size */
	const struct hwprof_file_event *event; /* the first sampling event */
	uint64_t duration_ns;		       /* wall-clock time recorded */
	uint64_t cpu_ns;		       /* the target's CPU time; 0: unknown */
	bool callchain;			       /* -g or --call-graph dwarf */
	long long max_stack;		       /* --max-stack in effect with them */
	struct unwind *unwind;		       /* --call-graph dwarf: what it counted */
	uint32_t stack_user;		       /* ... and its stack copies' size in bytes */
	pid_t attached;			       /* -p's PID; 0 for a launched command */
	bool system_wide;		       /* -a / -C: every task of the CPUs */
};

/* The CPU time of the target in ns: the task-clock count of trailer T (the counting group
 * COUNTING, threads and every child inherited; NULL: no counting group), scaled when it was
 * multiplexed, else the time the first sampling event of S ran; 0 when unknown. */
uint64_t summary_cpu_ns(const struct hwprof_file_trailer *t, const struct hwprof_group *counting,
			const struct sampler *s);

/* Prints the summary of a finished recording to stderr: one line of totals, one for the call
 * graph with -g or --call-graph dwarf (unwind_summary()), then a warning for -g chains with no
 * caller in most samples (code without frame pointers), no samples (with the likely cause),
 * lost samples, throttling and malformed records. */
void summary_print(const struct record_summary *s, const struct record_tally *tally);

#endif
