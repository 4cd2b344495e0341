/* heap.h - the report's heap set up for symbolization's many small allocations. */
#ifndef HWPROF_REPORT_HEAP_H
#define HWPROF_REPORT_HEAP_H

/* Once per process, before the first symbolization job: makes glibc malloc serve every
 * thread from its one brk heap (M_ARENA_MAX 1) and blocks up to 32 MiB from that heap too
 * (M_MMAP_THRESHOLD), grows the heap by 64 MiB of address space and advises it for
 * transparent huge pages (madvise(2) MADV_HUGEPAGE). Takes no memory that is not used:
 * pages are still given on first touch. Later calls do nothing. Never fails: without
 * transparent huge pages, or with another allocator, the heap works as before. */
void heap_use_huge_pages(void);

#endif
