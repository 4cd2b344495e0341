/* model.h - a loaded, symbolized profile: what `hwprof report` prints and `hwprof annotate`
 * shows. Free of terminals and output formats.
 *
 * Loading reads one or more sample files (hwprof/sampfile.h), replays MMAP/COMM/FORK/EXIT to
 * map each sample IP to (DSO, address in the DSO's link-time space), aggregates samples by that
 * pair, and symbolizes each distinct address once (libdwfl: function from the symbol table,
 * file:line from the DWARF line table, inline frames, C++ demangled).
 *
 * Owner: report/. annotate/ only reads it.
 */
#ifndef HWPROF_REPORT_MODEL_H
#define HWPROF_REPORT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/sampfile.h"

enum inline_mode {
	INLINE_CALLEE,	/* an inlined instruction's line belongs to the inlined function (default) */
	INLINE_CALLER,	/* charge it to the outermost call-site line and function */
};

struct profile_options {
	const char **inputs;		/* sample files; several are merged (same binaries) */
	size_t ninputs;
	enum inline_mode inline_mode;
	const char **debug_dirs;	/* extra directories for separate debug info */
	size_t ndebug_dirs;
	/* Filters; 0 / NULL = no filter. Comma-separated lists where plural. */
	const char *pids, *tids, *comms, *dsos, *functions;
};

/* One distinct symbolized location: a DSO address with its samples. */
struct profile_loc {
	const char *dso;		/* path of the mapped file, "[kernel]", or "[unknown]" */
	uint64_t addr;			/* address in the DSO's link-time (ELF vaddr) space */
	const char *function;		/* innermost function (inline frame) or NULL if unknown;
					 * C++ names demangled */
	const char *inlined_into;	/* the function FUNCTION was inlined into, or NULL */
	const char *file;		/* source file path as in DWARF (comp_dir joined), or NULL */
	int line;			/* 0 when unknown */
	const char *call_file;		/* outermost call site when inlined, else NULL */
	int call_line;
	uint64_t samples;		/* number of samples */
	double period;			/* sum of sample periods (events); shares use this */
};

/* A loaded profile. Every string is owned by the profile. */
struct profile {
	struct hwprof_file_header header;	/* of the first input */
	struct hwprof_file_trailer trailer;	/* summed over inputs; ncounts from the first */
	bool have_trailer;
	uint64_t samples;		/* total after filters */
	double period;			/* total period after filters */
	uint64_t lost;
	struct profile_loc *locs;	/* sorted by period, descending */
	size_t nlocs;
	char **warnings;		/* one line each: truncated file, build-id mismatch, ... */
	size_t nwarnings;
};

/* Loads and symbolizes. Returns 0 and *OUT, or -errno with ERR (one line: cause and way out). */
int profile_load(struct profile **out, const struct profile_options *opt, char *err,
		 size_t errlen);

/* Frees P. Accepts NULL. */
void profile_free(struct profile *p);

#endif
