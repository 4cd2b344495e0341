/* fixture.h - what tests/report's criterion files share: recordings of the workloads, loading
 * them, counting samples in a profile, and synthetic inputs fed to the builder.
 *
 * Real recordings come from `hwprof record -e page-faults -c 1`: with period 1 every fault's
 * IP is exact, so a workload's HOT: line must take the samples of its file (hot.h finds it).
 * Every helper asserts (criterion) instead of returning an error.
 */
#ifndef HWPROF_TESTS_REPORT_FIXTURE_H
#define HWPROF_TESTS_REPORT_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "builder.h"
#include "hot.h"
#include "rows.h"

/* A fresh path for NAME under $RPT_TMP into BUF (LEN bytes): unique per process and call. */
void tmp_path(char *buf, size_t len, const char *name);

/* Runs ARGV (ARGV[0] a path) with stderr to /dev/null and waits. Returns its exit status, or
 * 128+N when signal N ended it. */
int run(char *const argv[]);

/* Records PROG (with one argument ARG, a page count) into OUT at one sample per page fault;
 * asserts that hwprof record succeeded. */
void record(const char *out, const char *prog, const char *arg);

/* profile_load() of O, asserted to succeed. The caller frees the profile. */
struct profile *load_opts(struct profile_options *o);

/* The profile of the one file PATH with inline frames as MODE. */
struct profile *load1(const char *path, enum inline_mode mode);

/* Whether path S ends with SUFFIX as whole components ("a/wl.c" ends with "wl.c"). */
bool ends_with(const char *s, const char *suffix);

/* Samples of P at SRC:LINE (LINE 0: anywhere in SRC; SRC matched as a path suffix) whose
 * function is FN (NULL: any) and inline caller INTO (NULL: any, "" none). */
uint64_t samples_at(const struct profile *p, const char *src, int line, const char *fn,
		    const char *into);

/* Samples of P in the DSO named exactly DSO. */
uint64_t samples_of_dso(const struct profile *p, const char *dso);

/* Whether one of P's warnings contains A and (unless B is NULL) B. */
bool has_warning(const struct profile *p, const char *a, const char *b);

/* A new debug directory for PROG: DIR (DIRLEN bytes) gets a fresh tmp_path() NAME holding
 * .build-id/xx/, FILE (FILELEN bytes) the path of PROG's build-id debug file there, not
 * made. Asserts PROG has a build-id. */
void build_id_dir(const char *prog, const char *name, char *dir, size_t dirlen, char *file,
		  size_t filelen);

/* RPT_DWARF_DEBUGZSTD, the split debug file compressed with zstd; skips the test when it is
 * not (split-debug.sh copies the zlib one where objcopy cannot write zstd). */
const char *zstd_debug_file(void);

/* Removes FILE and the directories build_id_dir() made for it under DIR. */
void build_id_dir_remove(const char *dir, const char *file);

/* The row of ROWS (N of them, --sort data) whose data label (row_data_label()) is LABEL, or
 * NULL. */
const struct profile_row *data_row_named(const struct profile_row *rows, size_t n,
					 const char *label);

/* Starts input NAME in B with one sampling event, page-faults at period 1. */
void begin(struct builder *b, const char *name);

/* Adds N samples of period 1 at IP, of PID/TID at time T, user or KERNEL. */
void add_samples(struct builder *b, uint32_t pid, uint32_t tid, uint64_t t, uint64_t ip, int n,
		 bool kernel);

/* Ends the input begun, finishes B into a profile (asserting builder_finish returns WANT, its
 * message into ERR, LEN bytes) and frees B. Returns the profile (NULL unless WANT is 0). */
struct profile *finish(struct builder *b, char *err, size_t len, int want);

/* The path of the running test binary into BUF (LEN bytes), NUL-terminated; asserts it fits. */
void self_exe(char *buf, size_t len);

/* Starts input "mem.hwprof" in B: one load-latency sampling event (period 1000) with data
 * addresses. */
void begin_data(struct builder *b);

/* A mapping of NAME at [START, START + LEN), file offset PGOFF, protection PROT (mmap(2)'s),
 * into pid 9 at time 1. */
void data_map(struct builder *b, uint64_t start, uint64_t len, uint64_t pgoff, const char *name,
	      uint32_t prot);

/* A sample of pid 9 at time 10: code address IP, data address ADDR, PERF_SAMPLE_DATA_SRC SRC
 * and weight W (cycles), period 1000. */
void mem_sample(struct builder *b, uint64_t ip, uint64_t addr, uint64_t src, uint64_t w);

#endif
