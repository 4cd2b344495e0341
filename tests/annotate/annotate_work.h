/* annotate_work.h - an always-inlined helper, so that annotate shows an inline frame from a
 * header inside the function it was inlined into. */
#ifndef ANNOTATE_WORK_H
#define ANNOTATE_WORK_H

#include <stddef.h>

static inline __attribute__((always_inline)) void fill_pages(char *buf, size_t pages)
{
	for (size_t i = 0; i < pages; i++)
		buf[i * 4096] = (char)(i + 1); /* HOT: inlined */
}

#endif
