/* chase.c - a pointer chase over 16 MiB (beyond the last-level cache of small machines) for
 * STEPS steps (argv[1], default 20 million): under cpu-clock its loop line leads. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NODES (4u << 20)

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A random cyclic permutation (Sattolo): each load depends on the one before. */
static uint32_t *make_chain(uint32_t n)
{
	uint32_t *next = malloc((size_t)n * sizeof(*next));
	uint64_t seed = 0x9e3779b97f4a7c15ull;

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

	/* One line for the whole loop: the sampled IP of a stalled load is often the
	 * instruction after it (the loop counter), which must count for the same line. */
	/* clang-format off */
	for (uint64_t i = 0; i < steps; i++) p = next[p]; /* HOT: chase */
	/* clang-format on */
	return p;
}

int main(int argc, char **argv)
{
	uint64_t steps = argc > 1 ? strtoull(argv[1], NULL, 0) : 20000000ull;
	uint32_t *next = make_chain(NODES);

	if (!next)
		return 1;
	printf("chase: %u\n", chase(next, steps));
	free(next);
	return 0;
}
