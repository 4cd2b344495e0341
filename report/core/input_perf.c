/* input_perf.c - the perf.data producer: perf's recordings, as a file or as perf's pipe
 * stream (`perf record -o -`), into the loader's records (producer.h).
 *
 * Layout (tools/perf/Documentation/perf.data-file-format.txt, linux/perf_event.h):
 *   file    header: u64 magic "PERFILE2", u64 size (104), u64 attr_size, then three
 *           sections {u64 offset, size}: attrs, data, event_types (obsolete), then the
 *           feature bitmap (256 bits). The attr section holds attr_size-byte entries, each
 *           a perf_event_attr then a section of its u64 sample ids. The feature sections,
 *           one {offset, size} per bit set, in bit order, follow the data.
 *   pipe    u64 magic, u64 size (16), then records only: HEADER_ATTR (attr, then ids up to
 *           the record's end) and HEADER_FEATURE (u64 feature id, then the section) before
 *           the kernel's records.
 * Records are perf_event_header-framed (u32 type, u16 misc, u16 size); types below 64 are
 * the kernel's, the others perf's own. AUXTRACE and a pipe's TRACING_DATA are followed by a
 * payload their size does not count (u64 size at byte 8, u32 size at byte 8, padded to 8).
 *
 * What becomes what: MMAP and MMAP2 of code (not MISC_MMAP_DATA, PROT_EXEC) -> MMAP, with
 * the build-id of the MMAP2 or else of the BUILD_ID feature, and of data (attr.mmap_data,
 * perf record -d) when an event samples ADDR; COMM, FORK, EXIT as they are;
 * LOST and LOST_SAMPLES -> LOST; THROTTLE, UNTHROTTLE; SAMPLE -> SAMPLE, its callchain ->
 * STACK (each distinct one once, stackset.h); COMPRESSED and COMPRESSED2 (perf record -z)
 * decompressed into the records above. Every other type is skipped by its size.
 * A sample's ADDR, WEIGHT (WEIGHT_STRUCT's latency) and DATA_SRC are read, the fields between
 * them skipped; those after DATA_SRC (TRANSACTION, REGS_INTR, PHYS_ADDR, ...) are not needed.
 *
 * Only the byte order of this machine is read: the other one is refused by name. Nothing is
 * trusted: every size is checked against the bytes that are there; a record that does not
 * hold stops the read with what was read before it (a partial profile with a warning).
 */
#include "producer.h"

#include "callchain.h"
#include "perf_meta.h"
#include "stackset.h"
#include "textfmt.h"
#include "unwind.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define PERF_MAGIC	   "PERFILE2"
#define PERF_MAGIC_SWAPPED "2ELIFREP"
#define PERF_MAGIC_V1	   "PERFFILE" /* perf.data-file-format.txt: "not described here" */
#define FILE_HEADER_SIZE   104
#define PIPE_HEADER_SIZE   16

static bool perf_probe(const unsigned char *head, size_t n)
{
	/* "PERFILE" and any version byte, either order, and version 1's "PERFFILE": the reader
	 * names what it cannot read. */
	return n >= 8 && (!memcmp(head, PERF_MAGIC, 7) || !memcmp(head + 1, "ELIFREP", 7) ||
			  !memcmp(head, PERF_MAGIC_V1, 8));
}

/* ---- the bytes: the whole input in memory ---------------------------------------------
 *
 * A regular file is mapped; a pipe (`perf record -o - | hwprof report -i -`) is copied as it
 * comes into an unlinked temporary file, mapped when the stream ends (also a device, or a
 * file whose size reads as 0). Both formats are then
 * read from memory alone: the walk that counts each event's samples before the read (the
 * event shown, name_default_event()) needs the whole data, in a pipe too. */

struct src {
	int fd;
	const unsigned char *base; /* the whole input in memory (NULL: empty) */
	size_t size;
	uint64_t pos; /* offset of the next byte to read */
};

/* The next record before END: *REC and its size. Returns the size, 0 at the end, -ENODATA
 * when the input ends inside a record, -EBADMSG for a size below the header's. */
static ssize_t src_next(struct src *s, uint64_t end, const unsigned char **rec)
{
	struct perf_event_header h;

	if (s->pos >= end)
		return 0;
	if (end - s->pos < sizeof(h))
		return -ENODATA;
	memcpy(&h, s->base + s->pos, sizeof(h));
	if (h.size < sizeof(h))
		return -EBADMSG;
	if (h.size > end - s->pos)
		return -ENODATA;
	*rec = s->base + s->pos;
	s->pos += h.size;
	return h.size;
}

/* Skips N payload bytes after a record. Returns 0 or -ENODATA. */
static int src_skip(struct src *s, uint64_t end, uint64_t n)
{
	if (n > end - s->pos)
		return -ENODATA;
	s->pos += n;
	return 0;
}

/* ---- the reader's state ----------------------------------------------------------------- */

struct queued {
	uint64_t time; /* the sort key; equal times keep the queue's order */
	uint64_t pos;  /* file offset, for messages */
	size_t off;    /* the record: at arena + off when COPIED, else at src.base + off */
	uint32_t len;
	bool copied;
};

struct perf_reader {
	struct input *in;
	const char *path;
	int path_fd; /* PATH open already (a FIFO), or -1 */
	struct perf_meta m;
	struct src src;
	bool pipe;
	bool begun;	    /* input_begin() called */
	uint64_t data_end;  /* where the records end (a file's data section, a pipe's end) */
	uint64_t *counting; /* name_default_event(): decompressed SAMPLEs are counted here */
	struct stackset stacks;
	struct callchain_stack chain;
	/* perf record --call-graph dwarf: the samples' stack copies unwound (unwind.h), fed
	 * the records in time order; NULL when no event copies stacks, or on another arch. */
	struct unwind *unwind;
	struct callchain_stack unwound;
	bool unclosed_round; /* samples (SAMPLE, COMPRESSED) read since the last FINISHED_ROUND,
			      * or with none yet: pipe_end_status() */
	bool features_cut;   /* the file ends before its feature sections do (read_features()) */
	uint64_t records, samples, lost, throttles, late_build_ids;
	uint64_t lost_samples; /* the sum of LOST_SAMPLES records (lost: of LOST records) */
	uint64_t stack_copies; /* samples with a user stack copy (--call-graph dwarf) */
	uint64_t first_time, last_time;
	/* Kernel records waiting to be put in time order (see "time order" below). */
	struct queued *q;
	size_t nq, capq;
	struct queued *sortq; /* sort_queue()'s other buffer, CAPSORT records */
	size_t capsort;
	unsigned char *arena; /* decompressed records waiting, back to back */
	size_t narena, caparena;
	uint64_t round_max, seen_max; /* newest time before the last round, and seen so far */
	uint64_t bad_at;	      /* file offset of a held record that did not hold ... */
	uint32_t bad_type;	      /* ... and its type (0: none) */
	/* perf record -z: one zstd stream across all COMPRESSED records, and its output not
	 * yet taken as whole records (a record may go on in the next COMPRESSED one). */
	ZSTD_DStream *zd;
	unsigned char *zbuf;
	size_t nz, capz;
	enum hwprof_read_status status;
	char msg[320];
};

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

bool perf_header_is_dir_format(const unsigned char *head, size_t n)
{
	const size_t at = 72 + 8 * (PERF_FEAT_DIR_FORMAT / 64);

	return n >= at + 8 && !memcmp(head, PERF_MAGIC, 8) &&
	       (get64(head + at) >> (PERF_FEAT_DIR_FORMAT % 64) & 1);
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static int name_default_event(struct perf_reader *r, uint64_t start);

/* Begins the input (once), before the record at offset AT, the first of the data: the walk
 * of name_default_event() starts there. Returns 0, -EBADMSG (no event), -ENOMEM. */
static int begin(struct perf_reader *r, uint64_t at)
{
	int ret;

	if (r->begun)
		return 0;
	if (!r->m.nev)
		return -EBADMSG; /* no HEADER_ATTR before the data: reported by perf_read() */
	ret = perf_meta_header(&r->m);
	if (ret == 0)
		ret = name_default_event(r, at);
	for (uint32_t i = 0; i < r->m.nev && ret == 0 && !r->unwind && unwind_supported(); i++)
		if ((r->m.ev[i].attr.sample_type &
		     (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)) ==
		    (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER))
			ret = unwind_new(&r->unwind);
	if (ret < 0)
		return ret;
	r->begun = true;
	return input_begin(r->in, &r->m.h);
}

/* Stops the read at the record at OFFSET: STATUS with a message saying what was read. */
static void stop(struct perf_reader *r, enum hwprof_read_status status, uint64_t offset,
		 const char *what)
{
	r->status = status;
	snprintf(r->msg, sizeof(r->msg),
		 "%s at byte %" PRIu64 " (record %" PRIu64 "), after %" PRIu64
		 " samples: the rest is not read",
		 what, offset, r->records + 1, r->samples);
}

/* The attr of the event a sample (SAMPLE) or a record's sample_id block (other types, at
 * its end) belongs to. perf gives several events the same id positions (IDENTIFIER first in
 * a sample and last in a sample_id block, else ID at the same place in each), so the first
 * event's sample_type finds the id. */
static int event_index(const struct perf_reader *r, const unsigned char *rec, size_t len,
		       bool sample)
{
	uint64_t t = r->m.ev[0].attr.sample_type;
	size_t pos;
	int k;

	if (r->m.nev == 1)
		return 0;
	if (t & PERF_SAMPLE_IDENTIFIER) {
		pos = sample ? 8 : len - 8;
	} else if (t & PERF_SAMPLE_ID) {
		if (sample)
			pos = 8 + 8 * (size_t)(!!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID) +
					       !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ADDR));
		else
			pos = len - 8 * (size_t)(1 + !!(t & PERF_SAMPLE_STREAM_ID) +
						 !!(t & PERF_SAMPLE_CPU) +
						 !!(t & PERF_SAMPLE_IDENTIFIER));
	} else {
		return 0;
	}
	if (pos < 8 || pos + 8 > len)
		return -1;
	k = perf_meta_event_of(&r->m, get64(rec + pos));
	return k < 0 ? 0 : k;
}

/* A record's sample_id block (attr.sample_id_all): the fields perf_event_open(2) lists,
 * each present when its sample_type bit is set, at the record's end. */
struct sample_id {
	uint32_t pid, tid, cpu;
	uint64_t time;
};

/* Reads the sample_id block of REC into *ID; *LEN becomes the record's length without it.
 * Returns 0, or -EBADMSG when the record is shorter than the block. */
static int sample_id(const struct perf_reader *r, const unsigned char *rec, size_t *len,
		     struct sample_id *id)
{
	int k = event_index(r, rec, *len, false);
	const struct perf_event_attr *a = &r->m.ev[k < 0 ? 0 : k].attr;
	uint64_t t = a->sample_type;
	const unsigned char *p;
	size_t n = 0;

	memset(id, 0, sizeof(*id));
	if (!a->sample_id_all)
		return 0;
	n += 8 * (size_t)(!!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) +
			  !!(t & PERF_SAMPLE_ID) + !!(t & PERF_SAMPLE_STREAM_ID) +
			  !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_IDENTIFIER));
	if (*len < sizeof(struct perf_event_header) + n)
		return -EBADMSG;
	*len -= n;
	p = rec + *len;
	if (t & PERF_SAMPLE_TID)
		id->pid = get32(p), id->tid = get32(p + 4), p += 8;
	if (t & PERF_SAMPLE_TIME)
		id->time = get64(p), p += 8;
	p += 8 * (size_t)(!!(t & PERF_SAMPLE_ID) + !!(t & PERF_SAMPLE_STREAM_ID));
	if (t & PERF_SAMPLE_CPU)
		id->cpu = get32(p);
	return 0;
}

/* Bytes of a PERF_SAMPLE_READ value (perf_event_open(2), read_format), or 0 when it does
 * not fit in AVAIL. */
static size_t read_size(uint64_t fmt, const unsigned char *p, size_t avail)
{
	size_t times = 8 * (size_t)(!!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) +
				    !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING));
	size_t each = 8 * (size_t)(1 + !!(fmt & PERF_FORMAT_ID) + !!(fmt & PERF_FORMAT_LOST));
	uint64_t nr;

	if (!(fmt & PERF_FORMAT_GROUP))
		return times + each <= avail ? times + each : 0;
	if (avail < 8 + times)
		return 0;
	nr = get64(p);
	if (nr > (avail - 8 - times) / each)
		return 0;
	return 8 + times + (size_t)nr * each;
}

#ifndef PERF_SAMPLE_BRANCH_COUNTERS
#define PERF_SAMPLE_BRANCH_COUNTERS (1ull << 19) /* Linux 6.8: u64 counters[nr] after lbr[] */
#endif

/* Moves *P over the sample fields between the callchain and the weight (perf_event_open(2)'s
 * order): RAW (u32 size, data[size], the two padded to 8 bytes), BRANCH_STACK (u64 nr, u64
 * hw_idx with PERF_SAMPLE_BRANCH_HW_INDEX, nr entries of 3 u64, and nr u64 counters with
 * PERF_SAMPLE_BRANCH_COUNTERS), REGS_USER (u64 abi, then a u64 per bit of sample_regs_user
 * unless abi is NONE), STACK_USER (u64 size, then data[size] and u64 dyn_size when size is
 * not 0), the last two into *US (zeroed first). Returns 0 or -EBADMSG when they do not fit
 * before END, or a dyn_size exceeds its size. */
static int skip_to_weight(const struct perf_event_attr *a, const unsigned char **pp,
			  const unsigned char *end, struct unwind_ustack *us)
{
	const unsigned char *p = *pp;
	uint64_t t = a->sample_type, n;

	if (t & PERF_SAMPLE_RAW) {
		if (end - p < 4)
			return -EBADMSG;
		n = ((uint64_t)get32(p) + 4 + 7) & ~7ull;
		if (n > (uint64_t)(end - p))
			return -EBADMSG;
		p += n;
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t each = 3 + !!(a->branch_sample_type & PERF_SAMPLE_BRANCH_COUNTERS);
		if (end - p < 8)
			return -EBADMSG;
		n = get64(p);
		p += 8;
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) {
			if (end - p < 8)
				return -EBADMSG;
			p += 8;
		}
		if (n > (uint64_t)(end - p) / 8 / each)
			return -EBADMSG;
		p += n * each * 8;
	}
	memset(us, 0, sizeof(*us));
	if (t & PERF_SAMPLE_REGS_USER) {
		if (end - p < 8)
			return -EBADMSG;
		us->abi = get64(p);
		n = us->abi == PERF_SAMPLE_REGS_ABI_NONE
			? 0
			: (uint64_t)__builtin_popcountll(a->sample_regs_user);
		p += 8;
		if (n > (uint64_t)(end - p) / 8)
			return -EBADMSG;
		us->mask = a->sample_regs_user;
		us->nregs = (uint32_t)n;
		us->regs = p;
		p += n * 8;
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		if (end - p < 8)
			return -EBADMSG;
		n = get64(p);
		p += 8;
		if (n && (n > (uint64_t)(end - p) || (uint64_t)(end - p) - n < 8))
			return -EBADMSG;
		if (n) {
			us->stack = p;
			us->size = get64(p + n);
			if (us->size > n)
				return -EBADMSG;
		}
		p += n ? n + 8 : 0;
	}
	*pp = p;
	return 0;
}

/* ST's id into *ID, a STACK record added the first time it is seen. Returns 0, -EBADMSG (more
 * stacks than ids) or -ENOMEM. */
static int intern_stack(struct perf_reader *r, const struct callchain_stack *st, uint32_t *id)
{
	int ret = stackset_intern(&r->stacks, st->ips, st->nr, st->nr_kernel, st->truncated, id);

	if (ret < 0)
		return ret == -EOVERFLOW ? -EBADMSG : ret;
	if (ret == 1) {
		struct hwprof_record rec = {.type = HWPROF_REC_STACK};
		rec.stack = (struct hwprof_rec_stack){.id = *id,
						      .nr = st->nr,
						      .nr_kernel = st->nr_kernel,
						      .truncated = st->truncated,
						      .ips = st->ips};
		ret = input_record(r->in, &rec);
	}
	return ret < 0 ? ret : 0;
}

#define NEED(n)                                                                                    \
	do {                                                                                       \
		if ((size_t)(end - p) < (size_t)(n))                                               \
			return -EBADMSG;                                                           \
	} while (0)

/* The fixed-size fields of a sample of attr A, IP to PERIOD, at P (the caller checked they
 * are there) into S; without PERIOD, A's fixed period. Returns the end of them. Inline: it
 * runs once a sample. */
static inline const unsigned char *sample_fixed(const struct perf_event_attr *a,
						const unsigned char *p, struct hwprof_rec_sample *s)
{
	uint64_t t = a->sample_type;

	if (t & PERF_SAMPLE_IDENTIFIER)
		p += 8;
	if (t & PERF_SAMPLE_IP)
		s->ip = get64(p), p += 8;
	if (t & PERF_SAMPLE_TID)
		s->pid = get32(p), s->tid = get32(p + 4), p += 8;
	if (t & PERF_SAMPLE_TIME)
		s->time = get64(p), p += 8;
	if (t & PERF_SAMPLE_ADDR)
		s->addr = get64(p), p += 8;
	p += 8 * (size_t)(!!(t & PERF_SAMPLE_ID) + !!(t & PERF_SAMPLE_STREAM_ID));
	if (t & PERF_SAMPLE_CPU)
		s->cpu = get32(p), p += 8;
	/* Without PERIOD every sample stands for the fixed period (-c), or 1 in frequency mode
	 * (perf always asks for PERIOD there). */
	s->period = a->freq || !a->sample_period ? 1 : a->sample_period;
	if (t & PERF_SAMPLE_PERIOD)
		s->period = get64(p), p += 8;
	return p;
}

/* The WEIGHT (or WEIGHT_STRUCT) and DATA_SRC fields of a sample of attr A into S, past
 * what precedes them from *PP on (skip_to_weight(), which finds the user stack copy for
 * US). Returns 0, -EBADMSG or -ENOMEM. Inline: it runs once a sample. */
static inline int sample_weight(const struct perf_event_attr *a, const unsigned char **pp,
				const unsigned char *end, struct hwprof_rec_sample *s,
				struct unwind_ustack *us)
{
	uint64_t t = a->sample_type;
	int ret = skip_to_weight(a, pp, end, us);
	const unsigned char *p = *pp;

	if (ret < 0)
		return ret;
	/* WEIGHT: u64; WEIGHT_STRUCT: u32 var1_dw (the latency), u16 var2_w, var3_w, in that
	 * order in memory (union perf_sample_weight, little-endian). */
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		NEED(8);
		s->weight = get64(p), p += 8;
		if (t & PERF_SAMPLE_WEIGHT_STRUCT)
			s->weight &= 0xffffffffu;
	}
	if (t & PERF_SAMPLE_DATA_SRC) {
		NEED(8);
		s->data_src = get64(p), p += 8;
	}
	*pp = p;
	return 0;
}

/* A SAMPLE record (layout: perf_event_open(2), PERF_RECORD_SAMPLE) into *S and, with a
 * callchain or a user stack copy (unwound), its stack id (a STACK record is added the first
 * time a stack is seen). Returns 0, -EBADMSG when the record is shorter than its
 * sample_type says, or -ENOMEM. */
static int decode_sample(struct perf_reader *r, const unsigned char *rec, size_t len,
			 struct hwprof_rec_sample *s)
{
	int k = event_index(r, rec, len, true);
	const struct perf_event_attr *a;
	const unsigned char *p = rec + 8, *end = rec + len;
	const struct callchain_stack *st = NULL;
	struct unwind_ustack us = {0};
	uint64_t t;
	uint16_t misc;
	int ret;

	if (k < 0)
		return -EBADMSG;
	a = &r->m.ev[k].attr;
	t = a->sample_type;
	memset(s, 0, sizeof(*s));
	s->event = (uint16_t)k;
	memcpy(&misc, rec + 4, 2);
	s->kernel = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL ||
		    (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_GUEST_KERNEL;
	NEED(8 * (size_t)__builtin_popcountll(
		     t & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			  PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
			  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)));
	p = sample_fixed(a, p, s);
	r->stack_copies += (t & PERF_SAMPLE_STACK_USER) != 0;
	if (t & PERF_SAMPLE_READ) {
		size_t n = read_size(a->read_format, p, (size_t)(end - p));
		if (!n)
			return -EBADMSG;
		p += n;
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr;

		NEED(8);
		nr = get64(p);
		p += 8;
		if (nr > (uint64_t)(end - p) / 8)
			return -EBADMSG;
		callchain_callers(p, nr, s->ip, a->sample_max_stack, &r->chain);
		st = &r->chain;
		p += nr * 8;
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC |
		 PERF_SAMPLE_STACK_USER)) {
		ret = sample_weight(a, &p, end, s, &us);
		if (ret < 0)
			return ret;
	}
	if (r->unwind && (t & PERF_SAMPLE_REGS_USER) && (t & PERF_SAMPLE_STACK_USER)) {
		/* --call-graph dwarf: perf's callchain holds the kernel part only
		 * (exclude_callchain_user); the user part is unwound from the copy. */
		unwind_sample_state(r->unwind, s, st, &us, HWPROF_STACK_MAX, &r->unwound);
		st = &r->unwound;
	}
	return st ? intern_stack(r, st, &s->stack_id) : 0;
}
#undef NEED

/* The NUL-terminated string at P, before END, or NULL. */
static const char *string_at(const unsigned char *p, const unsigned char *end)
{
	return p < end && memchr(p, '\0', (size_t)(end - p)) ? (const char *)p : NULL;
}

/* MMAP (u32 pid, tid; u64 addr, len, pgoff; filename) and MMAP2 (the same, then u32 maj,
 * min, u64 ino, ino_generation - or u8 build-id size, 3 bytes, build_id[20] with
 * MISC_MMAP_BUILD_ID -, u32 prot, flags, filename) into *M. Returns 1 for a mapping kept
 * (code; data, without PROT_EXEC, when the samples have addresses), 0 for one not kept (data
 * without addresses, the kernel's), -EBADMSG. */
static int decode_mmap(const struct perf_reader *r, const unsigned char *rec, size_t len,
		       uint16_t misc, bool v2, struct hwprof_rec_mmap *m)
{
	const unsigned char *p = rec + 8, *end = rec + len;
	const struct perf_build_id *b;

	if (len < 8 + 32 + (v2 ? 32 : 0))
		return -EBADMSG;
	m->pid = get32(p), m->tid = get32(p + 4);
	m->start = get64(p + 8), m->len = get64(p + 16), m->pgoff = get64(p + 24);
	p += 32;
	/* MMAP has no prot: MISC_MMAP_DATA tells data (attr.mmap_data) from code. */
	m->prot =
	    misc & PERF_RECORD_MISC_MMAP_DATA ? PROT_READ | PROT_WRITE : PROT_READ | PROT_EXEC;
	m->flags = MAP_PRIVATE;
	if (v2) {
		if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			m->build_id_size = p[0] <= 20 ? p[0] : 0;
			memcpy(m->build_id, p + 4, m->build_id_size);
		} else {
			m->ino_known = true;
			m->dev_major = get32(p), m->dev_minor = get32(p + 4);
			m->ino = get64(p + 8);
		}
		m->prot = get32(p + 24), m->flags = get32(p + 28);
		p += 32;
	}
	m->filename = string_at(p, end);
	if (!m->filename)
		return -EBADMSG;
	/* The kernel's own mappings (pid -1): its addresses are told apart by their value. Data
	 * mappings go to the loader when the samples have addresses (header.data). */
	if (m->pid == UINT32_MAX)
		return 0;
	if ((misc & PERF_RECORD_MISC_MMAP_DATA) || !(m->prot & PROT_EXEC)) {
		m->prot &= ~(uint32_t)PROT_EXEC;
		return r->m.h.data;
	}
	if (!m->build_id_size && (b = perf_meta_find_build_id(&r->m, m->filename))) {
		m->build_id_size = b->size;
		memcpy(m->build_id, b->id, b->size);
	}
	return 1;
}

/* A SAMPLE record into the loader, its time widening the recording's span. Returns 0,
 * -EBADMSG or -ENOMEM. */
static int sample_record(struct perf_reader *r, const unsigned char *rec, size_t len)
{
	struct hwprof_record out;
	int ret;

	memset(&out, 0, sizeof(out));
	out.type = HWPROF_REC_SAMPLE;
	ret = decode_sample(r, rec, len, &out.sample);
	if (ret < 0)
		return ret;
	r->samples++;
	if (!r->first_time || out.sample.time < r->first_time)
		r->first_time = out.sample.time;
	if (out.sample.time > r->last_time)
		r->last_time = out.sample.time;
	return input_record(r->in, &out);
}

/* Whether a kernel record of TYPE, other than SAMPLE, is one the loader takes. */
static bool loaded_type(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		return true;
	}
	return false;
}

/* A LOST or LOST_SAMPLES record (header H, LEN bytes before its sample_id ID, the fields
 * at P) into *OUT, counted in R. Returns 1 or -EBADMSG. */
static int decode_lost(struct perf_reader *r, const struct perf_event_header *h,
		       const unsigned char *p, size_t len, const struct sample_id *id,
		       struct hwprof_record *out)
{
	/* LOST: u64 id, u64 lost; LOST_SAMPLES: u64 lost. */
	if (len < 8 + (h->type == PERF_RECORD_LOST ? 16u : 8u))
		return -EBADMSG;
	out->type = HWPROF_REC_LOST;
	out->lost =
	    (struct hwprof_rec_lost){.time = id->time,
				     .lost = get64(p + (h->type == PERF_RECORD_LOST ? 8 : 0)),
				     .cpu = id->cpu};
	if (h->type == PERF_RECORD_LOST)
		r->lost += out->lost.lost;
	else
		r->lost_samples += out->lost.lost;
	return 1;
}

/* A kernel record other than SAMPLE (header H, LEN bytes before its sample_id ID) into
 * *OUT, the lost ones and throttles counted in R. Returns 1, 0 for a record not kept
 * (decode_mmap()), or -EBADMSG. */
static int decode_side(struct perf_reader *r, const unsigned char *rec, size_t len,
		       const struct perf_event_header *h, const struct sample_id *id,
		       struct hwprof_record *out)
{
	const unsigned char *p = rec + 8;

	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		out->type = HWPROF_REC_MMAP;
		out->mmap.time = id->time;
		return decode_mmap(r, rec, len, h->misc, h->type == PERF_RECORD_MMAP2, &out->mmap);
	case PERF_RECORD_COMM:
		if (len < 8 + 8)
			return -EBADMSG;
		out->type = HWPROF_REC_COMM;
		out->comm =
		    (struct hwprof_rec_comm){.pid = get32(p),
					     .tid = get32(p + 4),
					     .time = id->time,
					     .exec = (h->misc & PERF_RECORD_MISC_COMM_EXEC) != 0,
					     .comm = string_at(p + 8, rec + len)};
		return out->comm.comm ? 1 : -EBADMSG;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (len < 8 + 24)
			return -EBADMSG;
		out->type = h->type == PERF_RECORD_FORK ? HWPROF_REC_FORK : HWPROF_REC_EXIT;
		out->task = (struct hwprof_rec_task){.pid = get32(p),
						     .ppid = get32(p + 4),
						     .tid = get32(p + 8),
						     .ptid = get32(p + 12),
						     .time = get64(p + 16)};
		return 1;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		return decode_lost(r, h, p, len, id, out);
	default: /* THROTTLE, UNTHROTTLE: u64 time, id, stream_id */
		if (len < 8 + 8)
			return -EBADMSG;
		out->type =
		    h->type == PERF_RECORD_THROTTLE ? HWPROF_REC_THROTTLE : HWPROF_REC_UNTHROTTLE;
		out->lost = (struct hwprof_rec_lost){.time = get64(p), .cpu = id->cpu};
		r->throttles += h->type == PERF_RECORD_THROTTLE;
		return 1;
	}
}

/* A kernel record (type below 64) into the loader. Returns 0, -EBADMSG or -ENOMEM. */
static int kernel_record(struct perf_reader *r, const unsigned char *rec, size_t len)
{
	struct perf_event_header h;
	struct hwprof_record out;
	struct sample_id id;
	int ret;

	memcpy(&h, rec, sizeof(h));
	if (h.type == PERF_RECORD_SAMPLE)
		return sample_record(r, rec, len);
	if (!loaded_type(h.type))
		return 0;
	memset(&out, 0, sizeof(out));
	if (sample_id(r, rec, &len, &id) < 0)
		return -EBADMSG;
	ret = decode_side(r, rec, len, &h, &id, &out);
	if (ret <= 0)
		return ret;
	/* The unwinder follows each process's code mappings, in time order as its samples. */
	if (r->unwind && (ret = unwind_track(r->unwind, &out)) < 0)
		return ret;
	return input_record(r->in, &out);
}

/* ---- time order --------------------------------------------------------------------------
 *
 * perf writes each CPU's ring buffer in turn, so a child's samples can come before the FORK
 * that made it, or a sample before the MMAP of its code: the loader replays processes in the
 * order records are given. perf marks with FINISHED_ROUND the point where every record older
 * than the round before it has been written; the kernel records are held and given in time
 * order up to there, as perf report does (a record without time keeps its place after the
 * record before it). */

/* REC's time: a sample's TIME field, another record's sample_id time; DFLT when it has none
 * (or is too short to hold it). */
static uint64_t record_time(const struct perf_reader *r, const unsigned char *rec, size_t len,
			    uint64_t dflt)
{
	int k = event_index(r, rec, len, get32(rec) == PERF_RECORD_SAMPLE);
	const struct perf_event_attr *a = &r->m.ev[k < 0 ? 0 : k].attr;
	uint64_t t = a->sample_type;
	size_t pos;

	if (!(t & PERF_SAMPLE_TIME))
		return dflt;
	if (get32(rec) == PERF_RECORD_SAMPLE) {
		pos = 8 + 8 * (size_t)(!!(t & PERF_SAMPLE_IDENTIFIER) + !!(t & PERF_SAMPLE_IP) +
				       !!(t & PERF_SAMPLE_TID));
	} else {
		size_t after =
		    8 * (size_t)(1 + !!(t & PERF_SAMPLE_ID) + !!(t & PERF_SAMPLE_STREAM_ID) +
				 !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_IDENTIFIER));
		if (!a->sample_id_all || len < 8 + after)
			return dflt;
		pos = len - after;
	}
	return pos >= 8 && pos + 8 <= len ? get64(rec + pos) : dflt;
}

/* The end of the run of records in time order that starts at Q[I] (I < N). */
static size_t run_end(const struct queued *q, size_t i, size_t n)
{
	while (++i < n && q[i].time >= q[i - 1].time)
		;
	return i;
}

/* Puts r->q in time order, stable: records of equal time keep their order, which is file
 * order after the records kept from the round before (themselves in order). A round is
 * mostly a few runs already in order (perf writes each CPU's ring buffer in turn), so the
 * runs are merged pairwise: O(n log runs), one pass when the queue is in order. Returns 0 or
 * -ENOMEM. */
static int sort_queue(struct perf_reader *r)
{
	size_t n = r->nq;
	struct queued *a = r->q, *b;

	if (n < 2 || run_end(a, 0, n) == n)
		return 0;
	if (r->capsort < n) {
		b = realloc(r->sortq, r->capq * sizeof(*b));
		if (!b)
			return -ENOMEM;
		r->sortq = b;
		r->capsort = r->capq;
	}
	b = r->sortq;
	do {
		for (size_t i = 0; i < n;) {
			size_t m = run_end(a, i, n), e = m < n ? run_end(a, m, n) : n, x = i, y = m;
			for (size_t o = i; o < e; o++)
				b[o] =
				    y == e || (x < m && a[x].time <= a[y].time) ? a[x++] : a[y++];
			i = e;
		}
		struct queued *t = a;
		a = b;
		b = t;
	} while (run_end(a, 0, n) < n);
	if (a != r->q) {
		size_t c = r->capq;
		r->sortq = r->q;
		r->q = a;
		r->capq = r->capsort;
		r->capsort = c;
	}
	return 0;
}

/* Holds kernel record REC (LEN bytes at file offset AT), a copy of it when COPY (a
 * decompressed record, whose bytes are gone at the next one). Returns 0 or -ENOMEM. */
static int enqueue(struct perf_reader *r, const unsigned char *rec, size_t len, uint64_t at,
		   bool copy)
{
	struct queued *e;

	if (r->nq == r->capq) {
		size_t cap = r->capq ? r->capq * 2 : 4096;
		struct queued *v = realloc(r->q, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->q = v;
		r->capq = cap;
	}
	e = &r->q[r->nq];
	/* A record without a time keeps its place: after the one before it. */
	*e = (struct queued){.time = record_time(r, rec, len, r->nq ? e[-1].time : r->round_max),
			     .pos = at,
			     .len = (uint32_t)len,
			     .copied = copy};
	if (!e->copied) {
		e->off = (size_t)(rec - r->src.base);
	} else {
		if (r->caparena - r->narena < len) {
			size_t cap = r->caparena ? r->caparena : 1 << 20;
			unsigned char *v;
			while (cap - r->narena < len)
				cap *= 2;
			v = realloc(r->arena, cap);
			if (!v)
				return -ENOMEM;
			r->arena = v;
			r->caparena = cap;
		}
		memcpy(r->arena + r->narena, rec, len);
		e->off = r->narena;
		r->narena += len;
	}
	if (e->time > r->seen_max)
		r->seen_max = e->time;
	r->nq++;
	return 0;
}

/* Keeps in the arena only the records still held. They are in time order, not in the
 * arena's (the order they came in): moved one by one in place, a record could overwrite one
 * not yet moved, so they go to a new arena. Returns 0 or -ENOMEM. */
static int compact_arena(struct perf_reader *r)
{
	unsigned char *v;
	size_t o = 0;

	if (!r->narena)
		return 0;
	v = malloc(r->caparena);
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < r->nq; i++) {
		if (!r->q[i].copied)
			continue;
		memcpy(v + o, r->arena + r->q[i].off, r->q[i].len);
		r->q[i].off = o;
		o += r->q[i].len;
	}
	free(r->arena);
	r->arena = v;
	r->narena = o;
	return 0;
}

/* Gives the held records up to time UPTO (all: UINT64_MAX) in time order; the others stay
 * held. Returns 0, -ENOMEM, or -EBADMSG with r->bad_at the record's offset. */
static int flush_queue(struct perf_reader *r, uint64_t upto)
{
	size_t n = 0, keep = 0;
	int ret = sort_queue(r);

	while (n < r->nq && r->q[n].time <= upto && ret == 0) {
		const unsigned char *rec = (r->q[n].copied ? r->arena : r->src.base) + r->q[n].off;
		ret = kernel_record(r, rec, r->q[n].len);
		if (ret == -EBADMSG) {
			r->bad_at = r->q[n].pos;
			r->bad_type = get32(rec);
		}
		n++;
	}
	if (ret)
		return ret;
	for (size_t i = n; i < r->nq; i++, keep++)
		r->q[keep] = r->q[i];
	r->nq = keep;
	return compact_arena(r);
}

/* ---- perf record -z ----------------------------------------------------------------------
 *
 * A COMPRESSED record (perf's type 81: header, then zstd bytes; or type 83, COMPRESSED2 of
 * newer perfs: header, u64 data_size, the zstd bytes, padding to 8) holds a piece of one zstd
 * stream that runs through all of them; the stream decompresses to kernel records as perf
 * read them from its ring buffers, a record's bytes possibly split between two COMPRESSED
 * records. They are held and given in time order like the others, from a copy. */

/* The whole kernel records at the start of r->zbuf, held (AT: the COMPRESSED record's
 * offset, for messages), or their SAMPLEs counted per event into r->counting when it is
 * set; the rest of a record cut by the end of the output stays there.
 * Returns 0, -EILSEQ (a record size below 8) or -ENOMEM. */
static int take_decompressed(struct perf_reader *r, uint64_t at)
{
	size_t off = 0;
	int ret = 0;

	while (r->nz - off >= sizeof(struct perf_event_header) && ret == 0) {
		struct perf_event_header h;
		memcpy(&h, r->zbuf + off, sizeof(h));
		if (h.size < sizeof(h))
			return -EILSEQ;
		if (h.size > r->nz - off)
			break;
		if (r->counting && h.type == PERF_RECORD_SAMPLE) {
			int k = event_index(r, r->zbuf + off, h.size, true);
			r->counting[k < 0 ? 0 : k]++;
		} else if (!r->counting && h.type < PERF_USER_HEADER_ATTR) {
			/* Only the kernel's records are in the ring buffers perf compresses. */
			ret = enqueue(r, r->zbuf + off, h.size, at, true);
		}
		off += h.size;
	}
	memmove(r->zbuf, r->zbuf + off, r->nz - off);
	r->nz -= off;
	return ret;
}

/* The zstd bytes P[N] of the COMPRESSED record at AT. Returns 0, -EILSEQ (not zstd, or not
 * records) or -ENOMEM. */
static int decompress(struct perf_reader *r, const unsigned char *p, size_t n, uint64_t at)
{
	ZSTD_inBuffer in = {p, n, 0};
	bool full = false;

	if (!r->zd) {
		r->zd = ZSTD_createDStream();
		if (!r->zd || ZSTD_isError(ZSTD_initDStream(r->zd)))
			return -ENOMEM;
	}
	while (in.pos < in.size || full) {
		ZSTD_outBuffer out;
		size_t z;
		int ret;

		/* Room for at least one whole record (a size is a u16) after what is left. */
		if (r->capz - r->nz < 65536) {
			unsigned char *v = realloc(r->zbuf, r->nz + 4 * 65536);
			if (!v)
				return -ENOMEM;
			r->zbuf = v;
			r->capz = r->nz + 4 * 65536;
		}
		out = (ZSTD_outBuffer){r->zbuf, r->capz, r->nz};
		z = ZSTD_decompressStream(r->zd, &out, &in);
		if (ZSTD_isError(z))
			return -EILSEQ;
		full = out.pos == out.size;
		r->nz = out.pos;
		ret = take_decompressed(r, at);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* The bytes that follow record REC (LEN bytes) outside its size: AUXTRACE's payload (u64 size
 * at byte 8) and TRACING_DATA's (u32 size at byte 8, padded to 8). -1 when REC is too short
 * to say, 0 for every other type. */
static int64_t payload_size(const unsigned char *rec, size_t len)
{
	switch (get32(rec)) {
	case PERF_USER_HEADER_TRACING_DATA:
		return len < 12 ? -1 : (int64_t)(((uint64_t)get32(rec + 8) + 7) & ~7ull);
	case PERF_USER_AUXTRACE:
		return len < 16 || get64(rec + 8) > INT64_MAX ? -1 : (int64_t)get64(rec + 8);
	default:
		return 0;
	}
}

/* The zstd bytes of COMPRESSED record REC (LEN bytes: the header, then the bytes) or of
 * COMPRESSED2 (header, u64 data_size, the bytes, then padding the record's size counts;
 * tools/perf/Documentation/perf.data-file-format.txt) into *P[*N]. Returns 0, or -EBADMSG
 * for a data_size beyond the record. */
static int compressed_bytes(const unsigned char *rec, size_t len, const unsigned char **p,
			    size_t *n)
{
	if (get32(rec) == PERF_USER_COMPRESSED) {
		*p = rec + 8, *n = len - 8;
		return 0;
	}
	if (len < 16 || get64(rec + 8) > len - 16)
		return -EBADMSG;
	*p = rec + 16, *n = (size_t)get64(rec + 8);
	return 0;
}

/* One record of the data (or of a pipe), at offset AT. Returns 0, -EBADMSG, -ENODATA (a
 * payload cut short), -ENOMEM or -errno. */
static int one_record(struct perf_reader *r, const unsigned char *rec, size_t len, uint64_t end,
		      uint64_t at)
{
	uint32_t type = get32(rec);
	int ret;

	if (type < PERF_USER_HEADER_ATTR) {
		ret = begin(r, at);
		return ret ? ret : enqueue(r, rec, len, at, false);
	}
	switch (type) {
	case PERF_USER_HEADER_ATTR: {
		uint32_t size;
		if (r->begun || len < 8 + PERF_ATTR_SIZE_VER0)
			return -EBADMSG;
		size = get32(rec + 8 + offsetof(struct perf_event_attr, size));
		size = size ? size : PERF_ATTR_SIZE_VER0;
		if (size > len - 8 || (len - 8 - size) % 8)
			return -EBADMSG;
		return perf_meta_add_attr(&r->m, rec + 8, size, rec + 8 + size,
					  (len - 8 - size) / 8);
	}
	case PERF_USER_HEADER_FEATURE:
		if (len < 16)
			return -EBADMSG;
		/* A feature that does not hold changes no number: it is left out. */
		if (!r->begun && get64(rec + 8) < PERF_FEAT_MAX &&
		    perf_meta_feature(&r->m, (unsigned)get64(rec + 8), rec + 16, len - 16) ==
			-ENOMEM)
			return -ENOMEM;
		return 0;
	case PERF_USER_HEADER_BUILD_ID:
		if (r->begun) {
			r->late_build_ids++;
			return 0;
		}
		ret = perf_meta_build_id(&r->m, rec, len);
		return ret == -ENOMEM ? ret : 0;
	case PERF_USER_HEADER_TRACING_DATA:
	case PERF_USER_AUXTRACE: {
		int64_t n = payload_size(rec, len);
		return n < 0 ? -EBADMSG : src_skip(&r->src, end, (uint64_t)n);
	}
	case PERF_USER_COMPRESSED:
	case PERF_USER_COMPRESSED2: {
		const unsigned char *z;
		size_t nz;
		if (compressed_bytes(rec, len, &z, &nz) < 0)
			return -EBADMSG;
		ret = begin(r, at);
		return ret ? ret : decompress(r, z, nz, at);
	}
	case PERF_USER_FINISHED_INIT:
		return begin(r, at);
	case PERF_USER_FINISHED_ROUND: {
		uint64_t upto = r->round_max;
		r->round_max = r->seen_max;
		return flush_queue(r, upto);
	}
	default: /* the rest: nothing a profile needs */
		return 0;
	}
}

/* Ends the read: the held records are given, then the status says how the data ended:
 * STATUS at offset AT with WHAT (HWPROF_READ_OK: it ended whole), unless a held record did
 * not hold. Returns 0 or -ENOMEM / -errno of the loader. */
static int end_read(struct perf_reader *r, enum hwprof_read_status status, uint64_t at,
		    const char *what)
{
	int ret = flush_queue(r, UINT64_MAX);

	if (ret == 0 && status == HWPROF_READ_OK && r->nz) {
		status = HWPROF_READ_TRUNCATED;
		what = "perf.data cut short inside a record of its zstd-compressed data (perf "
		       "record -z)";
	}
	if (ret == -EBADMSG) {
		char msg[96];
		snprintf(msg, sizeof(msg),
			 "perf.data damaged: a record of type %" PRIu32 " shorter than its fields",
			 r->bad_type);
		stop(r, HWPROF_READ_CORRUPT, r->bad_at, msg);
		return 0;
	}
	if (ret == 0 && status != HWPROF_READ_OK)
		stop(r, status, at, what);
	return ret;
}

/* Every record from the source's position to END (a stream: to its end). Returns 0 (the
 * status says how the data ended) or -ENOMEM / -errno of the loader. */
static int read_records(struct perf_reader *r, uint64_t end)
{
	for (;;) {
		const unsigned char *rec = NULL;
		uint64_t at = r->src.pos;
		ssize_t n = src_next(&r->src, end, &rec);
		int ret;

		if (n == 0)
			return end_read(r, HWPROF_READ_OK, at, NULL);
		if (n == -ENODATA)
			return end_read(r, HWPROF_READ_TRUNCATED, at,
					"perf.data cut short inside a record");
		if (n == -EBADMSG)
			return end_read(r, HWPROF_READ_CORRUPT, at,
					"perf.data damaged: a record size below 8");
		if (n < 0)
			return (int)n;
		ret = one_record(r, rec, (size_t)n, end, at);
		if (ret == -EBADMSG && r->bad_type) {
			/* A held record, given at a FINISHED_ROUND. */
			char msg[96];
			snprintf(msg, sizeof(msg),
				 "perf.data damaged: a record of type %" PRIu32
				 " shorter than its fields",
				 r->bad_type);
			stop(r, HWPROF_READ_CORRUPT, r->bad_at, msg);
			return 0;
		}
		if (ret == -EILSEQ)
			return end_read(
			    r, HWPROF_READ_CORRUPT, at,
			    "perf.data damaged: a zstd-compressed record (perf record -z) "
			    "does not decompress into records");
		if (ret == -EBADMSG || ret == -ENODATA) {
			char what[96];
			snprintf(what, sizeof(what), "perf.data %s: a record of type %" PRIu32 "%s",
				 ret == -EBADMSG ? "damaged" : "cut short", get32(rec),
				 ret == -EBADMSG ? " shorter than its fields" : "");
			return end_read(
			    r, ret == -EBADMSG ? HWPROF_READ_CORRUPT : HWPROF_READ_TRUNCATED, at,
			    what);
		}
		if (ret < 0)
			return ret;
		switch (get32(rec)) {
		case PERF_RECORD_SAMPLE:
		case PERF_USER_COMPRESSED:
		case PERF_USER_COMPRESSED2:
			r->unclosed_round = true;
			break;
		case PERF_USER_FINISHED_ROUND:
			r->unclosed_round = false;
			break;
		}
		r->records++;
	}
}

/* perf record closes each round of reading its rings that wrote records with a
 * FINISHED_ROUND; what it writes after its last round (lost-sample counts, --tail-synthesize's
 * maps) holds no samples. A pipe stream whose samples come after its last FINISHED_ROUND (or
 * with none at all) stopped inside a round: perf killed, or the stream cut at a record's end,
 * where no size in it says so. (perf record --off-cpu writes samples after its last round
 * and reads as cut: a note of it is in docs/perf-data.md.) */
static void pipe_end_status(struct perf_reader *r)
{
	if (r->status != HWPROF_READ_OK || !r->unclosed_round)
		return;
	r->status = HWPROF_READ_TRUNCATED;
	snprintf(r->msg, sizeof(r->msg),
		 "perf's pipe stream cut short: its last samples are not closed by perf's "
		 "FINISHED_ROUND (perf record killed, or the stream cut); the %" PRIu64
		 " samples read are shown (record again for the whole run)",
		 r->samples);
}

/* ---- the file format -------------------------------------------------------------------- */

struct section {
	uint64_t offset, size;
};

static bool section_ok(const struct section *s, size_t file_size)
{
	return s->offset <= file_size && s->size <= file_size - s->offset;
}

static struct section section_at(const unsigned char *p)
{
	return (struct section){get64(p), get64(p + 8)};
}

/* The attr section: attr_size-byte entries, each an attr then a section of its ids. */
static int read_attrs(struct perf_reader *r, char *err, size_t errlen)
{
	const unsigned char *b = r->src.base;
	uint64_t attr_size = get64(b + 16);
	struct section attrs = section_at(b + 24);
	int ret;

	if (!section_ok(&attrs, r->src.size) || attr_size < PERF_ATTR_SIZE_VER0 + 16 ||
	    attr_size > 4096 || attrs.size % attr_size || !attrs.size) {
		snprintf(err, errlen,
			 "%s: perf.data damaged: its attr section (%" PRIu64 " bytes at %" PRIu64
			 ", entries of %" PRIu64 ") does not hold its events; record again",
			 r->path, attrs.size, attrs.offset, attr_size);
		return -EBADMSG;
	}
	for (uint64_t off = attrs.offset; off < attrs.offset + attrs.size; off += attr_size) {
		struct section ids = section_at(b + off + attr_size - 16);

		if (!section_ok(&ids, r->src.size) || ids.size % 8) {
			snprintf(err, errlen,
				 "%s: perf.data damaged: the ids of event %" PRIu32
				 " lie outside the file; record again",
				 r->path, r->m.nev + 1);
			return -EBADMSG;
		}
		ret = perf_meta_add_attr(&r->m, b + off, attr_size - 16, b + ids.offset,
					 ids.size / 8);
		if (ret == -EBADMSG)
			snprintf(err, errlen,
				 "%s: perf.data damaged: event %" PRIu32
				 "'s perf_event_attr is shorter than its size says; record again",
				 r->path, r->m.nev + 1);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* The feature sections after the data, one per bit of the bitmap. A section whose bytes do
 * not parse is left out with a note: features change names and facts, not numbers. A table or
 * a section that runs past the end of the file (a file cut short after its data, or its table
 * damaged) sets r->features_cut: the build-ids are what tells a rebuilt binary, so the read
 * is partial then. */
static int read_features(struct perf_reader *r, uint64_t data_end)
{
	const unsigned char *b = r->src.base;
	uint64_t at = data_end;
	int ret;

	for (unsigned f = 0; f < PERF_FEAT_MAX; f++) {
		struct section s;

		if (!(get64(b + 72 + 8 * (f / 64)) >> (f % 64) & 1))
			continue;
		if (at > r->src.size || r->src.size - at < 16) {
			r->features_cut = true;
			return 0;
		}
		s = section_at(b + at);
		at += 16;
		if (!section_ok(&s, r->src.size)) {
			r->features_cut = true;
			continue;
		}
		ret = perf_meta_feature(&r->m, f, b + s.offset, (size_t)s.size);
		if (ret == -ENOMEM)
			return ret;
		if (ret < 0 &&
		    (ret = input_note(r->in, "%s: perf.data's feature %u is damaged: left out",
				      r->path, f)) < 0)
			return ret;
	}
	return 0;
}

/* perf report shows first the first event of the file's order that has samples (it skips
 * the empty ones, --skip-empty; perf record -e 'syscalls:sys_enter_*' makes hundreds of
 * them). With several sampling events the SAMPLE records of the data from START to its end
 * are counted per event, a walk over their headers (those inside COMPRESSED records
 * decompressed once for it), and that event is named to the loader. Returns 0 or -ENOMEM. */
static int name_default_event(struct perf_reader *r, uint64_t start)
{
	const unsigned char *b = r->src.base;
	uint32_t nsampling = 0, first = UINT32_MAX;
	uint64_t pos = start, end = r->data_end, *n;
	int ret = 0;

	for (uint32_t i = 0; i < r->m.nev; i++)
		if (r->m.hev[i].sampling && nsampling++ == 0)
			first = i;
	if (nsampling < 2 || !b || end > r->src.size)
		return 0;
	n = calloc(r->m.nev, sizeof(*n));
	if (!n)
		return -ENOMEM;
	r->counting = n;
	while (pos <= end && end - pos >= sizeof(struct perf_event_header) && ret == 0) {
		struct perf_event_header h;
		int64_t extra;

		memcpy(&h, b + pos, sizeof(h));
		if (h.size < sizeof(h) || h.size > end - pos)
			break;
		if (h.type == PERF_RECORD_SAMPLE) {
			int k = event_index(r, b + pos, h.size, true);
			n[k < 0 ? 0 : k]++;
		} else if (h.type == PERF_USER_COMPRESSED || h.type == PERF_USER_COMPRESSED2) {
			const unsigned char *z;
			size_t nz;
			/* Bytes that do not decompress end the count; the read says why. */
			if (compressed_bytes(b + pos, h.size, &z, &nz) < 0 ||
			    (ret = decompress(r, z, nz, pos)) == -EILSEQ)
				break;
		}
		extra = payload_size(b + pos, h.size);
		if (extra < 0 || (uint64_t)extra > end - pos - h.size)
			break;
		pos += h.size + (uint64_t)extra;
	}
	r->counting = NULL;
	ZSTD_freeDStream(r->zd);
	r->zd = NULL;
	r->nz = 0;
	for (uint32_t i = 0; i < r->m.nev && ret == 0; i++) {
		if (!r->m.hev[i].sampling || !n[i])
			continue;
		if (i != first)
			input_default_event(r->in, i);
		break;
	}
	free(n);
	return ret == -ENOMEM ? ret : 0;
}

/* A file that ends before the attr section or before the data starts was cut short (perf
 * record interrupted, a copy not finished), not damaged: said as the cuts inside the first
 * 104 bytes are. Returns 0 or -EBADMSG with ERR. */
static int cut_in_sections(const struct perf_reader *r, struct section data, char *err,
			   size_t errlen)
{
	struct section attrs = section_at(r->src.base + 24);
	uint64_t need = 0;

	if (attrs.offset >= FILE_HEADER_SIZE && attrs.offset < data.offset &&
	    attrs.size <= data.offset - attrs.offset)
		need = attrs.offset + attrs.size; /* the usual order: header, ids, attrs, data */
	if (data.offset >= FILE_HEADER_SIZE && data.offset <= (uint64_t)1 << 40 &&
	    data.offset > need)
		need = data.offset;
	if (!need || need <= r->src.size)
		return 0;
	snprintf(err, errlen,
		 "%s: perf.data cut short before its data (%zu bytes; its header places the data "
		 "at byte %" PRIu64 "): perf record was interrupted; record again",
		 r->path, r->src.size, need);
	return -EBADMSG;
}

/* Checks the file header's data section (into *DATA) and reads the attrs. Returns 0, or
 * -EBADMSG or -EPROTONOSUPPORT with ERR. */
static int file_header(struct perf_reader *r, struct section *data, char *err, size_t errlen)
{
	const unsigned char *b = r->src.base;
	int ret;

	if (r->src.size < FILE_HEADER_SIZE) {
		snprintf(err, errlen,
			 "%s: perf.data cut short in its header (%zu of %d bytes): perf record was "
			 "interrupted; record again",
			 r->path, r->src.size, FILE_HEADER_SIZE);
		return -EBADMSG;
	}
	if (perf_header_is_dir_format(b, r->src.size)) {
		snprintf(err, errlen,
			 "%s: the header of a perf.data directory (perf record --threads): its "
			 "samples are in the data.N files beside it, which hwprof does not read; "
			 "record without --threads",
			 r->path);
		return -EPROTONOSUPPORT;
	}
	*data = section_at(b + 40);
	if (data->offset == 0) {
		snprintf(err, errlen,
			 "%s: perf.data damaged: its data section's offset is 0 (the header is "
			 "corrupt); record again",
			 r->path);
		return -EBADMSG;
	}
	ret = cut_in_sections(r, *data, err, errlen);
	if (ret == 0)
		ret = read_attrs(r, err, errlen);
	if (ret < 0)
		return ret;
	if (data->offset < FILE_HEADER_SIZE || data->offset > r->src.size) {
		snprintf(err, errlen,
			 "%s: perf.data damaged: its data section starts at byte %" PRIu64
			 ", outside the file's %zu bytes; record again",
			 r->path, data->offset, r->src.size);
		return -EBADMSG;
	}
	return 0;
}

/* After the records of DATA were read up to END: says in r->msg why they were read to the
 * end of the file, or marks the read truncated when the data ends short of its size or is
 * empty. */
static void data_read_status(struct perf_reader *r, struct section data, uint64_t end)
{
	if (!data.size &&
	    (r->status == HWPROF_READ_CORRUPT || r->status == HWPROF_READ_TRUNCATED)) {
		/* Read to the end of the file for a killed perf: bytes after the records (the
		 * features of a file whose header was damaged) stop it. Say why they were read. */
		char was[sizeof(r->msg)];
		memcpy(was, r->msg, sizeof(was));
		snprintf(r->msg, sizeof(r->msg),
			 "the header's data size is 0 (perf record killed? or the header damaged), "
			 "so records were read to the end of the file: %.200s",
			 was);
	}
	if (r->status == HWPROF_READ_OK && end != data.offset + data.size) {
		r->status = HWPROF_READ_TRUNCATED;
		snprintf(r->msg, sizeof(r->msg),
			 "perf.data %s (its header says %" PRIu64 " bytes of data, %" PRIu64
			 " are there): read the %" PRIu64 " samples up to the end of the file; "
			 "host, command and event names unknown",
			 data.size ? "cut short" : "not finished by perf record (killed?)",
			 data.size, end - data.offset, r->samples);
	} else if (r->status == HWPROF_READ_OK && !data.size) {
		/* perf writes at least its synthesized COMM and MMAP records: 0 is unfinished. */
		r->status = HWPROF_READ_TRUNCATED;
		snprintf(r->msg, sizeof(r->msg),
			 "perf.data not finished by perf record (killed?): the header's data size "
			 "is 0 and no records follow; record again");
	} else if (r->status == HWPROF_READ_OK && r->features_cut) {
		r->status = HWPROF_READ_TRUNCATED;
		snprintf(
		    r->msg, sizeof(r->msg),
		    "perf.data's feature sections run past the end of the file (cut short "
		    "after its data, or its feature table damaged): build-ids (which tell a "
		    "rebuilt binary), host, command or event names may be missing; the %" PRIu64
		    " samples are all read (copy the whole file again, or record again)",
		    r->samples);
	}
}

static int read_file_format(struct perf_reader *r, char *err, size_t errlen)
{
	struct section data;
	uint64_t end;
	int ret;

	ret = file_header(r, &data, err, errlen);
	if (ret < 0)
		return ret;
	if (data.size > r->src.size - data.offset || (!data.size && r->src.size > data.offset)) {
		/* perf writes the data size last: 0 when it was killed. */
		end = r->src.size;
	} else {
		end = data.offset + data.size;
		ret = read_features(r, end);
		if (ret < 0)
			return ret;
	}
	r->src.pos = data.offset;
	r->data_end = end;
	ret = begin(r, data.offset);
	if (ret == 0)
		ret = read_records(r, end);
	if (ret == 0)
		data_read_status(r, data, end);
	return ret;
}

/* ---- opening ---------------------------------------------------------------------------- */

/* Copies all of *FD (a pipe) into an unlinked temporary file in $TMPDIR, else /tmp (*DIR),
 * which replaces *FD. Returns 0 or -errno (of open, read or write: ENOSPC when it is full). */
static int spool(int *fd, const char **dir)
{
	const char *env = getenv("TMPDIR");
	size_t cap = 1 << 20;
	unsigned char *buf = malloc(cap);
	int out, e = 0;

	*dir = env && *env ? env : "/tmp";
	if (!buf)
		return -ENOMEM;
	out = open(*dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (out < 0) {
		/* A file system without O_TMPFILE. */
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/hwprof-pipe-XXXXXX", *dir);
		out = mkostemp(path, O_CLOEXEC);
		if (out >= 0)
			unlink(path);
	}
	if (out < 0)
		e = -errno;
	while (!e) {
		ssize_t n = read(*fd, buf, cap);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			e = n < 0 ? -errno : 0;
			break;
		}
		for (ssize_t w = 0, k; w < n && !e; w += k > 0 ? k : 0) {
			k = write(out, buf + w, (size_t)(n - w));
			if (k < 0 && errno != EINTR)
				e = -errno;
		}
	}
	free(buf);
	if (e) {
		if (out >= 0)
			close(out);
		return e;
	}
	close(*fd);
	*fd = out;
	return 0;
}

/* Opens PATH into R->src: a regular file mapped, a pipe copied into a temporary file and
 * mapped (see "the bytes" above). Returns 0 or -errno with ERR. */
static int map_src(struct perf_reader *r, char *err, size_t errlen)
{
	struct src *s = &r->src;
	struct stat st;
	const char *dir;
	int e;

	s->fd = r->path_fd >= 0 ? fcntl(r->path_fd, F_DUPFD_CLOEXEC, 0)
				: open(r->path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0 || fstat(s->fd, &st) < 0) {
		e = -errno;
		hwprof_msgf(err, errlen, e, "%s: %m", r->path);
		return e;
	}
	if (!S_ISREG(st.st_mode) || st.st_size == 0) {
		/* A pipe, a device, a file whose size reads as 0 (/proc). */
		e = spool(&s->fd, &dir);
		if (e == 0 && fstat(s->fd, &st) < 0)
			e = -errno;
		if (e < 0) {
			hwprof_msgf(err, errlen, e,
				    "%s: %m, copying the stream to a temporary file in %s (hwprof "
				    "reads a pipe whole); set TMPDIR to a directory with room",
				    r->path, dir);
			return e;
		}
	}
	if (st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, s->fd, 0);
		if (p == MAP_FAILED) {
			e = -errno;
			hwprof_msgf(err, errlen, e, "%s: mmap: %m", r->path);
			return e;
		}
		s->base = p;
		s->size = (size_t)st.st_size;
	}
	return 0;
}

/* Opens PATH into R->src (map_src()) and checks its magic and header size. Sets R->pipe.
 * Returns 0 or -errno with ERR. */
static int open_src(struct perf_reader *r, char *err, size_t errlen)
{
	struct src *s = &r->src;
	unsigned char head[16] = {0};
	size_t n;
	uint64_t size;
	int e = map_src(r, err, errlen);

	if (e < 0)
		return e;
	n = s->size < sizeof(head) ? s->size : sizeof(head);
	if (n)
		memcpy(head, s->base, n);
	if (n >= 8 && !memcmp(head, PERF_MAGIC_SWAPPED, 8)) {
		snprintf(err, errlen,
			 "%s: a perf.data of the other byte order (recorded on a big-endian "
			 "machine): hwprof reads this machine's only; run perf report there",
			 r->path);
		return -EPROTONOSUPPORT;
	}
	if (n >= 8 && !memcmp(head, PERF_MAGIC_V1, 8)) {
		/* perf's own reader knows version 1 no more, and perf inject converts pipe
		 * streams, not versions: only a new recording helps. */
		snprintf(err, errlen,
			 "%s: perf.data version 1 (magic PERFFILE), not supported: written by a "
			 "perf older than PERFILE2's; record again with a current perf",
			 r->path);
		return -EPROTONOSUPPORT;
	}
	if (n < 8 || memcmp(head, PERF_MAGIC, 8)) {
		snprintf(err, errlen,
			 "%s: perf.data of a format this hwprof does not read (magic '%.8s', "
			 "this one reads PERFILE2); convert it with a newer perf or upgrade hwprof",
			 r->path, (const char *)head);
		return -EPROTONOSUPPORT;
	}
	if (n < 16) {
		snprintf(err, errlen,
			 "%s: perf.data cut short in its header (%zu bytes): perf record was "
			 "interrupted; record again",
			 r->path, n);
		return -EBADMSG;
	}
	size = get64(head + 8);
	if (size != FILE_HEADER_SIZE && size != PIPE_HEADER_SIZE) {
		snprintf(err, errlen,
			 "%s: perf.data header of %" PRIu64 " bytes, neither a file's (%d) nor a "
			 "pipe's (%d): written by a perf this hwprof does not know; upgrade hwprof",
			 r->path, size, FILE_HEADER_SIZE, PIPE_HEADER_SIZE);
		return -EPROTONOSUPPORT;
	}
	r->pipe = size == PIPE_HEADER_SIZE;
	s->pos = size;
	return 0;
}

struct no_cfi {
	struct perf_reader *r;
	unsigned named, more;
	int ret;
};

static void warn_no_cfi(const char *path, uint64_t stacks, void *arg)
{
	struct no_cfi *n = arg;

	if (n->named == 5 || n->ret < 0) {
		n->more++;
		return;
	}
	n->named++;
	n->ret = input_warning(n->r->in,
			       "%s: %" PRIu64
			       " stack%s stopped in its code without CFI " UNWIND_NO_CFI_ADVICE,
			       path, stacks, stacks == 1 ? "" : "s");
}

/* perf record --call-graph dwarf: how many of the stacks unwound are cut, and why (the
 * header counts them, callgraph views show [truncated] at their outer end). Returns 0 or
 * -ENOMEM. */
static int unwind_warnings(struct perf_reader *r)
{
	const struct unwind_stats *s = unwind_stats(r->unwind);
	uint32_t copy = 0;
	struct no_cfi files = {.r = r};
	char why[640];

	if (!s->truncated)
		return 0;
	for (uint32_t i = 0; i < r->m.nev; i++)
		if (r->m.ev[i].attr.sample_stack_user > copy)
			copy = r->m.ev[i].attr.sample_stack_user;
	unwind_cut_causes(r->unwind, copy, why, sizeof(why));
	files.ret = input_warning(
	    r->in,
	    "%s: %" PRIu64 " of %" PRIu64 " user stacks (perf record "
	    "--call-graph dwarf, %" PRIu32 "-byte copies) unwound only in part%s%s%s",
	    r->path, s->truncated, s->samples, copy, *why ? " (" : "", why, *why ? ")" : "");
	unwind_each_file_without_cfi(r->unwind, warn_no_cfi, &files);
	if (files.ret == 0 && files.more)
		files.ret =
		    input_warning(r->in, "%s: %u more files without CFI", r->path, files.more);
	return files.ret;
}

static int finish(struct perf_reader *r)
{
	struct hwprof_file_trailer t = {.exit_status = INT32_MIN};
	uint64_t first = r->m.first_time ? r->m.first_time : r->first_time;
	uint64_t last = r->m.last_time ? r->m.last_time : r->last_time;
	int ret;

	t.samples = r->samples;
	/* One loss, two counts: the kernel counts a sample it could not write to a full ring
	 * buffer both in the buffer's lost count, reported by the next PERF_RECORD_LOST, and in
	 * the event's lost_samples, read with PERF_FORMAT_LOST; perf record (6.0 and later)
	 * writes that one as a PERF_RECORD_LOST_SAMPLES at the end, as the kernel itself does
	 * for samples it dropped without a LOST (e.g. of the AUX area). So LOST_SAMPLES is the
	 * total and LOST a part of it: the larger of the two sums, not their sum, as perf
	 * report's "Total Lost Samples". Per file, not per event: a LOST names the event that
	 * wrote after the loss, whose buffer the other events share. */
	t.lost = r->lost > r->lost_samples ? r->lost : r->lost_samples;
	t.throttles = r->throttles;
	t.duration_ns = last > first ? last - first : 0;
	ret = begin(r, r->src.pos);
	if (ret == -EBADMSG)
		return 0; /* no event: perf_read() says so */
	if (ret == 0 && r->stack_copies && !r->unwind)
		ret = input_warning(
		    r->in,
		    "%s: %" PRIu64 " samples carry a copy of the user stack (perf record "
		    "--call-graph dwarf) that hwprof does not unwind on this machine: their "
		    "user-space callers are missing; record with --call-graph fp",
		    r->path, r->stack_copies);
	if (ret == 0 && r->unwind)
		ret = unwind_warnings(r);
	if (ret == 0 && r->late_build_ids)
		ret = input_note(r->in,
				 "%s: %" PRIu64 " build-ids came after the samples (perf's pipe "
				 "mode): not checked against the binaries",
				 r->path, r->late_build_ids);
	if (ret == 0)
		ret = input_end(r->in, r->status == HWPROF_READ_OK ? &t : NULL, r->status,
				r->status == HWPROF_READ_OK ? NULL : r->msg);
	return ret;
}

static int perf_read(struct input *in, const char *path, int fd, char *err, size_t errlen)
{
	struct perf_reader *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	r->in = in;
	r->path = path;
	r->path_fd = fd;
	r->src.fd = -1;
	ret = open_src(r, err, errlen);
	if (ret == 0 && r->pipe) {
		r->data_end = r->src.size;
		ret = read_records(r, r->data_end);
		if (ret == 0)
			pipe_end_status(r);
	} else if (ret == 0)
		ret = read_file_format(r, err, errlen);
	if (ret == 0)
		ret = finish(r);
	if (ret == 0 && !r->begun) {
		snprintf(err, errlen,
			 "%s: perf.data holds no event (no attr before its records): nothing to "
			 "report; record again",
			 path);
		ret = -EBADMSG;
	}
	if (r->src.base)
		munmap((void *)r->src.base, r->src.size);
	if (r->src.fd >= 0)
		close(r->src.fd);
	stackset_release(&r->stacks);
	unwind_free(r->unwind);
	perf_meta_release(&r->m);
	ZSTD_freeDStream(r->zd);
	free(r->zbuf);
	free(r->q);
	free(r->sortq);
	free(r->arena);
	free(r);
	return ret;
}

const struct producer producer_perf = {
    .name = "perf.data",
    .probe = perf_probe,
    .read = perf_read,
};
