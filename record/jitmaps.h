/* jitmaps.h - keeps the JIT symbol maps of the recorded processes beside the recording.
 *
 * A JIT compiler (node --perf-basic-prof, python -X perf, a JVM agent) writes the names of
 * its code to /tmp/perf-PID.map while the process runs; /tmp is cleared and PIDs are reused,
 * so record copies each map to OUTPUT.perf-PID.map, which report reads first (report/core's
 * jitmap.h). */
#ifndef HWPROF_RECORD_JITMAPS_H
#define HWPROF_RECORD_JITMAPS_H

#include <stddef.h>
#include <sys/types.h>

/* Copies /tmp/perf-PID.map, for each of the N processes PIDS that has one, to
 * OUTPUT.perf-PID.map. A copy that fails is a warning (the report falls back to /tmp).
 * Returns how many were copied. */
size_t jitmaps_keep(const char *output, const pid_t *pids, size_t n);

#endif
