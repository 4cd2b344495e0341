/* count_priv.h - internals shared by the counting files of libhwprof (group.c, region.c).
 * Not installed.
 */
#ifndef HWPROF_COUNT_PRIV_H
#define HWPROF_COUNT_PRIV_H

/* Sets the calling thread's last-error line (printf-style) read by hwprof_strerror_last().
 * Returns -ERR so callers write `return count_fail(-ENOENT, "...")`. */
int count_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)))
__attribute__((visibility("hidden")));

/* Clears the calling thread's last-error line. */
void count_clear_error(void) __attribute__((visibility("hidden")));

#endif
