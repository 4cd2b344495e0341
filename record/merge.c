/* merge.c - a time-ordered queue of records with their own copies of strings. */
#include "merge.h"
#include "grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct merge_entry {
	struct hwprof_record rec;
	uint64_t time, seq;
	char *str;  /* owned copy of the MMAP filename or COMM name */
	void *blob; /* owned, see merge_add_blob() */
	size_t blob_len;
};

uint64_t merge_record_time(const struct hwprof_record *rec)
{
	switch (rec->type) {
	case HWPROF_REC_MMAP:
		return rec->mmap.time;
	case HWPROF_REC_COMM:
		return rec->comm.time;
	case HWPROF_REC_FORK:
	case HWPROF_REC_EXIT:
		return rec->task.time;
	case HWPROF_REC_SAMPLE:
		return rec->sample.time;
	default:
		return rec->lost.time;
	}
}

int merge_add(struct merge *m, const struct hwprof_record *rec)
{
	return merge_add_blob(m, rec, NULL, 0);
}

int merge_add_blob(struct merge *m, const struct hwprof_record *rec, void *blob, size_t len)
{
	struct merge_entry *e;
	const char *s = NULL;

	if (hwprof_grow((void **)&m->e, &m->cap, m->n + 1, sizeof(*m->e)) < 0) {
		free(blob);
		return -ENOMEM;
	}
	e = &m->e[m->n];
	e->rec = *rec;
	e->time = merge_record_time(rec);
	e->seq = m->seq++;
	e->str = NULL;
	e->blob = blob;
	e->blob_len = blob ? len : 0;
	if (rec->type == HWPROF_REC_MMAP)
		s = rec->mmap.filename;
	else if (rec->type == HWPROF_REC_COMM)
		s = rec->comm.comm;
	if (s) {
		e->str = strdup(s);
		if (!e->str) {
			free(blob);
			return -ENOMEM;
		}
		if (rec->type == HWPROF_REC_MMAP)
			e->rec.mmap.filename = e->str;
		else
			e->rec.comm.comm = e->str;
	}
	m->n++;
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct merge_entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int merge_flush(struct merge *m, uint64_t upto, merge_emit_fn emit, void *arg)
{
	size_t i;
	int r = 0;

	if (!m->n)
		return 0;
	qsort(m->e, m->n, sizeof(*m->e), by_time);
	for (i = 0; i < m->n && m->e[i].time <= upto; i++) {
		r = emit(&m->e[i].rec, &m->e[i].blob, m->e[i].blob_len, arg);
		if (r)
			break;
		free(m->e[i].str);
		free(m->e[i].blob);
	}
	memmove(m->e, m->e + i, (m->n - i) * sizeof(*m->e));
	m->n -= i;
	return r;
}

void merge_free(struct merge *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->e[i].str);
		free(m->e[i].blob);
	}
	free(m->e);
	memset(m, 0, sizeof(*m));
}
