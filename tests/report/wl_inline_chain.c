/* wl_inline_chain.c - an inline chain three frames deep: outer() (a real function) calls
 * mid() and mid() calls poke(), both inlined. Recorded with `record -g -e page-faults -c 1`,
 * every sample of the loop is poke's line, inside mid at call_poke, inside outer at
 * call_mid; report --inline must show all three frames, mid too. */
#include <stdlib.h>
#include <sys/mman.h>

static inline __attribute__((always_inline)) void poke(volatile char *p, size_t i)
{
	p[i * 4096] = 1; /* HOT: poke */
}

static inline __attribute__((always_inline)) void mid(volatile char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		poke(p, i); /* HOT: call_poke */
}

static volatile int sink;

__attribute__((noipa)) void outer_done(void)
{
	sink++;
}

/* noipa: outer stays a real function, called from main. Not a leaf: one that calls nothing
 * gets no frame (gcc 12 ignores -mno-omit-leaf-frame-pointer), and a frame-pointer walk from
 * it skips main. */
__attribute__((noipa)) void outer(volatile char *p, size_t n)
{
	mid(p, n); /* HOT: call_mid */
	outer_done();
	sink++;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 2000;
	void *p = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	outer(p, n); /* HOT: call_outer */
	return 0;
}
