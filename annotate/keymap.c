/* keymap.c - hash map from string triples to indexes (keymap.h): open addressing, FNV-1a. */
#include "keymap.h"

#include "cli.h"
#include "fnv.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *nz(const char *s)
{
	return s ? s : "";
}

static uint64_t mix(uint64_t h, const char *s)
{
	/* A separator, so that ("ab", "c") and ("a", "bc") differ. */
	return hwprof_fnv1a_byte(hwprof_fnv1a_str(h, nz(s)), 0xff);
}

static size_t key_hash(const char *a, const char *b, const char *c)
{
	uint64_t h = mix(mix(mix(HWPROF_FNV_BASIS, a), b), c);

	return (size_t)(h ^ (h >> 29));
}

void keymap_init(struct keymap *km, size_t expect)
{
	km->cap = 16;
	while (km->cap < expect * 2)
		km->cap *= 2;
	km->slots = xcalloc(km->cap, sizeof(*km->slots));
	km->n = 0;
}

static bool same(const struct keyslot *s, const char *a, const char *b, const char *c)
{
	return !strcmp(nz(s->a), nz(a)) && !strcmp(nz(s->b), nz(b)) && !strcmp(nz(s->c), nz(c));
}

/* The slot holding the key, or the empty slot where it would go. */
static size_t probe(const struct keymap *km, const char *a, const char *b, const char *c)
{
	size_t mask = km->cap - 1, i;

	for (i = key_hash(a, b, c) & mask; km->slots[i].used; i = (i + 1) & mask)
		if (same(&km->slots[i], a, b, c))
			break;
	return i;
}

size_t keymap_find(const struct keymap *km, const char *a, const char *b, const char *c)
{
	size_t i = probe(km, a, b, c);

	return km->slots[i].used ? km->slots[i].val : KEYMAP_NONE;
}

size_t keymap_get_or_add(struct keymap *km, const char *a, const char *b, const char *c, size_t val)
{
	size_t i;

	if (2 * (km->n + 1) > km->cap) {
		struct keymap bigger;

		keymap_init(&bigger, km->cap);
		for (size_t j = 0; j < km->cap; j++) {
			const struct keyslot *s = &km->slots[j];

			if (s->used)
				keymap_get_or_add(&bigger, s->a, s->b, s->c, s->val);
		}
		free(km->slots);
		*km = bigger;
	}
	i = probe(km, a, b, c);
	if (km->slots[i].used)
		return km->slots[i].val;
	km->slots[i] = (struct keyslot){.a = a, .b = b, .c = c, .val = val, .used = true};
	km->n++;
	return val;
}

void keymap_release(struct keymap *km)
{
	free(km->slots);
	km->slots = NULL;
	km->cap = km->n = 0;
}
