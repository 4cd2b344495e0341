/* keymap.c - map from string triples to indexes (keymap.h), found through idindex.h. */
#include "keymap.h"

#include "cli.h"
#include "fnv.h"
#include "idindex.h"

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

static uint64_t key_hash(const char *a, const char *b, const char *c)
{
	return hwprof_hash_fold(mix(mix(mix(HWPROF_FNV_BASIS, a), b), c));
}

static uint64_t entry_hash(const void *ctx, uint32_t id)
{
	const struct keyslot *s = &((const struct keymap *)ctx)->v[id];

	return key_hash(s->a, s->b, s->c);
}

struct key {
	const struct keymap *km;
	const char *a, *b, *c;
};

static bool same_key(const void *ctx, uint32_t id)
{
	const struct key *k = ctx;
	const struct keyslot *s = &k->km->v[id];

	return !strcmp(nz(s->a), nz(k->a)) && !strcmp(nz(s->b), nz(k->b)) &&
	       !strcmp(nz(s->c), nz(k->c));
}

void keymap_init(struct keymap *km, size_t expect)
{
	size_t cap = 16;

	while (cap < expect * 2)
		cap *= 2;
	*km = (struct keymap){0};
	if (hwprof_index_rebuild(&km->index, &km->icap, cap, 0, entry_hash, km) < 0)
		die("out of memory");
}

/* The slot of (A, B, C) in KM's index: empty when KM has no such key. */
static size_t probe(const struct keymap *km, const char *a, const char *b, const char *c)
{
	struct key k = {km, a, b, c};

	return hwprof_index_probe(km->index, km->icap, key_hash(a, b, c), same_key, &k);
}

size_t keymap_find(const struct keymap *km, const char *a, const char *b, const char *c)
{
	size_t i = probe(km, a, b, c);

	return km->index[i] ? km->v[km->index[i] - 1].val : KEYMAP_NONE;
}

size_t keymap_get_or_add(struct keymap *km, const char *a, const char *b, const char *c, size_t val)
{
	size_t i = probe(km, a, b, c);

	if (km->index[i])
		return km->v[km->index[i] - 1].val;
	if (km->n + 1 >= UINT32_MAX)
		die("more than %u grouping keys", UINT32_MAX - 2);
	xgrow(&km->v, &km->cap, km->n + 1, sizeof(*km->v));
	km->v[km->n] = (struct keyslot){.a = a, .b = b, .c = c, .val = val};
	km->index[i] = (uint32_t)++km->n;
	if (2 * km->n > km->icap &&
	    hwprof_index_rebuild(&km->index, &km->icap, 2 * km->icap, km->n, entry_hash, km) < 0)
		die("out of memory");
	return val;
}

void keymap_release(struct keymap *km)
{
	free(km->v);
	free(km->index);
	*km = (struct keymap){0};
}
