/* crc32.c - table-driven CRC-32, slicing by 4 (four table lookups per 32-bit word), so the
 * reader checks a million samples' worth of blocks in a few ms. Tables built once, lazily. */
#include <pthread.h>

#include "crc32.h"

static uint32_t crc_table[4][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = crc_table[0][i];
		for (int t = 1; t < 4; t++) {
			c = crc_table[0][c & 0xff] ^ (c >> 8);
			crc_table[t][i] = c;
		}
	}
}

uint32_t hwprof_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	pthread_once(&crc_once, crc_init);
	crc = ~crc;
	while (len >= 4) {
		/* Byte order explicit, so the result does not depend on the host's endianness. */
		crc ^= (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		       (uint32_t)p[3] << 24;
		crc = crc_table[3][crc & 0xff] ^ crc_table[2][(crc >> 8) & 0xff] ^
		      crc_table[1][(crc >> 16) & 0xff] ^ crc_table[0][crc >> 24];
		p += 4;
		len -= 4;
	}
	while (len--)
		crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
