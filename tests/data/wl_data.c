/* wl_data.c - touches data of one kind per mode (argv[1]), each store on a marked line, for
 * `record -e page-faults -c 1` (every first touch of a page is a sample at its exact address);
 * the names are those of the lines' markers:
 *   struct    g.b only: 4 of g's 6 pages                     struct_b
 *   array     the key field of table[0..7]: one page each    array_key
 *   heap      a 64 KiB malloc'd buffer ([heap])              heap
 *   bigheap   a 16 MiB malloc'd buffer ([anon])              bigheap
 *   stack     a 1 MiB buffer on the stack ([stack])          stack
 *   file      pages 4..11 of a mapped 16-page file (argv[2]) file
 *   shared    two threads, the even and odd pages of one buffer  shared_a, shared_b
 *   separate  two threads, each its own buffer (even, odd pages)  separate_a, separate_b
 *   lib       g.b (struct_b), then libwldata.so's lib_g: its low 4 pages by the library's
 *             code (lib_lo, wl_data_lib.c), its high 4 pages by this program's   lib_hi
 *   neighbours two variables of a page each, next to each other: one store each
 *             nb_x, nb_y
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096

struct {
	char a[PAGE];
	char b[4 * PAGE];
	char c[PAGE];
} g;

struct entry {
	char pad[PAGE - 64];
	long key;
	char tail[56];
};

struct {
	long count;
	struct entry entries[8];
} table;

/* Page-aligned, so that lines of 8 KiB hold an even and an odd page. */
static char shared[64 * PAGE] __attribute__((aligned(2 * PAGE)));
static char sep_a[64 * PAGE] __attribute__((aligned(2 * PAGE)));
static char sep_b[64 * PAGE] __attribute__((aligned(2 * PAGE)));

void lib_touch_lo(void);
char *lib_hi(void);

static void touch_struct(void)
{
	for (size_t i = 0; i < sizeof(g.b); i += PAGE)
		g.b[i] = 1; /* HOT: struct_b */
}

static void touch_array(void)
{
	for (int i = 0; i < 8; i++)
		table.entries[i].key = i; /* HOT: array_key */
}

static void touch_lib(void)
{
	volatile char *hi = lib_hi();

	touch_struct();
	lib_touch_lo();
	for (int i = 0; i < 4; i++)
		hi[i * PAGE] = 1; /* HOT: lib_hi */
}

static int touch_heap(size_t bytes)
{
	volatile char *p = malloc(bytes);

	if (!p)
		return 1;
	if (bytes > (1 << 20)) {
		for (size_t i = 0; i < bytes; i += PAGE)
			p[i] = 1; /* HOT: bigheap */
	} else {
		for (size_t i = 0; i < bytes; i += PAGE)
			p[i] = 1; /* HOT: heap */
	}
	free((void *)p);
	return 0;
}

static __attribute__((noinline)) int touch_stack(void)
{
	volatile char buf[1 << 20];

	for (size_t i = sizeof(buf); i >= PAGE; i -= PAGE)
		buf[i - PAGE] = 1; /* HOT: stack */
	return buf[0];
}

static int touch_file(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	volatile char *p;

	if (fd < 0 || ftruncate(fd, 16 * PAGE) < 0)
		return 1;
	p = mmap(NULL, 16 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return 1;
	for (int i = 4; i < 12; i++)
		p[i * PAGE + 100] = 1; /* HOT: file */
	munmap((void *)p, 16 * PAGE);
	close(fd);
	return 0;
}

/* Two variables, a page each: the linker puts them side by side, in one line of a few pages. */
static char nb_x[PAGE] __attribute__((aligned(PAGE)));
static char nb_y[PAGE] __attribute__((aligned(PAGE)));

static void touch_neighbours(void)
{
	volatile char *x = nb_x, *y = nb_y;

	x[8] = 1; /* HOT: nb_x */
	y[8] = 1; /* HOT: nb_y */
}

/* Thread A writes the even pages of its buffer, thread B the odd ones: one buffer for both
 * (shared: every 8 KiB holds a page of each), or one each (separate). */
static void *writer_a(void *arg)
{
	volatile char *buf = arg;

	if (buf == shared)
		for (size_t i = 0; i < sizeof(shared); i += 2 * PAGE)
			buf[i] = 1; /* HOT: shared_a */
	else
		for (size_t i = 0; i < sizeof(sep_a); i += 2 * PAGE)
			buf[i] = 1; /* HOT: separate_a */
	return NULL;
}

static void *writer_b(void *arg)
{
	volatile char *buf = arg;

	if (buf == shared)
		for (size_t i = PAGE; i < sizeof(shared); i += 2 * PAGE)
			buf[i + 64] = 2; /* HOT: shared_b */
	else
		for (size_t i = PAGE; i < sizeof(sep_b); i += 2 * PAGE)
			buf[i + 64] = 2; /* HOT: separate_b */
	return NULL;
}

static int two_threads(bool same)
{
	pthread_t a, b;

	if (pthread_create(&a, NULL, writer_a, same ? shared : sep_a) ||
	    pthread_create(&b, NULL, writer_b, same ? shared : sep_b))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "struct";

	if (!strcmp(mode, "struct"))
		touch_struct();
	else if (!strcmp(mode, "array"))
		touch_array();
	else if (!strcmp(mode, "heap"))
		return touch_heap(64 << 10);
	else if (!strcmp(mode, "bigheap"))
		return touch_heap(16 << 20);
	else if (!strcmp(mode, "stack"))
		return touch_stack() != 1;
	else if (!strcmp(mode, "file"))
		return argc > 2 ? touch_file(argv[2]) : 2;
	else if (!strcmp(mode, "shared"))
		return two_threads(true);
	else if (!strcmp(mode, "separate"))
		return two_threads(false);
	else if (!strcmp(mode, "lib"))
		touch_lib();
	else if (!strcmp(mode, "neighbours"))
		touch_neighbours();
	else
		return 2;
	return 0;
}
