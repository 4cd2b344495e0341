/* threads.c - two threads faulting fresh pages, one line each, in the ratio 1:3
 * (N and 3N pages, N = argv[1], default 5000; argv[2], default 0: loop iterations of work
 * per page, to slow the faults down where each sample is large). */
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

static size_t npages = 5000;
static unsigned long spin;
static volatile unsigned long spun;

static void work(void)
{
	for (unsigned long k = 0; k < spin; k++)
		spun++;
}

static char *region(size_t pages)
{
	char *p =
	    mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static __attribute__((noinline)) void *thread_one(void *arg)
{
	volatile char *buf = region(npages);

	(void)arg;
	if (!buf)
		return NULL;
	for (size_t i = 0; i < npages; i++) {
		buf[i * 4096] = 1; /* HOT: one_share */
		work();
	}
	return (void *)1;
}

static __attribute__((noinline)) void *thread_three(void *arg)
{
	volatile char *buf = region(3 * npages);

	(void)arg;
	if (!buf)
		return NULL;
	for (size_t i = 0; i < 3 * npages; i++) {
		buf[i * 4096] = 3; /* HOT: three_shares */
		work();
	}
	return (void *)1;
}

int main(int argc, char **argv)
{
	pthread_t a, b;
	void *ra = NULL, *rb = NULL;

	if (argc > 1)
		npages = strtoul(argv[1], NULL, 0);
	if (argc > 2)
		spin = strtoul(argv[2], NULL, 0);
	if (pthread_create(&a, NULL, thread_one, NULL) ||
	    pthread_create(&b, NULL, thread_three, NULL))
		return 1;
	pthread_join(a, &ra);
	pthread_join(b, &rb);
	return ra && rb ? 0 : 1;
}
