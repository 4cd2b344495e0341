/* crc32.h - CRC-32 (IEEE 802.3 polynomial, reflected 0xEDB88320, init and final xor
 * 0xFFFFFFFF: the zlib/PNG CRC), for the sample file's record checksums. It detects every
 * single-bit error and every burst up to 32 bits. check value: crc32("123456789") = 0xCBF43926.
 */
#ifndef HWPROF_CRC32_H
#define HWPROF_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continues CRC over LEN bytes at BUF; start with crc = 0. Returns the CRC so far. */
uint32_t hwprof_crc32(uint32_t crc, const void *buf, size_t len);

#endif
