/* wl_lld_lib.c - a shared library linked with ld.lld, whose segments have p_vaddr != p_offset:
 * an address computed as "ip - map start + pgoff" lands on the wrong line there. */
#include <stddef.h>

void lld_touch(volatile char *buf, size_t pages)
{
	for (size_t i = 0; i < pages; i++)
		buf[i * 4096] = (char)i; /* HOT: lld */
}
