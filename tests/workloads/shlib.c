/* shlib.c - calls the page-fault loop of libwlfault.so (libfault.c), N pages (argv[1]). */
#include <stdlib.h>

long libfault_touch(size_t pages);

int main(int argc, char **argv)
{
	size_t pages = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000;

	return libfault_touch(pages) < 0 ? 1 : 0;
}
