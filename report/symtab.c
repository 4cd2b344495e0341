/* symtab.c - sorted function symbols of one module. */
#include "symtab.h"

#include "demangle.h"
#include "strpool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int by_addr(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Among aliases the preferred one sorts last: the lookup takes the last at or below. */
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->raw, y->raw) < 0 ? 1 : -1;
}

int symtab_build(struct symtab *t, Dwfl_Module *mod)
{
	int n = dwfl_module_getsymtab(mod);

	memset(t, 0, sizeof(*t));
	if (n <= 0)
		return 0;
	t->v = calloc((size_t)n, sizeof(*t->v));
	if (!t->v)
		return -ENOMEM;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
		if (!name || !name[0] || (type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		t->v[t->n++] = (struct fsym){addr, sym.st_size, name, NULL,
					     bind == STB_GLOBAL ? 2
					     : bind == STB_WEAK ? 1
								: 0};
	}
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), by_addr);
	return 0;
}

const char *symtab_find(struct symtab *t, GElf_Addr addr, struct strpool *pool)
{
	size_t lo = 0, hi = t->n;
	struct fsym *s;
	char *dem;

	while (lo < hi) { /* first symbol above ADDR */
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &t->v[lo - 1];
	/* A sized symbol that ends before ADDR: look for an enclosing one among the few before
	 * it (nested or overlapping symbols are rare). */
	if (s->size && addr - s->addr >= s->size) {
		for (size_t i = lo - 1, k = 0; i-- > 0 && k < 8; k++)
			if (t->v[i].size && addr - t->v[i].addr < t->v[i].size) {
				s = &t->v[i];
				goto found;
			}
		return NULL;
	}
found:
	if (!s->name) {
		dem = demangle(s->raw);
		s->name = strpool_intern(pool, dem ? dem : s->raw);
		free(dem);
	}
	return s->name;
}

void symtab_release(struct symtab *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}
