/* wl_asm.c - calls wl_asm.S's asm_touch on N fresh pages and asm_poke on 2N: recorded with
 * `-e page-faults -c 1`, each label's code takes its pages' samples under its own name. */
#include "wl_pages.h"

void asm_touch(volatile char *p, size_t n);
void asm_poke(volatile char *p, size_t n);

int main(int argc, char **argv)
{
	size_t n = wl_count(argc, argv);
	char *p = wl_pages(3 * n);

	asm_touch(p, n);
	asm_poke(p + n * 4096, 2 * n);
	return 0;
}
