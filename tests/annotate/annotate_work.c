/* annotate_work.c - the workload of annotate's tests: one function with two hot loops and an
 * inlined helper, each touching fresh pages so that `-e page-faults -c 1` charges an exact
 * number of samples to each marked line: PAGES, PAGES/2 and PAGES/4.
 *
 *   annotate_work [PAGES]     (default 4000)
 */
#include "annotate_work.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

/* Fresh anonymous pages, 4 KiB each: no transparent huge pages, so one fault per page. */
static char *fresh(size_t pages)
{
	char *p =
	    mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, pages * 4096, MADV_NOHUGEPAGE);
	return p;
}

static __attribute__((noinline)) long work(char *a, char *b, char *c, size_t pages)
{
	long sum = 0;

	for (size_t i = 0; i < pages; i++)
		a[i * 4096] = (char)i; /* HOT: first */
	for (size_t i = 0; i < pages / 2; i++)
		b[i * 4096] = (char)i; /* HOT: second */
	fill_pages(c, pages / 4);
	for (size_t i = 0; i < pages; i++)
		sum += a[i * 4096];
	return sum;
}

int main(int argc, char **argv)
{
	size_t pages = argc > 1 ? strtoul(argv[1], NULL, 0) : 4000;
	char *a = fresh(pages), *b = fresh(pages / 2 + 1), *c = fresh(pages / 4 + 1);

	if (!a || !b || !c) {
		fprintf(stderr, "annotate_work: mmap failed\n");
		return 1;
	}
	printf("annotate_work: %ld\n", work(a, b, c, pages));
	return 0;
}
