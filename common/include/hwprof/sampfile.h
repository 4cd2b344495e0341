/* hwprof/sampfile.h - the sample file (hwprof.data): one writer, one reader.
 *
 * The byte layout is documented in docs/format.md. In short: little-endian; a preamble with
 * magic, major/minor version and feature bits; then length-prefixed, checksummed records. The
 * header records (host, command line, events) come first, the trailer records (counted totals,
 * summary) last. Samples are packed in per-thread blocks of zigzag/varint deltas, a few bytes
 * each. A file cut short reads up to its last whole record; the reader then reports what is
 * missing (hwprof_reader_status()).
 *
 * The reader trusts no length or count: every field is bounds-checked, and a corrupt record
 * ends the read with HWPROF_READ_CORRUPT instead of a wrong value.
 */
#ifndef HWPROF_SAMPFILE_H
#define HWPROF_SAMPFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HWPROF_FILE_MAJOR 1
#define HWPROF_FILE_MINOR 4

/* The most entries a stack (struct hwprof_rec_stack) may hold; longer ones are refused by the
 * writer (EINVAL) and are corruption to the reader. Above perf_event_max_stack's default of
 * 127 (sysctl kernel.perf_event_max_stack) with room for deep unwinds. */
#define HWPROF_STACK_MAX 1024

/* One sampling or counting event as stored in the header. */
struct hwprof_file_event {
	char name[192]; /* spec as given by the user, e.g. "LLC-load-misses:P" */
	uint32_t type;	/* perf_event_attr.type */
	uint64_t config, config1, config2;
	bool sampling; /* false for a member of the counting group */
	bool freq;     /* sample_freq (Hz) in period_or_freq, else sample_period (events) */
	uint64_t period_or_freq;
	uint8_t precise_requested; /* 0..3; for :P the level that was asked of the kernel */
	uint8_t precise_obtained;  /* 0..3, after the step-down */
	bool precise_max;	   /* the user asked :P */
	bool exclude_user, exclude_kernel, exclude_hv;
};

/* The header: facts fixed when recording starts. Strings are NUL-terminated, owned by the
 * struct's owner (the reader, or the writer's caller). */
struct hwprof_file_header {
	uint16_t major, minor; /* format version of the file */
	char hostname[65];
	char kernel[65];	/* uname -r */
	char cpu_model[128];	/* /proc/cpuinfo "model name" */
	uint32_t ncpus;		/* CPUs online */
	uint64_t start_time_ns; /* CLOCK_REALTIME at start, ns since the epoch */
	uint32_t argc;
	char **argv;	  /* the target's command line, ARGC strings (0 for `record -a` alone) */
	bool system_wide; /* record -a / -C: every task of the CPUs, not only the command's */
	char cpus[128];	  /* with SYSTEM_WIDE: -C's CPUs as a cpulist ("0-3,8", ending in "..."
			   * when cut to fit); "": every online CPU. Both false / "" in files
			   * before format 1.4. */
	uint32_t nevents;
	struct hwprof_file_event *events; /* [0] is the sampling event */
	bool stacks; /* the file holds stacks (a reader that does not know them refuses it).
		      * Writer: set it when hwprof_writer_add_stack() will be called; if not,
		      * the first call rewrites the preamble (regular files only, else EINVAL).
		      * Reader: set when the file says so. */
	bool data;   /* the samples carry data fields (addr, data_src, weight: format 1.3; a
		      * reader that does not know them refuses the file). Writer: set it when
		      * samples will have them (record --data); if not, the first sample with
		      * one rewrites the preamble (regular files only, else EINVAL). Reader:
		      * set when the file says so. */
};

enum hwprof_rec_type {
	HWPROF_REC_MMAP = 1,   /* an executable mapping (from PERF_RECORD_MMAP2) */
	HWPROF_REC_COMM,       /* a thread's name changed (exec or prctl) */
	HWPROF_REC_FORK,       /* a new process or thread */
	HWPROF_REC_EXIT,       /* a process or thread ended */
	HWPROF_REC_SAMPLE,     /* one sample (decoded from a sample block) */
	HWPROF_REC_LOST,       /* the kernel dropped LOST samples (PERF_RECORD_LOST) */
	HWPROF_REC_THROTTLE,   /* sampling throttled (PERF_RECORD_THROTTLE) */
	HWPROF_REC_UNTHROTTLE, /* sampling resumed (PERF_RECORD_UNTHROTTLE) */
	HWPROF_REC_STACK,      /* a distinct call stack, referred to by samples' stack_id */
};

struct hwprof_rec_mmap {
	uint32_t pid, tid;
	uint64_t time;		    /* ns, perf clock (CLOCK_MONOTONIC-like, see attr.clockid) */
	uint64_t start, len, pgoff; /* mapping: address, bytes, file offset in bytes */
	uint32_t prot, flags;	    /* PROT_*, MAP_* */
	uint8_t build_id_size;	    /* 0 when unknown */
	uint8_t build_id[20];
	const char *filename; /* valid until the next hwprof_reader_next() */
	/* Added in format 1.1 (false / 0 in older files): the mapped file as it was when
	 * recording, to tell a rebuilt file from the recorded one when no build-id can. */
	bool ino_known;		       /* DEV_MAJOR, DEV_MINOR, INO hold the file's */
	uint32_t dev_major, dev_minor; /* device of the file (MMAP2 maj/min, or stat(2)) */
	uint64_t ino;		       /* inode number (MMAP2 ino, or stat(2)) */
	bool stat_known;	       /* SIZE and MTIME_NS hold stat(2)'s */
	uint64_t size;		       /* bytes */
	uint64_t mtime_ns;	       /* st_mtim, ns since the epoch */
};

struct hwprof_rec_comm {
	uint32_t pid, tid;
	uint64_t time;
	bool exec;	  /* set by an exec (PERF_RECORD_MISC_COMM_EXEC) */
	const char *comm; /* valid until the next hwprof_reader_next() */
};

struct hwprof_rec_task { /* FORK and EXIT */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct hwprof_rec_sample {
	uint32_t pid, tid;
	uint32_t cpu;
	uint64_t time; /* ns */
	uint64_t ip;
	uint64_t period;   /* events this sample stands for (weight in reports) */
	uint16_t event;	   /* index into header.events */
	bool kernel;	   /* ip is in the kernel (PERF_RECORD_MISC_KERNEL) */
	uint32_t stack_id; /* the sample's callers (a STACK record's id), 0: no stack */
	/* The data fields (format 1.3, `record --data`; perf_event_open(2) sample layout). 0
	 * when not recorded, and where the kernel knows nothing (it writes 0 there too). */
	uint64_t addr;	   /* PERF_SAMPLE_ADDR: the data address the sampled instruction
			    * touched (page faults: the faulting address, exact) */
	uint64_t data_src; /* PERF_SAMPLE_DATA_SRC: union perf_mem_data_src bits
			    * (linux/perf_event.h; datasrc.h decodes them) */
	uint64_t weight;   /* PERF_SAMPLE_WEIGHT, or PERF_SAMPLE_WEIGHT_STRUCT's var1_dw: the
			    * access latency, core cycles */
};

/* A call stack: the callers of a sample's ip. The reader returns each STACK before any sample
 * that refers to it; a sample whose stack_id the file has not defined is corruption. */
struct hwprof_rec_stack {
	uint32_t id;	     /* 1.., unique in the file, in the order the records come */
	uint32_t nr;	     /* entries in ips, <= HWPROF_STACK_MAX */
	uint32_t nr_kernel;  /* the first nr_kernel entries are kernel addresses (<= nr) */
	bool truncated;	     /* the chain was cut (--max-stack, stack copy too small, the
			      * unwinder stopped) */
	const uint64_t *ips; /* the callers only, innermost first: return addresses (the call
			      * site is the instruction before). The sample's own ip is not
			      * repeated. Valid until the next hwprof_reader_next(). */
};

struct hwprof_rec_lost { /* LOST, THROTTLE, UNTHROTTLE */
	uint64_t time;
	uint64_t lost; /* samples lost (LOST only) */
	uint32_t cpu;
};

/* One decoded record. */
struct hwprof_record {
	enum hwprof_rec_type type;
	union {
		struct hwprof_rec_mmap mmap;
		struct hwprof_rec_comm comm;
		struct hwprof_rec_task task;
		struct hwprof_rec_sample sample;
		struct hwprof_rec_lost lost;
		struct hwprof_rec_stack stack;
	};
};

/* A counted total from the counting group (read with PERF_FORMAT_GROUP |
 * TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING, perf_event_open(2)). */
struct hwprof_file_count {
	char event[192]; /* spec as given */
	bool counted;	 /* false: the event never ran or could not be opened */
	uint64_t value;	 /* raw count */
	uint64_t enabled_ns, running_ns;
	double scale; /* sysfs .scale, 1.0 when none */
	char unit[32];
};

/* A sampling event's own totals, read from the event itself when recording ends (read(2) of
 * each per-CPU event, summed; perf_event_open(2) read_format). Added in format 1.1. */
struct hwprof_file_sampled {
	bool count_known; /* COUNT holds the event's value */
	uint64_t count;	  /* events counted (inherited children's included: the kernel folds
			   * an ended child's count into its parent's event) */
	bool lost_known;  /* LOST holds PERF_FORMAT_LOST (Linux 6.0+; older kernels refuse the
			   * bit with EINVAL) */
	uint64_t lost;	  /* this event's samples the kernel could not write to the ring */
};

/* The trailer: what is known only when recording ends. */
struct hwprof_file_trailer {
	uint64_t samples;     /* samples written */
	uint64_t lost;	      /* samples the kernel reported lost */
	uint64_t throttles;   /* THROTTLE records */
	uint64_t duration_ns; /* wall time of the recording */
	int32_t exit_status;  /* target's: >= 0 exit code, < 0 killed by signal -N;
			       * INT32_MIN unknown */
	uint32_t ncounts;
	struct hwprof_file_count *counts;
	char note[256]; /* why recording stopped early, or "" */
	/* Added in format 1.1: per header.events[] entry (header.nevents of them), or NULL
	 * when the file has none (format 1.0, or no event was read). */
	struct hwprof_file_sampled *sampled;
};

/* ---- writer ---------------------------------------------------------------------------- */

struct hwprof_writer;

/* Creates PATH (truncating it) and writes the preamble and HEADER (copied). Returns 0 and
 * *OUT, or -errno (EACCES, ENOENT, ENOSPC, ...). Writes are buffered; the file is complete
 * only after hwprof_writer_close(), but each flushed block is readable on its own. */
int hwprof_writer_open(struct hwprof_writer **out, const char *path,
		       const struct hwprof_file_header *header);

/* The same on FD, a file the caller opened for writing (empty, at offset 0), e.g. one it holds
 * a lock on. The writer owns FD from the call on, failure included: hwprof_writer_close()
 * closes it. Returns 0 and *OUT, or -errno (EBADF, ENOSPC, ...). */
int hwprof_writer_open_fd(struct hwprof_writer **out, int fd,
			  const struct hwprof_file_header *header);

/* Appends one record (any type but SAMPLE goes out in order; samples are packed in per-thread
 * blocks, flushed before any other record so the file stays in time order per thread).
 * Returns 0 or -errno (a write error is sticky: later calls return it too); -EINVAL, not
 * sticky, for an unknown type, a sample whose event index is not below header.nevents or whose
 * stack_id hwprof_writer_add_stack() did not return, a STACK record (use
 * hwprof_writer_add_stack()), or a build_id_size over 20. */
int hwprof_writer_add(struct hwprof_writer *w, const struct hwprof_record *rec);

/* Interns the stack IPS[NR] (callers, innermost first; the first NR_KERNEL are kernel
 * addresses) by content: the first time it is seen a STACK record is queued, written before
 * any sample that refers to it. Sets *ID (>= 1, the same for the same content) for
 * hwprof_rec_sample.stack_id. NR may be 0 (a sample with no known caller). Returns 0 or
 * -errno: EINVAL (NR over HWPROF_STACK_MAX, NR_KERNEL over NR, or header.stacks unset on a
 * file whose preamble cannot be rewritten), ENOMEM, or a sticky write error. */
int hwprof_writer_add_stack(struct hwprof_writer *w, const uint64_t *ips, uint32_t nr,
			    uint32_t nr_kernel, bool truncated, uint32_t *id);

/* Flushes buffered blocks to the file (e.g. each second, so a kill -9 loses little).
 * Returns 0 or -errno. */
int hwprof_writer_flush(struct hwprof_writer *w);

/* Writes TRAILER (may be NULL: then the file reads as cut short), flushes, closes and frees
 * W. TRAILER->sampled, when not NULL, has one entry per header event; entries with neither
 * count nor lost known are not written. Returns 0 or the first -errno seen by any writer call.
 * Accepts NULL. */
int hwprof_writer_close(struct hwprof_writer *w, const struct hwprof_file_trailer *trailer);

/* Bytes written so far (including buffered ones). */
uint64_t hwprof_writer_bytes(const struct hwprof_writer *w);

/* ---- reader ---------------------------------------------------------------------------- */

struct hwprof_reader;

enum hwprof_read_status {
	HWPROF_READ_OK,	       /* whole file read, trailer present */
	HWPROF_READ_TRUNCATED, /* ended in the middle of a record, or without a trailer */
	HWPROF_READ_CORRUPT,   /* a checksum or field did not hold: reading stopped there */
	HWPROF_READ_NOMEM,     /* memory ran out (ENOMEM) decoding a record: reading stopped
				* there, the file itself may be whole */
};

/* Opens PATH and reads the preamble and header records. Returns 0 and *OUT, or -errno:
 * ENOENT/EACCES (from open), ENODATA (empty file), EPROTO (not a hwprof file: bad magic),
 * EPROTONOSUPPORT (a newer major version), EBADMSG (header corrupt or cut short), ENOMEM.
 * On error hwprof_strerror_last() (hwprof/event.h) and ERR (ERRLEN bytes, may be NULL) hold one
 * line naming the cause and a way out;
 * hwprof_see_last() (hwprof/event.h) is HWPROF_SEE_RECORDING when there is no sample file to
 * read (ENOENT, EPROTO). */
int hwprof_reader_open(struct hwprof_reader **out, const char *path, char *err, size_t errlen);

/* hwprof_reader_open() of FD, PATH open for reading (read from its current offset, left
 * open: the caller closes it), PATH naming it in messages. */
int hwprof_reader_open_fd(struct hwprof_reader **out, int fd, const char *path, char *err,
			  size_t errlen);

/* The header; valid until hwprof_reader_close(). */
const struct hwprof_file_header *hwprof_reader_header(const struct hwprof_reader *r);

/* Decodes the next record into *REC. Returns 1 for a record, 0 at the end of the records
 * (then see hwprof_reader_status() and hwprof_reader_trailer()). Never fails otherwise: a cut
 * or corrupt file, or memory running out, ends the records early and sets the status. Strings in
 * REC are valid until the next call. */
int hwprof_reader_next(struct hwprof_reader *r, struct hwprof_record *rec);

/* After the records ended: how the read went, and *MSG (may be NULL) set to one line saying
 * what is missing ("file cut short after 1234 of its records: trailer (counted totals,
 * lost count) missing"), or NULL when OK. MSG is owned by R. */
enum hwprof_read_status hwprof_reader_status(const struct hwprof_reader *r, const char **msg);

/* The trailer when the file has one, else NULL. Valid until hwprof_reader_close(). The trailer
 * is read as it comes, at the end of the records. */
const struct hwprof_file_trailer *hwprof_reader_trailer(const struct hwprof_reader *r);

/* After the records ended with the trailer: the bytes of the file after it (bytes appended to
 * a whole recording, or another file concatenated), which the reader does not read; 0 when
 * none, or before the end. */
uint64_t hwprof_reader_trailing_bytes(const struct hwprof_reader *r);

/* Closes R and frees everything it owns. Accepts NULL. */
void hwprof_reader_close(struct hwprof_reader *r);

/* Frees the strings and arrays of a header filled by hand (argv, events). For callers of the
 * writer that built one with hwprof_header_init(). Accepts NULL. */
void hwprof_header_release(struct hwprof_file_header *h);

/* Fills H with this host's facts (hostname, kernel, CPU model, ncpus, start time now) and the
 * format version; argv/events left empty. Returns 0 or -errno. */
int hwprof_header_init(struct hwprof_file_header *h);

#ifdef __cplusplus
}
#endif

#endif
