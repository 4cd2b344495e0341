/* wl_data_lib.c - libwldata.so, for wl_data's mode "lib": a global of its own, lib_g, whose
 * low half the library's code touches (lib_touch_lo) and whose high half the program touches
 * through the pointer lib_hi() returns (a pointer: an extern variable of the program would be
 * copied into the program's .bss by a copy relocation). */
#define PAGE 4096

/* Page-aligned: each of its pages faults once, on its first store. */
static struct {
	char lo[4 * PAGE];
	char hi[4 * PAGE];
} lib_g __attribute__((aligned(PAGE)));

void lib_touch_lo(void)
{
	for (int i = 0; i < 4; i++)
		((volatile char *)lib_g.lo)[i * PAGE] = 1; /* HOT: lib_lo */
}

char *lib_hi(void)
{
	return lib_g.hi;
}
