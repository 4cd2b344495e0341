/* pagefault.c - touches N fresh pages (argv[1], default 20000) on one marked line: recorded with
 * `-e page-faults -c 1`, that line takes every fault of this file. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static __attribute__((noinline)) long touch(size_t pages)
{
	volatile char *buf =
	    mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long sum = 0;

	if (buf == MAP_FAILED)
		return -1;
	for (size_t i = 0; i < pages; i++)
		buf[i * 4096] = (char)i; /* HOT: fault */
	for (size_t i = 0; i < pages; i += 512)
		sum += buf[i * 4096];
	munmap((void *)buf, pages * 4096);
	return sum;
}

int main(int argc, char **argv)
{
	size_t pages = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000;

	return touch(pages) < 0 ? 1 : 0;
}
