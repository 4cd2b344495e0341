/* grow.h - the one growable array: room for NEED elements, the capacity doubled. Internal:
 * not installed.
 *
 *     if (hwprof_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)) < 0)
 *             return -ENOMEM;
 *     t->v[t->n++] = x;
 */
#ifndef HWPROF_GROW_H
#define HWPROF_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* Makes *V (an array of SIZE-byte elements with room for *CAP, or NULL with *CAP 0) hold at
 * least NEED elements: when NEED > *CAP, reallocates it to the first of 16, 32, 64, ... that
 * is >= NEED and sets *CAP to that. The elements kept keep their values; the new ones are
 * uninitialized. Returns 0, or -ENOMEM (realloc failed, or the bytes do not fit a size_t)
 * with *V and *CAP unchanged. */
static inline int hwprof_grow(void **v, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 16;
	void *nv;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	if (size && c > SIZE_MAX / size)
		return -ENOMEM;
	nv = realloc(*v, c * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = c;
	return 0;
}

#endif
