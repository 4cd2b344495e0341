/* fuzz_frames.h - the input framing both libFuzzer targets share (fuzz_reader.c, and
 * tests/report/fuzz_report.c): a valid file header, then the fuzzer's [type][len][body]
 * chunks framed with correct CRCs, so that random bytes reach the record decoders. */
#ifndef HWPROF_FUZZ_FRAMES_H
#define HWPROF_FUZZ_FRAMES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwprof/sampfile.h"
#include "crc32.h"
#include "sampfile_format.h"
#include "sampfile_util.h"

/* The preamble and header records of a valid file (stacks announced when STACKS), into a
 * malloc'ed *OUT of *LEN bytes. Aborts on any failure: a harness cannot run without it. */
static inline void fuzz_valid_header(bool stacks, uint8_t **out, size_t *len)
{
	struct hwprof_file_header h;
	struct hwprof_writer *w;
	char tmp[] = "/tmp/hwprof-fuzz-XXXXXX";
	int fd = mkstemp(tmp);

	tu_header(&h);
	h.stacks = stacks;
	if (fd < 0 || hwprof_writer_open(&w, tmp, &h) || hwprof_writer_close(w, NULL))
		abort();
	*len = (size_t)lseek(fd, 0, SEEK_END);
	*out = malloc(*len);
	if (!*out || pread(fd, *out, *len, 0) != (ssize_t)*len)
		abort();
	close(fd);
	unlink(tmp);
}

/* Appends N bytes of P to *BUF (capacity *CAP, grown as needed) at *LEN. */
static inline void fuzz_put(uint8_t **buf, size_t *cap, size_t *len, const void *p, size_t n)
{
	if (!n) /* *buf may still be NULL: memcpy wants a pointer even for 0 bytes */
		return;
	if (*len + n > *cap) {
		*cap = (*len + n) * 2;
		*buf = realloc(*buf, *cap);
		if (!*buf)
			abort();
	}
	memcpy(*buf + *len, p, n);
	*len += n;
}

/* HEADER, then DATA's [type][len][body] chunks framed with correct CRCs, into *BUF.
 * Returns the bytes written. */
static inline size_t fuzz_frame(const uint8_t *header, size_t header_len, const uint8_t *data,
				size_t size, uint8_t **buf, size_t *cap)
{
	size_t len = 0;

	fuzz_put(buf, cap, &len, header, header_len);
	while (size >= 2) {
		uint8_t head[SF_FRAME_HEAD], crc[SF_FRAME_TAIL];
		size_t n = data[1] < size - 2 ? data[1] : size - 2;
		head[0] = data[0];
		sf_put_u32(head + 1, (uint32_t)n);
		sf_put_u32(crc, hwprof_crc32(hwprof_crc32(0, head, sizeof(head)), data + 2, n));
		fuzz_put(buf, cap, &len, head, sizeof(head));
		fuzz_put(buf, cap, &len, data + 2, n);
		fuzz_put(buf, cap, &len, crc, sizeof(crc));
		data += 2 + n;
		size -= 2 + n;
	}
	return len;
}

#endif
