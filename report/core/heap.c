/* heap.c - the report's heap on transparent huge pages.
 *
 * A first report spends most of its time in allocations: libdw builds a line table with
 * one malloc per row (330,000 rows for sqlite3.c's one CU) and inflates a compressed debug
 * file (libc's, 10 MB) into malloc'ed buffers. On a KVM guest each first touch of a 4 KiB
 * page is an expensive fault: 10,600 of them took a quarter of a cold `hwprof report` of
 * the sqlite recording. With the heap on 2 MiB pages and every thread on that heap (a
 * thread's own arena would be on small pages again), the same report went from 115 ms to
 * 63 ms here, with no cost to a report served from the symbolization cache; either
 * setting alone gave 113 ms and 99 ms.
 *
 * glibc's own switch for this (GLIBC_TUNABLES=glibc.malloc.hugetlb=1) is read only at
 * process start. The same is done here with mallopt(3), sbrk(2) and madvise(2): the heap
 * is grown once by a block that is freed at once, and that address range is advised. A
 * heap that later outgrows the range gets small pages for the rest, as before.
 *
 * Measured on 2 CPUs only: with 8 symbolization threads (jobs.c's most) on one arena its
 * lock may cost part of the gain. Under a memory limit (ulimit -v or -d) the 64 MiB of
 * address space would count against it: nothing is changed then. */
#include "heap.h"

#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

/* The largest M_MMAP_THRESHOLD glibc takes (HEAP_MAX_SIZE / 2 on 64-bit hosts). */
#define HEAP_BLOCK_MAX ((size_t)32 << 20)
#define HUGE_PAGE      ((uintptr_t)2 << 20)

/* Whether the resource limit RES is set (not RLIM_INFINITY). */
static bool limited(int res)
{
	struct rlimit rl;

	return getrlimit(res, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY;
}

void heap_use_huge_pages(void)
{
	static bool done;
	uintptr_t lo, hi;
	char *before;
	/* volatile: a malloc whose block is unused would be optimized away. */
	void *volatile block;

	if (done)
		return;
	done = true;
	if (limited(RLIMIT_AS) || limited(RLIMIT_DATA))
		return;
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_MMAP_THRESHOLD, (int)HEAP_BLOCK_MAX);
	/* The block and the pad after it: 64 MiB of address space, kept (not trimmed). */
	mallopt(M_TOP_PAD, (int)HEAP_BLOCK_MAX);
	mallopt(M_TRIM_THRESHOLD, (int)(4 * HEAP_BLOCK_MAX));
	before = sbrk(0);
	block = malloc(HEAP_BLOCK_MAX - 4096);
	free(block);
	/* Restore the default pad: the advised range is already there. */
	mallopt(M_TOP_PAD, 128 * 1024);
	lo = ((uintptr_t)before + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	hi = (uintptr_t)sbrk(0) & ~(HUGE_PAGE - 1);
	if (before != (void *)-1 && hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}
