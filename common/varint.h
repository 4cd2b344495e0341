/* varint.h - LEB128 varints and zigzag, shared by the sample-file writer and reader.
 *
 * Unsigned LEB128: 7 bits per byte, least significant group first, high bit set on every
 * byte but the last. A u64 takes 1..10 bytes. Zigzag maps signed deltas to unsigned so that
 * small magnitudes of either sign stay short: 0,-1,1,-2,2 -> 0,1,2,3,4. Deltas are computed
 * with wrapping u64 arithmetic, so every u64 pair round-trips exactly.
 */
#ifndef HWPROF_VARINT_H
#define HWPROF_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define VARINT_MAX 10 /* bytes of the longest u64 */

static inline uint64_t zigzag_enc(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t zigzag_dec(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* Writes V at P (room for VARINT_MAX bytes); returns the bytes written. */
static inline size_t varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* Reads a varint from [*P, END) into *V and advances *P. Returns 0, or -1 when the bytes end
 * first or the value does not fit in 64 bits (an 11th byte, or high bits in the 10th). */
static inline int varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t r = 0;
	unsigned shift = 0;

	if (q < end && *q < 0x80) { /* the common one-byte case */
		*v = *q;
		*p = q + 1;
		return 0;
	}
	for (;;) {
		if (q >= end)
			return -1;
		uint8_t b = *q++;
		if (shift == 63 && b > 1)
			return -1;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
		if (shift > 63)
			return -1;
	}
	*v = r;
	*p = q;
	return 0;
}

#endif
