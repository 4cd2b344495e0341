/* wl_dwarf.c - N fresh pages on one marked line; built by gcc and clang at -gdwarf-4 and
 * -gdwarf-5, and stripped with its debug info split off (debuglink, build-id directory). */
#include <stdlib.h>
#include <sys/mman.h>

static __attribute__((noinline)) void touch(volatile char *buf, size_t pages)
{
	for (size_t i = 0; i < pages; i++)
		buf[i * 4096] = (char)i; /* HOT: dwarf */
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 4000;
	void *p = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	touch(p, n);
	return 0;
}
