/* fnv.h - FNV-1a, the one hash function of the tree's hash tables: interned strings
 * (report/core/strpool.c), grouping keys (annotate/keymap.c), stacks (report/core/stacks.c,
 * common/stackset.c). Internal: not installed.
 *
 * 64-bit FNV-1a (Fowler, Noll, Vo): start from HWPROF_FNV_BASIS, then for each byte XOR it in
 * and multiply by HWPROF_FNV_PRIME. Over ids and addresses the same step takes one 64-bit word
 * at a time (hwprof_fnv1a_word): not FNV-1a's byte stream, but its shape, at an eighth of the
 * multiplies.
 */
#ifndef HWPROF_FNV_H
#define HWPROF_FNV_H

#include <stdint.h>

#define HWPROF_FNV_BASIS 14695981039346656037ull
#define HWPROF_FNV_PRIME 1099511628211ull

/* H with the byte C hashed in. */
static inline uint64_t hwprof_fnv1a_byte(uint64_t h, unsigned char c)
{
	return (h ^ c) * HWPROF_FNV_PRIME;
}

/* H with the bytes of the string S (not its NUL) hashed in. */
static inline uint64_t hwprof_fnv1a_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = hwprof_fnv1a_byte(h, (unsigned char)*s);
	return h;
}

/* H with the word W hashed in as one step. */
static inline uint64_t hwprof_fnv1a_word(uint64_t h, uint64_t w)
{
	return (h ^ w) * HWPROF_FNV_PRIME;
}

#endif
