/* symtab.c - sorted function symbols of one module. */
#include "symtab.h"

#include "demangle.h"
#include "plt.h"
#include "strpool.h"

#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
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

/* The end of section SHNDX of ELF (module address, BIAS applied) into *END, ~0 when the
 * symbol has none; whether the section holds code. */
static bool section_of(Elf *elf, GElf_Word shndx, GElf_Addr bias, GElf_Addr *end)
{
	GElf_Shdr sh;
	Elf_Scn *scn = shndx && shndx < SHN_LORESERVE && elf ? elf_getscn(elf, shndx) : NULL;

	*end = ~(GElf_Addr)0;
	if (!scn || !gelf_getshdr(scn, &sh))
		return false;
	*end = sh.sh_addr + sh.sh_size + bias;
	return (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) == (SHF_ALLOC | SHF_EXECINSTR);
}

/* A label of hand-written assembly stands for a function; mapping symbols ("$x", "$d" on
 * Arm) and assembler-local labels (".L") do not. */
static bool label_is_function(const char *name)
{
	return name[0] != '$' && strncmp(name, ".L", 2);
}

/* Sizes the size-0 symbols of the sorted table T (up to the next address, within the
 * section), after dropping the labels that lie inside a sized typed function (an entry point
 * or loop label of its assembly, not a function of its own). */
static void size_symbols(struct symtab *t)
{
	GElf_Addr covered = 0; /* end of the sized typed functions so far */
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++) {
		struct fsym *s = &t->v[i];
		if (s->rank < 3 && s->addr < covered)
			continue;
		if (s->rank >= 3 && s->size && s->addr + s->size > covered)
			covered = s->addr + s->size;
		t->v[n++] = *s;
	}
	t->n = n;
	n = 0;
	for (size_t i = 0, j = 0; i < t->n; i++) {
		struct fsym *s = &t->v[i];
		if (!s->size) {
			GElf_Addr end = s->sec_end;
			for (j = j > i ? j : i + 1; j < t->n && t->v[j].addr == s->addr; j++)
				;
			if (j < t->n && t->v[j].addr < end)
				end = t->v[j].addr;
			s->size = end > s->addr ? end - s->addr : 0;
		}
		if (s->size)
			t->v[n++] = *s;
	}
	t->n = n;
}

int symtab_build(struct symtab *t, Dwfl_Module *mod)
{
	int n = dwfl_module_getsymtab(mod);
	struct plt_slot *plt;
	ssize_t nplt = plt_slots(mod, &plt);

	memset(t, 0, sizeof(*t));
	if (nplt < 0)
		return -ENOMEM;
	if (n < 0)
		n = 0;
	if (!n && !nplt)
		return 0;
	t->v = calloc((size_t)n + (size_t)nplt, sizeof(*t->v));
	if (!t->v) {
		free(plt);
		return -ENOMEM;
	}
	for (ssize_t i = 0; i < nplt; i++)
		t->v[t->n++] = (struct fsym){.addr = plt[i].addr,
					     .size = plt[i].size,
					     .sec_end = plt[i].addr + plt[i].size,
					     .raw = plt[i].name,
					     .rank = 3,
					     .plt = true};
	free(plt);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr, end, bias = 0;
		GElf_Word shndx;
		Elf *elf = NULL;
		const char *name =
		    dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, &elf, &bias);
		int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
		bool typed = type == STT_FUNC || type == STT_GNU_IFUNC, code;
		if (!name || !name[0] || sym.st_shndx == SHN_UNDEF ||
		    (!typed && type != STT_NOTYPE))
			continue;
		code = section_of(elf, shndx, bias, &end);
		if (!typed && (!code || !label_is_function(name)))
			continue;
		t->v[t->n++] = (struct fsym){.addr = addr,
					     .size = sym.st_size,
					     .sec_end = end,
					     .raw = name,
					     .rank = (typed ? 3 : 0) + (bind == STB_GLOBAL ? 2
									: bind == STB_WEAK ? 1
											   : 0)};
	}
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), by_addr);
	size_symbols(t);
	return 0;
}

/* NAME@plt interned in POOL (NULL when out of memory), as perf and objdump name the slot. */
static const char *plt_name(const char *name, struct strpool *pool)
{
	size_t len = strlen(name);
	char *buf = malloc(len + sizeof("@plt"));
	const char *r = NULL;

	if (buf) {
		memcpy(buf, name, len);
		memcpy(buf + len, "@plt", sizeof("@plt"));
		r = strpool_intern(pool, buf);
		free(buf);
	}
	return r;
}

struct fsym *symtab_at(struct symtab *t, GElf_Addr addr)
{
	size_t lo = 0, hi = t->n;
	struct fsym *s;

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
	if (addr - s->addr >= s->size) {
		for (size_t i = lo - 1, k = 0; i-- > 0 && k < 8; k++)
			if (addr - t->v[i].addr < t->v[i].size)
				return &t->v[i];
		return NULL;
	}
	return s;
}

const char *symtab_name(struct fsym *s, struct strpool *pool, const char **raw)
{
	char *dem;

	if (raw) {
		if (!s->linkage)
			s->linkage = strpool_intern(pool, s->raw);
		*raw = s->linkage;
	}
	if (!s->name) {
		dem = demangle(s->raw);
		s->name = s->plt ? plt_name(dem ? dem : s->raw, pool)
				 : strpool_intern(pool, dem ? dem : s->raw);
		free(dem);
	}
	return s->name;
}

const char *symtab_find(struct symtab *t, GElf_Addr addr, struct strpool *pool, const char **raw)
{
	struct fsym *s = symtab_at(t, addr);

	return s ? symtab_name(s, pool, raw) : NULL;
}

void symtab_release(struct symtab *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}
