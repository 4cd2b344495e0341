/* strpool.c - interned strings: an open-addressing hash set of malloc'd copies. */
#include "strpool.h"

#include "fnv.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct strpool {
	pthread_mutex_t lock; /* symbolization threads intern into one pool */
	char **slots;
	size_t cap; /* power of two */
	size_t n;
};

static uint64_t hash_str(const char *s)
{
	return hwprof_fnv1a_str(HWPROF_FNV_BASIS, s);
}

struct strpool *strpool_new(void)
{
	struct strpool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->cap = 256;
	pthread_mutex_init(&p->lock, NULL);
	p->slots = calloc(p->cap, sizeof(*p->slots));
	if (!p->slots) {
		free(p);
		return NULL;
	}
	return p;
}

static int grow(struct strpool *p)
{
	size_t cap = p->cap * 2;
	char **slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < p->cap; i++) {
		if (!p->slots[i])
			continue;
		size_t j = hash_str(p->slots[i]) & (cap - 1);
		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = p->slots[i];
	}
	free(p->slots);
	p->slots = slots;
	p->cap = cap;
	return 0;
}

static const char *intern_locked(struct strpool *p, const char *s)
{
	size_t i;

	if ((p->n + 1) * 2 > p->cap && grow(p) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	i = hash_str(s) & (p->cap - 1);
	while (p->slots[i]) {
		if (!strcmp(p->slots[i], s))
			return p->slots[i];
		i = (i + 1) & (p->cap - 1);
	}
	p->slots[i] = strdup(s);
	if (!p->slots[i]) {
		errno = ENOMEM;
		return NULL;
	}
	p->n++;
	return p->slots[i];
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
	for (size_t i = 0; i < p->cap; i++)
		free(p->slots[i]);
	free(p->slots);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
