/* wl_gc_nodbg.c - built without debug info: faults N fresh pages. Its code must show by
 * symbol only, never with a line of wl_gc.c's discarded function (see wl_gc.c). */
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>

void nodbg_work(size_t n)
{
	volatile char *p =
	    mmap(NULL, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	for (size_t i = 0; i < n; i++)
		p[i * 4096] = 1;
}
