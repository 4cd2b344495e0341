/* hotloop.c - the bundled example: a pointer chase over a buffer larger than the last-level
 * cache (cache misses), a loop that touches fresh pages (page faults), and some cheap
 * arithmetic that should *not* show up as hot.
 *
 *   hwprof record -- build/examples/hotloop
 *   hwprof report
 *
 * The hot lines carry a marker comment ("HOT:") that the tests look for.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define NODES (8u << 20) /* 8 Mi nodes of 8 bytes: 64 MiB, far beyond any LLC */

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A random cyclic permutation (Sattolo), so each load depends on the previous one. */
static uint32_t *make_chain(uint32_t n)
{
	uint32_t *next = malloc((size_t)n * sizeof(*next));
	uint64_t seed = 88172645463325252ull;

	if (!next)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		next[i] = i;
	for (uint32_t i = n - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(xorshift(&seed) % i);
		uint32_t t = next[i];
		next[i] = next[j];
		next[j] = t;
	}
	return next;
}

static __attribute__((noinline)) uint32_t chase(const uint32_t *next, uint64_t steps)
{
	uint32_t p = 0;
	/* One line, so that the sample skid past the slow load stays on the marked line. */
	for (uint64_t i = 0; i < steps; i++)
		p = next[p]; /* HOT: chase */
	return p;
}

/* Returns how many pages read back what was written (all of them): a count to print that
 * keeps the compiler from dropping the writes. 0 when the mapping failed. */
static __attribute__((noinline)) size_t touch_pages(size_t pages)
{
	unsigned char *buf =
	    mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t touched = 0;

	if (buf == MAP_FAILED)
		return 0;
	for (size_t i = 0; i < pages; i++)
		buf[i * 4096] = (unsigned char)i; /* HOT: fault */
	for (size_t i = 0; i < pages; i++)
		touched += buf[i * 4096] == (unsigned char)i;
	munmap(buf, pages * 4096);
	return touched;
}

int main(int argc, char **argv)
{
	uint64_t steps = argc > 1 ? strtoull(argv[1], NULL, 0) : 20000000ull;
	uint32_t *next = make_chain(NODES);

	if (!next) {
		fprintf(stderr, "hotloop: out of memory\n");
		return 1;
	}
	printf("hotloop: chase ended at %u, touched %zu pages\n", chase(next, steps),
	       touch_pages(20000));
	free(next);
	return 0;
}
