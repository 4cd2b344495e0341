/* wl_escape.c - a function whose DWARF file name holds terminal control sequences (a title
 * change, a screen clear, a colour) and a newline, as a binary built by someone else may:
 * the text views must show them tamed. Faults argv[1] fresh pages (default 200). */
#include <stdlib.h>
#include <sys/mman.h>

#line 10 "evil\x1b]0;PWNED\x07\x1b[2J\x1b[31m\nred.c"
__attribute__((noinline)) static void touch(size_t pages)
{
	volatile char *p =
	    mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	for (size_t i = 0; i < pages; i++)
		p[i * 4096] = 1;
}

int main(int argc, char **argv)
{
	touch(argc > 1 ? (size_t)atol(argv[1]) : 200);
	return 0;
}
