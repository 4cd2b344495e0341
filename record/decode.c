/* decode.c - perf records to hwprof records (layouts: linux/perf_event.h). */
#include "decode.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>

/* A bounds-checked cursor over one record. */
struct cur {
	const unsigned char *p, *end;
	int err;
};

static uint64_t get64(struct cur *c)
{
	uint64_t v = 0;

	if (c->end - c->p < 8) {
		c->err = 1;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

/* Two u32 packed in one u64 slot (pid/tid, cpu/res): low word first in memory. */
static void get32x2(struct cur *c, uint32_t *a, uint32_t *b)
{
	uint32_t v[2] = {0, 0};

	if (c->end - c->p < 8) {
		c->err = 1;
	} else {
		memcpy(v, c->p, 8);
		c->p += 8;
	}
	*a = v[0];
	*b = v[1];
}

size_t decode_sample_id_size(uint64_t t)
{
	size_t n = 0;

	n += (t & PERF_SAMPLE_TID) ? 8 : 0;
	n += (t & PERF_SAMPLE_TIME) ? 8 : 0;
	n += (t & PERF_SAMPLE_ID) ? 8 : 0;
	n += (t & PERF_SAMPLE_STREAM_ID) ? 8 : 0;
	n += (t & PERF_SAMPLE_CPU) ? 8 : 0;
	n += (t & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
	return n;
}

/* The sample_id block at the end of a non-sample record: the cursor END moves before it. */
struct sample_id {
	uint32_t pid, tid, cpu;
	uint64_t time;
};

static int take_sample_id(const struct decode_ctx *ctx, struct cur *c, struct sample_id *id)
{
	size_t n = decode_sample_id_size(ctx->sample_type);
	struct cur s;
	uint32_t res;

	memset(id, 0, sizeof(*id));
	if ((size_t)(c->end - c->p) < n)
		return -EBADMSG;
	s.p = c->end - n;
	s.end = c->end;
	s.err = 0;
	c->end = s.p;
	if (ctx->sample_type & PERF_SAMPLE_TID)
		get32x2(&s, &id->pid, &id->tid);
	if (ctx->sample_type & PERF_SAMPLE_TIME)
		id->time = get64(&s);
	if (ctx->sample_type & PERF_SAMPLE_ID)
		get64(&s);
	if (ctx->sample_type & PERF_SAMPLE_STREAM_ID)
		get64(&s);
	if (ctx->sample_type & PERF_SAMPLE_CPU)
		get32x2(&s, &id->cpu, &res);
	return 0;
}

/* A NUL-terminated string filling the rest of the cursor (padded to 8 bytes by the kernel). */
static const char *take_string(struct cur *c)
{
	const char *s = (const char *)c->p;

	if (c->p >= c->end || !memchr(c->p, '\0', (size_t)(c->end - c->p)))
		return NULL;
	c->p = c->end;
	return s;
}

static uint16_t event_of(const struct decode_ctx *ctx, uint64_t id)
{
	for (size_t i = 0; i < ctx->nids; i++)
		if (ctx->ids[i] == id)
			return ctx->events[i];
	return 0;
}

/* PERF_SAMPLE_CALLCHAIN: u64 nr, u64 ips[nr], markers among them (callchain.h). */
static int take_callchain(const struct decode_ctx *ctx, struct cur *c, uint64_t ip,
			  struct callchain_stack *st)
{
	uint64_t nr = get64(c);
	const unsigned char *p = c->p;

	if (c->err || nr > (uint64_t)(c->end - c->p) / 8)
		return -EBADMSG;
	c->p += nr * 8;
	if (st)
		callchain_callers(p, nr, ip, ctx->max_stack, st);
	return 0;
}

/* PERF_SAMPLE_REGS_USER: u64 abi, then u64 regs[weight(sample_regs_user)] unless abi is
 * PERF_SAMPLE_REGS_ABI_NONE. PERF_SAMPLE_STACK_USER: u64 size, then (size > 0) char data[size]
 * and u64 dyn_size, the bytes really copied (linux/perf_event.h). */
static int take_ustack(const struct decode_ctx *ctx, struct cur *c, struct unwind_ustack *u)
{
	struct unwind_ustack tmp;
	uint64_t size;

	if (!u)
		u = &tmp;
	memset(u, 0, sizeof(*u));
	if (ctx->sample_type & PERF_SAMPLE_REGS_USER) {
		u->abi = get64(c);
		if (c->err)
			return -EBADMSG;
		if (u->abi != PERF_SAMPLE_REGS_ABI_NONE) {
			u->mask = ctx->regs_user;
			u->nregs = (uint32_t)__builtin_popcountll(ctx->regs_user);
			if ((size_t)(c->end - c->p) / 8 < u->nregs)
				return -EBADMSG;
			u->regs = c->p;
			c->p += (size_t)u->nregs * 8;
		}
	}
	if (ctx->sample_type & PERF_SAMPLE_STACK_USER) {
		size = get64(c);
		if (c->err || size % 8 || size > (uint64_t)(c->end - c->p))
			return -EBADMSG;
		if (size) {
			u->stack = c->p;
			c->p += size;
			u->size = get64(c);
			if (c->err || u->size > size)
				return -EBADMSG;
		}
	}
	return 0;
}

static int decode_sample(const struct decode_ctx *ctx, const struct perf_event_header *h,
			 struct cur *c, struct hwprof_rec_sample *s)
{
	uint64_t t = ctx->sample_type, id = 0;
	uint32_t res;

	if (t & PERF_SAMPLE_IDENTIFIER)
		id = get64(c);
	if (t & PERF_SAMPLE_IP)
		s->ip = get64(c);
	if (t & PERF_SAMPLE_TID)
		get32x2(c, &s->pid, &s->tid);
	if (t & PERF_SAMPLE_TIME)
		s->time = get64(c);
	if (t & PERF_SAMPLE_ADDR)
		s->addr = get64(c);
	if (t & PERF_SAMPLE_ID)
		id = get64(c);
	if (t & PERF_SAMPLE_STREAM_ID)
		get64(c);
	if (t & PERF_SAMPLE_CPU)
		get32x2(c, &s->cpu, &res);
	s->period = ctx->fixed_period ? ctx->fixed_period : 1;
	if (t & PERF_SAMPLE_PERIOD)
		s->period = get64(c);
	if (c->err)
		return -EBADMSG;
	if ((t & PERF_SAMPLE_CALLCHAIN) && take_callchain(ctx, c, s->ip, ctx->stack))
		return -EBADMSG;
	if ((t & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)) &&
	    take_ustack(ctx, c, ctx->ustack))
		return -EBADMSG;
	/* WEIGHT: u64; WEIGHT_STRUCT: u32 var1_dw (latency), u16 var2_w, u16 var3_w, in that
	 * order in memory (linux/perf_event.h union perf_sample_weight, little-endian). */
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		s->weight = get64(c);
		if (t & PERF_SAMPLE_WEIGHT_STRUCT)
			s->weight &= 0xffffffffu;
	}
	if (t & PERF_SAMPLE_DATA_SRC)
		s->data_src = get64(c);
	if (c->err)
		return -EBADMSG;
	s->event = event_of(ctx, id);
	s->kernel = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL ||
		    (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_GUEST_KERNEL;
	return 1;
}

static int decode_mmap2(const struct decode_ctx *ctx, const struct perf_event_header *h,
			struct cur *c, struct hwprof_rec_mmap *m)
{
	unsigned char ids[24];

	get32x2(c, &m->pid, &m->tid);
	m->start = get64(c);
	m->len = get64(c);
	m->pgoff = get64(c);
	/* maj, min, ino, ino_generation - or build_id_size, 3 reserved bytes, build_id[20]. */
	if (c->end - c->p < 24)
		return -EBADMSG;
	memcpy(ids, c->p, 24);
	c->p += 24;
	get32x2(c, &m->prot, &m->flags);
	if (c->err)
		return -EBADMSG;
	m->filename = take_string(c);
	if (!m->filename)
		return -EBADMSG;
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		m->build_id_size = ids[0] <= 20 ? ids[0] : 0;
		memcpy(m->build_id, ids + 4, m->build_id_size);
	} else {
		/* u32 maj, u32 min, u64 ino (the u64 ino_generation after them is not kept). */
		uint32_t maj, min;
		uint64_t ino;

		memcpy(&maj, ids, 4);
		memcpy(&min, ids + 4, 4);
		memcpy(&ino, ids + 8, 8);
		m->ino_known = true;
		m->dev_major = maj;
		m->dev_minor = min;
		m->ino = ino;
	}
	/* Data mappings (attr.mmap_data) are kept for record --data only. */
	return (m->prot & PROT_EXEC) || ctx->data_mmaps ? 1 : 0;
}

int decode_record(const struct decode_ctx *ctx, const struct perf_event_header *h, size_t len,
		  struct hwprof_record *out)
{
	struct cur c = {(const unsigned char *)(h + 1), (const unsigned char *)h + len, 0};
	struct sample_id sid;
	int r;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(*h) || len < h->size)
		return -EBADMSG;
	if (h->type == PERF_RECORD_SAMPLE) {
		out->type = HWPROF_REC_SAMPLE;
		return decode_sample(ctx, h, &c, &out->sample);
	}
	switch (h->type) {
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_LOST:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		break;
	default:
		return 0;
	}
	if (take_sample_id(ctx, &c, &sid))
		return -EBADMSG;
	switch (h->type) {
	case PERF_RECORD_MMAP2:
		out->type = HWPROF_REC_MMAP;
		out->mmap.time = sid.time;
		r = decode_mmap2(ctx, h, &c, &out->mmap);
		break;
	case PERF_RECORD_COMM:
		out->type = HWPROF_REC_COMM;
		get32x2(&c, &out->comm.pid, &out->comm.tid);
		out->comm.time = sid.time;
		out->comm.exec = (h->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
		out->comm.comm = c.err ? NULL : take_string(&c);
		r = out->comm.comm ? 1 : -EBADMSG;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		out->type = h->type == PERF_RECORD_FORK ? HWPROF_REC_FORK : HWPROF_REC_EXIT;
		get32x2(&c, &out->task.pid, &out->task.ppid);
		get32x2(&c, &out->task.tid, &out->task.ptid);
		out->task.time = get64(&c);
		r = c.err ? -EBADMSG : 1;
		break;
	case PERF_RECORD_LOST:
		out->type = HWPROF_REC_LOST;
		get64(&c); /* id */
		out->lost.lost = get64(&c);
		out->lost.time = sid.time;
		out->lost.cpu = sid.cpu;
		r = c.err ? -EBADMSG : 1;
		break;
	default: /* THROTTLE, UNTHROTTLE */
		out->type =
		    h->type == PERF_RECORD_THROTTLE ? HWPROF_REC_THROTTLE : HWPROF_REC_UNTHROTTLE;
		out->lost.time = get64(&c);
		out->lost.cpu = sid.cpu;
		r = c.err ? -EBADMSG : 1;
		break;
	}
	return r;
}
