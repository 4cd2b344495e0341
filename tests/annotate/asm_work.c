/* asm_work.c - the workload of annotate's instruction tests (asm_test.py): with
 * `-e page-faults -c 1` each fault is charged to the instruction that touched a fresh page.
 *
 *   store_pages   one store per page (a mov to memory): N samples on the store line
 *   copy_pages    a load from one array and a store to another on one line: the
 *                 read faults in b's page (the zero page), the write a's: N samples each
 *   load_pages    two loads on one line, from two fresh arrays: each read faults in its
 *                 array's page (the zero page), N samples each
 *   fill_libc     memset on fresh pages: the faults in libc, a function without source
 *   run           one page of its own, then calls store_pages, copy_pages and load_pages
 *                 (the TUI opens them from the calls)
 *
 *   asm_work [PAGES]     (default 2000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

volatile int sink;

static char *fresh(size_t pages)
{
	char *p =
	    mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "asm_work: mmap failed\n");
		exit(1);
	}
	madvise(p, pages * 4096, MADV_NOHUGEPAGE);
	return p;
}

__attribute__((noinline)) void store_pages(volatile char *a, size_t pages)
{
	for (size_t i = 0; i < pages; i++)
		a[i * 4096] = (char)i; /* HOT: store */
}

__attribute__((noinline)) void copy_pages(volatile char *a, volatile char *b, size_t pages)
{
	for (size_t i = 0; i < pages; i++)
		a[i * 4096] = (char)(b[i * 4096] + 1); /* HOT: two */
}

__attribute__((noinline)) int load_pages(volatile char *a, volatile char *b, size_t pages)
{
	int sum = 0;

	for (size_t i = 0; i < pages; i++)
		sum += a[i * 4096] + b[i * 4096]; /* HOT: loads */
	return sum;
}

__attribute__((noinline)) void fill_libc(char *c, size_t pages)
{
	memset(c, 1, pages * 4096); /* HOT: libc */
}

__attribute__((noinline)) void run(size_t pages)
{
	*(volatile char *)fresh(1) = 1;		       /* HOT: run_own */
	store_pages(fresh(pages), pages);	       /* HOT: call_store */
	copy_pages(fresh(pages), fresh(pages), pages); /* HOT: call_copy */
	sink = load_pages(fresh(pages), fresh(pages), pages);
	fill_libc(fresh(pages), pages);
}

int main(int argc, char **argv)
{
	run(argc > 1 ? strtoul(argv[1], NULL, 0) : 2000);
	return 0;
}
