/* wl_inline.c - a hot helper inlined at two call sites. first() touches N fresh pages through
 * it, second() 3N: recorded with `-e page-faults -c 1`, the helper's line takes the samples,
 * charged to "poke (inlined into first/second)" or, with --inline=caller, to the call sites. */
#include <stdlib.h>
#include <sys/mman.h>

static inline __attribute__((always_inline)) void poke(volatile char *p, size_t i, char v)
{
	p[i * 4096] = v; /* HOT: poke */
}

/* noipa: gcc must not merge the two (identical code folding) or inline them into main. */
__attribute__((noipa)) void first(volatile char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		poke(buf, i, 1); /* HOT: call_first */
}

__attribute__((noipa)) void second(volatile char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		poke(buf, i, 2); /* HOT: call_second */
}

static volatile char *fresh(size_t pages)
{
	void *p =
	    mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 2000;
	volatile char *a = fresh(n), *b = fresh(3 * n);

	if (!a || !b)
		return 1;
	first(a, n);
	second(b, 3 * n);
	return 0;
}
