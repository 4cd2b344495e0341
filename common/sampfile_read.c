/* sampfile_read.c - the one sample-file reader. Layout: sampfile_format.h, docs/format.md.
 *
 * The file is mapped read-only (read into memory when it cannot be mapped) and walked record
 * by record. Every record's CRC is checked before its body is looked at; every length and
 * count is checked against the bytes that remain, never used to size an allocation on its own.
 * Records are decoded through a table indexed by the type byte; a type the table does not
 * know is skipped by its length (a newer minor version added it).
 *
 * A sample block is decoded whole into an array (bounded by SF_BLOCK_MAX_SAMPLES) before its
 * first sample is handed out, so a block that does not decode cleanly yields no sample at all.
 */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwprof/hwprof.h"
#include "hwprof/sampfile.h"
#include "see.h"
#include "textfmt.h"
#include "crc32.h"
#include "grow.h"
#include "sampfile_format.h"
#include "varint.h"

enum section { SEC_HEADER = 1, SEC_BODY, SEC_TRAILER };

struct hwprof_reader {
	const uint8_t *base; /* the whole file */
	size_t size;
	bool mapped;	   /* base is an mmap (else malloc'd) */
	size_t pos;	   /* offset of the next record */
	uint64_t nrecords; /* records read, header included */
	uint64_t nsamples; /* samples handed out or pending in the block */

	struct hwprof_file_header header;
	bool have_host, have_cmdline, header_done;
	size_t events_cap;

	struct hwprof_file_trailer trailer;
	bool have_trailer;
	size_t counts_cap;

	struct hwprof_rec_sample *blk; /* the decoded sample block */
	size_t blk_n, blk_i, blk_cap;

	char *str; /* the string of the last MMAP/COMM record */
	size_t str_cap;

	uint32_t nstacks; /* stacks handed out: ids 1..nstacks are defined */
	struct {	  /* the STACKS record being handed out, one stack per call */
		const uint8_t *p, *end;
		uint64_t left; /* stacks still in it */
		uint64_t ip;   /* delta state */
		size_t at;     /* its offset and number, for messages */
		uint64_t recno;
		uint64_t *buf[2]; /* HWPROF_STACK_MAX each: the stack handed out, the one before */
		uint32_t cur, prev_nr;
	} stk;

	bool done;
	enum hwprof_read_status status;
	char msg[320];
};

/* A bounds-checked cursor over one record body. Any failed read sets BAD and returns 0, so a
 * decoder reads every field and checks BAD once. WHAT names the first field that failed. */
struct cur {
	const uint8_t *p, *end;
	const char *what;
};

/* cur.what when a decoder ran out of memory: no fault of the file's (compared by address). */
static const char NOMEM[] = "memory (ENOMEM)";

static uint64_t get_varint(struct cur *c, const char *what)
{
	uint64_t v = 0;

	if (c->what || varint_get(&c->p, c->end, &v)) {
		if (!c->what)
			c->what = what;
		return 0;
	}
	return v;
}

static uint32_t get_u32v(struct cur *c, const char *what)
{
	uint64_t v = get_varint(c, what);

	if (v > UINT32_MAX && !c->what)
		c->what = what;
	return (uint32_t)v;
}

static uint8_t get_u8(struct cur *c, const char *what)
{
	if (c->what || c->p >= c->end) {
		if (!c->what)
			c->what = what;
		return 0;
	}
	return *c->p++;
}

/* A string of LEN bytes with no NUL in it, at the cursor; returns its start or NULL. */
static const char *get_strp(struct cur *c, size_t *len, const char *what)
{
	uint64_t n = get_varint(c, what);

	if (c->what)
		return NULL;
	if (n > (uint64_t)(c->end - c->p) || memchr(c->p, 0, n)) {
		c->what = what;
		return NULL;
	}
	const char *s = (const char *)c->p;
	c->p += n;
	*len = n;
	return s;
}

/* Into a fixed array of CAP bytes (NUL included). */
static void get_str_fixed(struct cur *c, char *dst, size_t cap, const char *what)
{
	size_t n = 0;
	const char *s = get_strp(c, &n, what);

	if (!s) {
		dst[0] = 0;
		return;
	}
	if (n >= cap) {
		c->what = what;
		dst[0] = 0;
		return;
	}
	memcpy(dst, s, n);
	dst[n] = 0;
}

/* A malloc'd copy; NULL on a bad field or ENOMEM (then *OOM). */
static char *get_str_dup(struct cur *c, const char *what, bool *oom)
{
	size_t n = 0;
	const char *s = get_strp(c, &n, what);

	if (!s)
		return NULL;
	char *d = strndup(s, n);
	if (!d)
		*oom = true;
	return d;
}

/* Into the reader's string buffer (valid until the next record). */
static const char *get_str_scratch(struct hwprof_reader *r, struct cur *c, const char *what)
{
	size_t n = 0;
	const char *s = get_strp(c, &n, what);

	if (!s)
		return "";
	if (hwprof_grow((void **)&r->str, &r->str_cap, n + 1, 1) < 0) {
		c->what = NOMEM;
		return "";
	}
	memcpy(r->str, s, n);
	r->str[n] = 0;
	return r->str;
}

/* ---- record decoders: fill REC and return 1, or return 0 for a record that only updates the
 * reader (header, trailer); a bad field is left in C->what. ---- */

typedef int (*decode_fn)(struct hwprof_reader *r, struct cur *c, struct hwprof_record *rec);

static int dec_host(struct hwprof_reader *r, struct cur *c, struct hwprof_record *rec)
{
	struct hwprof_file_header *h = &r->header;

	(void)rec;
	get_str_fixed(c, h->hostname, sizeof(h->hostname), "hostname");
	get_str_fixed(c, h->kernel, sizeof(h->kernel), "kernel release");
	get_str_fixed(c, h->cpu_model, sizeof(h->cpu_model), "CPU model");
	h->ncpus = get_u32v(c, "CPU count");
	h->start_time_ns = get_varint(c, "start time");
	r->have_host = true;
	return 0;
}

static int dec_cmdline(struct hwprof_reader *r, struct cur *c, struct hwprof_record *rec)
{
	struct hwprof_file_header *h = &r->header;
	bool oom = false;

	(void)rec;
	if (r->have_cmdline) {
		c->what = "second command line";
		return 0;
	}
	uint64_t argc = get_varint(c, "argument count");
	/* Each argument takes at least its length byte. */
	if (!c->what && argc > (uint64_t)(c->end - c->p))
		c->what = "argument count";
	if (c->what)
		return 0;
	h->argv = calloc(argc + 1, sizeof(*h->argv));
	if (!h->argv) {
		c->what = NOMEM;
		return 0;
	}
	for (h->argc = 0; h->argc < argc; h->argc++) {
		h->argv[h->argc] = get_str_dup(c, "argument", &oom);
		if (!h->argv[h->argc])
			break;
	}
	/* 1.4 appended the target: absent before, and then not system-wide. */
	if (!c->what && !oom && c->p < c->end) {
		h->system_wide = get_u8(c, "target flags") & SF_CMD_SYSTEM_WIDE;
		get_str_fixed(c, h->cpus, sizeof(h->cpus), "CPU list");
	}
	if (oom)
		c->what = NOMEM;
	r->have_cmdline = true;
	return 0;
}

static int dec_event(struct hwprof_reader *r, struct cur *c, struct hwprof_record *rec)
{
	struct hwprof_file_header *h = &r->header;
	struct hwprof_file_event e = {0};

	(void)rec;
	get_str_fixed(c, e.name, sizeof(e.name), "event name");
	e.type = get_u32v(c, "event type");
	e.config = get_varint(c, "event config");
	e.config1 = get_varint(c, "event config1");
	e.config2 = get_varint(c, "event config2");
	uint8_t f = get_u8(c, "event flags");
	e.period_or_freq = get_varint(c, "event period");
	e.precise_requested = get_u8(c, "requested precise_ip");
	e.precise_obtained = get_u8(c, "obtained precise_ip");
	if (c->what)
		return 0;
	if (e.precise_requested > 3 || e.precise_obtained > 3) {
		c->what = "precise_ip level";
		return 0;
	}
	if (h->nevents > UINT16_MAX) {
		c->what = "event count";
		return 0;
	}
	/* Flag bits this version does not know are ignored: a newer minor may define them. */
	e.sampling = f & SF_EV_SAMPLING;
	e.freq = f & SF_EV_FREQ;
	e.precise_max = f & SF_EV_PRECISE_MAX;
	e.exclude_user = f & SF_EV_EXCL_USER;
	e.exclude_kernel = f & SF_EV_EXCL_KERNEL;
	e.exclude_hv = f & SF_EV_EXCL_HV;
	if (hwprof_grow((void **)&h->events, &r->events_cap, (size_t)h->nevents + 1,
			sizeof(*h->events)) < 0) {
		c->what = NOMEM;
		return 0;
	}
	h->events[h->nevents++] = e;
	return 0;
}

static int dec_header_end(struct hwprof_reader *r, struct cur *c, struct hwprof_record *rec)
{
	(void)rec;
	uint64_t n = get_varint(c, "event count");
	if (!c->what && n != r->header.nevents)
		c->what = "event count (events missing)";
	else if (!c->what && (!r->have_host || !r->have_cmdline))
		c->what = "host or command line record (missing)";
	r->header_done = true;
	return 0;
}

static int dec_mmap(struct hwprof_reader *r, struct cur *c, struct hwprof_record *rec)
{
	struct hwprof_rec_mmap *m = &rec->mmap;

	rec->type = HWPROF_REC_MMAP;
	*m = (struct hwprof_rec_mmap){0};
	m->pid = get_u32v(c, "pid");
	m->tid = get_u32v(c, "tid");
	m->time = get_varint(c, "time");
	m->start = get_varint(c, "start");
	m->len = get_varint(c, "length");
	m->pgoff = get_varint(c, "page offset");
	m->prot = get_u32v(c, "prot");
	m->flags = get_u32v(c, "flags");
	m->build_id_size = get_u8(c, "build-id size");
	if (!c->what && (m->build_id_size > sizeof(m->build_id) ||
			 m->build_id_size > (size_t)(c->end - c->p))) {
		c->what = "build-id size";
		return 0;
	}
	if (!c->what) {
		memcpy(m->build_id, c->p, m->build_id_size);
		c->p += m->build_id_size;
	}
	m->filename = get_str_scratch(r, c, "file name");
	if (c->what || c->p == c->end)
		return 1; /* format 1.0: no identity */
	uint8_t id = get_u8(c, "file identity flags");
	uint64_t maj = get_varint(c, "device major"), min = get_varint(c, "device minor");
	uint64_t ino = get_varint(c, "inode"), size = get_varint(c, "file size");
	uint64_t mtime = get_varint(c, "file mtime");
	if (!c->what && (maj > UINT32_MAX || min > UINT32_MAX))
		c->what = "device number";
	if (c->what)
		return 0;
	/* Bits this version does not know are ignored: a newer minor may define them. */
	if (id & SF_MMAP_INO) {
		m->ino_known = true;
		m->dev_major = (uint32_t)maj;
		m->dev_minor = (uint32_t)min;
		m->ino = ino;
	}
	if (id & SF_MMAP_STAT) {
		m->stat_known = true;
		m->size = size;
		m->mtime_ns = mtime;
	}
	return 1;
}

static int dec_comm(struct hwprof_reader *r, struct cur *c, struct hwprof_record *rec)
{
	rec->type = HWPROF_REC_COMM;
	rec->comm.pid = get_u32v(c, "pid");
	rec->comm.tid = get_u32v(c, "tid");
	rec->comm.time = get_varint(c, "time");
	rec->comm.exec = get_u8(c, "exec flag") & 1;
	rec->comm.comm = get_str_scratch(r, c, "comm");
	return 1;
}

static int dec_task(struct cur *c, struct hwprof_record *rec, enum hwprof_rec_type type)
{
	rec->type = type;
	rec->task.pid = get_u32v(c, "pid");
	rec->task.ppid = get_u32v(c, "ppid");
	rec->task.tid = get_u32v(c, "tid");
	rec->task.ptid = get_u32v(c, "ptid");
	rec->task.time = get_varint(c, "time");
	return 1;
}

static int dec_fork(struct hwprof_reader *r, struct cur *c, struct hwprof_record *rec)
{
	(void)r;
	return dec_task(c, rec, HWPROF_REC_FORK);
}

static int dec_exit(struct hwprof_reader *r, struct cur *c, struct hwprof_record *rec)
{
	(void)r;
	return dec_task(c, rec, HWPROF_REC_EXIT);
}

static int dec_lost_as(struct cur *c, struct hwprof_record *rec, enum hwprof_rec_type type)
{
	rec->type = type;
	rec->lost.time = get_varint(c, "time");
	rec->lost.lost = get_varint(c, "lost count");
	rec->lost.cpu = get_u32v(c, "cpu");
	return 1;
}

static int dec_lost(struct hwprof_reader *r, struct cur *c, struct hwprof_record *rec)
{
	(void)r;
	return dec_lost_as(c, rec, HWPROF_REC_LOST);
}

static int dec_throttle(struct hwprof_reader *r, struct cur *c, struct hwprof_record *rec)
{
	(void)r;
	return dec_lost_as(c, rec, HWPROF_REC_THROTTLE);
}

static int dec_unthrottle(struct hwprof_reader *r, struct cur *c, struct hwprof_record *rec)
{
	(void)r;
	return dec_lost_as(c, rec, HWPROF_REC_UNTHROTTLE);
}

/* Reads and checks an SF_SAMPLES block's head into *PID, *TID, *N (the sample count) and, for
 * EXT, *FIELDS (the field mask), and makes r->blk hold N. Returns 1, or 0 with c->what set. */
static int dec_samples_head(struct hwprof_reader *r, struct cur *c, bool ext, uint32_t *pid,
			    uint32_t *tid, uint64_t *n, uint64_t *fields)
{
	*pid = get_u32v(c, "pid");
	*tid = get_u32v(c, "tid");
	*n = get_varint(c, "sample count");
	*fields = ext ? get_varint(c, "sample fields") : 0;
	if (c->what)
		return 0;
	if (*fields & ~(uint64_t)SF_F_KNOWN) {
		c->what = "sample fields (unknown to this version)";
		return 0;
	}
	/* Every sample takes at least two bytes (flags, time). */
	if (*n == 0 || *n > SF_BLOCK_MAX_SAMPLES || *n > (uint64_t)(c->end - c->p) / 2) {
		c->what = "sample count";
		return 0;
	}
	if (r->header.nevents == 0) {
		c->what = "sample (the header lists no event)";
		return 0;
	}
	if (hwprof_grow((void **)&r->blk, &r->blk_cap, *n, sizeof(*r->blk)) < 0) {
		c->what = NOMEM;
		return 0;
	}
	return 1;
}

/* What a sample's fields are deltas against, or repeat: the sample before it in its block. */
struct sample_prev {
	uint64_t ip, time, period, td, addr, addr_delta, data_src;
	uint32_t cpu, stack;
	uint16_t event;
};

/* Reads the fields every sample has (cpu, event, period, ip, time) of sample I, flags F, at
 * *P into X; NEV is the header's event count. Returns 0, or -1 for a bad encoding. Inline:
 * it runs once a sample. */
static inline int dec_sample_base(const uint8_t **p, const uint8_t *end, uint8_t f, uint64_t i,
				  uint32_t nev, struct sample_prev *x)
{
	uint64_t v;

	if (f & SF_S_CPU) {
		if (varint_get(p, end, &v) || v > UINT32_MAX)
			return -1;
		x->cpu = (uint32_t)v;
	}
	if (f & SF_S_EVENT) {
		if (varint_get(p, end, &v) || v >= nev)
			return -1;
		x->event = (uint16_t)v;
	}
	if (f & SF_S_PERIOD) {
		if (varint_get(p, end, &v))
			return -1;
		x->period += (uint64_t)zigzag_dec(v);
	}
	if (!(f & SF_S_IP_SAME)) {
		if (varint_get(p, end, &v))
			return -1;
		x->ip += (uint64_t)zigzag_dec(v);
	} else if (i == 0) {
		return -1;
	}
	if (varint_get(p, end, &v))
		return -1;
	x->td += (uint64_t)zigzag_dec(v);
	x->time += x->td;
	return 0;
}

/* Reads the optional fields of FIELDS (stack, address, data source) of sample I, flags F, at
 * *P into X; NSTACKS is the count of stacks read so far. Returns 0, -1 for a bad encoding,
 * or -2 for a stack not read yet. Inline: it runs once a sample. */
static inline int dec_sample_ext(const uint8_t **p, const uint8_t *end, uint8_t f, uint64_t i,
				 uint64_t fields, uint32_t nstacks, struct sample_prev *x)
{
	uint64_t v;

	if (!(fields & SF_F_STACK)) {
	} else if (!(f & SF_S_STACK_SAME)) {
		if (varint_get(p, end, &v))
			return -1;
		/* Only ids of stacks already read: a STACKS record precedes its samples. */
		int64_t id = (int64_t)x->stack + zigzag_dec(v);
		if (id < 0 || id > nstacks)
			return -2;
		x->stack = (uint32_t)id;
	} else if (i == 0) {
		return -1;
	}
	if (!(fields & SF_F_ADDR)) {
	} else if (!(f & SF_S_ADDR_STRIDE)) {
		if (varint_get(p, end, &v))
			return -1;
		x->addr_delta = (uint64_t)zigzag_dec(v);
		x->addr += x->addr_delta;
	} else if (i == 0) {
		return -1;
	} else {
		x->addr += x->addr_delta;
	}
	if (!(fields & SF_F_DATA_SRC)) {
	} else if (!(f & SF_S_SRC_SAME)) {
		if (varint_get(p, end, &x->data_src))
			return -1;
	} else if (i == 0) {
		return -1;
	}
	return 0;
}

/* The hot loop: one thread's samples, deltas against the previous one (sampfile_format.h).
 * EXT: an SF_SAMPLES_EXT block, with a field mask after the count. */
static int dec_samples_as(struct hwprof_reader *r, struct cur *c, struct hwprof_record *rec,
			  bool ext)
{
	uint32_t pid, tid;
	uint64_t n, fields;

	if (!dec_samples_head(r, c, ext, &pid, &tid, &n, &fields))
		return 0;

	const uint8_t *p = c->p, *end = c->end;
	struct sample_prev x = {0};
	uint32_t nev = r->header.nevents;
	struct hwprof_rec_sample *s = r->blk;
	uint8_t known = sf_sample_flags_known(fields);
	int err;

	for (uint64_t i = 0; i < n; i++, s++) {
		if (p >= end)
			goto bad;
		uint8_t f = *p++;
		if (f & ~known || dec_sample_base(&p, end, f, i, nev, &x) < 0)
			goto bad;
		err = dec_sample_ext(&p, end, f, i, fields, r->nstacks, &x);
		if (err == -2)
			goto bad_stack;
		if (err < 0)
			goto bad;
		s->weight = 0;
		if ((fields & SF_F_WEIGHT) && varint_get(&p, end, &s->weight))
			goto bad;
		s->addr = x.addr;
		s->data_src = x.data_src;
		s->stack_id = x.stack;
		s->pid = pid;
		s->tid = tid;
		s->cpu = x.cpu;
		s->time = x.time;
		s->ip = x.ip;
		s->period = x.period;
		s->event = x.event;
		s->kernel = f & SF_S_KERNEL;
	}
	if (p != end)
		goto bad;
	c->p = p;
	r->blk_n = n;
	r->blk_i = 1;
	r->nsamples += n;
	rec->type = HWPROF_REC_SAMPLE;
	rec->sample = r->blk[0];
	return 1;
bad:
	c->what = "sample encoding";
	return 0;
bad_stack:
	c->what = "stack id (no such stack before it)";
	return 0;
}

static int dec_samples(struct hwprof_reader *r, struct cur *c, struct hwprof_record *rec)
{
	return dec_samples_as(r, c, rec, false);
}

static int dec_samples_ext(struct hwprof_reader *r, struct cur *c, struct hwprof_record *rec)
{
	return dec_samples_as(r, c, rec, true);
}

/* The next stack of the STACKS record in r->stk into REC (format: sampfile_format.h,
 * SF_STACKS). Returns 1, or 0 with C->what set; C is the rest of the record. */
static int stack_next(struct hwprof_reader *r, struct cur *c, struct hwprof_record *rec)
{
	uint8_t f = get_u8(c, "stack flags");
	uint64_t nr = get_varint(c, "stack depth");
	uint64_t nk = get_varint(c, "stack kernel depth");
	uint64_t shared = get_varint(c, "stack shared depth");

	if (c->what)
		return 0;
	if (f & ~SF_STK_KNOWN || nr > HWPROF_STACK_MAX || nk > nr || shared > nr ||
	    shared > r->stk.prev_nr) {
		c->what = "stack (flags or depths)";
		return 0;
	}
	uint32_t cur = r->stk.cur ^ 1;
	uint64_t *ips = r->stk.buf[cur];
	const uint64_t *prev = r->stk.buf[r->stk.cur];
	for (uint64_t i = 0; i < nr - shared; i++) {
		uint64_t v;
		if (varint_get(&c->p, c->end, &v)) {
			c->what = "stack entry";
			return 0;
		}
		r->stk.ip += (uint64_t)zigzag_dec(v);
		ips[i] = r->stk.ip;
	}
	if (shared)
		memcpy(ips + nr - shared, prev + r->stk.prev_nr - shared, shared * sizeof(*ips));
	if (--r->stk.left == 0 && c->p != c->end) {
		c->what = "stack table (bytes after its last stack)";
		return 0;
	}
	r->stk.cur = cur;
	r->stk.prev_nr = (uint32_t)nr;
	rec->type = HWPROF_REC_STACK;
	rec->stack = (struct hwprof_rec_stack){.id = ++r->nstacks,
					       .nr = (uint32_t)nr,
					       .nr_kernel = (uint32_t)nk,
					       .truncated = f & SF_STK_TRUNCATED,
					       .ips = ips};
	return 1;
}

static int dec_stacks(struct hwprof_reader *r, struct cur *c, struct hwprof_record *rec)
{
	uint64_t first = get_varint(c, "first stack id");
	uint64_t n = get_varint(c, "stack count");

	if (c->what)
		return 0;
	if (first != (uint64_t)r->nstacks + 1) {
		c->what = "first stack id (stacks missing or out of order)";
		return 0;
	}
	if (n == 0 || n > (uint64_t)(c->end - c->p) / SF_STACK_MIN_BYTES ||
	    n > UINT32_MAX - 1 - (uint64_t)r->nstacks) {
		c->what = "stack count";
		return 0;
	}
	for (int i = 0; i < 2; i++) {
		if (!r->stk.buf[i])
			r->stk.buf[i] = malloc(HWPROF_STACK_MAX * sizeof(uint64_t));
		if (!r->stk.buf[i]) {
			c->what = NOMEM;
			return 0;
		}
	}
	r->stk.left = n;
	r->stk.ip = 0;
	r->stk.prev_nr = 0;
	if (!stack_next(r, c, rec))
		return 0;
	r->stk.p = c->p;
	r->stk.end = c->end;
	return 1;
}

/* K's value scaled as every reader of a count scales it (hwprof_count_scale()). */
static double scaled_total(const struct hwprof_file_count *k)
{
	struct hwprof_count c = {
	    .value = k->value, .enabled_ns = k->enabled_ns, .running_ns = k->running_ns};

	hwprof_count_scale(&c, k->scale);
	return c.scaled;
}

static int dec_count(struct hwprof_reader *r, struct cur *c, struct hwprof_record *rec)
{
	struct hwprof_file_trailer *t = &r->trailer;
	struct hwprof_file_count k = {0};

	(void)rec;
	get_str_fixed(c, k.event, sizeof(k.event), "counted event name");
	k.counted = get_u8(c, "counted flag") & 1;
	k.value = get_varint(c, "count");
	k.enabled_ns = get_varint(c, "time_enabled");
	k.running_ns = get_varint(c, "time_running");
	k.scale = sf_bits_double(get_varint(c, "scale"));
	get_str_fixed(c, k.unit, sizeof(k.unit), "unit");
	/* time_running past time_enabled by more than a tick, or a scale that is no positive
	 * number, is a damaged total: never a number to print (perf_event_open(2): running
	 * is the part of enabled the event was on a counter). */
	if (c->what)
		return 0;
	if (!isfinite(k.scale) || k.scale <= 0)
		c->what = "counted total (a scale that is no positive number)";
	else if (k.running_ns > k.enabled_ns + k.enabled_ns / 100 + 1000)
		c->what = "counted total (time_running beyond time_enabled)";
	else if (!isfinite(scaled_total(&k)))
		c->what = "counted total (too large to scale)";
	if (c->what)
		return 0;
	if (t->ncounts == UINT32_MAX) {
		c->what = "count records";
		return 0;
	}
	if (hwprof_grow((void **)&t->counts, &r->counts_cap, (size_t)t->ncounts + 1,
			sizeof(*t->counts)) < 0) {
		c->what = NOMEM;
		return 0;
	}
	t->counts[t->ncounts++] = k;
	return 0;
}

static int dec_sampled(struct hwprof_reader *r, struct cur *c, struct hwprof_record *rec)
{
	struct hwprof_file_trailer *t = &r->trailer;

	(void)rec;
	uint64_t i = get_varint(c, "sampled event index");
	uint8_t f = get_u8(c, "sampled total flags");
	uint64_t count = get_varint(c, "sampled event count");
	uint64_t lost = get_varint(c, "sampled event lost count");
	if (c->what)
		return 0;
	if (i >= r->header.nevents || !r->header.events[i].sampling) {
		c->what = "sampled event index (not a sampling event of the header)";
		return 0;
	}
	if (!t->sampled) {
		t->sampled = calloc(r->header.nevents, sizeof(*t->sampled));
		if (!t->sampled) {
			c->what = NOMEM;
			return 0;
		}
	}
	t->sampled[i] = (struct hwprof_file_sampled){
	    .count_known = f & SF_SAMPLED_COUNT,
	    .count = f & SF_SAMPLED_COUNT ? count : 0,
	    .lost_known = f & SF_SAMPLED_LOST,
	    .lost = f & SF_SAMPLED_LOST ? lost : 0,
	};
	return 0;
}

static int dec_summary(struct hwprof_reader *r, struct cur *c, struct hwprof_record *rec)
{
	struct hwprof_file_trailer *t = &r->trailer;

	(void)rec;
	t->samples = get_varint(c, "sample total");
	t->lost = get_varint(c, "lost total");
	t->throttles = get_varint(c, "throttle total");
	t->duration_ns = get_varint(c, "duration");
	int64_t st = zigzag_dec(get_varint(c, "exit status"));
	uint64_t ncounts = get_varint(c, "count total");
	get_str_fixed(c, t->note, sizeof(t->note), "note");
	if (c->what)
		return 0;
	if (st < INT32_MIN || st > INT32_MAX) {
		c->what = "exit status";
		return 0;
	}
	if (ncounts != t->ncounts) {
		c->what = "count total (count records missing)";
		return 0;
	}
	t->exit_status = (int32_t)st;
	r->have_trailer = true;
	return 0;
}

static const struct {
	const char *name;
	enum section sec;
	decode_fn decode;
} types[SF_NTYPES] = {
    [SF_HOST] = {"host", SEC_HEADER, dec_host},
    [SF_CMDLINE] = {"command line", SEC_HEADER, dec_cmdline},
    [SF_EVENT] = {"event", SEC_HEADER, dec_event},
    [SF_HEADER_END] = {"header end", SEC_HEADER, dec_header_end},
    [SF_MMAP] = {"mmap", SEC_BODY, dec_mmap},
    [SF_COMM] = {"comm", SEC_BODY, dec_comm},
    [SF_FORK] = {"fork", SEC_BODY, dec_fork},
    [SF_EXIT] = {"exit", SEC_BODY, dec_exit},
    [SF_SAMPLES] = {"sample block", SEC_BODY, dec_samples},
    [SF_LOST] = {"lost", SEC_BODY, dec_lost},
    [SF_THROTTLE] = {"throttle", SEC_BODY, dec_throttle},
    [SF_UNTHROTTLE] = {"unthrottle", SEC_BODY, dec_unthrottle},
    [SF_STACKS] = {"stack table", SEC_BODY, dec_stacks},
    [SF_SAMPLES_EXT] = {"sample block", SEC_BODY, dec_samples_ext},
    [SF_COUNT] = {"counted total", SEC_TRAILER, dec_count},
    [SF_SUMMARY] = {"summary", SEC_TRAILER, dec_summary},
    [SF_SAMPLED] = {"sampled total", SEC_TRAILER, dec_sampled},
};

/* ---- framing ---- */

enum frame_res { FRAME_OK, FRAME_EOF, FRAME_CUT, FRAME_BAD };

/* The record at r->pos: its type and body. FRAME_CUT when the file ends inside it (or its
 * length runs past the end), FRAME_BAD when its CRC does not match. Sets *HAVE to the bytes
 * of the record present and *NEED to the bytes it claims, for messages. */
static enum frame_res frame_at(const struct hwprof_reader *r, uint8_t *type, struct cur *body,
			       uint64_t *have, uint64_t *need)
{
	size_t left = r->size - r->pos;
	const uint8_t *p = r->base + r->pos;

	*have = left;
	*need = SF_FRAME_HEAD + SF_FRAME_TAIL;
	if (left == 0)
		return FRAME_EOF;
	if (left < SF_FRAME_HEAD)
		return FRAME_CUT;
	uint64_t len = sf_get_u32(p + 1);
	*need = SF_FRAME_HEAD + len + SF_FRAME_TAIL;
	if (*need > left)
		return FRAME_CUT;
	uint32_t crc = sf_get_u32(p + SF_FRAME_HEAD + len);
	if (hwprof_crc32(0, p, SF_FRAME_HEAD + len) != crc)
		return FRAME_BAD;
	*type = p[0];
	body->p = p + SF_FRAME_HEAD;
	body->end = body->p + len;
	body->what = NULL;
	return FRAME_OK;
}

static void fmt(char *buf, size_t len, const char *f, ...) __attribute__((format(printf, 3, 4)));

static void fmt(char *buf, size_t len, const char *f, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, f);
	vsnprintf(buf, len, f, ap);
	va_end(ap);
}

static const char *type_name(uint8_t type)
{
	return types[type].name ? types[type].name : "unknown type";
}

static void stop(struct hwprof_reader *r, enum hwprof_read_status st)
{
	r->done = true;
	r->status = st;
}

/* What the trailer would have told, for the "missing" messages. */
static const char *missing_trailer(const struct hwprof_reader *r)
{
	return r->trailer.ncounts ? "trailer summary missing (lost count, duration, exit status)"
				  : "trailer missing (counted totals, lost count, duration, exit "
				    "status)";
}

/* Stops the read at record RECNO (at byte AT, of TYPE) with a bad WHAT; or, WHAT being NOMEM,
 * out of memory. */
static void corrupt(struct hwprof_reader *r, uint64_t recno, size_t at, uint8_t type,
		    const char *what)
{
	r->blk_n = r->blk_i = 0;
	r->stk.left = 0;
	if (what == NOMEM) {
		fmt(r->msg, sizeof(r->msg),
		    "out of memory in record %" PRIu64 " (%s), after %" PRIu64 " samples", recno,
		    type_name(type), r->nsamples);
		stop(r, HWPROF_READ_NOMEM);
		return;
	}
	fmt(r->msg, sizeof(r->msg),
	    "record %" PRIu64 " at byte %zu (%s): bad %s, the file is damaged; read stopped "
	    "there after %" PRIu64 " samples",
	    recno, at, type_name(type), what, r->nsamples);
	stop(r, HWPROF_READ_CORRUPT);
}

/* Reads records until one yields a REC (1) or the records end (0). */
static int next_record(struct hwprof_reader *r, struct hwprof_record *rec)
{
	while (!r->done) {
		uint8_t type = 0;
		struct cur c;
		uint64_t have, need;

		switch (frame_at(r, &type, &c, &have, &need)) {
		case FRAME_EOF:
			fmt(r->msg, sizeof(r->msg),
			    "file cut short after %" PRIu64 " records (%" PRIu64 " samples): %s",
			    r->nrecords, r->nsamples, missing_trailer(r));
			stop(r, HWPROF_READ_TRUNCATED);
			return 0;
		case FRAME_CUT:
			fmt(r->msg, sizeof(r->msg),
			    "file cut short inside record %" PRIu64 " at byte %zu (%" PRIu64
			    " of %" PRIu64 " bytes present), after %" PRIu64 " samples: %s",
			    r->nrecords + 1, r->pos, have, need, r->nsamples, missing_trailer(r));
			stop(r, HWPROF_READ_TRUNCATED);
			return 0;
		case FRAME_BAD:
			fmt(r->msg, sizeof(r->msg),
			    "record %" PRIu64
			    " at byte %zu: checksum mismatch, the file is damaged; "
			    "read stopped there after %" PRIu64 " samples",
			    r->nrecords + 1, r->pos, r->nsamples);
			stop(r, HWPROF_READ_CORRUPT);
			return 0;
		case FRAME_OK:
			break;
		}
		size_t at = r->pos;
		r->pos = (size_t)(c.end - r->base) + SF_FRAME_TAIL;
		r->nrecords++;
		if (!types[type].decode)
			continue; /* newer minor version: skip by length */
		r->stk.at = at;	  /* for a STACKS record's messages */
		r->stk.recno = r->nrecords;
		if (types[type].sec == SEC_HEADER) {
			c.what = "header record after the header";
		} else {
			int got = types[type].decode(r, &c, rec);
			if (!c.what && r->have_trailer) {
				r->msg[0] = 0;
				stop(r, HWPROF_READ_OK);
				return 0;
			}
			if (!c.what)
				if (got)
					return 1;
		}
		if (c.what) {
			corrupt(r, r->nrecords, at, type, c.what);
			return 0;
		}
	}
	return 0;
}

int hwprof_reader_next(struct hwprof_reader *r, struct hwprof_record *rec)
{
	if (r->blk_i < r->blk_n) {
		rec->type = HWPROF_REC_SAMPLE;
		rec->sample = r->blk[r->blk_i++];
		return 1;
	}
	r->blk_n = r->blk_i = 0;
	if (r->stk.left) {
		struct cur c = {.p = r->stk.p, .end = r->stk.end};
		if (stack_next(r, &c, rec)) {
			r->stk.p = c.p;
			return 1;
		}
		corrupt(r, r->stk.recno, r->stk.at, SF_STACKS, c.what);
		return 0;
	}
	return next_record(r, rec);
}

/* ---- open ---- */

/* What a non-regular input (a pipe, a character device, a /proc file whose size reads as 0)
 * may hold: it is read into memory whole, so without a cap `-i /dev/zero` would fill it.
 * A regular file is mapped and needs none. */
#define INPUT_MAX_BYTES ((size_t)1 << 30)

/* Reads up to WANT bytes more of FD into BUF (growing it); 0 at the end of FD, -errno. */
static int read_more(int fd, uint8_t **buf, size_t *len, size_t *cap, size_t want)
{
	while (want) {
		if (*len == *cap) {
			size_t ncap = *cap ? *cap * 2 : 1 << 20;
			if (ncap > INPUT_MAX_BYTES + 1)
				ncap = INPUT_MAX_BYTES + 1;
			uint8_t *nb = realloc(*buf, ncap);
			if (!nb)
				return -ENOMEM;
			*buf = nb;
			*cap = ncap;
		}
		size_t room = *cap - *len < want ? *cap - *len : want;
		ssize_t n = read(fd, *buf + *len, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		*len += (size_t)n;
		want -= (size_t)n;
	}
	return 1;
}

/* A stream is read whole, but its first bytes are checked first: `yes | hwprof report -i -`
 * is refused at once instead of after filling memory. */
static int load_stream(struct hwprof_reader *r, int fd)
{
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	int ret = read_more(fd, &buf, &len, &cap, SF_MAGIC_LEN);

	if (ret >= 0 && len == 0)
		ret = -ENODATA;
	else if (ret >= 0 && memcmp(buf, SF_MAGIC, len < SF_MAGIC_LEN ? len : SF_MAGIC_LEN))
		ret = 0; /* check_preamble() names it */
	else if (ret > 0)
		ret = read_more(fd, &buf, &len, &cap, INPUT_MAX_BYTES + 1 - len);
	if (ret >= 0 && len > INPUT_MAX_BYTES)
		ret = -EFBIG;
	if (ret < 0) {
		free(buf);
		return ret;
	}
	r->base = buf;
	r->size = len;
	return 0;
}

static int load(struct hwprof_reader *r, int fd, struct stat *st)
{
	if (fstat(fd, st) < 0)
		return -errno;
	if (S_ISREG(st->st_mode) && st->st_size > 0) {
		if ((uint64_t)st->st_size > SIZE_MAX)
			return -EFBIG;
		void *m = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			madvise(m, (size_t)st->st_size, MADV_SEQUENTIAL);
			r->base = m;
			r->size = (size_t)st->st_size;
			r->mapped = true;
			return 0;
		}
	}
	/* A pipe, a device, a /proc file (its size reads as 0), or a file mmap refused. */
	return load_stream(r, fd);
}

/* What ST is when it is not a regular file, for messages: "a pipe". NULL for a file. */
static const char *input_kind(const struct stat *st)
{
	if (S_ISFIFO(st->st_mode))
		return "a pipe";
	if (S_ISCHR(st->st_mode))
		return "a character device";
	if (S_ISBLK(st->st_mode))
		return "a block device";
	if (S_ISSOCK(st->st_mode))
		return "a socket";
	return NULL;
}

/* What the first bytes of a file without the magic look like: perf's magic, "text" or
 * "binary data". */
static const char *content_kind(const uint8_t *p, size_t n)
{
	/* perf.data's header starts with "PERFILE2" (tools/perf/Documentation/
	 * perf.data-file-format.txt). */
	if (n >= 8 && !memcmp(p, "PERFILE2", 8))
		return "perf's magic PERFILE2: a perf.data file, for perf report";
	return hwprof_text_looks_plain(p, n < 64 ? n : 64) ? "text" : "binary data";
}

static int check_preamble(struct hwprof_reader *r, const char *path, const char *kind, char *err,
			  size_t errlen)
{
	const uint8_t *p = r->base;
	size_t n = r->size;

	if (memcmp(p, SF_MAGIC, n < SF_MAGIC_LEN ? n : SF_MAGIC_LEN)) {
		see_set(HWPROF_SEE_RECORDING);
		fmt(err, errlen,
		    "%s: not a hwprof sample file (%s%sit starts with %s, not the hwprof magic)",
		    path, kind ? kind : "", kind ? "; " : "", content_kind(p, n));
		return -EPROTO;
	}
	if (n < SF_OFF_SIZE) {
		fmt(err, errlen,
		    "%s: header cut short (%zu bytes; the recording was interrupted, "
		    "record again)",
		    path, n);
		return -EBADMSG;
	}
	unsigned major = sf_get_u16(p + SF_OFF_MAJOR), minor = sf_get_u16(p + SF_OFF_MINOR);
	if (major > HWPROF_FILE_MAJOR) {
		fmt(err, errlen,
		    "%s: format version %u.%u (written by a newer hwprof; upgrade, this "
		    "one reads %u.x)",
		    path, major, minor, HWPROF_FILE_MAJOR);
		return -EPROTONOSUPPORT;
	}
	if (n < SF_PREAMBLE_SIZE) {
		fmt(err, errlen,
		    "%s: header cut short (%zu bytes; the recording was interrupted, "
		    "record again)",
		    path, n);
		return -EBADMSG;
	}
	uint32_t size = sf_get_u32(p + SF_OFF_SIZE);
	if (major < HWPROF_FILE_MAJOR || size < SF_PREAMBLE_SIZE || size > SF_PREAMBLE_MAX) {
		fmt(err, errlen, "%s: header damaged (bad version or size field; record again)",
		    path);
		return -EBADMSG;
	}
	if (size > n) {
		fmt(err, errlen, "%s: header cut short (%zu bytes; record again)", path, n);
		return -EBADMSG;
	}
	if (hwprof_crc32(0, p, size - 4) != sf_get_u32(p + size - 4)) {
		fmt(err, errlen, "%s: header damaged (checksum mismatch; record again)", path);
		return -EBADMSG;
	}
	uint32_t incompat = sf_get_u32(p + SF_OFF_INCOMPAT);
	if (incompat & ~SF_INCOMPAT_KNOWN) {
		fmt(err, errlen,
		    "%s: uses format features 0x%x this hwprof does not know (written "
		    "by a newer hwprof; upgrade)",
		    path, incompat & ~SF_INCOMPAT_KNOWN);
		return -EPROTONOSUPPORT;
	}
	r->header.major = (uint16_t)major;
	r->header.minor = (uint16_t)minor;
	r->header.stacks = incompat & SF_INCOMPAT_STACKS;
	r->header.data = incompat & SF_INCOMPAT_DATA;
	r->pos = size;
	return 0;
}

static int read_header(struct hwprof_reader *r, const char *path, char *err, size_t errlen)
{
	while (!r->header_done) {
		uint8_t type = 0;
		struct cur c;
		uint64_t have, need;

		switch (frame_at(r, &type, &c, &have, &need)) {
		case FRAME_EOF:
		case FRAME_CUT:
			fmt(err, errlen,
			    "%s: header cut short (at byte %zu of %zu; the recording was "
			    "interrupted, record again)",
			    path, r->pos, r->size);
			return -EBADMSG;
		case FRAME_BAD:
			fmt(err, errlen,
			    "%s: header damaged (checksum mismatch in record %" PRIu64
			    " at byte %zu; record again)",
			    path, r->nrecords + 1, r->pos);
			return -EBADMSG;
		case FRAME_OK:
			break;
		}
		size_t at = r->pos;
		r->pos = (size_t)(c.end - r->base) + SF_FRAME_TAIL;
		r->nrecords++;
		if (!types[type].decode)
			continue;
		if (types[type].sec != SEC_HEADER)
			c.what = "record order (header end missing)";
		else
			types[type].decode(r, &c, NULL);
		if (c.what == NOMEM) {
			fmt(err, errlen, "%s: out of memory reading the header", path);
			return -ENOMEM;
		}
		if (c.what) {
			fmt(err, errlen,
			    "%s: header damaged (record %" PRIu64 " at byte %zu, %s: bad "
			    "%s; record again)",
			    path, r->nrecords, at, type_name(type), c.what);
			return -EBADMSG;
		}
	}
	return 0;
}

/* FD_IN: -1 (open PATH), or PATH open already (not closed). */
static int reader_open(struct hwprof_reader **out, const char *path, int fd_in, char *err,
		       size_t errlen)
{
	struct hwprof_reader *r;
	const char *kind;
	struct stat st = {0};
	int fd, ret;

	*out = NULL;
	fmt(err, errlen, "%s", "");
	see_set(HWPROF_SEE_NONE);
	r = calloc(1, sizeof(*r));
	if (!r) {
		fmt(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	r->trailer.exit_status = INT32_MIN;
	fd = fd_in >= 0 ? fd_in : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ENOENT) {
			see_set(HWPROF_SEE_RECORDING);
			fmt(err, errlen, "%s: no such file", path);
		} else
			hwprof_msgf(err, errlen, ret, "%s: cannot open: %m", path);
		goto fail;
	}
	ret = load(r, fd, &st);
	if (fd_in < 0)
		close(fd);
	kind = input_kind(&st);
	if (ret == -ENODATA && kind) {
		fmt(err, errlen, "%s: %s that gave no bytes (nothing was written into it)", path,
		    kind);
		goto fail;
	} else if (ret == -ENODATA) {
		fmt(err, errlen, "%s: empty file (the recording wrote nothing; record again)",
		    path);
		goto fail;
	} else if (ret == -EFBIG) {
		fmt(err, errlen,
		    "%s: %s holding more than %zu MiB (hwprof reads at most that from an input "
		    "that is not a regular file; save it to a file and give that with -i)",
		    path, kind ? kind : "an input", INPUT_MAX_BYTES >> 20);
		goto fail;
	} else if (ret) {
		hwprof_msgf(err, errlen, ret, "%s: cannot read: %m", path);
		goto fail;
	}
	ret = check_preamble(r, path, kind, err, errlen);
	if (!ret)
		ret = read_header(r, path, err, errlen);
	if (ret)
		goto fail;
	*out = r;
	return 0;
fail:
	hwprof_reader_close(r);
	return ret;
}

int hwprof_reader_open(struct hwprof_reader **out, const char *path, char *err, size_t errlen)
{
	/* As hwprof_events_parse(): the thread's message, and a copy in ERR. */
	return see_finish(reader_open(out, path, -1, see_msg(), SEE_MSG_MAX), err, errlen);
}

int hwprof_reader_open_fd(struct hwprof_reader **out, int fd, const char *path, char *err,
			  size_t errlen)
{
	return see_finish(reader_open(out, path, fd, see_msg(), SEE_MSG_MAX), err, errlen);
}

const struct hwprof_file_header *hwprof_reader_header(const struct hwprof_reader *r)
{
	return &r->header;
}

enum hwprof_read_status hwprof_reader_status(const struct hwprof_reader *r, const char **msg)
{
	if (msg)
		*msg = r->status == HWPROF_READ_OK ? NULL : r->msg;
	return r->status;
}

const struct hwprof_file_trailer *hwprof_reader_trailer(const struct hwprof_reader *r)
{
	return r->have_trailer ? &r->trailer : NULL;
}

uint64_t hwprof_reader_trailing_bytes(const struct hwprof_reader *r)
{
	/* The reader stopped at the SUMMARY record: what follows was never looked at (a mapped
	 * file's pages past it are not even read). */
	return r->have_trailer && r->done && r->pos < r->size ? (uint64_t)(r->size - r->pos) : 0;
}

void hwprof_reader_close(struct hwprof_reader *r)
{
	if (!r)
		return;
	if (r->mapped)
		munmap((void *)r->base, r->size);
	else
		free((void *)r->base);
	hwprof_header_release(&r->header);
	free(r->trailer.counts);
	free(r->trailer.sampled);
	free(r->blk);
	free(r->str);
	free(r->stk.buf[0]);
	free(r->stk.buf[1]);
	free(r);
}
