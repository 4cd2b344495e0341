/* maps.c - per-process mapping lists, found by pid (idindex.h), each searched newest first. */
#include "maps.h"

#include "fnv.h"
#include "grow.h"
#include "idindex.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct proc {
	uint32_t pid;
	struct map *v; /* in insertion order: newer mappings later */
	size_t n, cap;
	size_t last;	    /* index of the last hit: samples come in runs */
	uint64_t exec_time; /* the latest exec seen, ns (0: none) */
};

struct maps {
	struct proc *procs; /* in insertion order, found through INDEX by pid */
	size_t n, cap;
	uint32_t *index; /* idindex.h slots */
	size_t icap;
	size_t last;	     /* procs[last] was found last: samples come in runs */
	uint64_t generation; /* maps_generation() */
};

static uint64_t entry_hash(const void *ctx, uint32_t id)
{
	return hwprof_hash_word(((const struct maps *)ctx)->procs[id].pid);
}

struct key {
	const struct maps *m;
	uint32_t pid;
};

static bool same_key(const void *ctx, uint32_t id)
{
	const struct key *k = ctx;

	return k->m->procs[id].pid == k->pid;
}

struct maps *maps_new(void)
{
	struct maps *m = calloc(1, sizeof(*m));

	if (!m || hwprof_index_rebuild(&m->index, &m->icap, 64, 0, entry_hash, m) < 0) {
		free(m);
		return NULL;
	}
	return m;
}

void maps_free(struct maps *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->procs[i].v);
	free(m->procs);
	free(m->index);
	free(m);
}

/* The slot of PID's process in M's index: empty when M has none. */
static size_t slot(const struct maps *m, uint32_t pid)
{
	struct key k = {m, pid};

	return hwprof_index_probe(m->index, m->icap, hwprof_hash_word(pid), same_key, &k);
}

static struct proc *lookup(struct maps *m, uint32_t pid)
{
	size_t i;

	if (m->last < m->n && m->procs[m->last].pid == pid)
		return &m->procs[m->last];
	i = slot(m, pid);
	if (!m->index[i])
		return NULL;
	m->last = m->index[i] - 1;
	return &m->procs[m->last];
}

static struct proc *get(struct maps *m, uint32_t pid)
{
	size_t i = slot(m, pid);

	if (m->index[i])
		return &m->procs[m->index[i] - 1];
	if (m->n + 1 >= UINT32_MAX ||
	    hwprof_grow((void **)&m->procs, &m->cap, m->n + 1, sizeof(*m->procs)) < 0)
		return NULL;
	m->procs[m->n] = (struct proc){.pid = pid};
	m->index[i] = (uint32_t)++m->n;
	if (m->n * 2 > m->icap &&
	    hwprof_index_rebuild(&m->index, &m->icap, 2 * m->icap, m->n, entry_hash, m) < 0) {
		m->index[i] = 0; /* the index stays as it was: without the new process */
		m->n--;
		return NULL;
	}
	return &m->procs[m->n - 1];
}

static int push(struct proc *p, const struct map *mp)
{
	if (hwprof_grow((void **)&p->v, &p->cap, p->n + 1, sizeof(*p->v)) < 0)
		return -ENOMEM;
	p->v[p->n++] = *mp;
	return 0;
}

/* Adds MP to P: overlapped mappings end where it begins; one that began later (read earlier:
 * the records are not in time order) ends MP instead, and so does a later exec. */
static int insert(struct proc *p, struct map mp)
{
	if (p->exec_time > mp.begin && p->exec_time < mp.until)
		mp.until = p->exec_time;
	for (size_t i = 0; i < p->n; i++) {
		struct map *o = &p->v[i];
		if (o->start >= mp.end || mp.start >= o->end)
			continue;
		if (o->begin <= mp.begin && o->until > mp.begin)
			o->until = mp.begin;
		else if (o->begin > mp.begin && o->begin < mp.until)
			mp.until = o->begin;
	}
	return push(p, &mp);
}

int maps_mmap(struct maps *m, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
	      uint32_t dso, uint64_t time)
{
	struct proc *p = get(m, pid);

	m->generation++;
	if (!p)
		return -ENOMEM;
	return insert(p, (struct map){start, start + len, pgoff, time, UINT64_MAX, dso});
}

int maps_fork(struct maps *m, uint32_t pid, uint32_t ppid, uint64_t time)
{
	struct proc *p, *pp;
	size_t n;

	if (pid == ppid)
		return 0;
	m->generation++;
	p = get(m, pid);
	if (!p)
		return -ENOMEM;
	/* A reused pid: the old process's mappings end here (not the child's own, later ones,
	 * when they were read first). */
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].begin < time && p->v[i].until > time)
			p->v[i].until = time;
	pp = lookup(m, ppid); /* after get(): the table may have moved */
	if (!pp)
		return 0;
	n = pp->n;
	for (size_t i = 0; i < n; i++) {
		struct map mp = pp->v[i];
		if (time && (mp.until <= time || mp.begin > time))
			continue;
		mp.begin = time;
		mp.until = UINT64_MAX;
		if (insert(p, mp) < 0)
			return -ENOMEM;
	}
	return 0;
}

void maps_exec(struct maps *m, uint32_t pid, uint64_t time)
{
	struct proc *p = get(m, pid);

	m->generation++;
	if (!p)
		return;
	if (time > p->exec_time)
		p->exec_time = time;
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].begin < time && p->v[i].until > time)
			p->v[i].until = time;
}

static bool holds(const struct map *mp, uint64_t ip, uint64_t time)
{
	return ip >= mp->start && ip < mp->end && time >= mp->begin && time < mp->until;
}

const struct map *maps_find(struct maps *m, uint32_t pid, uint64_t ip, uint64_t time)
{
	struct proc *p = lookup(m, pid);
	const struct map *any = NULL;

	if (!p || !p->n)
		return NULL;
	if (p->last < p->n && holds(&p->v[p->last], ip, time))
		return &p->v[p->last];
	for (size_t i = p->n; i-- > 0;) {
		const struct map *mp = &p->v[i];
		if (ip < mp->start || ip >= mp->end)
			continue;
		if (time >= mp->begin && time < mp->until) {
			p->last = i;
			return mp;
		}
		if (!any)
			any = mp;
	}
	return any;
}

/* Every mapping of P holding IP, newest first, is tried as maps_find() does; those not valid
 * at TIME bound the span from the side TIME is not on, and the answer's own validity bounds
 * it too. */
const struct map *maps_find_span(struct maps *m, uint32_t pid, uint64_t ip, uint64_t time,
				 uint64_t *lo, uint64_t *hi)
{
	struct proc *p = lookup(m, pid);
	const struct map *any = NULL;

	if (!p)
		return NULL;
	for (size_t i = p->n; i-- > 0;) {
		const struct map *mp = &p->v[i];
		if (ip < mp->start || ip >= mp->end)
			continue;
		if (time >= mp->begin && time < mp->until) {
			*lo = mp->begin > *lo ? mp->begin : *lo;
			*hi = mp->until < *hi ? mp->until : *hi;
			return mp;
		}
		if (mp->until <= time)
			*lo = mp->until > *lo ? mp->until : *lo;
		else
			*hi = mp->begin < *hi ? mp->begin : *hi;
		if (!any)
			any = mp;
	}
	return any;
}

uint64_t maps_generation(const struct maps *m)
{
	return m->generation;
}
