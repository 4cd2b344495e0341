/* kallsyms.c - parse "ADDR TYPE NAME [MODULE]" lines, keep text symbols, sort. */
#include "kallsyms.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int kallsyms_load(struct kallsyms *k, const char *path)
{
	FILE *f = fopen(path, "re");
	char line[512], type, name[256], mod[128];
	size_t cap = 0;
	uint64_t addr;
	int ret = 0;

	memset(k, 0, sizeof(*k));
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		int n = sscanf(line, "%" SCNx64 " %c %255s %127s", &addr, &type, name, mod);
		if (n < 3 || !addr || (type != 't' && type != 'T'))
			continue;
		if (k->n == cap) {
			size_t c = cap ? cap * 2 : 4096;
			struct ksym *v = realloc(k->v, c * sizeof(*v));
			if (!v) {
				ret = -ENOMEM;
				break;
			}
			k->v = v;
			cap = c;
		}
		if (n == 4) {
			size_t len = strlen(name) + strlen(mod) + 2;
			k->v[k->n].name = malloc(len);
			if (k->v[k->n].name)
				snprintf(k->v[k->n].name, len, "%s %s", name, mod);
		} else {
			k->v[k->n].name = strdup(name);
		}
		if (!k->v[k->n].name) {
			ret = -ENOMEM;
			break;
		}
		k->v[k->n++].addr = addr;
	}
	fclose(f);
	if (ret < 0) {
		kallsyms_release(k);
		return ret;
	}
	qsort(k->v, k->n, sizeof(*k->v), by_addr);
	return 0;
}

const char *kallsyms_find(const struct kallsyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;

	if (!k->n || addr < k->v[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return k->v[lo].name;
}

void kallsyms_release(struct kallsyms *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].name);
	free(k->v);
	memset(k, 0, sizeof(*k));
}
