/* strpool.c - interned strings: malloc'd copies found through an open-addressing index. */
#include "strpool.h"

#include "fnv.h"
#include "grow.h"
#include "idindex.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct strpool {
	pthread_mutex_t lock; /* symbolization threads intern into one pool */
	char **v;	      /* the strings, in the order they came */
	size_t n, cap;
	uint32_t *index; /* idindex.h: 1 + position in v, 0 empty */
	size_t icap;	 /* power of two */
};

static uint64_t hash_str(const char *s)
{
	return hwprof_hash_fold(hwprof_fnv1a_str(HWPROF_FNV_BASIS, s));
}

struct key {
	const struct strpool *p;
	const char *s;
};

static bool same_str(const void *ctx, uint32_t id)
{
	const struct key *k = ctx;

	return !strcmp(k->p->v[id], k->s);
}

static uint64_t entry_hash(const void *ctx, uint32_t id)
{
	return hash_str(((const struct strpool *)ctx)->v[id]);
}

struct strpool *strpool_new(void)
{
	struct strpool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (hwprof_index_rebuild(&p->index, &p->icap, 256, 0, entry_hash, p) < 0) {
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	return p;
}

static const char *intern_locked(struct strpool *p, const char *s)
{
	struct key k = {p, s};
	size_t i;
	char *copy;

	if ((p->n + 1) * 2 > p->icap &&
	    hwprof_index_rebuild(&p->index, &p->icap, 2 * p->icap, p->n, entry_hash, p) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	i = hwprof_index_probe(p->index, p->icap, hash_str(s), same_str, &k);
	if (p->index[i])
		return p->v[p->index[i] - 1];
	if (p->n + 1 >= UINT32_MAX ||
	    hwprof_grow((void **)&p->v, &p->cap, p->n + 1, sizeof(*p->v)) < 0 ||
	    !(copy = strdup(s))) {
		errno = ENOMEM;
		return NULL;
	}
	p->v[p->n] = copy;
	p->index[i] = (uint32_t)(++p->n);
	return copy;
}

const char *strpool_intern(struct strpool *p, const char *s)
{
	const char *r;

	if (!s)
		return NULL;
	pthread_mutex_lock(&p->lock);
	r = intern_locked(p, s);
	pthread_mutex_unlock(&p->lock);
	return r;
}

void strpool_free(struct strpool *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	free(p->index);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
