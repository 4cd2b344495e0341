/* keymap.h - a map from (A, B, C) string triples to indexes, for grouping a
 * profile's locations by function and by section in linear time. Keys are compared by content
 * (a profile interns its strings, but a hand-built one need not); NULL equals "". The map keeps
 * the key pointers: the strings must outlive it.
 *
 * CLI code: allocation failures die through cli.h's x* wrappers.
 */
#ifndef HWPROF_ANNOTATE_KEYMAP_H
#define HWPROF_ANNOTATE_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct keyslot {
	const char *a, *b, *c;
	size_t val;
};

struct keymap {
	struct keyslot *v; /* the keys in the order added */
	size_t n, cap;
	uint32_t *index; /* idindex.h slots: a power of two, at least twice n */
	size_t icap;
};

/* An empty map with room for about EXPECT keys before it grows. */
void keymap_init(struct keymap *km, size_t expect);

/* The value stored for (A, B, C); when absent, stores VAL and returns it (so a caller passing
 * the next free index learns whether the key is new). */
size_t keymap_get_or_add(struct keymap *km, const char *a, const char *b, const char *c,
			 size_t val);

/* The value stored for (A, B, C), or KEYMAP_NONE. */
size_t keymap_find(const struct keymap *km, const char *a, const char *b, const char *c);

#define KEYMAP_NONE ((size_t)-1)

/* Frees the map's arrays (not the key strings). */
void keymap_release(struct keymap *km);

#endif
