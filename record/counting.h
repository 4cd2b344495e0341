/* counting.h - the counting group `hwprof record` opens beside its samples: the totals of the
 * file's trailer (task-clock, cycles, instructions, ... as `hwprof stat` counts them).
 *
 * Call order: counting_open once the target's pids are known; counting_enable when the
 * events were opened disabled (-p, -a); counting_read after the target ended; counting_close.
 */
#ifndef HWPROF_RECORD_COUNTING_H
#define HWPROF_RECORD_COUNTING_H

#include <stddef.h>

#include "hwprof/event.h"
#include "hwprof/hwprof.h"
#include "hwprof/sampfile.h"
#include "record_opts.h"
#include "target.h"

struct counting {
	/* --count's events (record_options_events), or the default set (counting_open). */
	struct hwprof_event_list events;
	/* GROUPS[0] on the target's first pid (inherited by what it starts), with -p one more
	 * per other thread of the process, with -a one per CPU; summed when read. NGROUPS 0:
	 * nothing counted. */
	struct hwprof_group **groups;
	size_t ngroups;
};

/* Opens C's groups for the options O: none with --no-count; else --count's events, or
 * `hwprof stat`'s default set parsed into C->events, on the target T (its pids) or, with -a,
 * on each of the NCPUS CPUS. The default set is best effort: when it does not open, a warning
 * says why and nothing is counted. A set the user asked for must open. Returns 0, or -1 after
 * an error message (C is then freed by counting_close). */
int counting_open(struct counting *c, const struct record_options *o, const struct record_target *t,
		  const int *cpus, size_t ncpus);

/* Starts every group of C (hwprof_group_enable()). */
void counting_enable(struct counting *c);

/* The group whose events stand for all of C's (GROUPS[0]), or NULL when nothing is counted. */
const struct hwprof_group *counting_group(const struct counting *c);

/* Reads C's totals, summed over its groups, into the trailer T: T->counts (malloc'd, the
 * caller frees it) and T->ncounts, nothing when nothing is counted. A read that fails leaves
 * the counts not counted, after a warning; an event that did not count gets a note that says
 * why. */
void counting_read(const struct counting *c, struct hwprof_file_trailer *t);

/* Closes C's groups and frees its events. Accepts a zeroed C. */
void counting_close(struct counting *c);

#endif
