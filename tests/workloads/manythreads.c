/* manythreads.c - N threads (argv[1], default 100) that each fault P fresh pages (argv[2],
 * default 50) on one line, but only after SIGUSR1: a test attaches with -p to threads that
 * all exist already, then lets them work. Exits when every thread is done. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>

static size_t npages = 50;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go_cond = PTHREAD_COND_INITIALIZER;
static int go;

static __attribute__((noinline)) void *worker(void *arg)
{
	volatile char *buf;

	(void)arg;
	pthread_mutex_lock(&lock);
	while (!go)
		pthread_cond_wait(&go_cond, &lock);
	pthread_mutex_unlock(&lock);
	buf = mmap(NULL, npages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return NULL;
	for (size_t i = 0; i < npages; i++)
		buf[i * 4096] = 1; /* HOT: thread_fault */
	return (void *)1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, sig, failed = 0;
	pthread_t *t;
	sigset_t usr1;

	if (argc > 2)
		npages = (size_t)atol(argv[2]);
	if (n < 1 || !(t = calloc((size_t)n, sizeof(*t))))
		return 2;
	/* Blocked before the threads start, so that every thread inherits the mask and the
	 * signal waits for sigwait. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 2;
	sigwait(&usr1, &sig);
	pthread_mutex_lock(&lock);
	go = 1;
	pthread_cond_broadcast(&go_cond);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < n; i++) {
		void *ok;
		pthread_join(t[i], &ok);
		failed += !ok;
	}
	free(t);
	return failed ? 1 : 0;
}
