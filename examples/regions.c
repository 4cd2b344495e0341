/* regions.c - libhwprof regions around parts of your own program.
 *
 *   cc regions.c $(pkg-config --cflags --libs hwprof) -o regions
 *   ./regions                                  # table on stderr at exit
 *   HWPROF_OUTPUT=regions.json ./regions       # JSON (or CSV for any other name)
 *   HWPROF_EVENTS='{instructions,cycles}' ./regions
 *
 * Each thread counts its own regions; a region entered again accumulates (calls, counts).
 * On a host without a hardware PMU the default events are software ones (task-clock,
 * context-switches, cpu-migrations, page-faults): "touch" then shows one page fault per page.
 */
#include <hwprof/hwprof.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define PAGE 4096

/* Writes one byte in each of PAGES fresh pages: one minor page fault each. */
static void touch(size_t pages)
{
	char *p =
	    mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	madvise(p, pages * PAGE, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < pages; i++)
		((volatile char *)p)[i * PAGE] = 1;
	munmap(p, pages * PAGE);
}

static double compute(long n)
{
	double s = 0;
	for (long i = 1; i <= n; i++)
		s += 1.0 / ((double)i * (double)i);
	return s;
}

int main(int argc, char **argv)
{
	size_t pages = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;
	double s = 0;

	if (hwprof_region_begin("main") < 0)
		/* Counting is optional for the program: say why, and carry on. */
		fprintf(stderr, "regions: %s\n", hwprof_strerror_last());
	for (int i = 0; i < 3; i++) {
		hwprof_region_begin("touch");
		touch(pages);
		hwprof_region_end("touch");

		hwprof_region_begin("compute");
		s += compute(1000000);
		hwprof_region_end("compute");
	}
	hwprof_region_end("main");
	printf("regions: touched 3 x %zu pages, sum %.6f\n", pages, s);
	return 0;
}
