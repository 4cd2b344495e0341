/* count_priv.h - internals shared by the counting files of libhwprof (group.c, region.c).
 * Not installed.
 */
#ifndef HWPROF_COUNT_PRIV_H
#define HWPROF_COUNT_PRIV_H

#include <stdbool.h>

/* Sets the calling thread's last-error line (printf-style, %m standing for strerror(ERR)) read
 * by hwprof_strerror_last(). Returns ERR so callers write `return count_fail(-ENOENT, "...")`. */
int count_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)))
__attribute__((visibility("hidden")));

/* Hands one printf-style message to the log callback (hwprof_set_log()). */
void count_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)))
__attribute__((visibility("hidden")));

/* Clears the calling thread's last-error line and its hwprof_see_last(). */
void count_clear_error(void) __attribute__((visibility("hidden")));

struct hwprof_event;
struct hwprof_count;

/* Whether EV is kernel work (context-switches, cpu-migrations, a tracepoint) counted with
 * exclude_kernel: such a count is always 0, a number that says nothing. */
bool count_kernel_work_excluded(const struct hwprof_event *ev)
    __attribute__((visibility("hidden")));

/* Marks C as not counted (counted false, scaled and ratio 0) when EV is such an event. */
void count_mark_kernel_work(const struct hwprof_event *ev, struct hwprof_count *c)
    __attribute__((visibility("hidden")));

#endif
