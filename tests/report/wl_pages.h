/* wl_pages.h - for the page-touching workloads: N fresh pages, and the page count argument. */
#ifndef WL_PAGES_H
#define WL_PAGES_H

#include <stdlib.h>
#include <sys/mman.h>

/* N fresh (never touched) pages of 4096 bytes; exits 1 when the kernel has none. */
static inline char *wl_pages(size_t n)
{
	void *p = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	return p;
}

/* argv[1] as a page count, default 100. */
static inline size_t wl_count(int argc, char **argv)
{
	return argc > 1 ? strtoul(argv[1], NULL, 10) : 100;
}

#endif
