/* jit_work.c - a tiny JIT for tests/report/jitmap.py: copies a store loop into anonymous
 * executable memory, names it in /tmp/perf-PID.map as JIT compilers do, and runs it over N
 * fresh pages, so that each page's first touch is a page fault whose IP is in the JIT code.
 *
 * usage: jit_work PAGES   (x86-64 only; exits 77 elsewhere) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	/* loop: movb $1, (%rdi); add $4096, %rdi; dec %esi; jnz loop; ret
	 * (void fn(char *buf, int pages), System V AMD64: buf in rdi, pages in esi) */
	static const unsigned char code[] = {0xc6, 0x07, 0x01, 0x48, 0x81, 0xc7, 0x00, 0x10,
					     0x00, 0x00, 0xff, 0xce, 0x75, 0xf2, 0xc3};
	int pages = argc > 1 ? atoi(argv[1]) : 1000;
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *jit = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE | PROT_EXEC,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *buf = mmap(NULL, (size_t)pages * 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char path[64];
	FILE *map;

	if (jit == MAP_FAILED || buf == MAP_FAILED || pages < 1)
		return 1;
	/* A second function in the map, never run, so that the lookup must pick by range. */
	memcpy(jit + 64, code, sizeof(code));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	map = fopen(path, "w");
	if (!map)
		return 1;
	fprintf(map, "%lx %zx jit_idle\n", (unsigned long)jit, (size_t)64);
	fprintf(map, "%lx %zx jit_touch_pages\n", (unsigned long)(jit + 64), sizeof(code));
	fclose(map);
	((void (*)(char *, int))(void *)(jit + 64))(buf, pages);
	return 0;
#else
	(void)argc;
	(void)argv;
	return 77;
#endif
}
