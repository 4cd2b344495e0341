/* touch_runs.c - a workload with known page-fault counts for `hwprof stat` tests.
 *
 *   touch_runs PAGES            touches PAGES fresh pages
 *   touch_runs PAGES STATEFILE  run k (counted in STATEFILE, from 1) touches k * PAGES pages,
 *                               so `stat -r 3` sees PAGES, 2*PAGES, 3*PAGES plus the baseline
 *
 * The touching loop is not ASan-instrumented: its checks would fault in shadow pages too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define PAGE 4096

__attribute__((no_sanitize_address)) static void touch(size_t pages)
{
	char *p;

	if (!pages)
		return;
	p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(2);
	madvise(p, pages * PAGE, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < pages; i++)
		((volatile char *)p)[i * PAGE] = 1; /* HOT: touch */
}

int main(int argc, char **argv)
{
	size_t pages = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;
	long k = 1;

	if (argc > 2) {
		FILE *f = fopen(argv[2], "r");
		if (f) {
			if (fscanf(f, "%ld", &k) != 1)
				k = 0;
			fclose(f);
			k++;
		}
		f = fopen(argv[2], "w");
		if (!f)
			return 2;
		fprintf(f, "%ld\n", k);
		fclose(f);
	}
	touch(pages * (size_t)k);
	return 0;
}
