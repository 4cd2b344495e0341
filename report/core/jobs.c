/* jobs.c - a shared counter hands out job numbers to a few pthreads. */
#include "jobs.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#define JOBS_MAX_THREADS 8

struct jobs {
	size_t n;
	atomic_size_t next;
	void (*fn)(void *ctx, size_t job);
	void *ctx;
};

static void *work(void *arg)
{
	struct jobs *j = arg;

	for (;;) {
		size_t k = atomic_fetch_add(&j->next, 1);
		if (k >= j->n)
			return NULL;
		j->fn(j->ctx, k);
	}
}

void jobs_run(size_t njobs, void (*fn)(void *ctx, size_t job), void *ctx)
{
	struct jobs j = {.n = njobs, .fn = fn, .ctx = ctx};
	pthread_t tid[JOBS_MAX_THREADS - 1];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t want = cpus > 0 ? (size_t)cpus : 1, started = 0;

	atomic_init(&j.next, 0);
	if (want > JOBS_MAX_THREADS)
		want = JOBS_MAX_THREADS;
	if (want > njobs)
		want = njobs;
	while (started + 1 < want && pthread_create(&tid[started], NULL, work, &j) == 0)
		started++;
	work(&j);
	for (size_t i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
}
