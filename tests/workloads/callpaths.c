/* callpaths.c - one hot leaf reached through two call paths with 1:3 of the work: main calls
 * one_share() over N fresh pages and three_shares() over 3N (N = argv[1], default 5000); both
 * call fault_pages(), whose marked store takes one page fault per page. Recorded with
 * `-e page-faults -c 1 -g`, the leaf's samples split 1:3 between the two call sites.
 * argv[2] (default 0): loop iterations of work per page, to slow the faults down where each
 * sample is large (--call-graph dwarf copies 8 KiB of stack per sample). */
#include <stdlib.h>
#include <sys/mman.h>

/* An empty asm after each call keeps it a call (no tail jump), so the caller's frame and its
 * return address stay on the stack. */
#define KEEP_FRAME() __asm__ volatile("" ::: "memory")

static unsigned long spin;
static volatile unsigned long spun;

static __attribute__((noinline)) long fault_pages(size_t pages)
{
	volatile char *buf =
	    mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long sum = 0;

	if (buf == MAP_FAILED)
		return -1;
	for (size_t i = 0; i < pages; i++) {
		buf[i * 4096] = (char)i; /* HOT: leaf */
		for (unsigned long k = 0; k < spin; k++)
			spun++;
	}
	sum = buf[0];
	munmap((void *)buf, pages * 4096);
	return sum;
}

static __attribute__((noinline)) long one_share(size_t pages)
{
	long r = fault_pages(pages); /* HOT: call_one */
	KEEP_FRAME();
	return r;
}

static __attribute__((noinline)) long three_shares(size_t pages)
{
	long r = fault_pages(3 * pages); /* HOT: call_three */
	KEEP_FRAME();
	return r;
}

int main(int argc, char **argv)
{
	size_t pages = argc > 1 ? strtoul(argv[1], NULL, 0) : 5000;
	long r;

	spin = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
	r = one_share(pages); /* HOT: main_one */

	r += three_shares(pages); /* HOT: main_three */
	KEEP_FRAME();
	return r < 0;
}
