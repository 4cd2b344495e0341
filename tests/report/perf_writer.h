/* perf_writer.h - hand-made perf.data files for the tests of the perf.data producer
 * (test_perf.c) and its fuzz target (fuzz_perf.c): a byte buffer, perf's records, and the
 * file or pipe layout around them (tools/perf/Documentation/perf.data-file-format.txt).
 * Header-only: static functions, host byte order.
 */
#ifndef HWPROF_TESTS_PERF_WRITER_H
#define HWPROF_TESTS_PERF_WRITER_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

struct pw {
	uint8_t *p;
	size_t len, cap;
};

static inline void pw_put(struct pw *b, const void *src, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 256;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	if (n)
		memcpy(b->p + b->len, src, n);
	b->len += n;
}

static inline void pw_u64(struct pw *b, uint64_t v)
{
	pw_put(b, &v, 8);
}

static inline void pw_u32(struct pw *b, uint32_t v)
{
	pw_put(b, &v, 4);
}

/* Starts a record of TYPE and MISC: returns its offset for pw_end(). */
static inline size_t pw_begin(struct pw *b, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = {.type = type, .misc = misc, .size = 0};
	size_t at = b->len;

	pw_put(b, &h, sizeof(h));
	return at;
}

/* Pads the record begun at AT to 8 bytes and sets its size. */
static inline void pw_end(struct pw *b, size_t at)
{
	static const uint8_t zero[8];
	uint16_t size;

	pw_put(b, zero, (8 - (b->len - at) % 8) % 8);
	size = (uint16_t)(b->len - at);
	memcpy(b->p + at + 6, &size, 2);
}

/* A perf string (u32 length, NUL-padded to 8). */
static inline void pw_str(struct pw *b, const char *s)
{
	static const uint8_t zero[8];
	size_t n = strlen(s) + 1, padded = (n + 7) / 8 * 8;

	pw_u32(b, (uint32_t)padded);
	pw_put(b, s, n);
	pw_put(b, zero, padded - n);
}

/* The sample_id block of the tests' attrs (TID, TIME, ID, CPU). */
static inline void pw_sample_id(struct pw *b, uint32_t pid, uint32_t tid, uint64_t time,
				uint64_t id)
{
	pw_u32(b, pid), pw_u32(b, tid);
	pw_u64(b, time);
	pw_u64(b, id);
	pw_u32(b, 0), pw_u32(b, 0);
}

/* The tests' sample layout: sample_type IP | TID | TIME | ID | CPU | PERIOD, optionally
 * CALLCHAIN (NCHAIN entries of CHAIN). */
#define PW_SAMPLE_TYPE                                                                             \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |  \
	 PERF_SAMPLE_PERIOD)

static inline void pw_sample(struct pw *b, uint64_t ip, uint32_t pid, uint64_t time, uint64_t id,
			     uint64_t period, const uint64_t *chain, size_t nchain)
{
	size_t at = pw_begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);

	pw_u64(b, ip);
	pw_u32(b, pid), pw_u32(b, pid);
	pw_u64(b, time);
	pw_u64(b, id);
	pw_u32(b, 0), pw_u32(b, 0);
	pw_u64(b, period);
	if (chain) {
		pw_u64(b, nchain);
		pw_put(b, chain, nchain * 8);
	}
	pw_end(b, at);
}

/* An MMAP2 of PROT (PROT_* bits; without PROT_EXEC it has PERF_RECORD_MISC_MMAP_DATA, as the
 * kernel writes a data mapping of attr.mmap_data), MAP_PRIVATE. */
static inline void pw_mmap2_prot(struct pw *b, uint32_t pid, uint64_t start, uint64_t len,
				 uint64_t pgoff, uint32_t prot, const char *file, uint64_t time,
				 uint64_t id)
{
	size_t at = pw_begin(b, PERF_RECORD_MMAP2,
			     PERF_RECORD_MISC_USER | (prot & 4 ? 0 : PERF_RECORD_MISC_MMAP_DATA));
	static const uint8_t zero[8];

	pw_u32(b, pid), pw_u32(b, pid);
	pw_u64(b, start), pw_u64(b, len), pw_u64(b, pgoff);
	pw_u32(b, 8), pw_u32(b, 1);    /* maj, min */
	pw_u64(b, 1234), pw_u64(b, 0); /* ino, ino_generation */
	pw_u32(b, prot), pw_u32(b, 2 /* MAP_PRIVATE */);
	pw_put(b, file, strlen(file) + 1);
	pw_put(b, zero, (8 - (b->len - at) % 8) % 8);
	pw_sample_id(b, pid, pid, time, id);
	pw_end(b, at);
}

/* An MMAP2 of code (PROT_READ | PROT_EXEC). */
static inline void pw_mmap2(struct pw *b, uint32_t pid, uint64_t start, uint64_t len,
			    uint64_t pgoff, const char *file, uint64_t time, uint64_t id)
{
	pw_mmap2_prot(b, pid, start, len, pgoff, 5 /* PROT_READ | PROT_EXEC */, file, time, id);
}

/* A PERF_RECORD_MMAP (no prot: MISC_MMAP_DATA when DATA). */
static inline void pw_mmap(struct pw *b, bool data, uint32_t pid, uint64_t start, uint64_t len,
			   uint64_t pgoff, const char *file, uint64_t time, uint64_t id)
{
	size_t at = pw_begin(b, PERF_RECORD_MMAP,
			     PERF_RECORD_MISC_USER | (data ? PERF_RECORD_MISC_MMAP_DATA : 0));
	static const uint8_t zero[8];

	pw_u32(b, pid), pw_u32(b, pid);
	pw_u64(b, start), pw_u64(b, len), pw_u64(b, pgoff);
	pw_put(b, file, strlen(file) + 1);
	pw_put(b, zero, (8 - (b->len - at) % 8) % 8);
	pw_sample_id(b, pid, pid, time, id);
	pw_end(b, at);
}

static inline void pw_comm(struct pw *b, uint32_t pid, const char *comm, uint64_t time, uint64_t id)
{
	size_t at = pw_begin(b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	static const uint8_t zero[8];

	pw_u32(b, pid), pw_u32(b, pid);
	pw_put(b, comm, strlen(comm) + 1);
	pw_put(b, zero, (8 - (b->len - at) % 8) % 8);
	pw_sample_id(b, pid, pid, time, id);
	pw_end(b, at);
}

static inline void pw_lost(struct pw *b, uint64_t id, uint64_t lost, uint64_t time)
{
	size_t at = pw_begin(b, PERF_RECORD_LOST, 0);

	pw_u64(b, id), pw_u64(b, lost);
	pw_sample_id(b, 0, 0, time, id);
	pw_end(b, at);
}

/* PERF_RECORD_LOST_SAMPLES (linux/perf_event.h): u64 lost, then the sample_id of event ID. */
static inline void pw_lost_samples(struct pw *b, uint64_t id, uint64_t lost, uint64_t time)
{
	size_t at = pw_begin(b, PERF_RECORD_LOST_SAMPLES, 0);

	pw_u64(b, lost);
	pw_sample_id(b, 0, 0, time, id);
	pw_end(b, at);
}

/* perf record -z's data: the kernel's records of D as one zstd stream into OUT, cut into
 * NPIECES (or more, to fit a record's size) COMPRESSED records (type 81) at arbitrary bytes, so
 * that a record goes on in the next. Not padded to 8: perf 6.1's size is the header's and the zstd
 * bytes'. With V2, COMPRESSED2 records (type 83, newer perfs): the header, u64 data_size (the
 * zstd bytes), the bytes, zeros to 8 that the header's size counts. */
static inline void pw_compressed_v(struct pw *out, const struct pw *d, int npieces, bool v2)
{
	size_t cap = ZSTD_compressBound(d->len), n;
	unsigned char *z = malloc(cap);

	if (!z)
		abort();
	n = ZSTD_compress(z, cap, d->p, d->len, 1);
	if (ZSTD_isError(n))
		abort();
	if ((size_t)npieces < n / 60000 + 1)
		npieces = (int)(n / 60000 + 1); /* a record's size is a u16 */
	for (int i = 0; i < npieces; i++) {
		size_t from = n * (size_t)i / (size_t)npieces;
		size_t to = n * (size_t)(i + 1) / (size_t)npieces;
		static const uint8_t zero[8];
		size_t pad = v2 ? (8 - (to - from) % 8) % 8 : 0;
		struct perf_event_header h = {
		    .type = v2 ? 83 /* COMPRESSED2 */ : 81 /* COMPRESSED */,
		    .size = (uint16_t)(sizeof(h) + (v2 ? 8 : 0) + to - from + pad)};
		pw_put(out, &h, sizeof(h));
		if (v2)
			pw_u64(out, to - from);
		pw_put(out, z + from, to - from);
		pw_put(out, zero, pad);
	}
	free(z);
}

static inline void pw_compressed(struct pw *out, const struct pw *d, int npieces)
{
	pw_compressed_v(out, d, npieces, false);
}

/* An event of the tests' layout: software TYPE/CONFIG at PERIOD, sample_id_all. */
static inline struct perf_event_attr pw_attr(uint32_t type, uint64_t config, uint64_t period,
					     uint64_t sample_type)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = type;
	a.size = sizeof(a);
	a.config = config;
	a.sample_period = period;
	a.sample_type = sample_type;
	a.sample_id_all = 1;
	a.exclude_kernel = 1;
	return a;
}

struct pw_event {
	struct perf_event_attr attr;
	uint32_t attr_len; /* bytes of the attr in the file (0: sizeof) */
	uint64_t id;
	const char *name; /* for EVENT_DESC, or NULL: none written */
};

/* A perf.data file into OUT: header, attrs (each with its one id), DATA, and the feature
 * sections HOSTNAME ("testhost"), CMDLINE ("perf record /nonexistent/perf-test-prog") and, when the
 * events have names, EVENT_DESC. */
static inline void pw_file(struct pw *out, const struct pw_event *ev, size_t nev,
			   const struct pw *data)
{
	uint32_t attr_len = ev[0].attr_len ? ev[0].attr_len : (uint32_t)sizeof(ev[0].attr);
	uint64_t attrs_off = 104, ids_off = attrs_off + nev * (attr_len + 16),
		 data_off = ids_off + nev * 8;
	struct pw feat = {0};
	uint64_t feat_off;
	bool names = ev[0].name != NULL;
	uint64_t bits = 1ull << 3 | 1ull << 11 | (names ? 1ull << 12 : 0);
	uint64_t sec[3][2];
	int nsec = 0;

	out->len = 0;
	pw_put(out, "PERFILE2", 8);
	pw_u64(out, 104);
	pw_u64(out, attr_len + 16);
	pw_u64(out, attrs_off), pw_u64(out, nev * (attr_len + 16));
	pw_u64(out, data_off), pw_u64(out, data->len);
	pw_u64(out, 0), pw_u64(out, 0);
	pw_u64(out, bits), pw_u64(out, 0), pw_u64(out, 0), pw_u64(out, 0);
	for (size_t i = 0; i < nev; i++) {
		uint8_t a[4096] = {0};
		memcpy(a, &ev[i].attr,
		       attr_len < sizeof(ev[i].attr) ? attr_len : sizeof(ev[i].attr));
		memcpy(a + offsetof(struct perf_event_attr, size), &attr_len, 4);
		pw_put(out, a, attr_len);
		pw_u64(out, ids_off + i * 8), pw_u64(out, 8);
	}
	for (size_t i = 0; i < nev; i++)
		pw_u64(out, ev[i].id);
	pw_put(out, data->p, data->len);
	feat_off = out->len + 16 * (uint64_t)(2 + names);
	/* HOSTNAME */
	sec[nsec][0] = feat_off + feat.len;
	pw_str(&feat, "testhost");
	sec[nsec][1] = feat_off + feat.len - sec[nsec][0], nsec++;
	/* CMDLINE */
	sec[nsec][0] = feat_off + feat.len;
	pw_u32(&feat, 3);
	pw_str(&feat, "perf"), pw_str(&feat, "record"),
	    pw_str(&feat, "/nonexistent/perf-test-prog");
	sec[nsec][1] = feat_off + feat.len - sec[nsec][0], nsec++;
	if (names) {
		sec[nsec][0] = feat_off + feat.len;
		pw_u32(&feat, (uint32_t)nev);
		pw_u32(&feat, (uint32_t)sizeof(ev[0].attr));
		for (size_t i = 0; i < nev; i++) {
			pw_put(&feat, &ev[i].attr, sizeof(ev[i].attr));
			pw_u32(&feat, 1);
			pw_str(&feat, ev[i].name);
			pw_u64(&feat, ev[i].id);
		}
		sec[nsec][1] = feat_off + feat.len - sec[nsec][0], nsec++;
	}
	for (int i = 0; i < nsec; i++)
		pw_u64(out, sec[i][0]), pw_u64(out, sec[i][1]);
	pw_put(out, feat.p, feat.len);
	free(feat.p);
}

/* The same recording as perf's pipe stream: PIPE header, HEADER_ATTR per event, a
 * HEADER_FEATURE with the HOSTNAME, then DATA. */
static inline void pw_pipe(struct pw *out, const struct pw_event *ev, size_t nev,
			   const struct pw *data)
{
	out->len = 0;
	pw_put(out, "PERFILE2", 8);
	pw_u64(out, 16);
	for (size_t i = 0; i < nev; i++) {
		size_t at = pw_begin(out, 64 /* HEADER_ATTR */, 0);
		pw_put(out, &ev[i].attr, sizeof(ev[i].attr));
		pw_u64(out, ev[i].id);
		pw_end(out, at);
	}
	size_t at = pw_begin(out, 80 /* HEADER_FEATURE */, 0);
	pw_u64(out, 3 /* HOSTNAME */);
	pw_str(out, "pipehost");
	pw_end(out, at);
	pw_put(out, data->p, data->len);
}

#endif
