/* tests/report/test_heap.c - heap_use_huge_pages(): the brk heap grown once and advised
 * for huge pages, every thread allocating from it. Built without sanitizers: ASan's
 * allocator has no brk heap to tune. */
#include "heap.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* The VmFlags line of the mapping that holds ADDR in /proc/self/smaps, into FLAGS. */
static bool vm_flags(uintptr_t addr, char *flags, size_t len)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false, found = false;

	cr_assert(f, "cannot read /proc/self/smaps");
	while (!found && fgets(line, sizeof(line), f)) {
		uintptr_t lo, hi;

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2)
			in = addr >= lo && addr < hi;
		else if (in && !strncmp(line, "VmFlags:", 8)) {
			snprintf(flags, len, "%s", line + 8);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* Whether ADDR lies in the brk heap ("[heap]" in /proc/self/maps). */
static bool in_brk_heap(const void *addr)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	bool in = false;

	cr_assert(f, "cannot read /proc/self/maps");
	while (!in && fgets(line, sizeof(line), f)) {
		uintptr_t lo, hi;

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2 &&
		    (uintptr_t)addr >= lo && (uintptr_t)addr < hi)
			in = strstr(line, "[heap]") != NULL;
	}
	fclose(f);
	return in;
}

static void *thread_malloc(void *arg)
{
	(void)arg;
	return malloc(1000);
}

/* Whether a memory limit (RLIMIT_AS, RLIMIT_DATA) is set, under which the heap is left as
 * it is. */
static bool memory_limited(void)
{
	struct rlimit as, data;

	return getrlimit(RLIMIT_AS, &as) != 0 || getrlimit(RLIMIT_DATA, &data) != 0 ||
	       as.rlim_cur != RLIM_INFINITY || data.rlim_cur != RLIM_INFINITY;
}

Test(heap, grown_advised_and_shared_by_threads)
{
	char *before = sbrk(0), *after, flags[512];
	void *volatile big;
	pthread_t t;
	void *p;

	if (memory_limited())
		cr_skip_test("a memory limit is set (ulimit -v or -d): the heap is left alone");
	heap_use_huge_pages();
	after = sbrk(0);
	cr_assert_geq(after - before, (ptrdiff_t)60 << 20, "the heap grew by %td bytes, not 64 MiB",
		      after - before);
	/* A thread's block comes from the same heap, not from an arena of its own. */
	cr_assert_eq(pthread_create(&t, NULL, thread_malloc, NULL), 0);
	cr_assert_eq(pthread_join(t, &p), 0);
	cr_assert(p && in_brk_heap(p), "a thread's block %p is outside the brk heap", p);
	free(p);
	/* A block of 20 MiB comes from the heap too (M_MMAP_THRESHOLD). */
	big = malloc((size_t)20 << 20);
	cr_assert(big && in_brk_heap(big), "a 20 MiB block %p is outside the brk heap", big);
	free(big);
	/* A second call leaves the heap alone. */
	heap_use_huge_pages();
	cr_assert_eq((char *)sbrk(0), after);
	if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) != 0)
		cr_skip_test("this kernel has no transparent huge pages: madvise not checked");
	/* The advised range, every 8 MiB from past the growth's first 2 MiB boundary. */
	for (uintptr_t a = ((uintptr_t)before + ((uintptr_t)4 << 20)) & ~(((uintptr_t)2 << 20) - 1);
	     a < (uintptr_t)after - ((uintptr_t)2 << 20); a += (uintptr_t)8 << 20) {
		cr_assert(vm_flags(a, flags, sizeof(flags)), "no mapping holds %#" PRIxPTR, a);
		cr_assert(strstr(flags, " hg"), "%#" PRIxPTR " is not advised for huge pages: %s",
			  a, flags);
	}
}

/* Under a memory limit the 64 MiB of address space would count against it: untouched. */
Test(heap, left_alone_under_a_memory_limit)
{
	struct rlimit rl;
	char *before;

	cr_assert_eq(getrlimit(RLIMIT_DATA, &rl), 0);
	rl.rlim_cur = (rlim_t)8 << 30;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < rl.rlim_cur)
		rl.rlim_cur = rl.rlim_max;
	cr_assert_eq(setrlimit(RLIMIT_DATA, &rl), 0);
	before = sbrk(0);
	heap_use_huge_pages();
	cr_assert_eq((char *)sbrk(0), before, "the heap grew by %td bytes under RLIMIT_DATA",
		     (char *)sbrk(0) - before);
}
