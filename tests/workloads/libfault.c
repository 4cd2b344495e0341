/* libfault.c - the page-fault loop of pagefault.c, in a shared library (libwlfault.so). */
#include <stddef.h>
#include <sys/mman.h>

__attribute__((noinline)) long libfault_touch(size_t pages)
{
	volatile char *buf =
	    mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long sum = 0;

	if (buf == MAP_FAILED)
		return -1;
	for (size_t i = 0; i < pages; i++)
		buf[i * 4096] = (char)i; /* HOT: libfault */
	for (size_t i = 0; i < pages; i += 512)
		sum += buf[i * 4096];
	munmap((void *)buf, pages * 4096);
	return sum;
}
