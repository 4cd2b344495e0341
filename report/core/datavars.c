/* datavars.c - variables of a DSO from its symbol table and DWARF (datavars.h). */
#include "datavars.h"
#include "grow.h"

#include "dso.h"
#include "strpool.h"
#include "symbolize.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vbuf {
	struct data_var *v;
	size_t n, cap;
};

static int push(struct vbuf *b, const struct data_var *v)
{
	if (hwprof_grow((void **)&b->v, &b->cap, b->n + 1, sizeof(*b->v)) < 0)
		return -ENOMEM;
	b->v[b->n++] = *v;
	return 0;
}

/* A variable DIE with a fixed address: DW_AT_location of one DW_OP_addr (DWARF 5 section
 * 7.7.1), the address being a DWARF one (BIAS makes it a module address). */
static int add_die(struct vbuf *b, Dwarf_Die *die, Dwarf_Addr bias, struct strpool *pool)
{
	Dwarf_Attribute attr;
	Dwarf_Op *expr;
	size_t len;
	Dwarf_Die type;
	Dwarf_Word size = 0;
	const char *name;

	if (!dwarf_attr(die, DW_AT_location, &attr) || dwarf_getlocation(&attr, &expr, &len) != 0 ||
	    len != 1 || expr[0].atom != DW_OP_addr)
		return 0;
	name = dwarf_diename(die);
	if (!name && dwarf_attr_integrate(die, DW_AT_name, &attr))
		name = dwarf_formstring(&attr);
	if (!name || !dwarf_attr_integrate(die, DW_AT_type, &attr) ||
	    !dwarf_formref_die(&attr, &type) || dwarf_aggregate_size(&type, &size) != 0 || !size)
		return 0;
	struct data_var v = {
	    .addr = expr[0].number + bias, .size = size, .typed = true, .type = type};
	v.name = strpool_intern(pool, name);
	return v.name ? push(b, &v) : -ENOMEM;
}

/* Variables among DIE's children, into functions (their statics) and namespaces. */
static int walk(struct vbuf *b, Dwarf_Die *parent, Dwarf_Addr bias, struct strpool *pool)
{
	Dwarf_Die c;
	int ret = 0;

	if (dwarf_child(parent, &c) != 0)
		return 0;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_variable:
			ret = add_die(b, &c, bias, pool);
			break;
		case DW_TAG_subprogram:
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
			ret = walk(b, &c, bias, pool);
			break;
		default:
			break;
		}
	} while (ret == 0 && dwarf_siblingof(&c, &c) == 0);
	return ret;
}

static int by_addr(const void *a, const void *b)
{
	const struct data_var *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* At one address the typed one first: it is the one kept. */
	return (int)y->typed - (int)x->typed;
}

int data_vars_build(struct data_vars *vs, struct dso *d, struct strpool *pool)
{
	Dwfl_Module *mod = dso_sym_module(d);
	struct vbuf b = {0};
	Dwarf_Addr bias = 0;
	Dwarf *dw;
	int n, ret = 0;

	memset(vs, 0, sizeof(*vs));
	if (!mod)
		return 0;
	n = dwfl_module_getsymtab(mod);
	for (int i = 1; i < n && ret == 0; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);
		if (!name || GELF_ST_TYPE(sym.st_info) != STT_OBJECT || !sym.st_size || !*name)
			continue;
		struct data_var v = {.addr = addr, .size = sym.st_size};
		v.name = strpool_intern(pool, name);
		ret = v.name ? push(&b, &v) : -ENOMEM;
	}
	dw = dwfl_module_getdwarf(mod, &bias);
	for (Dwarf_Off off = 0, next; ret == 0 && dw;) {
		size_t hsize;
		Dwarf_Die cu;
		if (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) != 0)
			break;
		if (dwarf_offdie(dw, off + hsize, &cu))
			ret = walk(&b, &cu, bias, pool);
		off = next;
	}
	if (ret < 0) {
		free(b.v);
		return ret;
	}
	if (b.n) /* qsort(NULL, 0, ...) is undefined: a DSO with no variable at all */
		qsort(b.v, b.n, sizeof(*b.v), by_addr);
	/* One per address: the typed one (sorted first). */
	size_t k = 0;
	for (size_t i = 0; i < b.n; i++)
		if (!k || b.v[i].addr != b.v[k - 1].addr)
			b.v[k++] = b.v[i];
	vs->v = b.v;
	vs->n = k;
	return 0;
}

/* The type under typedefs and qualifiers (const, volatile, restrict, atomic). */
static bool peel(Dwarf_Die *t)
{
	return dwarf_peel_type(t, t) == 0;
}

static bool type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, DW_AT_type, &attr) && dwarf_formref_die(&attr, out);
}

/* The member of struct/union T holding byte OFF: *M, its offset *MOFF. */
static bool member_at(Dwarf_Die *t, uint64_t off, Dwarf_Die *m, uint64_t *moff)
{
	Dwarf_Die c, mt;

	if (dwarf_child(t, &c) != 0)
		return false;
	do {
		Dwarf_Attribute attr;
		Dwarf_Word at = 0, size = 0;
		if (dwarf_tag(&c) != DW_TAG_member || !type_of(&c, &mt) ||
		    dwarf_aggregate_size(&mt, &size) != 0)
			continue;
		/* DW_AT_data_member_location as a constant (C: always); a union's members have
		 * none (offset 0). Bit fields have their byte's offset here too. */
		if (dwarf_attr(&c, DW_AT_data_member_location, &attr) &&
		    dwarf_formudata(&attr, &at) != 0)
			continue;
		if (off >= at && off - at < size) {
			*m = c;
			*moff = at;
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* An array type of one dimension: its element type *ELEM and element size *SIZE. */
static bool array_elem(Dwarf_Die *t, Dwarf_Die *elem, Dwarf_Word *size)
{
	Dwarf_Die c;
	int dims = 0;

	if (dwarf_child(t, &c) == 0) {
		do
			dims += dwarf_tag(&c) == DW_TAG_subrange_type;
		while (dwarf_siblingof(&c, &c) == 0);
	}
	return dims == 1 && type_of(t, elem) && dwarf_aggregate_size(elem, size) == 0 && *size;
}

/* Appends to BUF (LEN bytes, *AT used) the members and elements of type T that byte OFF lies
 * in. The first array index goes to *ELEM as "[]"; later ones are written out. [*LO, *HI)
 * narrows to the bytes (offsets in T) that give the same path and index. */
static void path_in(Dwarf_Die t, uint64_t off, char *buf, size_t len, size_t *at, int64_t *elem,
		    uint64_t *lo, uint64_t *hi)
{
	uint64_t base = 0; /* of the current type, in the outermost one */

	for (int depth = 0; depth < 16 && peel(&t); depth++) {
		int tag = dwarf_tag(&t);
		Dwarf_Die m, et;
		uint64_t moff;
		Dwarf_Word esize;

		if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
		    tag == DW_TAG_class_type) {
			const char *name;
			if (!member_at(&t, off, &m, &moff) || !type_of(&m, &et)) {
				*lo = base + off; /* padding: only this byte is known alike */
				*hi = *lo + 1;
				return;
			}
			name = dwarf_diename(&m);
			*at += (size_t)snprintf(buf + *at, *at < len ? len - *at : 0, ".%s",
						name ? name : "?");
			Dwarf_Word msize = 0;
			dwarf_aggregate_size(&et, &msize);
			off -= moff;
			base += moff;
			*lo = base;
			*hi = base + msize;
			t = et;
		} else if (tag == DW_TAG_array_type && array_elem(&t, &et, &esize)) {
			Dwarf_Die inner = et;
			int itag = peel(&inner) ? dwarf_tag(&inner) : 0;
			uint64_t i = off / esize;
			/* An array of scalars is the object itself: "g.b", not "g.b[5]". */
			if (itag != DW_TAG_structure_type && itag != DW_TAG_union_type &&
			    itag != DW_TAG_class_type && itag != DW_TAG_array_type)
				return;
			if (*elem < 0) {
				*elem = (int64_t)i;
				*at += (size_t)snprintf(buf + *at, *at < len ? len - *at : 0, "[]");
			} else {
				*at += (size_t)snprintf(buf + *at, *at < len ? len - *at : 0,
							"[%" PRIu64 "]", i);
			}
			off -= i * esize;
			base += i * esize;
			*lo = base;
			*hi = base + esize;
			t = et;
		} else {
			return;
		}
	}
}

int data_vars_resolve(const struct data_vars *vs, uint64_t addr, struct strpool *pool,
		      const char **object, int64_t *elem, const char **base, uint64_t *base_start,
		      uint64_t *same_lo, uint64_t *same_hi)
{
	uint64_t from, to;
	size_t lo = 0, hi = vs->n;
	char buf[512];
	size_t at;

	while (lo < hi) { /* the last variable starting at or before ADDR */
		size_t mid = lo + (hi - lo) / 2;
		if (vs->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - vs->v[lo - 1].addr >= vs->v[lo - 1].size)
		return 1;
	const struct data_var *v = &vs->v[lo - 1];
	*base = v->name;
	*base_start = v->addr;
	*elem = -1;
	if (!v->typed) {
		*object = v->name;
		*elem = (int64_t)(addr - v->addr);
		*same_lo = addr;
		*same_hi = addr + 1;
		return 0;
	}
	from = 0;
	to = v->size;
	at = (size_t)snprintf(buf, sizeof(buf), "%s", v->name);
	path_in(v->type, addr - v->addr, buf, sizeof(buf), &at, elem, &from, &to);
	*same_lo = v->addr + from;
	*same_hi = v->addr + to;
	*object = strpool_intern(pool, buf);
	return *object ? 0 : -ENOMEM;
}

void data_vars_release(struct data_vars *vs)
{
	free(vs->v);
	memset(vs, 0, sizeof(*vs));
}
