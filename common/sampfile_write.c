/* sampfile_write.c - the sample-file writer. Layout: sampfile_format.h and docs/format.md.
 *
 * Samples are buffered per thread (pid, tid) and packed as deltas against the thread's
 * previous sample; a thread's block goes out when it is full, before any other record (so the
 * file keeps each thread's order relative to MMAP/COMM/FORK/EXIT), and on flush and close.
 * Everything else is framed at once into one output buffer, written with write(2) in large
 * pieces. The first write error is kept and returned by every later call.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwprof/sampfile.h"
#include "crc32.h"
#include "grow.h"
#include "idindex.h"
#include "stackset.h"
#include "sampfile_format.h"
#include "varint.h"

#define OUT_FLUSH_BYTES (256u * 1024) /* write(2) when the output buffer holds this much */
#define PENDING_MAX	(8u << 20)    /* flush every block when all blocks hold this much */
#define STACKS_FLUSH	(64u * 1024)  /* a STACKS record goes out at this many body bytes */

/* A growable byte buffer. Allocation failure is sticky (OOM) and checked once per record. */
struct wbuf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

/* One thread's open sample block and the delta state of its last sample. */
struct tblock {
	uint32_t pid, tid;
	uint32_t n;  /* samples in DATA */
	bool active; /* on the writer's active list */
	uint64_t ip, time, period;
	int64_t tdelta; /* previous time delta, for the delta-of-delta */
	uint32_t cpu;
	uint16_t event;
	uint8_t fields;			     /* SF_F_* of the block: 0 is an SF_SAMPLES block */
	uint32_t stack_id;		     /* previous sample's, for the delta */
	uint64_t addr, addr_delta, data_src; /* previous sample's data fields */
	struct wbuf data;
};

struct hwprof_writer {
	int fd;
	int err;	  /* first -errno seen, sticky */
	uint64_t written; /* bytes passed to write(2) */
	uint32_t nevents;
	struct wbuf out;	 /* framed records not yet written */
	struct wbuf body;	 /* scratch: the body of the record being built */
	struct tblock **threads; /* one block per (pid, tid), in the order they came */
	size_t nthreads, capthreads;
	uint32_t *index;	/* idindex.h over THREADS: 1 + position, 0 empty */
	size_t icap;		/* power of two */
	struct tblock **active; /* blocks with samples, in the order they got their first */
	size_t nactive, active_cap;
	size_t pending; /* bytes in all blocks */

	uint32_t incompat;	/* the SF_INCOMPAT_* bits the preamble says */
	struct stackset stacks; /* every stack given, by content */
	struct wbuf stk;	/* the body of the STACKS record being built (after its head) */
	uint32_t stk_first;	/* id of its first stack; 0: none pending */
	uint32_t stk_prev;	/* id of the stack written last in it */
	uint64_t stk_ip;	/* its ip delta state */
};

static void wbuf_reserve(struct wbuf *b, size_t more)
{
	if (b->oom || b->cap - b->len >= more)
		return;
	if (hwprof_grow((void **)&b->p, &b->cap, b->len + more, 1) < 0)
		b->oom = true;
}

static void wbuf_bytes(struct wbuf *b, const void *src, size_t n)
{
	wbuf_reserve(b, n);
	if (b->oom)
		return;
	if (n)
		memcpy(b->p + b->len, src, n);
	b->len += n;
}

static void wbuf_u8(struct wbuf *b, uint8_t v)
{
	wbuf_bytes(b, &v, 1);
}

static void wbuf_varint(struct wbuf *b, uint64_t v)
{
	wbuf_reserve(b, VARINT_MAX);
	if (!b->oom)
		b->len += varint_put(b->p + b->len, v);
}

static void wbuf_str(struct wbuf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	wbuf_varint(b, n);
	wbuf_bytes(b, s, n);
}

/* A string held in a fixed array: stop at its end even if the caller left no NUL. */
static void wbuf_strn(struct wbuf *b, const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	wbuf_varint(b, n);
	wbuf_bytes(b, s, n);
}

static int set_err(struct hwprof_writer *w, int err)
{
	if (!w->err)
		w->err = err;
	return w->err;
}

static int out_write(struct hwprof_writer *w)
{
	size_t off = 0;

	while (!w->err && off < w->out.len) {
		ssize_t n = write(w->fd, w->out.p + off, w->out.len - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			set_err(w, -errno);
			break;
		}
		if (n == 0) {
			set_err(w, -EIO);
			break;
		}
		off += (size_t)n;
		w->written += (uint64_t)n;
	}
	w->out.len = 0;
	return w->err;
}

/* Frames TYPE with the body pieces A (LA bytes) and B (LB bytes) into the output buffer. */
static int frame2(struct hwprof_writer *w, uint8_t type, const void *a, size_t la, const void *b,
		  size_t lb)
{
	uint8_t head[SF_FRAME_HEAD], tail[SF_FRAME_TAIL];

	if (w->err)
		return w->err;
	if (la + lb > UINT32_MAX)
		return -EOVERFLOW;
	head[0] = type;
	sf_put_u32(head + 1, (uint32_t)(la + lb));
	uint32_t crc = hwprof_crc32(0, head, sizeof(head));
	crc = hwprof_crc32(crc, a, la);
	crc = hwprof_crc32(crc, b, lb);
	sf_put_u32(tail, crc);
	wbuf_reserve(&w->out, sizeof(head) + la + lb + sizeof(tail));
	if (w->out.oom)
		return set_err(w, -ENOMEM);
	wbuf_bytes(&w->out, head, sizeof(head));
	wbuf_bytes(&w->out, a, la);
	wbuf_bytes(&w->out, b, lb);
	wbuf_bytes(&w->out, tail, sizeof(tail));
	if (w->out.len >= OUT_FLUSH_BYTES)
		return out_write(w);
	return 0;
}

/* Frames the scratch body as a record of TYPE and empties it. */
static int emit_body(struct hwprof_writer *w, uint8_t type)
{
	if (w->body.oom) {
		w->body.oom = false;
		w->body.len = 0;
		return set_err(w, -ENOMEM);
	}
	int ret = frame2(w, type, w->body.p, w->body.len, NULL, 0);
	w->body.len = 0;
	return ret;
}

/* Writes the pending STACKS record, if any. Called before any sample block goes out, so a
 * stack is always in the file before the samples that refer to it. */
static int flush_stacks(struct hwprof_writer *w)
{
	uint8_t head[2 * VARINT_MAX];
	size_t hl = 0;
	int ret;

	if (!w->stk_first)
		return w->err;
	if (w->stk.oom) {
		w->stk.oom = false;
		w->stk.len = 0;
		w->stk_first = 0;
		return set_err(w, -ENOMEM);
	}
	hl += varint_put(head + hl, w->stk_first);
	hl += varint_put(head + hl, w->stacks.n - w->stk_first + 1);
	ret = frame2(w, SF_STACKS, head, hl, w->stk.p, w->stk.len);
	w->stk.len = 0;
	w->stk_first = 0;
	w->stk_prev = 0;
	w->stk_ip = 0;
	return ret;
}

static int flush_block(struct hwprof_writer *w, struct tblock *t)
{
	uint8_t head[4 * VARINT_MAX];
	size_t hl = 0;
	int ret = 0;

	if (t->n) {
		flush_stacks(w);
		hl += varint_put(head + hl, t->pid);
		hl += varint_put(head + hl, t->tid);
		hl += varint_put(head + hl, t->n);
		if (t->fields)
			hl += varint_put(head + hl, t->fields);
		ret = frame2(w, t->fields ? SF_SAMPLES_EXT : SF_SAMPLES, head, hl, t->data.p,
			     t->data.len);
	}
	w->pending -= t->data.len;
	t->n = 0;
	t->data.len = 0;
	t->ip = t->time = t->period = 0;
	t->tdelta = 0;
	t->cpu = 0;
	t->event = 0;
	t->fields = 0;
	t->stack_id = 0;
	t->addr = t->addr_delta = t->data_src = 0;
	t->active = false;
	/* A thread that stopped sampling should not keep a large buffer. */
	if (t->data.cap > 64 * 1024) {
		free(t->data.p);
		t->data = (struct wbuf){0};
	}
	return ret;
}

/* Writes every open block, oldest first, and the stacks they refer to. */
static int flush_blocks(struct hwprof_writer *w)
{
	for (size_t i = 0; i < w->nactive; i++)
		flush_block(w, w->active[i]);
	w->nactive = 0;
	return flush_stacks(w);
}

/* Writes T's block alone (the others stay open) and takes it off the active list. */
static int flush_one(struct hwprof_writer *w, struct tblock *t)
{
	for (size_t i = 0; i < w->nactive; i++) {
		if (w->active[i] == t) {
			memmove(&w->active[i], &w->active[i + 1],
				(w->nactive - i - 1) * sizeof(*w->active));
			w->nactive--;
			break;
		}
	}
	return flush_block(w, t);
}

/* The hash of thread (PID, TID): the high half of a multiplicative hash. */
static uint64_t thread_hash(uint32_t pid, uint32_t tid)
{
	return (((uint64_t)pid << 32 | tid) * 0x9E3779B97F4A7C15ull) >> 32;
}

/* The thread a lookup of the writer's blocks looks for. */
struct thread_key {
	const struct hwprof_writer *w;
	uint32_t pid, tid;
};

static bool same_thread(const void *ctx, uint32_t id)
{
	const struct thread_key *k = ctx;
	const struct tblock *t = k->w->threads[id];

	return t->pid == k->pid && t->tid == k->tid;
}

static uint64_t thread_entry_hash(const void *ctx, uint32_t id)
{
	const struct tblock *t = ((const struct hwprof_writer *)ctx)->threads[id];

	return thread_hash(t->pid, t->tid);
}

static struct tblock *find_block(struct hwprof_writer *w, uint32_t pid, uint32_t tid)
{
	struct thread_key k = {w, pid, tid};
	struct tblock *t;
	size_t j;

	if ((w->nthreads + 1) * 2 > w->icap &&
	    hwprof_index_rebuild(&w->index, &w->icap, w->icap ? 2 * w->icap : 64, w->nthreads,
				 thread_entry_hash, w) < 0)
		return NULL;
	j = hwprof_index_probe(w->index, w->icap, thread_hash(pid, tid), same_thread, &k);
	if (w->index[j])
		return w->threads[w->index[j] - 1];
	if (hwprof_grow((void **)&w->threads, &w->capthreads, w->nthreads + 1,
			sizeof(*w->threads)) < 0 ||
	    !(t = calloc(1, sizeof(*t))))
		return NULL;
	t->pid = pid;
	t->tid = tid;
	w->threads[w->nthreads] = t;
	w->index[j] = (uint32_t)++w->nthreads;
	return t;
}

static int flag_feature(struct hwprof_writer *w, uint32_t bit);

/* The SF_F_* fields sample S needs in its block. A file with data fields gives every block
 * SF_F_ADDR, so samples without an address (0, two bytes less than a flush) share blocks with
 * those that have one. */
static uint8_t fields_of(const struct hwprof_writer *w, const struct hwprof_rec_sample *s)
{
	return (uint8_t)((s->stack_id ? SF_F_STACK : 0) |
			 (s->addr || (w->incompat & SF_INCOMPAT_DATA) ? SF_F_ADDR : 0) |
			 (s->data_src ? SF_F_DATA_SRC : 0) | (s->weight ? SF_F_WEIGHT : 0));
}

/* The block of sample S's thread in *TP, made active and with room for S's fields (flushing
 * one with fewer). Returns 0, or -EINVAL for a sample the file cannot hold or w->err with
 * *TP left alone. */
static int sample_block(struct hwprof_writer *w, const struct hwprof_rec_sample *s,
			struct tblock **tp)
{
	if (s->event >= w->nevents || s->stack_id > w->stacks.n)
		return -EINVAL;
	if ((s->addr || s->data_src || s->weight) && !(w->incompat & SF_INCOMPAT_DATA) &&
	    flag_feature(w, SF_INCOMPAT_DATA))
		return -EINVAL;
	struct tblock *t = find_block(w, s->pid, s->tid);
	if (!t)
		return set_err(w, -ENOMEM);
	/* A sample needs an SF_SAMPLES_EXT block with its fields; one with fewer fits (its
	 * missing fields are 0), so a recording without stacks or data keeps the 1.0 encoding. */
	uint8_t need = fields_of(w, s);
	if (t->n && (need & ~t->fields) && flush_one(w, t))
		return w->err;
	if (!t->n)
		t->fields = need;
	if (!t->active) {
		if (hwprof_grow((void **)&w->active, &w->active_cap, w->nactive + 1,
				sizeof(*w->active)) < 0)
			return set_err(w, -ENOMEM);
		w->active[w->nactive++] = t;
		t->active = true;
	}
	*tp = t;
	return 0;
}

/* Encodes the fields every sample has (cpu, event, period, ip, time) of S at P, as deltas
 * against T's previous sample, setting their bits in *FLAGS. Returns the end of what it
 * wrote. Inline: it runs once a sample. */
static inline uint8_t *put_sample_base(uint8_t *p, uint8_t *flags, struct tblock *t,
				       const struct hwprof_rec_sample *s)
{
	if (s->cpu != t->cpu) {
		*flags |= SF_S_CPU;
		p += varint_put(p, s->cpu);
		t->cpu = s->cpu;
	}
	if (s->event != t->event) {
		*flags |= SF_S_EVENT;
		p += varint_put(p, s->event);
		t->event = s->event;
	}
	if (s->period != t->period) {
		*flags |= SF_S_PERIOD;
		p += varint_put(p, zigzag_enc((int64_t)(s->period - t->period)));
		t->period = s->period;
	}
	if (s->ip == t->ip && t->n)
		*flags |= SF_S_IP_SAME;
	else
		p += varint_put(p, zigzag_enc((int64_t)(s->ip - t->ip)));
	t->ip = s->ip;
	int64_t td = (int64_t)(s->time - t->time);
	p += varint_put(p, zigzag_enc((int64_t)((uint64_t)td - (uint64_t)t->tdelta)));
	t->tdelta = td;
	t->time = s->time;
	return p;
}

/* Encodes the optional fields of T's block (stack, address, data source, weight) of S at P,
 * as put_sample_base() does. Returns the end of what it wrote. Inline: it runs once a
 * sample. */
static inline uint8_t *put_sample_ext(uint8_t *p, uint8_t *flags, struct tblock *t,
				      const struct hwprof_rec_sample *s)
{
	if (t->fields & SF_F_STACK) {
		if (s->stack_id == t->stack_id && t->n)
			*flags |= SF_S_STACK_SAME;
		else
			p += varint_put(p, zigzag_enc((int64_t)s->stack_id - t->stack_id));
		t->stack_id = s->stack_id;
	}
	if (t->fields & SF_F_ADDR) {
		uint64_t d = s->addr - t->addr;
		if (d == t->addr_delta && t->n)
			*flags |= SF_S_ADDR_STRIDE;
		else
			p += varint_put(p, zigzag_enc((int64_t)d));
		t->addr_delta = d;
		t->addr = s->addr;
	}
	if (t->fields & SF_F_DATA_SRC) {
		if (s->data_src == t->data_src && t->n)
			*flags |= SF_S_SRC_SAME;
		else
			p += varint_put(p, s->data_src);
		t->data_src = s->data_src;
	}
	if (t->fields & SF_F_WEIGHT)
		p += varint_put(p, s->weight);
	return p;
}

static int add_sample(struct hwprof_writer *w, const struct hwprof_rec_sample *s)
{
	struct tblock *t = NULL;
	int ret = sample_block(w, s, &t);

	if (!t)
		return ret;

	struct wbuf *b = &t->data;
	wbuf_reserve(b, 1 + 9 * VARINT_MAX);
	if (b->oom) {
		b->oom = false;
		return set_err(w, -ENOMEM);
	}
	size_t before = b->len;
	uint8_t *p = b->p + b->len, *flags = p++;
	*flags = s->kernel ? SF_S_KERNEL : 0;
	p = put_sample_base(p, flags, t, s);
	p = put_sample_ext(p, flags, t, s);
	b->len = (size_t)(p - b->p);
	w->pending += b->len - before;
	t->n++;

	if (t->n >= SF_BLOCK_FLUSH_SAMPLES)
		return flush_one(w, t);
	if (w->pending >= PENDING_MAX)
		return flush_blocks(w);
	return 0;
}

static void preamble(uint8_t pre[SF_PREAMBLE_SIZE], uint32_t incompat)
{
	memset(pre, 0, SF_PREAMBLE_SIZE);
	memcpy(pre, SF_MAGIC, SF_MAGIC_LEN);
	sf_put_u16(pre + SF_OFF_MAJOR, HWPROF_FILE_MAJOR);
	sf_put_u16(pre + SF_OFF_MINOR, HWPROF_FILE_MINOR);
	sf_put_u32(pre + SF_OFF_SIZE, SF_PREAMBLE_SIZE);
	sf_put_u32(pre + SF_OFF_COMPAT, 0);
	sf_put_u32(pre + SF_OFF_INCOMPAT, incompat);
	sf_put_u32(pre + SF_PREAMBLE_SIZE - 4, hwprof_crc32(0, pre, SF_PREAMBLE_SIZE - 4));
}

static int write_header(struct hwprof_writer *w, const struct hwprof_file_header *h)
{
	uint8_t pre[SF_PREAMBLE_SIZE];
	struct wbuf *b = &w->body;

	w->incompat = (h->stacks ? SF_INCOMPAT_STACKS : 0) | (h->data ? SF_INCOMPAT_DATA : 0);
	preamble(pre, w->incompat);
	wbuf_bytes(&w->out, pre, sizeof(pre));

	wbuf_strn(b, h->hostname, sizeof(h->hostname));
	wbuf_strn(b, h->kernel, sizeof(h->kernel));
	wbuf_strn(b, h->cpu_model, sizeof(h->cpu_model));
	wbuf_varint(b, h->ncpus);
	wbuf_varint(b, h->start_time_ns);
	emit_body(w, SF_HOST);

	wbuf_varint(b, h->argv ? h->argc : 0);
	for (uint32_t i = 0; h->argv && i < h->argc; i++)
		wbuf_str(b, h->argv[i]);
	wbuf_u8(b, h->system_wide ? SF_CMD_SYSTEM_WIDE : 0);
	wbuf_strn(b, h->cpus, sizeof(h->cpus));
	emit_body(w, SF_CMDLINE);

	for (uint32_t i = 0; h->events && i < h->nevents; i++) {
		const struct hwprof_file_event *e = &h->events[i];
		uint8_t f = (e->sampling ? SF_EV_SAMPLING : 0) | (e->freq ? SF_EV_FREQ : 0) |
			    (e->precise_max ? SF_EV_PRECISE_MAX : 0) |
			    (e->exclude_user ? SF_EV_EXCL_USER : 0) |
			    (e->exclude_kernel ? SF_EV_EXCL_KERNEL : 0) |
			    (e->exclude_hv ? SF_EV_EXCL_HV : 0);
		wbuf_strn(b, e->name, sizeof(e->name));
		wbuf_varint(b, e->type);
		wbuf_varint(b, e->config);
		wbuf_varint(b, e->config1);
		wbuf_varint(b, e->config2);
		wbuf_u8(b, f);
		wbuf_varint(b, e->period_or_freq);
		wbuf_u8(b, e->precise_requested);
		wbuf_u8(b, e->precise_obtained);
		emit_body(w, SF_EVENT);
	}
	w->nevents = h->events ? h->nevents : 0;

	wbuf_varint(b, w->nevents);
	emit_body(w, SF_HEADER_END);
	return out_write(w);
}

static void writer_free(struct hwprof_writer *w)
{
	for (size_t i = 0; i < w->nthreads; i++) {
		free(w->threads[i]->data.p);
		free(w->threads[i]);
	}
	free(w->threads);
	free(w->index);
	free(w->active);
	free(w->out.p);
	free(w->body.p);
	stackset_release(&w->stacks);
	free(w->stk.p);
	free(w);
}

int hwprof_writer_open_fd(struct hwprof_writer **out, int fd,
			  const struct hwprof_file_header *header)
{
	struct hwprof_writer *w;
	int ret;

	*out = NULL;
	if (fd < 0 || !header || (header->events && header->nevents > UINT16_MAX + 1u)) {
		/* a sample's event index is a u16 */
		if (fd >= 0)
			close(fd);
		return fd < 0 ? -EBADF : -EINVAL;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		close(fd);
		return -ENOMEM;
	}
	w->fd = fd;
	ret = write_header(w, header);
	/* Flushed now so that a full disk or a bad device shows before a target is launched. */
	if (!ret)
		ret = hwprof_writer_flush(w);
	if (ret) {
		close(w->fd);
		writer_free(w);
		return ret;
	}
	*out = w;
	return 0;
}

int hwprof_writer_open(struct hwprof_writer **out, const char *path,
		       const struct hwprof_file_header *header)
{
	int fd;

	*out = NULL;
	if (!path || !header)
		return -EINVAL;
	if (header->events && header->nevents > UINT16_MAX + 1u)
		return -EINVAL;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	return hwprof_writer_open_fd(out, fd, header);
}

int hwprof_writer_add(struct hwprof_writer *w, const struct hwprof_record *rec)
{
	struct wbuf *b = &w->body;
	uint8_t type;

	if (w->err)
		return w->err;
	if (rec->type == HWPROF_REC_SAMPLE)
		return add_sample(w, &rec->sample);
	if (rec->type == HWPROF_REC_STACK)
		return -EINVAL; /* ids are the writer's: hwprof_writer_add_stack() */
	if (flush_blocks(w))
		return w->err;

	switch (rec->type) {
	case HWPROF_REC_MMAP: {
		const struct hwprof_rec_mmap *m = &rec->mmap;
		if (m->build_id_size > sizeof(m->build_id))
			return -EINVAL;
		wbuf_varint(b, m->pid);
		wbuf_varint(b, m->tid);
		wbuf_varint(b, m->time);
		wbuf_varint(b, m->start);
		wbuf_varint(b, m->len);
		wbuf_varint(b, m->pgoff);
		wbuf_varint(b, m->prot);
		wbuf_varint(b, m->flags);
		wbuf_u8(b, m->build_id_size);
		wbuf_bytes(b, m->build_id, m->build_id_size);
		wbuf_str(b, m->filename);
		wbuf_u8(b, (m->ino_known ? SF_MMAP_INO : 0) | (m->stat_known ? SF_MMAP_STAT : 0));
		wbuf_varint(b, m->ino_known ? m->dev_major : 0);
		wbuf_varint(b, m->ino_known ? m->dev_minor : 0);
		wbuf_varint(b, m->ino_known ? m->ino : 0);
		wbuf_varint(b, m->stat_known ? m->size : 0);
		wbuf_varint(b, m->stat_known ? m->mtime_ns : 0);
		type = SF_MMAP;
		break;
	}
	case HWPROF_REC_COMM:
		wbuf_varint(b, rec->comm.pid);
		wbuf_varint(b, rec->comm.tid);
		wbuf_varint(b, rec->comm.time);
		wbuf_u8(b, rec->comm.exec ? 1 : 0);
		wbuf_str(b, rec->comm.comm);
		type = SF_COMM;
		break;
	case HWPROF_REC_FORK:
	case HWPROF_REC_EXIT:
		wbuf_varint(b, rec->task.pid);
		wbuf_varint(b, rec->task.ppid);
		wbuf_varint(b, rec->task.tid);
		wbuf_varint(b, rec->task.ptid);
		wbuf_varint(b, rec->task.time);
		type = rec->type == HWPROF_REC_FORK ? SF_FORK : SF_EXIT;
		break;
	case HWPROF_REC_LOST:
	case HWPROF_REC_THROTTLE:
	case HWPROF_REC_UNTHROTTLE:
		wbuf_varint(b, rec->lost.time);
		wbuf_varint(b, rec->lost.lost);
		wbuf_varint(b, rec->lost.cpu);
		type = rec->type == HWPROF_REC_LOST	  ? SF_LOST
		       : rec->type == HWPROF_REC_THROTTLE ? SF_THROTTLE
							  : SF_UNTHROTTLE;
		break;
	default:
		return -EINVAL;
	}
	return emit_body(w, type);
}

int hwprof_writer_flush(struct hwprof_writer *w)
{
	if (flush_blocks(w))
		return w->err;
	return out_write(w);
}

static void write_trailer(struct hwprof_writer *w, const struct hwprof_file_trailer *t)
{
	struct wbuf *b = &w->body;

	for (uint32_t i = 0; t->counts && i < t->ncounts; i++) {
		const struct hwprof_file_count *c = &t->counts[i];
		wbuf_strn(b, c->event, sizeof(c->event));
		wbuf_u8(b, c->counted ? 1 : 0);
		wbuf_varint(b, c->value);
		wbuf_varint(b, c->enabled_ns);
		wbuf_varint(b, c->running_ns);
		wbuf_varint(b, sf_double_bits(c->scale));
		wbuf_strn(b, c->unit, sizeof(c->unit));
		emit_body(w, SF_COUNT);
	}
	for (uint32_t i = 0; t->sampled && i < w->nevents; i++) {
		const struct hwprof_file_sampled *e = &t->sampled[i];
		if (!e->count_known && !e->lost_known)
			continue;
		wbuf_varint(b, i);
		wbuf_u8(b, (e->count_known ? SF_SAMPLED_COUNT : 0) |
			       (e->lost_known ? SF_SAMPLED_LOST : 0));
		wbuf_varint(b, e->count_known ? e->count : 0);
		wbuf_varint(b, e->lost_known ? e->lost : 0);
		emit_body(w, SF_SAMPLED);
	}
	wbuf_varint(b, t->samples);
	wbuf_varint(b, t->lost);
	wbuf_varint(b, t->throttles);
	wbuf_varint(b, t->duration_ns);
	wbuf_varint(b, zigzag_enc(t->exit_status));
	wbuf_varint(b, t->counts ? t->ncounts : 0);
	wbuf_strn(b, t->note, sizeof(t->note));
	emit_body(w, SF_SUMMARY);
}

int hwprof_writer_close(struct hwprof_writer *w, const struct hwprof_file_trailer *trailer)
{
	int ret;

	if (!w)
		return 0;
	flush_blocks(w);
	if (trailer && !w->err)
		write_trailer(w, trailer);
	out_write(w);
	if (close(w->fd) < 0)
		set_err(w, -errno);
	ret = w->err;
	writer_free(w);
	return ret;
}

uint64_t hwprof_writer_bytes(const struct hwprof_writer *w)
{
	return w->written + w->out.len + w->pending + w->stk.len;
}

/* ---- stacks ---- */

/* Appends stack ID to the pending STACKS record (docs/format.md, SF_STACKS). */
static void put_stack(struct hwprof_writer *w, uint32_t id)
{
	const struct stackset_entry *k = stackset_get(&w->stacks, id);
	const uint64_t *ips = w->stacks.pool + k->off;
	struct wbuf *b = &w->stk;
	uint32_t shared = 0;

	if (!w->stk_first)
		w->stk_first = id;
	if (w->stk_prev) {
		const struct stackset_entry *q = stackset_get(&w->stacks, w->stk_prev);
		const uint64_t *qips = w->stacks.pool + q->off;
		while (shared < k->nr && shared < q->nr &&
		       ips[k->nr - 1 - shared] == qips[q->nr - 1 - shared])
			shared++;
	}
	wbuf_u8(b, k->truncated ? SF_STK_TRUNCATED : 0);
	wbuf_varint(b, k->nr);
	wbuf_varint(b, k->nr_kernel);
	wbuf_varint(b, shared);
	for (uint32_t i = 0; i < k->nr - shared; i++) {
		wbuf_varint(b, zigzag_enc((int64_t)(ips[i] - w->stk_ip)));
		w->stk_ip = ips[i];
	}
	w->stk_prev = id;
}

/* Sets the feature BIT (SF_INCOMPAT_STACKS, SF_INCOMPAT_DATA) in a preamble already written
 * (the header did not announce it): only a file that can be written at offset 0 allows it. */
static int flag_feature(struct hwprof_writer *w, uint32_t bit)
{
	uint8_t pre[SF_PREAMBLE_SIZE];
	int fl = fcntl(w->fd, F_GETFL);

	if (fl < 0 || (fl & O_APPEND)) /* pwrite(2) appends there */
		return -EINVAL;
	preamble(pre, w->incompat | bit);
	if (pwrite(w->fd, pre, sizeof(pre), 0) != (ssize_t)sizeof(pre))
		return -EINVAL;
	w->incompat |= bit;
	return 0;
}

int hwprof_writer_add_stack(struct hwprof_writer *w, const uint64_t *ips, uint32_t nr,
			    uint32_t nr_kernel, bool truncated, uint32_t *id)
{
	if (w->err)
		return w->err;
	if (nr > HWPROF_STACK_MAX || nr_kernel > nr || (nr && !ips))
		return -EINVAL;
	if (!(w->incompat & SF_INCOMPAT_STACKS) && flag_feature(w, SF_INCOMPAT_STACKS))
		return -EINVAL;
	int ret = stackset_intern(&w->stacks, ips, nr, nr_kernel, truncated, id);
	if (ret <= 0)
		return ret < 0 ? set_err(w, ret) : 0;
	put_stack(w, *id);
	if (w->stk.len >= STACKS_FLUSH)
		return flush_stacks(w);
	return 0;
}
