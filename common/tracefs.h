/* tracefs.h - the kernel's tracepoints as tracefs lists them: a tracepoint "SYS:EVENT" is
 * opened with perf_event_attr.type PERF_TYPE_TRACEPOINT and config the number in
 * TRACEFS/events/SYS/EVENT/id (perf_event_open(2), "PERF_TYPE_TRACEPOINT"). Internal: not
 * installed. */
#ifndef HWPROF_TRACEFS_H
#define HWPROF_TRACEFS_H

#include <stddef.h>
#include <stdint.h>

/* The tracefs mount that holds events/: $HWPROF_TRACEFS_ROOT when set (tests; NULL when it
 * has no events/), else /sys/kernel/tracing, else /sys/kernel/debug/tracing; NULL when none
 * is mounted. The string is static or the environment's. */
const char *hwprof_tracefs_root(void);

/* Reads the id of tracepoint SYS:EVENT into *ID. Returns 0; -ENODEV when tracefs is not
 * mounted; -ENOENT when there is no such system or event; -EACCES when tracefs may not be
 * read (it is root's by default); -EINVAL when the id file does not hold a number. */
int hwprof_tracefs_event_id(const char *sys, const char *event, uint64_t *id);

/* Every tracepoint "SYS:EVENT" that matches the fnmatch(3) PATTERN (NULL: all), sorted, in
 * *OUT (N malloc'd strings in a malloc'd array; free with hwprof_tracefs_names_free()). Returns 0
 * (none matching: N 0), or -ENODEV, -EACCES as above, or -ENOMEM. */
int hwprof_tracefs_events(const char *pattern, char ***out, size_t *n);

/* Frees what hwprof_tracefs_events() returned. Accepts NULL. */
void hwprof_tracefs_names_free(char **names, size_t n);

#endif
