/* wl_rust.c - functions under Rust symbol names (what rustc writes; no rustc needed): fill()
 * as v0 `c::fill`, touch() as the v0 trait method `<c::Toucher as c::Touch>::touch` and poke()
 * as the legacy trait method `<c::Poker as c::Poke>::poke`. They touch N, 2N and 3N fresh
 * pages: recorded with `-e page-faults -c 1`, each name takes its pages' samples. */
#include "wl_pages.h"

void fill(volatile char *p, size_t n) __asm__("_RNvCse0t5XC0jcx_1c4fill");
void touch(volatile char *p,
	   size_t n) __asm__("_RNvXCse0t5XC0jcx_1cNtB2_7ToucherNtB2_5Touch5touch");
void poke(volatile char *p,
	  size_t n) __asm__("_ZN36_$LT$c..Poker$u20$as$u20$c..Poke$GT$4poke17h0123456789abcdefE");

__attribute__((noipa)) void fill(volatile char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i * 4096] = 1; /* HOT: fill */
}

__attribute__((noipa)) void touch(volatile char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i * 4096] = 2; /* HOT: touch */
}

__attribute__((noipa)) void poke(volatile char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i * 4096] = 3; /* HOT: poke */
}

int main(int argc, char **argv)
{
	size_t n = wl_count(argc, argv);
	char *p = wl_pages(6 * n);

	fill(p, n);
	touch(p + n * 4096, 2 * n);
	poke(p + 3 * n * 4096, 3 * n);
	return 0;
}
