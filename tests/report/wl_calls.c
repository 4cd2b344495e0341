/* wl_calls.c - call paths: one hot leaf reached through two paths with 1:3 work (the second
 * through an inlined hop), a recursion 50 deep, and a qsort comparator called back from libc.
 * Each leaf() page touch is one sample with `-e page-faults -c 1` (argv[2]: loop iterations of
 * work per touch, to slow the faults down for --call-graph dwarf). Calls are followed by a
 * volatile store so that none is a tail call (a jump leaves no return address). */
#include <stdlib.h>
#include <sys/mman.h>

static volatile char *buf;
static size_t next, cap;
static volatile int sink;
static unsigned long spin; /* argv[2]: work per page, to slow the faults down */
static volatile unsigned long spun;

__attribute__((noipa)) void leaf_done(void)
{
	sink++;
}

/* Not a leaf function: one that calls nothing gets no frame (gcc 12 ignores
 * -mno-omit-leaf-frame-pointer), and a frame-pointer walk from it skips its caller. */
__attribute__((noipa)) void leaf(size_t pages)
{
	for (size_t i = 0; i < pages && next < cap; i++) {
		buf[(next++) * 4096] = 1; /* HOT: leaf */
		for (unsigned long k = 0; k < spin; k++)
			spun++;
	}
	leaf_done();
	sink++;
}

__attribute__((noipa)) void path_a(size_t n)
{
	leaf(n); /* HOT: call_a */
	sink++;
}

static inline __attribute__((always_inline)) void hop(size_t n)
{
	leaf(n); /* HOT: call_hop */
	sink++;
}

__attribute__((noipa)) void path_b(size_t n)
{
	hop(3 * n); /* HOT: call_b */
	sink++;
}

__attribute__((noipa)) void recurse(int depth, size_t n)
{
	if (depth > 1)
		recurse(depth - 1, n); /* HOT: recurse */
	else
		leaf(n); /* HOT: call_deep */
	sink++;
}

__attribute__((noipa)) static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	leaf(1); /* HOT: call_cmp */
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;
	int *v = malloc(n * sizeof(*v));

	spin = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
	cap = 6 * n + 64 * n;
	buf = mmap(NULL, cap * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED || !v)
		return 1;
	path_a(n);	/* HOT: main_a */
	path_b(n);	/* HOT: main_b */
	recurse(50, n); /* HOT: main_deep */
	for (size_t i = 0; i < n; i++)
		v[i] = (int)((i * 7919) % n);
	qsort(v, n, sizeof(*v), cmp); /* HOT: main_qsort */
	sink++;
	return 0;
}
