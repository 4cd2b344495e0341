/* fuzz_reader.c - libFuzzer target for the sample-file reader.
 *
 * Build: CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined
 *        -Db_lundef=false && meson compile -C build-fuzz tests/sampfile/fuzz_reader
 * Run:   build-fuzz/tests/sampfile/fuzz_reader -max_total_time=60 CORPUS_DIR
 *
 * Records carry a CRC-32, so random bytes rarely get past the framing. The first input byte
 * picks the mode: even, the rest is the file as is (preamble and framing); odd, the rest is a
 * list of [type][len][body] chunks that the harness frames with correct CRCs after a valid
 * header, so the record decoders see the fuzzer's bytes. The header announces stacks (1.2), so
 * STACKS and SAMPLES_EXT records are checked too: ids in order, depths in bounds, every
 * sample's stack defined before it.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_frames.h"

static int memfd = -1;
static char path[64];
static uint8_t *header; /* preamble + header records of a valid file */
static size_t header_len;
static uint8_t *buf;
static size_t buf_cap;

static void init(void)
{
	fuzz_valid_header(true, &header, &header_len);
	memfd = memfd_create("hwprof-fuzz", 0);
	if (memfd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwprof_reader *r;
	struct hwprof_record rec;
	char err[256];
	size_t len;

	if (memfd < 0)
		init();
	if (size < 1)
		return 0;
	if (data[0] & 1) {
		len = fuzz_frame(header, header_len, data + 1, size - 1, &buf, &buf_cap);
	} else {
		len = 0;
		fuzz_put(&buf, &buf_cap, &len, data + 1, size - 1);
	}
	if (ftruncate(memfd, 0) || pwrite(memfd, buf, len, 0) != (ssize_t)len)
		abort();
	if (hwprof_reader_open(&r, path, err, sizeof(err))) {
		if (!err[0])
			abort(); /* every failure names its cause */
		return 0;
	}
	const struct hwprof_file_header *h = hwprof_reader_header(r);
	for (uint32_t i = 0; i < h->argc; i++)
		if (!h->argv[i])
			abort();
	uint64_t n = 0;
	uint32_t nstacks = 0;
	while (hwprof_reader_next(r, &rec) == 1) {
		n++;
		if (rec.type == HWPROF_REC_STACK) {
			if (rec.stack.id != ++nstacks || rec.stack.nr > HWPROF_STACK_MAX ||
			    rec.stack.nr_kernel > rec.stack.nr || (rec.stack.nr && !rec.stack.ips))
				abort();
			uint64_t sum = 0; /* every entry readable */
			for (uint32_t i = 0; i < rec.stack.nr; i++)
				sum += rec.stack.ips[i];
			(void)sum;
		}
		if (rec.type == HWPROF_REC_SAMPLE && rec.sample.stack_id > nstacks)
			abort();
		if (rec.type == HWPROF_REC_MMAP && strlen(rec.mmap.filename) > len)
			abort();
		if (rec.type == HWPROF_REC_COMM && strlen(rec.comm.comm) > len)
			abort();
		if (rec.type == HWPROF_REC_SAMPLE && rec.sample.event >= h->nevents)
			abort();
	}
	const char *msg;
	enum hwprof_read_status st = hwprof_reader_status(r, &msg);
	if ((st == HWPROF_READ_OK) != (hwprof_reader_trailer(r) != NULL))
		abort();
	if (st != HWPROF_READ_OK && (!msg || !msg[0]))
		abort();
	if (hwprof_reader_next(r, &rec) != 0) /* stays at the end */
		abort();
	hwprof_reader_close(r);
	return 0;
}
