/* wl_lld.c - calls the ld.lld-linked library's marked loop on N fresh pages. */
#include <stdlib.h>
#include <sys/mman.h>

void lld_touch(volatile char *buf, size_t pages);

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 4000;
	void *p = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	lld_touch(p, n);
	return 0;
}
