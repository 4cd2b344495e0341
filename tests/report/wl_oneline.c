/* wl_oneline.c - a function on one line, followed by another: annotate shows the first one's
 * line and nothing of the next (its closing brace in column 0 is not the first's). Faults
 * argv[1] pages (default 100) in each. */
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>

static volatile char *fresh(size_t n)
{
	void *p = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(1);
	return p;
}
__attribute__((noinline)) static void one(size_t n)
{
	volatile char *p = fresh(n);
	for (size_t i = 0; i < n; i++)
		p[i * 4096] = 1;
} /* HOT: oneline */

__attribute__((noinline)) static void after(size_t n)
{
	volatile char *p = fresh(n);

	for (size_t i = 0; i < n; i++)
		p[i * 4096] = 2; /* HOT: after */
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? (size_t)atol(argv[1]) : 100;

	one(n);
	after(n);
	return 0;
}
