/* hwprof/hwprof.h - libhwprof: hardware and software counters in-process.
 *
 * Two layers:
 *   groups   open a set of events (same spec syntax as `hwprof stat -e`, see hwprof/event.h)
 *            for a thread, a process or a CPU; enable, disable, reset; read all members at
 *            once with their time_enabled/time_running and multiplexing-scaled values.
 *   regions  hwprof_region_begin("name") / hwprof_region_end("name") around code of your own;
 *            per thread, nestable; a table at exit (see docs/library.md).
 *
 * Conventions: functions return 0 or -errno (or NULL with errno set); the library never
 * prints and never exits; hwprof_strerror_last() gives one line about the last failure of the
 * calling thread. Times are in ns.
 */
#ifndef HWPROF_HWPROF_H
#define HWPROF_HWPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hwprof/event.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One member's reading. */
struct hwprof_count {
	uint64_t value;	     /* raw count as read */
	uint64_t enabled_ns; /* time_enabled, ns (perf_event_open(2), read_format) */
	uint64_t running_ns; /* time_running, ns */
	double scaled;	     /* value * enabled/running * sysfs scale; 0 if never ran */
	double ratio;	     /* running/enabled, 0..1; 1 when not multiplexed */
	bool counted;	     /* false when running_ns == 0, or when the event cannot
			      * count as configured (hwprof_count_why_not()): print
			      * "not counted", not 0 */
};

struct hwprof_group;

/* Flags for hwprof_group_open(). */
enum {
	HWPROF_GROUP_INHERIT = 1 << 0,	      /* count children and threads created later */
	HWPROF_GROUP_ENABLE_ON_EXEC = 1 << 1, /* start counting at the target's exec */
	HWPROF_GROUP_START_DISABLED = 1 << 2, /* open disabled; hwprof_group_enable() starts */
	HWPROF_GROUP_PINNED = 1 << 3,	      /* pinned leaders (no multiplexing, or error) */
};

/* Opens the events of SPEC for PID (0 = calling thread, -1 with CPU >= 0 = every process on
 * CPU) on CPU (-1 = any). Each {group} of the spec becomes one kernel group with
 * PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING; events outside braces are
 * groups of one. Returns 0 and *OUT, or -errno of the first event that failed
 * (ENOENT: not supported on this host; EACCES: perf_event_paranoid; EINVAL: malformed spec,
 * refused attribute, OUT NULL, unknown FLAGS bits, PID -1 without a CPU, or a CPU that does not
 * exist) with hwprof_strerror_last() naming the event or the argument. */
int hwprof_group_open(struct hwprof_group **out, const char *spec, pid_t pid, int cpu,
		      unsigned flags);

/* The same from an already parsed list (copied). */
int hwprof_group_open_list(struct hwprof_group **out, const struct hwprof_event_list *list,
			   pid_t pid, int cpu, unsigned flags);

/* Number of events in G, and the parsed event I (0 <= I < n). */
size_t hwprof_group_size(const struct hwprof_group *g);
const struct hwprof_event *hwprof_group_event(const struct hwprof_group *g, size_t i);

/* PERF_EVENT_IOC_ENABLE / DISABLE / RESET on every group leader with PERF_IOC_FLAG_GROUP.
 * Return 0 or -errno (EINVAL for a NULL G). */
int hwprof_group_enable(struct hwprof_group *g);
int hwprof_group_disable(struct hwprof_group *g);
int hwprof_group_reset(struct hwprof_group *g);

/* Reads every member: one read(2) per kernel group. OUT has room for N counts (N >=
 * hwprof_group_size(g), else -ENOSPC). Returns 0 or -errno. */
int hwprof_group_read(struct hwprof_group *g, struct hwprof_count *out, size_t n);

/* Closes every fd and frees G; G is invalid afterwards (closing it twice is a double free).
 * Accepts NULL. */
void hwprof_group_close(struct hwprof_group *g);

/* Scales one raw reading: value * enabled/running * scale; sets ratio and counted. A NULL C
 * is ignored. */
void hwprof_count_scale(struct hwprof_count *c, double scale);

/* The running/enabled ratio under which a count is flagged as multiplexed (its value is a
 * scaled estimate, perf_event_open(2): time_enabled / time_running). */
#define HWPROF_MULTIPLEX_FLAG 0.90

/* Whether C (scaled by hwprof_count_scale()) was counted, but for less than
 * HWPROF_MULTIPLEX_FLAG of its enabled time. False for NULL. */
bool hwprof_count_multiplexed(const struct hwprof_count *c);

/* ---- regions --------------------------------------------------------------------------- */

/* Starts region NAME on the calling thread (events from $HWPROF_EVENTS, default as
 * `hwprof stat`). Regions nest; the same name re-entered accumulates. Returns 0 or -errno. */
int hwprof_region_begin(const char *name);

/* Ends the innermost open region NAME of the calling thread. -EINVAL if NAME is not the
 * innermost open region. */
int hwprof_region_end(const char *name);

/* Receives a message the library has for a person when no caller is there to return it to
 * (today one: the region table at exit could not be written to $HWPROF_OUTPUT). MSG is one
 * line without a newline, valid only during the call; ARG is hwprof_set_log()'s. Called on
 * the thread that met the problem, also from atexit. */
typedef void hwprof_log_fn(void *arg, const char *msg);

/* Sends those messages to FN(ARG, MSG); a NULL FN restores the default, which writes
 * "hwprof: MSG\n" to stderr. Set it before the first region begins. */
void hwprof_set_log(hwprof_log_fn *fn, void *arg);

/* ---- groups read member by member, the default set --------------------------------------- */

/* Whether G is read one member at a time: the kernel refused inherit together with
 * PERF_FORMAT_GROUP (EINVAL on kernels before 6.x), so G was reopened without
 * PERF_FORMAT_GROUP. Members stay scheduled together; each read(2) has its own times. Callers
 * show it ("read one by one"). */
bool hwprof_group_read_one_by_one(const struct hwprof_group *g);

/* The default counting set, as an event spec, for `hwprof stat`, record's counting group and
 * regions: with a hardware PMU "{instructions,cycles},{cache-references,cache-misses},
 * {branches,branch-misses}" (pairs grouped so each ratio comes from one time window), without
 * one "{task-clock,context-switches:uk,cpu-migrations:uk,page-faults}" when the kernel may be
 * measured (hwprof_kernel_countable(): root, CAP_PERFMON or perf_event_paranoid <= 1), else
 * the same without :uk, and those two then read as not counted (hwprof_count_why_not()).
 * HOST_HAS_PMU is usually hwprof_host_has_pmu(). Static string. */
const char *hwprof_count_default_spec(bool host_has_pmu);

/* Writes the region table of every thread so far, as at exit: to $HWPROF_OUTPUT (JSON when the
 * name ends in ".json", else CSV) or to stderr as text; nothing when no thread began a region.
 * The library calls it at exit (atexit); call it yourself to write earlier: the exit report is
 * then skipped unless more regions ended since. If a thread's counters could not be opened,
 * hwprof_region_begin() returns that -errno on each call but the region is still entered, so
 * its calls are counted and the table says why it has no counts. Returns 0 or -errno (the
 * file could not be written; hwprof_strerror_last() says why). */
int hwprof_region_report(void);

/* ---- kernel work ------------------------------------------------------------------------- */

/* Whether this process may count kernel work: a test perf_event_open(2) of context-switches
 * with exclude_kernel = 0 on the calling thread, through hwprof_sys(), succeeds (root,
 * CAP_PERFMON, or perf_event_paranoid <= 1). The result is not cached. */
bool hwprof_kernel_countable(void);

/* Why EV cannot give a meaningful count as configured, or NULL when it can. Today: the
 * scheduler's software events (context-switches, cpu-migrations) are raised inside the kernel,
 * so counted with exclude_kernel (user-only, the default without :k) they always read 0;
 * hwprof_group_read() then reports them with counted = false. The reason names the way out:
 * "kernel work, counted user-only (count it with :uk)" when hwprof_kernel_countable(), else
 * "kernel work; needs perf_event_paranoid <= 1 or CAP_PERFMON". Static string. */
const char *hwprof_count_why_not(const struct hwprof_event *ev);

#ifdef __cplusplus
}
#endif

#endif
