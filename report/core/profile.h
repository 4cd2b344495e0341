/* profile.h - a loaded, symbolized profile: what `hwprof report` prints and `hwprof annotate`
 * shows. Free of terminals and output formats.
 *
 * Loading reads one or more sample files (hwprof/sampfile.h), replays MMAP/COMM/FORK/EXIT to
 * map each sample IP to (DSO, address in the DSO's link-time space), aggregates samples by that
 * pair, and symbolizes each distinct address once (libdwfl: function from the symbol table,
 * file:line from the DWARF line table, inline frames, C++ demangled).
 *
 * Owner: report/core/ (the loader, load.c, and the builder). report/ and annotate/ only
 * read it.
 */
#ifndef HWPROF_REPORT_CORE_PROFILE_H
#define HWPROF_REPORT_CORE_PROFILE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/hwprof.h"
#include "hwprof/sampfile.h"

enum inline_mode {
	INLINE_CALLEE, /* an inlined instruction's line belongs to the inlined function (default) */
	INLINE_CALLER, /* charge it to the outermost call-site line and function */
};

struct dso_table;
struct profile_lazy;

struct profile_options {
	const char **inputs; /* sample files; several are merged (same binaries) */
	size_t ninputs;
	enum inline_mode inline_mode;
	const char **debug_dirs; /* extra directories for separate debug info */
	size_t ndebug_dirs;
	/* Filters; 0 / NULL = no filter. Comma-separated lists where plural. */
	const char *pids, *tids, *comms, *dsos, *functions;
	const char *kallsyms; /* kernel symbol file; NULL = /proc/kallsyms */
	const char *event;    /* the sampling event to show (name as recorded); NULL =
			       * the first sampling event */
	const char *focus;    /* a function name (funcname.h's matching) when only its
			       * code will be looked at: an address whose symbol names
			       * another function gets that function only, no line and no
			       * inline frames, and a DSO none of whose sampled addresses
			       * may be in it has its DWARF never read; NULL = every
			       * address in full */
	bool use_cache;	      /* answers kept on disk between reports (symcache.h); not
			       * for a focused profile */
	bool keep_code;	      /* keep the files the loader opened (libdwfl, their DWARF
			       * read so far) with the profile, for code.h to read
			       * instructions and lines from without opening them again */
	bool lazy_lines;      /* with keep_code, and no focus: each sampled address of a
			       * DSO file gets the function its symbol names only (no line,
			       * no inline frames), left pending for profile_resolve() to
			       * complete when a view looks at it (an address without a
			       * symbol is resolved whole at once). A profile with stacks
			       * is loaded whole (its call sites' lines are every view's).
			       * Not cached */
	bool data;	      /* resolve the samples' data addresses into profile.data
			       * (--sort data, cacheline); false: they are not looked at
			       * and profile.data is empty */
	bool every_event;     /* the view shows every sampling event (report --group): no
			       * warning says that the other events' samples are not shown */
};

/* ---- the tables, shaped like pprof's profile.proto -------------------------------------
 *
 * mappings (profile.mappings) -> locations (profile.locations: an address in a mapping with
 * its whole inline chain as lines, each a function of profile.functions at a file:line) ->
 * stacks (profile.stacks: location ids, leaf first). Every string is interned in the
 * profile's pool: within a profile equal strings are one pointer; across profiles (a diff)
 * the keys are compared by their strings' content, never by index or pointer. */

/* A mapped file (pprof's Mapping), indexed by the DSO ids of the loader: 0 is "[unknown]"
 * (addresses outside every mapping), 1 "[kernel]". */
struct profile_mapping {
	const char *file;     /* path as recorded, or "[unknown]", "[kernel]", "[vdso]", ... */
	uint8_t build_id[20]; /* as recorded (the GNU build-id note); BUILD_ID_SIZE 0: none */
	uint8_t build_id_size;
	bool bias_known;       /* the file was read (it exists and is the recorded build) */
	int64_t bias;	       /* its first PT_LOAD's p_vaddr - p_offset (ELF gABI): a file
				* offset plus BIAS is its link-time address (the same for every
				* segment but in lld's layouts; profile_loc.addr is exact) */
	uint64_t start, limit; /* when BIAS_KNOWN: the link-time addresses its PT_LOADs span,
				* [lowest p_vaddr, highest p_vaddr + p_memsz); else 0, 0 */
};

/* A function (pprof's Function): its name for people, its linkage name and where it is
 * declared. functions[0] is the unknown function (every field NULL / 0). */
struct profile_function {
	const char *name;	 /* demangled, C++ scopes qualified; NULL: unknown */
	const char *system_name; /* the linkage (mangled) name as in the symbol table or
				  * DW_AT_linkage_name; NULL: none known */
	const char *file;	 /* declaration file (DW_AT_decl_file), NULL: unknown */
	int start_line;		 /* declaration line (DW_AT_decl_line), 0: unknown */
};

/* One frame of a location's inline chain (pprof's Line): a function at a source line. */
struct profile_line {
	uint32_t function; /* index in profile.functions (0: unknown) */
	const char *file;  /* NULL: unknown. The innermost line's is the line table's row
			    * at the address; each outer line's the call site of the
			    * inlined call it holds (DW_AT_call_file / DW_AT_call_line) */
	int line;	   /* 0: unknown */
};

/* One distinct symbolized location (pprof's Location): a DSO address with its samples and
 * its inline chain (profile.lines[first_line .. first_line + nlines), innermost first, the
 * real, not inlined, function last; nlines 0 when nothing is known). The fields from
 * FUNCTION to CALL_LINE are the chain seen under profile_options.inline_mode, the one view
 * rows and annotate group by. */
struct profile_loc {
	const char *dso;	  /* path of the mapped file, "[kernel]", or "[unknown]" */
	uint64_t addr;		  /* address in the DSO's link-time (ELF vaddr) space; when
				   * UNKNOWN, the file offset (the IP itself for [unknown]
				   * and [kernel]) */
	const char *function;	  /* innermost function (inline frame) or NULL if unknown;
				   * C++ names demangled */
	const char *inlined_into; /* the real (outermost, not inlined) function whose code
				   * FUNCTION was inlined into, or NULL; with nested inlines
				   * the frames between are not named */
	const char *file;	  /* source file path as in DWARF (comp_dir joined), or NULL */
	int line;		  /* 0 when unknown */
	const char *call_file;	  /* outermost call site when inlined (a line of
				   * INLINED_INTO), else NULL */
	int call_line;
	uint64_t samples;	     /* number of samples */
	double period;		     /* sum of sample periods (events); shares use this */
	uint64_t offset;	     /* file offset of the address in DSO (what `dso+0xoff`
				      * shows when nothing else is known) */
	bool unknown;		     /* no symbol and no line: print `[unknown] dso+0xoff` */
	uint32_t id;		     /* its index in profile.locations */
	uint32_t mapping;	     /* its index in profile.mappings */
	uint32_t first_line, nlines; /* its inline chain in profile.lines */
};

/* One distinct call stack and the samples that took it. */
struct profile_stack {
	const uint32_t *locs; /* N indexes into profile.locations, leaf first: locs[0] the
			       * sampled address, then each caller's call site (the
			       * location of return address - 1), outward */
	uint32_t n;	      /* >= 1 */
	bool truncated;	      /* the recorded chain was cut: the outermost callers are
			       * missing */
	uint64_t samples;
	double period;
};

/* One column of the value vector: the samples of one event and the sum of their periods
 * (in the event's unit: events, or ns for cpu-clock and task-clock). */
struct profile_value {
	uint64_t samples;
	double period;
};

/* One distinct stack with the samples every sampling event took on it (the value vector of
 * issue 12: stack x one value per event). */
struct profile_vsample {
	const uint32_t *locs; /* as profile_stack.locs: location ids, leaf first (a sample
			       * recorded without callers: its address alone) */
	uint32_t n;	      /* >= 1 */
	bool truncated;	      /* the recorded chain was cut */
	const struct profile_value *values; /* profile.nvalues entries, by column */
};

/* What a data address lies in (record --data). */
enum profile_data_kind {
	PROFILE_DATA_UNKNOWN, /* in no data mapping recorded: "[unknown]" */
	PROFILE_DATA_VAR,     /* a global or static variable of a DSO (ELF symbol, DWARF type) */
	PROFILE_DATA_FILE,    /* a file-backed mapping, no variable known: "file+0xOFF" */
	PROFILE_DATA_HEAP,    /* "[heap]" (brk) */
	PROFILE_DATA_STACK,   /* "[stack]" */
	PROFILE_DATA_ANON,    /* "[anon]": anonymous memory (large malloc, thread stacks) */
};

/* One distinct (instruction, data object, access offset, data source) of the shown event's
 * samples with a data address, after filters. */
struct profile_data {
	uint32_t loc; /* the instruction: index in profile.locations */
	enum profile_data_kind kind;
	const char *object;  /* the --sort data key: "g.b", "table[].key" (the first
			      * array index elided: ELEM), "counter" (no DWARF type),
			      * "[heap]", a file's path, "[unknown]" */
	int64_t elem;	     /* VAR: the index of OBJECT's "[]", or without DWARF the byte
			      * offset in the symbol; FILE: the file offset; -1 none */
	const char *base;    /* what the cache lines are counted from: the variable ("g"),
			      * the region ("[heap]"), the file; interned */
	uint64_t base_start; /* its start: link-time address of the variable, run-time
			      * address of the mapping, 0 for a file (offsets) */
	uint64_t offset;     /* the access: bytes from BASE_START */
	uint32_t align;	     /* BASE_START's run-time address mod 4096 (cache lines are
			      * aligned in the address space, not in the object); a VAR's
			      * lines use its link-time address (IMAGE) instead */
	const char *image;   /* VAR: the ELF image whose variable it is (its path, interned):
			      * --sort cacheline counts its lines in the image's link-time
			      * addresses, across its variables; else NULL */
	uint64_t data_src;   /* PERF_SAMPLE_DATA_SRC (0 unknown; datasrc.h) */
	uint64_t samples;
	double period;
	uint32_t first_weight; /* its samples' weights (latency, cycles; 0 not given) in
				* profile.data_weights[first_weight .. + samples) */
};

/* A loaded profile. Every string is owned by the profile. */
struct profile {
	struct hwprof_file_header header;   /* of the first input, but its events are those
					     * of every input, matched by name (the first
					     * input's first, then each new name in input
					     * order; an event's fields from the first input
					     * that has it) */
	struct hwprof_file_trailer trailer; /* summed over inputs; counts[] summed per event
					     * name over the inputs that counted it (value,
					     * enabled_ns, running_ns; see count_inputs);
					     * lost: the trailers', the LOST records of an
					     * input without one; sampled[] per header.events
					     * entry, summed, known when every input sampling
					     * the event knew it. Lost shares: profile_lost() */
	bool have_trailer;
	uint64_t samples;	  /* total after filters */
	double period;		  /* total period after filters */
	struct profile_loc *locs; /* sorted by period, descending */
	size_t nlocs;
	char **warnings; /* one line each: truncated file, build-id mismatch, ... */
	size_t nwarnings, cap_warnings;
	bool partial;		 /* an input was cut short or corrupt: exit EXIT_PARTIAL */
	uint64_t samples_read;	 /* all samples of the inputs, before filters */
	struct strpool *strings; /* owns every string above (internal) */
	uint32_t event;		 /* index in header.events of the event shown */
	char **notes;		 /* one line each, for the user to know once (merged inputs
				  * whose recordings differ); no reason for EXIT_PARTIAL */
	size_t nnotes, cap_notes;
	uint64_t *event_samples;       /* samples read per header.events[] entry (inputs matched
					* by event name), before filters; NULL when no events */
	uint32_t ninputs;	       /* inputs read (a file given twice counts once) */
	uint32_t *count_inputs;	       /* per trailer.counts[]: how many inputs counted it
					* (counted and running); NULL: every input */
	struct profile_loc *locations; /* every distinct address, sampled or a caller's call
					* site, by id (unsorted; samples and period: its
					* own, before filters); locs[] are copies of the
					* sampled ones that pass the filters */
	size_t nlocations;
	struct profile_stack *stacks; /* when an input recorded stacks: every sample after
				       * filters in exactly one stack (one without a stack
				       * is its own address alone); else none */
	size_t nstacks;
	uint32_t *stack_locs;		  /* storage of stacks[].locs */
	uint64_t truncated_samples;	  /* samples of the stacks marked truncated */
	bool lost_partial;		  /* an input had no trailer: its lost samples are those of
					   * the LOST records read (a lower bound) */
	struct profile_mapping *mappings; /* by profile_loc.mapping */
	size_t nmappings;
	struct profile_function *functions; /* by profile_line.function; [0] unknown */
	size_t nfunctions;
	struct profile_line *lines; /* every location's inline chain, back to back */
	size_t nlines;
	/* The value vector: every sampling event's samples, kept when events other than the
	 * shown one have samples; else NVALUES is 0 and stacks[] and locations[] (the shown
	 * event's) say everything. Filtered as stacks[] are (every filter). */
	uint32_t nvalues;      /* columns: 0 (no vector), or 2 and more */
	uint32_t *value_event; /* per column: its event, an index in header.events (header
				* order; the shown event is one of them) */
	struct profile_vsample *vsamples; /* every distinct stack of every sampling event,
					   * each once (unsorted) */
	size_t nvsamples;
	struct profile_value *loc_values;     /* nlocations x nvalues: location I's own values
					       * (as a leaf) at [I * nvalues], the filters' */
	uint32_t *vsample_locs;		      /* storage of vsamples[].locs */
	struct profile_value *vsample_values; /* storage of vsamples[].values */
	/* The data side: every shown sample with a data address (record --data), by what it
	 * touched; none when no input has data addresses. */
	struct profile_data *data;
	size_t ndata;
	uint32_t *data_weights;	   /* per data sample, in data[] order; NULL when none had one */
	uint64_t data_samples;	   /* samples in data[] */
	double data_period;	   /* their period */
	bool data_weighted;	   /* some sample carried a weight */
	bool data_has_src;	   /* some sample carried a data source */
	struct dso_table *dsos;	   /* with profile_options.keep_code: the loader's DSOs by mapping
				    * index, as opened (internal: code.h reads them); else NULL */
	struct profile_lazy *lazy; /* with profile_options.lazy_lines: the locations still
				    * pending (internal: profile_resolve() reads them); NULL
				    * when none is */
};

/* The inline chain of location L of P, innermost first (*N lines; none: NULL and 0). */
const struct profile_line *profile_loc_lines(const struct profile *p, const struct profile_loc *l,
					     uint32_t *n);

/* The last path component of PATH ("" for NULL). */
const char *path_base(const char *path);

/* The profiled program, as its command line names it, or NULL when not known: argv[0] of
 * a hwprof recording; for a perf.data (whose header.argv is perf's own command line) the
 * word after perf record's options (perf_cmdline_target()) when the recording mapped a file
 * of that base name, else NULL (perf record -a, or a guess the mappings do not confirm).
 * Points into P's header. */
const char *profile_program(const struct profile *p);

/* Where the profiled command starts in P's header.argv, for showing it: the program's word
 * when profile_program() confirms it, else 0 (the whole command line). */
size_t profile_command_start(const struct profile *p);

/* The lost samples of P's shown event, the one answer every view prints and checks. */
struct profile_lost {
	uint64_t lost;	/* samples lost */
	uint64_t of;	/* LOST plus the samples it is a share of (LOST / OF is the share;
			 * OF 0: no samples at all) */
	bool per_event; /* LOST and OF are the shown event's own: it is the only sampling
			 * event, or every input stored each event's lost count (format 1.1
			 * on Linux 6.0+); else LOST is every event's (LOST records do not say
			 * whose) and OF every event's samples plus LOST */
	bool at_least;	/* an input had no trailer: LOST counts its LOST records only */
};

/* Fills *OUT for P. */
void profile_lost(const struct profile *p, struct profile_lost *out);

/* Loads and symbolizes. Returns 0 and *OUT, or -errno with ERR (one line: cause and way out).
 * Besides the builder's work it: reads a file given twice (same device and inode) once, with
 * a warning; shows one sampling event across the inputs (by name; the others' samples left out
 * of the rows with a warning per input, and kept in the value vector); notes how merged recordings
 * differ (the shown event's period or frequency, command) and counted totals some inputs lack;
 * warns and sets PARTIAL when over 1% of the samples were lost (profile_lost()), when the sampled
 * event counted more events than its samples and lost samples stand for, or a sampled DSO was
 * rebuilt or deleted since; applies --function by fn_pick() (funcname.h: base names, linkage names,
 * an ambiguous name is -EINVAL with the candidates); -EISDIR for a directory given as input. */
int profile_load(struct profile **out, const struct profile_options *opt, char *err, size_t errlen);

/* Completes the pending ones among the N location ids IDS of P (profile_options.lazy_lines):
 * their line, call site and inline chain, as a whole load gives them, in locations[] and in
 * their copies in locs[] (samples and period kept); profile.lines and profile.functions grow
 * (pointers into them do not stay valid). Other ids are left as they are: none pending (no
 * lazy load) costs nothing. Returns 0 or -ENOMEM. */
int profile_resolve(struct profile *p, const uint32_t *ids, size_t n);

/* Frees P. Accepts NULL. */
void profile_free(struct profile *p);

struct hwprof_metric;

/* Counted total C as libhwprof reads a count (hwprof_count_scale() with C's sysfs scale):
 * scaled = value * enabled/running * scale, ratio = running/enabled, counted false (scaled
 * and ratio 0) when it never ran or the file says it was not counted. */
struct hwprof_count profile_count_read(const struct hwprof_file_count *c);

/* Whether P's counted total I was counted by some inputs but not all (profile.count_inputs):
 * its sum covers part of the run only, so it is shown as "counted in K of N inputs", with no
 * value and no metric derived from it. */
bool profile_count_partial(const struct profile *p, uint32_t i);

/* Derived metrics (IPC, miss rates, MPKI) from P's counted totals, through
 * hwprof_metrics_derive(). Returns how many were written to OUT (room for MAX). */
size_t profile_metrics(const struct profile *p, struct hwprof_metric *out, size_t max);

/* Appends the printf-formatted line FMT to the array *V of *N malloc'd strings (warnings,
 * notes) with room for *CAP; *V is grown by hwprof_grow() and owns the line. Returns 0 or
 * -ENOMEM (*V and *N then unchanged in content). */
int profile_push_line(char ***v, size_t *n, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* profile_push_line() with the arguments in AP. */
int profile_push_vline(char ***v, size_t *n, size_t *cap, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

#endif
