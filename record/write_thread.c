/* write_thread.c - a queue of records and the thread that consumes it (see write_thread.h).
 *
 * The queue is a struct merge (it copies strings and owns blobs already). The thread takes
 * the whole queue at once and works on it without the lock, so the draining thread waits
 * only for the few instructions of a push. The records come in time order from record's own
 * merge; the merge_flush() here keeps that order (equal times stay in arrival order).
 */
#include "write_thread.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct write_thread {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t more, room; /* records were queued; bytes went below max */
	struct merge queue;
	size_t bytes, max_bytes;
	bool stop;
	int err;
	write_thread_fn fn;
	write_thread_idle_fn idle;
	void *arg;
};

static time_t now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static void *consume(void *arg)
{
	struct write_thread *t = arg;
	struct merge batch;
	struct timespec until;
	time_t last_idle = now_s();
	int ret;

	pthread_mutex_lock(&t->lock);
	for (;;) {
		while (!t->queue.n && !t->stop) {
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec++;
			pthread_cond_timedwait(&t->more, &t->lock, &until);
			if (!t->queue.n && t->idle && now_s() != last_idle) {
				pthread_mutex_unlock(&t->lock);
				t->idle(t->arg);
				last_idle = now_s();
				pthread_mutex_lock(&t->lock);
			}
		}
		if (!t->queue.n)
			break; /* stopped, and nothing left */
		batch = t->queue;
		memset(&t->queue, 0, sizeof(t->queue));
		t->queue.seq = batch.seq;
		t->bytes = 0;
		pthread_cond_broadcast(&t->room);
		pthread_mutex_unlock(&t->lock);
		ret = t->err ? 0 : merge_flush(&batch, UINT64_MAX, t->fn, t->arg);
		merge_free(&batch); /* after an error: the records left are dropped */
		if (t->idle && now_s() != last_idle) {
			t->idle(t->arg);
			last_idle = now_s();
		}
		pthread_mutex_lock(&t->lock);
		if (ret < 0 && !t->err)
			t->err = ret;
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

int write_thread_start(struct write_thread **out, write_thread_fn fn, write_thread_idle_fn idle,
		       void *arg, size_t max_bytes)
{
	struct write_thread *t = calloc(1, sizeof(*t));
	int ret;

	if (!t)
		return -ENOMEM;
	t->fn = fn;
	t->idle = idle;
	t->arg = arg;
	t->max_bytes = max_bytes;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->more, NULL);
	pthread_cond_init(&t->room, NULL);
	ret = pthread_create(&t->thread, NULL, consume, t);
	if (ret) {
		pthread_cond_destroy(&t->room);
		pthread_cond_destroy(&t->more);
		pthread_mutex_destroy(&t->lock);
		free(t);
		return -ret;
	}
	*out = t;
	return 0;
}

int write_thread_push(struct write_thread *t, const struct hwprof_record *rec, void *blob,
		      size_t len)
{
	size_t bytes = sizeof(*rec) + len + 64;
	int ret;

	pthread_mutex_lock(&t->lock);
	while (!t->err && t->bytes > t->max_bytes)
		pthread_cond_wait(&t->room, &t->lock);
	ret = t->err;
	if (ret) {
		free(blob);
	} else {
		ret = merge_add_blob(&t->queue, rec, blob, len);
		t->bytes += bytes;
		pthread_cond_signal(&t->more);
	}
	pthread_mutex_unlock(&t->lock);
	return ret;
}

int write_thread_stop(struct write_thread *t)
{
	int ret;

	if (!t)
		return 0;
	pthread_mutex_lock(&t->lock);
	t->stop = true;
	pthread_cond_signal(&t->more);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	ret = t->err;
	merge_free(&t->queue);
	pthread_cond_destroy(&t->room);
	pthread_cond_destroy(&t->more);
	pthread_mutex_destroy(&t->lock);
	free(t);
	return ret;
}
