/* stat_open.h - the perf events of `hwprof stat` opened and read: each event alone once, to
 * find the ones the host cannot count (printed as <not supported>), then for each run the
 * counting groups (libhwprof's hwprof_group_*, one kernel group per {group} of the list) on
 * the launched command, on each thread of -p, or on each online CPU with -a.
 *
 * Call order for a run: stat_groups_open; stat_groups_enable for -p and -a (a launched
 * command's groups start at its exec); the target runs; stat_groups_read; stat_groups_close.
 */
#ifndef HWPROF_STAT_OPEN_H
#define HWPROF_STAT_OPEN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "stat.h"
#include "stat_counts.h"

struct cpu_group;

/* The counting groups of one run. Set LIST and ST, the rest zero. */
struct stat_groups {
	const struct hwprof_event_list *list; /* the events; not owned */
	const struct ev_stat *st; /* per list entry: an unsupported one is not opened; not owned */
	struct cpu_group *groups; /* the groups opened */
	size_t ngroups, capgroups;
	bool one_by_one; /* some group is read one member at a time
			  * (hwprof_group_read_one_by_one()) */
};

/* Opens R's events on the target of O: the command TARGET (pid, counting from its exec, its
 * children inherited), each thread of O->pid (a thread that ends meanwhile is skipped), or
 * each online CPU with O->system_wide, keeping on a CPU the events whose PMU covers it. An
 * uncore event without -a is refused. Returns 0, or -1 after an error message (naming -a for
 * a refused CPU-wide open, -p for a process gone); what was opened stays in R for
 * stat_groups_close(). Dies when out of memory. */
int stat_groups_open(struct stat_groups *r, const struct stat_opts *o, pid_t target);

/* Starts the counting of R's groups. Returns 0, or -1 after an error message. */
int stat_groups_enable(struct stat_groups *r);

/* Reads R's groups into the run fields of ST (R->list->n entries; zeroed first, each event
 * summed over its groups: CPUs, threads). Returns 0, or -1 after an error message. */
int stat_groups_read(struct stat_groups *r, struct ev_stat *st);

/* Closes and frees R's groups; R can be opened again. */
void stat_groups_close(struct stat_groups *r);

/* Opens each event of LIST alone, once, on hwprof itself (or the first online CPU with
 * O->system_wide) and sets ST[i].unsupported (malloc'd: the library's message) for each one
 * the host cannot count (ENOENT, EOPNOTSUPP, ENODEV, EINVAL from perf_event_open(2)); another
 * error (EACCES, ...) leaves it to the run. Uncore events without -a are not probed. Returns
 * how many may be counted. */
size_t stat_probe_events(const struct stat_opts *o, const struct hwprof_event_list *list,
			 struct ev_stat *st);

/* The reason of unsupported event I of LIST (ST[i].unsupported set) without its leading
 * "SPEC: ". Points into ST[i].unsupported. */
const char *stat_unsupported_why(const struct hwprof_event_list *list, const struct ev_stat *st,
				 size_t i);

/* "cycles, r003c: not supported on this host (...)" for each distinct reason of LIST's
 * unsupported events, joined by "; ", into BUF (LEN bytes, cut short when it does not fit);
 * "" when none is unsupported. */
void stat_unsupported_text(const struct hwprof_event_list *list, const struct ev_stat *st,
			   char *buf, size_t len);

#endif
