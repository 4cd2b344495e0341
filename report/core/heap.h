/* heap.h - the report's heap set up for symbolization's many small allocations. */
#ifndef HWPROF_REPORT_HEAP_H
#define HWPROF_REPORT_HEAP_H

/* Once per process, from one thread, before the first symbolization job: makes glibc
 * malloc serve every thread from its one brk heap (M_ARENA_MAX 1) and blocks up to 32 MiB
 * from that heap too (M_MMAP_THRESHOLD), grows the heap by 64 MiB of address space, kept
 * (M_TRIM_THRESHOLD 128 MiB), and advises it for transparent huge pages (madvise(2)
 * MADV_HUGEPAGE): memory is still given on first touch, 2 MiB at a time there. Does nothing
 * under a set RLIMIT_AS or RLIMIT_DATA (getrlimit(2)), and on later calls. Never fails:
 * without transparent huge pages, or with another allocator, the heap works as before. */
void heap_use_huge_pages(void);

#endif
