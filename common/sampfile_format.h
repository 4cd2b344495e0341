/* sampfile_format.h - the byte layout of hwprof.data, shared by sampfile_write.c and
 * sampfile_read.c so that no number is written down twice. docs/format.md describes every
 * byte; keep the two in step.
 *
 *   preamble   PREAMBLE_SIZE bytes, fixed fields, CRC-32 at its end
 *   records    [u8 type][u32 body length N][N body bytes][u32 CRC-32 of type, length, body]
 *
 * All fixed-width integers are little-endian. Record bodies are made of LEB128 varints (see
 * varint.h), strings (varint length, then the bytes, no NUL) and single flag bytes.
 */
#ifndef HWPROF_SAMPFILE_FORMAT_H
#define HWPROF_SAMPFILE_FORMAT_H

#include <stdint.h>
#include <string.h>

/* 0x89 first: not ASCII, so a text file never looks like ours; "\n" catches CRLF mangling. */
#define SF_MAGIC     "\x89HWPROF\n"
#define SF_MAGIC_LEN 8

/* Preamble offsets. Magic, major and minor keep these offsets in every major version, so any
 * reader can tell "newer version" from "not a hwprof file". */
#define SF_OFF_MAJOR	 8    /* u16 */
#define SF_OFF_MINOR	 10   /* u16 */
#define SF_OFF_SIZE	 12   /* u32: preamble bytes, CRC included (>= SF_PREAMBLE_SIZE) */
#define SF_OFF_COMPAT	 16   /* u32: features a reader may ignore */
#define SF_OFF_INCOMPAT	 20   /* u32: features a reader must know, else refuse */
#define SF_OFF_RESERVED	 24   /* u32: 0 */
#define SF_PREAMBLE_SIZE 32   /* CRC-32 of the bytes before it in the last 4 bytes */
#define SF_PREAMBLE_MAX	 4096 /* a larger preamble size is corruption */

/* Incompatible feature bits. STACKS (1.2): the file has STACKS and SAMPLES_EXT records, whose
 * samples a reader that skips unknown records would silently lose. */
#define SF_INCOMPAT_STACKS (1u << 0)
/* DATA (1.3): SAMPLES_EXT blocks whose mask has data fields (SF_F_ADDR, ...), which a 1.2
 * reader would stop at as corrupt. */
#define SF_INCOMPAT_DATA  (1u << 1)
#define SF_COMPAT_KNOWN	  0u
#define SF_INCOMPAT_KNOWN (SF_INCOMPAT_STACKS | SF_INCOMPAT_DATA)

#define SF_FRAME_HEAD 5 /* type byte + u32 length */
#define SF_FRAME_TAIL 4 /* CRC-32 */

/* Record types (the type byte). Numbers are never reused; a reader skips a type it does not
 * know (a newer minor version added it) by its length. */
enum sf_type {
	/* header: before SF_HEADER_END, in this order (EVENT repeated) */
	SF_HOST = 1,
	SF_CMDLINE = 2,
	SF_EVENT = 3,
	SF_HEADER_END = 4,
	/* body */
	SF_MMAP = 16,
	SF_COMM = 17,
	SF_FORK = 18,
	SF_EXIT = 19,
	SF_SAMPLES = 20, /* a block of one thread's samples */
	SF_LOST = 21,
	SF_THROTTLE = 22,
	SF_UNTHROTTLE = 23,
	SF_STACKS = 24,	     /* 1.2: a batch of distinct stacks, ids in order */
	SF_SAMPLES_EXT = 25, /* 1.2: a sample block with a field mask (stack ids, ...) */
	/* trailer: COUNT repeated, SUMMARY last */
	SF_COUNT = 32,
	SF_SUMMARY = 33,
	SF_SAMPLED = 34, /* 1.1: a sampling event's own count and lost count, before SUMMARY */
	SF_NTYPES = 256,
};

/* SF_CMDLINE target byte (1.4), after the arguments */
enum {
	SF_CMD_SYSTEM_WIDE = 1 << 0,
};

/* SF_EVENT flag byte */
enum {
	SF_EV_SAMPLING = 1 << 0,
	SF_EV_FREQ = 1 << 1,
	SF_EV_PRECISE_MAX = 1 << 2,
	SF_EV_EXCL_USER = 1 << 3,
	SF_EV_EXCL_KERNEL = 1 << 4,
	SF_EV_EXCL_HV = 1 << 5,
};

/* SF_MMAP identity byte (1.1, after the file name): which of the five varints after it hold
 * values (they are written in every case, 0 when unknown). */
enum {
	SF_MMAP_INO = 1 << 0,  /* dev major, dev minor, inode */
	SF_MMAP_STAT = 1 << 1, /* size, mtime */
};

/* SF_SAMPLED flag byte */
enum {
	SF_SAMPLED_COUNT = 1 << 0,
	SF_SAMPLED_LOST = 1 << 1,
};

/* Per-sample flag byte in an SF_SAMPLES block; the fields follow in this order:
 * [cpu varint] [event varint] [period zigzag delta] [ip zigzag delta] time zigzag
 * delta-of-delta. */
enum {
	SF_S_KERNEL = 1 << 0,  /* the ip is in the kernel */
	SF_S_CPU = 1 << 1,     /* cpu changed: new cpu follows */
	SF_S_EVENT = 1 << 2,   /* event index changed: new index follows */
	SF_S_PERIOD = 1 << 3,  /* period changed: zigzag delta follows */
	SF_S_IP_SAME = 1 << 4, /* same ip as the previous sample: no ip field */
	SF_S_KNOWN = 0x1f,     /* other bits set: corrupt (in SF_SAMPLES) */
	/* SF_SAMPLES_EXT only, with SF_F_STACK in the block's mask: the same stack id as the
	 * previous sample, no stack field. */
	SF_S_STACK_SAME = 1 << 5,
	/* With SF_F_ADDR: addr - previous addr equals the previous sample's difference (a
	 * stride), no addr field. Not on a block's first sample. */
	SF_S_ADDR_STRIDE = 1 << 6,
	/* With SF_F_DATA_SRC: the same data source as the previous sample, no field. Not on a
	 * block's first sample. */
	SF_S_SRC_SAME = 1 << 7,
};

/* The field mask of an SF_SAMPLES_EXT block: which optional fields each sample carries, after
 * the SF_SAMPLES ones, in bit order. A bit the reader does not know is corruption (it cannot
 * tell the field's size), so a new field needs a new incompatible feature bit. */
enum {
	SF_F_STACK = 1 << 0,	/* [stack id: zigzag delta] unless SF_S_STACK_SAME */
	SF_F_ADDR = 1 << 1,	/* 1.3: [addr: zigzag delta] unless SF_S_ADDR_STRIDE */
	SF_F_DATA_SRC = 1 << 2, /* 1.3: [data_src: varint] unless SF_S_SRC_SAME */
	SF_F_WEIGHT = 1 << 3,	/* 1.3: [weight: varint] */
	SF_F_DATA = SF_F_ADDR | SF_F_DATA_SRC | SF_F_WEIGHT,
	SF_F_KNOWN = 0xf,
};

/* The flag bits a sample of a block with field mask FIELDS may have. */
static inline uint8_t sf_sample_flags_known(uint64_t fields)
{
	return (uint8_t)(SF_S_KNOWN | ((fields & SF_F_STACK) ? SF_S_STACK_SAME : 0) |
			 ((fields & SF_F_ADDR) ? SF_S_ADDR_STRIDE : 0) |
			 ((fields & SF_F_DATA_SRC) ? SF_S_SRC_SAME : 0));
}

/* SF_STACKS: [varint first id][varint count], then per stack [u8 flags][varint nr]
 * [varint nr_kernel][varint shared][nr - shared ips: zigzag deltas]. The last SHARED entries
 * (outermost callers) are the previous stack's last SHARED, in the same record; the ip delta
 * runs on through the record from 0. */
enum {
	SF_STK_TRUNCATED = 1 << 0,
	SF_STK_KNOWN = 0x1,
};
#define SF_STACK_MIN_BYTES 4 /* flags, nr, nr_kernel, shared */

/* A block holds at most this many samples: the reader decodes a block at once into an array
 * bounded by this, never by a count read from the file. */
#define SF_BLOCK_MAX_SAMPLES 65536
/* The writer flushes a thread's block at this many samples (2 KiB-64 KiB of body). */
#define SF_BLOCK_FLUSH_SAMPLES 8192

static inline void sf_put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void sf_put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void sf_put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t sf_get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t sf_get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t sf_get_u64(const uint8_t *p)
{
	return (uint64_t)sf_get_u32(p) | (uint64_t)sf_get_u32(p + 4) << 32;
}

/* A double goes as its IEEE-754 bits in a u64. */
static inline uint64_t sf_double_bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static inline double sf_bits_double(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

#endif
