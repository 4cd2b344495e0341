/* maps.h - each process's executable mappings over time, replayed from MMAP, FORK and exec.
 *
 * Records of a recording come from per-CPU ring buffers, so a sample can reach the file after
 * a later exec or mmap of its process. Every mapping therefore keeps the time span in which
 * it was valid [begin, end), and a sample is matched against the mapping valid at its time.
 * FORK of a new process copies the parent's live mappings; an exec (COMM with the exec flag)
 * ends them. EXIT keeps them: late samples of an exited process still resolve.
 */
#ifndef HWPROF_REPORT_MAPS_H
#define HWPROF_REPORT_MAPS_H

#include <stddef.h>
#include <stdint.h>

struct map {
	uint64_t start, end;   /* [start, end) virtual addresses */
	uint64_t pgoff;	       /* file offset of start, bytes */
	uint64_t begin, until; /* valid in time [begin, until), ns */
	uint32_t dso;	       /* index in the profile's dso_table */
};

struct maps;

/* A new empty table, or NULL on ENOMEM. */
struct maps *maps_new(void);

/* Frees M. Accepts NULL. */
void maps_free(struct maps *m);

/* PID mapped [START, START+LEN) of DSO at file offset PGOFF at TIME. Older mappings it
 * overlaps end at TIME. Returns 0 or -ENOMEM. */
int maps_mmap(struct maps *m, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
	      uint32_t dso, uint64_t time);

/* New process PID forked from PPID at TIME: gets PPID's mappings live at TIME. Returns 0 or
 * -ENOMEM. A thread (PID == PPID) changes nothing. */
int maps_fork(struct maps *m, uint32_t pid, uint32_t ppid, uint64_t time);

/* PID exec'ed at TIME: its mappings end. */
void maps_exec(struct maps *m, uint32_t pid, uint64_t time);

/* The mapping of PID that holds IP at TIME, or NULL. When no mapping is valid at TIME (a
 * record without time), the newest one holding IP. */
const struct map *maps_find(struct maps *m, uint32_t pid, uint64_t ip, uint64_t time);

/* maps_find()'s answer, found by a full search, that also narrows [*LO, *HI) (ns; start from
 * [0, UINT64_MAX)) to times around TIME at which PID's answer for IP is the same: a caller
 * may keep the answer for another time in [*LO, *HI) of PID while maps_generation() stays
 * the same. */
const struct map *maps_find_span(struct maps *m, uint32_t pid, uint64_t ip, uint64_t time,
				 uint64_t *lo, uint64_t *hi);

/* A number that changes whenever M's mappings do (maps_mmap(), maps_fork(), maps_exec()). */
uint64_t maps_generation(const struct maps *m);

#endif
