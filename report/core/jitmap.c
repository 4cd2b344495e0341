/* jitmap.c - perf's JIT map files (see jitmap.h). */
#include "jitmap.h"
#include "grow.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct jit_sym {
	uint64_t start, size;
	size_t line; /* its line in the file: of two with one start, the later wins */
	char *name;
};

struct jitmap {
	struct jit_sym *v;
	size_t n;
};

static int by_start(const void *a, const void *b)
{
	const struct jit_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Parses "START SIZE NAME\n" into *S (NAME malloc'd). Returns 1, 0 for a line that does not
 * parse, or -ENOMEM. */
static int parse_line(char *line, struct jit_sym *s)
{
	char *end, *name;
	size_t len;

	errno = 0;
	s->start = strtoull(line, &end, 16);
	if (end == line || *end != ' ' || errno)
		return 0;
	line = end + 1;
	s->size = strtoull(line, &end, 16);
	if (end == line || *end != ' ' || errno || !s->size)
		return 0;
	name = end + 1;
	len = strcspn(name, "\n");
	if (!len || name[len] != '\n') /* no name, or the last line half written */
		return 0;
	s->name = strndup(name, len);
	return s->name ? 1 : -ENOMEM;
}

int jitmap_read(const char *path, struct jitmap **out)
{
	struct jitmap *m = calloc(1, sizeof(*m));
	size_t cap = 0, len = 0, k = 0;
	char *line = NULL;
	FILE *f;
	int r = 0;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	f = fopen(path, "re");
	if (!f) {
		r = -errno;
		free(m);
		return r;
	}
	while (getline(&line, &len, f) > 0) {
		struct jit_sym s;

		r = parse_line(line, &s);
		if (r < 0)
			break;
		if (!r)
			continue;
		r = 0;
		s.line = m->n;
		if (hwprof_grow((void **)&m->v, &cap, m->n + 1, sizeof(*m->v)) < 0) {
			free(s.name);
			r = -ENOMEM;
			break;
		}
		m->v[m->n++] = s;
	}
	free(line);
	fclose(f);
	if (r < 0) {
		jitmap_free(m);
		return r;
	}
	/* Sorted by start; of two equal starts the later line is kept. */
	if (m->n) {
		qsort(m->v, m->n, sizeof(*m->v), by_start);
		for (size_t i = 0; i < m->n; i++) {
			if (k && m->v[k - 1].start == m->v[i].start) {
				/* the later line replaces the earlier */
				free(m->v[k - 1].name);
				m->v[k - 1] = m->v[i];
				continue;
			}
			m->v[k++] = m->v[i];
		}
		m->n = k;
	}
	*out = m;
	return 0;
}

const char *jitmap_find(const struct jitmap *m, uint64_t addr)
{
	size_t lo = 0, hi = m ? m->n : 0;

	/* The last function starting at or below ADDR; JIT code does not nest. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - m->v[lo - 1].start >= m->v[lo - 1].size)
		return NULL;
	return m->v[lo - 1].name;
}

size_t jitmap_size(const struct jitmap *m)
{
	return m ? m->n : 0;
}

void jitmap_free(struct jitmap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].name);
	free(m->v);
	free(m);
}

bool jitmap_locate(const char *input, uint32_t pid, char *buf, size_t len)
{
	if (input && snprintf(buf, len, "%s.perf-%" PRIu32 ".map", input, pid) < (int)len &&
	    access(buf, R_OK) == 0)
		return true;
	return snprintf(buf, len, "/tmp/perf-%" PRIu32 ".map", pid) < (int)len &&
	       access(buf, R_OK) == 0;
}

bool jitmap_anon(const char *path)
{
	return !path || !*path || !strncmp(path, "//anon", 6) || !strncmp(path, "[anon", 5) ||
	       !strncmp(path, "/memfd:", 7);
}
