/* dwarf_index.c - function and CU ranges, sorted; the inline chain of one address. */
#include "dwarf_index.h"

#include "fnv.h"
#include "grow.h"
#include "idindex.h"

#include <dwarf.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct vec {
	struct dw_range *v;
	size_t n, cap;
};

/* Whether [LO, HI) (DWARF addresses) is the range of code the linker discarded: with
 * --gc-sections (and COMDAT folding) ld.bfd and gold resolve its addresses to 0, lld to 0 or
 * a tombstone near UINT64_MAX. No code of a linked executable or shared object lies at 0 (the
 * ELF header does), so such a range would claim the real code at low addresses. */
static bool discarded(Dwarf_Addr lo, Dwarf_Addr hi)
{
	return lo == 0 || lo >= (Dwarf_Addr)-2 || hi <= lo;
}

/* Adds DIE's ranges but the discarded ones to VEC; raises *SHADOW (may be NULL) to the end of
 * a discarded range that starts at 0 (DWARF addresses): the addresses it claims. */
static int add_ranges(struct vec *vec, Dwarf_Die *die, Dwarf_Die *cu, Dwarf_Addr bias,
		      Dwarf_Addr *shadow)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (discarded(lo, hi)) {
			if (shadow && lo == 0 && hi > *shadow)
				*shadow = hi;
			continue;
		}
		if (hwprof_grow((void **)&vec->v, &vec->cap, vec->n + 1, sizeof(*vec->v)) < 0)
			return -ENOMEM;
		vec->v[vec->n++] = (struct dw_range){lo + bias, hi + bias, *die, *cu, bias, NULL};
	}
	return 0;
}

/* Subprograms sit at CU level, or inside namespaces and classes (C++). */
static int add_functions(struct vec *fns, Dwarf_Die *parent, Dwarf_Die *cu, Dwarf_Addr bias,
			 int depth, Dwarf_Addr *shadow)
{
	Dwarf_Die child;

	if (depth > 16 || dwarf_child(parent, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_subprogram) {
			if (add_ranges(fns, &child, cu, bias, shadow) < 0)
				return -ENOMEM;
		} else if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
			   tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
			   tag == DW_TAG_module) {
			if (add_functions(fns, &child, cu, bias, depth + 1, shadow) < 0)
				return -ENOMEM;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static int by_lo(const void *a, const void *b)
{
	const struct dw_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

void dwarf_index_init(struct dwarf_index *x, Dwfl_Module *mod)
{
	memset(x, 0, sizeof(*x));
	x->mod = mod;
}

static void build_cus(struct dwarf_index *x)
{
	struct vec cus = {0};
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;

	x->cus_built = true;
	while ((cu = dwfl_module_nextcu(x->mod, cu, &bias)))
		if (add_ranges(&cus, cu, cu, bias, NULL) < 0)
			break;
	if (cus.n)
		qsort(cus.v, cus.n, sizeof(*cus.v), by_lo);
	x->cus = cus.v;
	x->ncus = cus.n;
}

static uint64_t entry_hash(const void *ctx, uint32_t id)
{
	return hwprof_hash_word(((const struct dwarf_index *)ctx)->tab[id].cu_offset);
}

struct key {
	const struct dwarf_index *x;
	Dwarf_Off off;
};

static bool same_key(const void *ctx, uint32_t id)
{
	const struct key *k = ctx;

	return k->x->tab[id].cu_offset == k->off;
}

/* CU's functions, indexed on first use; NULL on ENOMEM. */
static const struct cu_functions *functions_of(struct dwarf_index *x, Dwarf_Die *cu,
					       Dwarf_Addr bias)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	struct key k = {x, off};
	struct vec fns = {0};
	size_t i;

	if (!x->icap && hwprof_index_rebuild(&x->index, &x->icap, 64, 0, entry_hash, x) < 0)
		return NULL;
	i = hwprof_index_probe(x->index, x->icap, hwprof_hash_word(off), same_key, &k);
	if (x->index[i])
		return &x->tab[x->index[i] - 1];
	if (x->n + 1 >= UINT32_MAX ||
	    hwprof_grow((void **)&x->tab, &x->cap, x->n + 1, sizeof(*x->tab)) < 0)
		return NULL;
	struct vec own = {0};
	Dwarf_Addr shadow = 0;
	Dwarf_Die split, *body = cu;
	Dwarf_Attribute a;
	uint8_t unit_type = 0;
	const char *missing = NULL;

	/* Split DWARF (-gsplit-dwarf): the skeleton unit holds the ranges and the line table,
	 * the split unit in the .dwo (found by libdw from DW_AT_dwo_name) the functions and
	 * their inline frames. libdw zeroes SPLIT when it finds none: the .dwo is gone, or it
	 * went into a .dwp package, which libdw reads only from 0.190 on. */
	if (dwarf_cu_info(cu->cu, NULL, &unit_type, NULL, &split, NULL, NULL, NULL) == 0 &&
	    unit_type == DW_UT_skeleton) {
		x->split = true;
		if (dwarf_tag(&split) == DW_TAG_compile_unit)
			body = &split;
		else if (!(missing = dwarf_formstring(dwarf_attr(cu, DW_AT_dwo_name, &a))) &&
			 !(missing = dwarf_formstring(dwarf_attr(cu, DW_AT_GNU_dwo_name, &a))))
			missing = "?";
	}
	if (add_functions(&fns, body, cu, bias, 0, &shadow) < 0 ||
	    add_ranges(&own, cu, cu, bias, &shadow) < 0) {
		free(fns.v);
		free(own.v);
		return NULL;
	}
	free(own.v);
	if (fns.n)
		qsort(fns.v, fns.n, sizeof(*fns.v), by_lo);
	x->tab[x->n] = (struct cu_functions){off, fns.v, fns.n, shadow, missing};
	x->index[i] = (uint32_t)++x->n;
	if (x->n * 2 > x->icap &&
	    hwprof_index_rebuild(&x->index, &x->icap, 2 * x->icap, x->n, entry_hash, x) < 0) {
		x->index[i] = 0; /* the index stays as it was: the CU is indexed again next time */
		free(x->tab[--x->n].v);
		return NULL;
	}
	return &x->tab[x->n - 1];
}

/* A function's DIE tree, as much of it as the lookups need: each node the blocks and inlined
 * calls directly under it (in DIE order, the other children left out) with their ranges.
 * Walking libdw's children costs a dwarf_siblingof() per child, which skips the child's
 * whole subtree, and a dwarf_ranges() walk per dwarf_haspc(): in sqlite's large functions,
 * with thousands of inlined calls, that walk was most of a report's time when it was done
 * again for every address. A node's children are read once, on the first lookup that
 * reaches it. */
struct dw_span {
	Dwarf_Addr lo, hi; /* DWARF addresses */
};

struct dw_node {
	Dwarf_Die die;
	bool inlined;  /* DW_TAG_inlined_subroutine (else a block) */
	bool expanded; /* KIDS read */
	uint32_t nspans, nkids;
	struct dw_span *spans;
	struct dw_node *kids;
};

struct dw_chunk {
	struct dw_chunk *next;
	max_align_t data[];
};

#define ARENA_CHUNK (256u << 10)

/* LEN bytes (aligned for any type) from A, or NULL on ENOMEM. */
static void *arena_alloc(struct dw_arena *a, size_t len)
{
	void *p;

	len = (len + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (!a->chunks || a->used + len > a->size) {
		size_t size = len > ARENA_CHUNK ? len : ARENA_CHUNK;
		struct dw_chunk *c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->next = a->chunks;
		a->chunks = c;
		a->used = 0;
		a->size = size;
	}
	p = (char *)a->chunks->data + a->used;
	a->used += len;
	return p;
}

static void arena_release(struct dw_arena *a)
{
	while (a->chunks) {
		struct dw_chunk *next = a->chunks->next;
		free(a->chunks);
		a->chunks = next;
	}
	memset(a, 0, sizeof(*a));
}

/* N's ranges (dwarf_haspc()'s: those dwarf_ranges() gives before any error). */
/* V, which holds CNT SIZE-byte elements of *CAP and starts as the caller's stack buffer BUF,
 * with room for one more: V itself, or a heap copy with twice the room (a heap V is freed).
 * NULL when out of memory (V unchanged). */
static void *room_for_one(void *v, void *buf, size_t cnt, size_t *cap, size_t size)
{
	void *w;

	if (cnt < *cap)
		return v;
	if (!(w = malloc(*cap * 2 * size)))
		return NULL;
	memcpy(w, v, cnt * size);
	if (v != buf)
		free(v);
	*cap *= 2;
	return w;
}

/* The CNT SIZE-byte elements of V (BUF or a heap copy, freed here) kept in A; NULL when
 * there are none, when *RET is already an error, or when A is full (then *RET = -ENOMEM). */
static void *keep_in_arena(struct dw_arena *a, void *v, void *buf, size_t cnt, size_t size,
			   int *ret)
{
	void *out = cnt && *ret == 0 ? arena_alloc(a, cnt * size) : NULL;

	if (out)
		memcpy(out, v, cnt * size);
	else if (cnt && *ret == 0)
		*ret = -ENOMEM;
	if (v != buf)
		free(v);
	return out;
}

static int read_spans(struct dw_arena *a, struct dw_node *n)
{
	struct dw_span buf[64], *v = buf;
	size_t cnt = 0, cap = 64;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	int ret = 0;

	while ((off = dwarf_ranges(&n->die, off, &base, &lo, &hi)) > 0) {
		struct dw_span *w = room_for_one(v, buf, cnt, &cap, sizeof(*v));
		if (!w) {
			ret = -ENOMEM;
			break;
		}
		v = w;
		v[cnt++] = (struct dw_span){lo, hi};
	}
	n->spans = keep_in_arena(a, v, buf, cnt, sizeof(*v), &ret);
	n->nspans = n->spans ? (uint32_t)cnt : 0;
	return ret;
}

/* N's block and inlined-call children with their ranges. */
static int expand(struct dw_arena *a, struct dw_node *n)
{
	struct dw_node buf[32], *v = buf;
	size_t cnt = 0, cap = 32;
	Dwarf_Die child;
	int ret = 0;

	n->expanded = true;
	if (dwarf_child(&n->die, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block &&
		    tag != DW_TAG_try_block && tag != DW_TAG_catch_block)
			continue;
		struct dw_node *w = room_for_one(v, buf, cnt, &cap, sizeof(*v));
		if (!w) {
			ret = -ENOMEM;
			break;
		}
		v = w;
		v[cnt] =
		    (struct dw_node){.die = child, .inlined = tag == DW_TAG_inlined_subroutine};
		if (read_spans(a, &v[cnt]) < 0) {
			ret = -ENOMEM;
			break;
		}
		cnt++;
	} while (dwarf_siblingof(&child, &child) == 0);
	n->kids = keep_in_arena(a, v, buf, cnt, sizeof(*v), &ret);
	n->nkids = n->kids ? (uint32_t)cnt : 0;
	return ret;
}

static bool has_pc(const struct dw_node *n, Dwarf_Addr pc)
{
	for (uint32_t i = 0; i < n->nspans; i++)
		if (pc >= n->spans[i].lo && pc < n->spans[i].hi)
			return true;
	return false;
}

/* The range of V holding ADDR; among nested ones the innermost (the last that starts). */
static struct dw_range *find(struct dw_range *v, size_t n, Dwarf_Addr addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, k = 0; i-- > 0 && k < 16; k++)
		if (addr < v[i].hi)
			return &v[i];
	return NULL;
}

int dwarf_index_frames(struct dwarf_index *x, Dwarf_Addr addr, Dwarf_Die *frames, int max,
		       Dwarf_Die **cu, Dwarf_Addr *bias, bool *shadowed, const char **missing_dwo)
{
	const struct cu_functions *cf;
	struct dw_range *fn, *c;
	struct dw_node *cur;
	Dwarf_Die chain[64];
	Dwarf_Addr pc;
	int n = 0;

	*shadowed = false;
	*missing_dwo = NULL;
	/* Once the CU table was needed (no .debug_aranges), it answers first: asking libdw
	 * again would fail the same way for every address. */
	c = x->cus_built ? find(x->cus, x->ncus, addr) : NULL;
	if (c) {
		*cu = (Dwarf_Die *)&c->cu;
		*bias = c->bias;
	} else {
		*cu = dwfl_module_addrdie(x->mod, addr, bias);
	}
	if (!*cu) {
		if (!x->cus_built)
			build_cus(x);
		c = find(x->cus, x->ncus, addr);
		if (!c)
			return 0;
		*cu = (Dwarf_Die *)&c->cu;
		*bias = c->bias;
	}
	cf = functions_of(x, *cu, *bias);
	fn = cf ? find(cf->v, cf->n, addr) : NULL;
	/* Under a discarded range that starts at 0 (in .debug_aranges and the line table alike)
	 * the CU's line table mixes the discarded sequence's rows with the live ones, sorted by
	 * address: no row can be trusted. Outside any live function of the CU, the address is
	 * not even the CU's (code of another file, one without debug info). */
	*shadowed = cf && addr - *bias < cf->discarded_hi;
	if (!fn && *shadowed) {
		/* .debug_aranges led here through the discarded range: the CU table, which
		 * leaves such ranges out, knows the CU that really holds ADDR, if any. */
		*shadowed = false;
		if (!x->cus_built)
			build_cus(x);
		c = find(x->cus, x->ncus, addr);
		*cu = c && c->cu.addr != (*cu)->addr ? (Dwarf_Die *)&c->cu : NULL;
		if (!*cu)
			return 0;
		*bias = c->bias;
		cf = functions_of(x, *cu, *bias);
		fn = cf ? find(cf->v, cf->n, addr) : NULL;
		*shadowed = cf && addr - *bias < cf->discarded_hi;
	}
	*missing_dwo = cf ? cf->missing_dwo : NULL;
	if (!fn)
		return 0;
	pc = addr - fn->bias;
	chain[n++] = fn->die;
	if (!fn->tree && (fn->tree = arena_alloc(&x->arena, sizeof(*fn->tree))))
		*fn->tree = (struct dw_node){.die = fn->die};
	/* Down the tree: at each level at most one block or inlined call holds PC (the first
	 * in DIE order that does). Out of memory ends the chain where it is. */
	for (cur = fn->tree; cur && n < (int)(sizeof(chain) / sizeof(chain[0]));) {
		struct dw_node *next = NULL;
		if (!cur->expanded && expand(&x->arena, cur) < 0)
			break;
		for (uint32_t i = 0; i < cur->nkids && !next; i++)
			if (has_pc(&cur->kids[i], pc))
				next = &cur->kids[i];
		if (next && next->inlined)
			chain[n++] = next->die;
		cur = next;
	}
	/* Innermost first. */
	for (int i = 0; i < n && i < max; i++)
		frames[i] = chain[n - 1 - i];
	return n < max ? n : max;
}

void dwarf_index_release(struct dwarf_index *x)
{
	for (size_t i = 0; i < x->n; i++)
		free(x->tab[i].v);
	free(x->tab);
	free(x->index);
	free(x->cus);
	arena_release(&x->arena);
	memset(x, 0, sizeof(*x));
}
