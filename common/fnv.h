/* fnv.h - FNV-1a, the one hash function of the tree's hash tables (all of them found
 * through idindex.h), and the one step that makes a slot of its result. Internal: not
 * installed.
 *
 * 64-bit FNV-1a (Fowler, Noll, Vo): start from HWPROF_FNV_BASIS, then for each byte XOR it in
 * and multiply by HWPROF_FNV_PRIME. Over ids and addresses the same step takes one 64-bit word
 * at a time (hwprof_fnv1a_word): not FNV-1a's byte stream, but its shape, at an eighth of the
 * multiplies. A key is hashed into one state part by part, then hwprof_hash_fold() makes the
 * index's hash of it:
 *
 *     uint64_t h = hwprof_hash_fold(hwprof_fnv1a_word(hwprof_fnv1a_word(HWPROF_FNV_BASIS, a), b));
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

/* H (an FNV-1a state, or a key of one word) with its bits mixed into the low ones, which are
 * those an index's slot is taken from: Fibonacci hashing, the high half of H times 2^64 over
 * the golden ratio. */
static inline uint64_t hwprof_hash_fold(uint64_t h)
{
	return (h * 0x9e3779b97f4a7c15ull) >> 32;
}

/* The index's hash of the one-word key W. */
static inline uint64_t hwprof_hash_word(uint64_t w)
{
	return hwprof_hash_fold(w);
}

#endif
