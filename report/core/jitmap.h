/* jitmap.h - the symbols a JIT compiler writes for its code in anonymous memory, in perf's
 * map format: /tmp/perf-PID.map, one "START SIZE NAME" line per function (START and SIZE in
 * hex, NAME the rest of the line), written by node --perf-basic-prof, Python 3.12's -X perf,
 * the JVM's perf-map-agent, LuaJIT and others (perf's tools/perf/Documentation/jit-interface.txt).
 */
#ifndef HWPROF_REPORT_JITMAP_H
#define HWPROF_REPORT_JITMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct jitmap;

/* Reads the map file PATH into *OUT. Lines that do not parse are skipped (a map being
 * written may end in half a line); a later line for the same START replaces the earlier
 * (code moved or recompiled). Returns 0; -errno of open(2), or -ENOMEM. */
int jitmap_read(const char *path, struct jitmap **out);

/* The name of the function whose [START, START+SIZE) holds ADDR (an absolute address of
 * the process), or NULL. Points into M. */
const char *jitmap_find(const struct jitmap *m, uint64_t addr);

/* How many functions M holds. */
size_t jitmap_size(const struct jitmap *m);

/* Frees M. Accepts NULL. */
void jitmap_free(struct jitmap *m);

/* The map file of process PID for the recording INPUT into BUF (LEN bytes): INPUT's own
 * copy, "INPUT.perf-PID.map" (hwprof record keeps one beside the recording), else
 * /tmp/perf-PID.map. Returns true when one exists. */
bool jitmap_locate(const char *input, uint32_t pid, char *buf, size_t len);

/* Whether a mapping named PATH (as an MMAP record gives it) is anonymous memory, where JIT
 * code lives: "//anon", "[anon:...]", "/memfd:...", or no name. */
bool jitmap_anon(const char *path);

#endif
