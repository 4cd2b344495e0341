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

Test(heap, grown_advised_and_shared_by_threads)
{
	char *before = sbrk(0), *after, flags[512];
	pthread_t t;
	void *p;

	heap_use_huge_pages();
	after = sbrk(0);
	cr_assert_geq(after - before, (ptrdiff_t)60 << 20, "the heap grew by %td bytes, not 64 MiB",
		      after - before);
	/* A thread's block comes from the same heap, not from an arena of its own. */
	cr_assert_eq(pthread_create(&t, NULL, thread_malloc, NULL), 0);
	cr_assert_eq(pthread_join(t, &p), 0);
	cr_assert(p && in_brk_heap(p), "a thread's block %p is outside the brk heap", p);
	free(p);
	/* A second call leaves the heap alone. */
	heap_use_huge_pages();
	cr_assert_eq((char *)sbrk(0), after);
	if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) != 0)
		cr_skip_test("this kernel has no transparent huge pages: madvise not checked");
	cr_assert(vm_flags((uintptr_t)after - ((uintptr_t)4 << 20), flags, sizeof(flags)),
		  "no mapping holds the heap's top");
	cr_assert(strstr(flags, " hg"), "the heap is not advised for huge pages: VmFlags%s", flags);
}
