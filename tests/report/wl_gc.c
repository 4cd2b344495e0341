/* wl_gc.c - linked with --gc-sections: big_unused() is dropped by the linker, which resolves
 * its debug info (aranges, line table) to address 0. That 64 KiB range starting at 0 covers
 * the real code at low addresses, among it nodbg_work() of wl_gc_nodbg.c (no debug info).
 * argv[1] pages faulted there, argv[2] here (defaults 300 and 100). */
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>

void nodbg_work(size_t n);

#define S4(x)	 x x x x
#define S4096(x) S4(S4(S4(S4(S4(S4(x))))))

void big_unused(volatile int *p)
{
	S4096(*p += 3;)
	S4096(*p ^= 5;)
}

__attribute__((noinline)) static void hot(size_t n)
{
	volatile char *p =
	    mmap(NULL, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	for (size_t i = 0; i < n; i++)
		p[i * 4096] = 1; /* HOT: gc_hot */
}

int main(int argc, char **argv)
{
	nodbg_work(argc > 1 ? (size_t)atol(argv[1]) : 300);
	hot(argc > 2 ? (size_t)atol(argv[2]) : 100);
	return 0;
}
