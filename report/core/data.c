/* data.c - data addresses to the objects they lie in (data.h). */
#include "data.h"

#include "datavars.h"
#include "dso.h"
#include "grow.h"
#include "maps.h"
#include "strpool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define NO_REGION UINT32_MAX
#define HUGE_PAGE (2ull << 20)

/* Asks for transparent huge pages under the LEN bytes at P (a large array, written whole):
 * a million samples fill some 100 MB, and 4 KiB pages fault in one by one (the page faults
 * were a fifth of report --sort data's time on 1M samples). Advice only: errors ignored. */
static void want_huge_pages(void *p, size_t len)
{
	uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1),
		  hi = ((uintptr_t)p + len) & ~(uintptr_t)(HUGE_PAGE - 1);

	if (p && hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}

/* Room for NEED raw samples. The array is mapped, not malloc'ed: it is grown by mremap(2),
 * which moves the pages instead of copying them (realloc copied up to its mmap threshold, and
 * that copy and the fresh pages it wrote were an eighth of report --sort data's time on 1M
 * samples), and it asks for huge pages. Returns 0 or -ENOMEM. */
static int raw_reserve(struct data_collect *d, size_t need)
{
	size_t cap = d->cap_raw ? d->cap_raw : 4096, len;
	void *p;

	if (need <= d->cap_raw)
		return 0;
	while (cap < need) {
		if (cap > SIZE_MAX / 2 / sizeof(*d->raw))
			return -ENOMEM;
		cap *= 2;
	}
	len = cap * sizeof(*d->raw);
	p = d->raw ? mremap(d->raw, d->cap_raw * sizeof(*d->raw), len, MREMAP_MAYMOVE)
		   : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	/* The whole mapping (advice only): a part would split it in several, and mremap(2)
	 * moves one mapping only (EFAULT). */
	(void)madvise(p, len, MADV_HUGEPAGE);
	d->raw = p;
	d->cap_raw = cap;
	return 0;
}

/* Unmaps the raw samples. */
static void raw_free(struct data_collect *d)
{
	if (d->raw)
		munmap(d->raw, d->cap_raw * sizeof(*d->raw));
	d->raw = NULL;
	d->nraw = d->cap_raw = 0;
}

int data_init(struct data_collect *d)
{
	memset(d, 0, sizeof(*d));
	return 0;
}

int data_begin_input(struct data_collect *d)
{
	d->nprocs = 0;
	maps_free(d->maps);
	d->maps = maps_new();
	return d->maps ? 0 : -ENOMEM;
}

/* The kernel's names (perf_event_mmap_event(), kernel/events/core.c): "[heap]" for the brk
 * area, "[stack]" for the main stack, "//anon" for other anonymous memory; a file's path. */
static enum profile_data_kind kind_of(const char *name)
{
	if (!name || !*name || !strcmp(name, "//anon") || !strncmp(name, "[anon", 5) ||
	    !strncmp(name, "/dev/zero", 9) || !strncmp(name, "/SYSV", 5) ||
	    !strncmp(name, "/memfd:", 7))
		return PROFILE_DATA_ANON;
	if (!strcmp(name, "[heap]"))
		return PROFILE_DATA_HEAP;
	if (!strncmp(name, "[stack", 6))
		return PROFILE_DATA_STACK;
	if (name[0] == '/')
		return PROFILE_DATA_FILE;
	return PROFILE_DATA_ANON; /* [vvar], [uprobes], ...: no file behind them */
}

static int region_of(struct data_collect *d, struct strpool *pool, enum profile_data_kind kind,
		     const char *name, bool image, uint32_t *out)
{
	static const char *const names[] = {
	    [PROFILE_DATA_HEAP] = "[heap]",
	    [PROFILE_DATA_STACK] = "[stack]",
	    [PROFILE_DATA_ANON] = "[anon]",
	};
	const char *s = strpool_intern(pool, kind == PROFILE_DATA_FILE ? name : names[kind]);

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < d->nregions; i++) {
		if (d->regions[i].name == s && d->regions[i].kind == kind &&
		    d->regions[i].image == image) {
			*out = (uint32_t)i;
			return 0;
		}
	}
	if (hwprof_grow((void **)&d->regions, &d->cap_regions, d->nregions + 1,
			sizeof(*d->regions)) < 0)
		return -ENOMEM;
	d->regions[d->nregions] = (struct data_region){kind, s, image};
	*out = (uint32_t)d->nregions++;
	return 0;
}

#define BRK_RANDOM                                                                                 \
	(1ull << 30)		   /* arch_randomize_brk() of a 64-bit task: the heap starts       \
				    * this far after .bss at most (x86-64, arm64) */
#define STACK_GROWN (256ull << 20) /* the most a main stack grows below its recorded mapping */

static struct data_proc *proc_of(struct data_collect *d, uint32_t pid, bool create)
{
	for (size_t i = 0; i < d->nprocs; i++)
		if (d->procs[i].pid == pid)
			return &d->procs[i];
	if (!create)
		return NULL;
	if (hwprof_grow((void **)&d->procs, &d->cap_procs, d->nprocs + 1, sizeof(*d->procs)) < 0)
		return NULL;
	d->procs[d->nprocs] = (struct data_proc){.pid = pid};
	return &d->procs[d->nprocs++];
}

/* The image of PR that ADDR lies in or right after ([base, end], the end included: the .bss of
 * a program mapped without a reservation follows its last file page), or NULL. */
static struct data_image *image_at(struct data_proc *pr, uint64_t addr)
{
	for (size_t i = 0; i < pr->nimages; i++)
		if (addr >= pr->images[i].base && addr <= pr->images[i].end)
			return &pr->images[i];
	return NULL;
}

int data_mmap(struct data_collect *d, struct strpool *pool, const struct hwprof_rec_mmap *m)
{
	struct data_proc *pr = proc_of(d, m->pid, true);
	enum profile_data_kind kind = kind_of(m->filename);
	struct data_image *img;
	uint64_t pgoff = m->pgoff;
	uint32_t r;
	int ret;

	if (!pr)
		return -ENOMEM;
	if (!m->len)
		return 0;
	img = image_at(pr, m->start);
	if (kind == PROFILE_DATA_FILE &&
	    (!img || d->regions[img->region].name != strpool_intern(pool, m->filename))) {
		img = NULL;
		/* A file mapped from its first byte starts an image: the ELF loaders map the
		 * whole span of an ELF file's PT_LOADs with its first segment, then the others
		 * over it (fs/binfmt_elf.c, glibc's _dl_map_segments). */
		if (m->pgoff == 0 && pr->nimages < DATA_IMAGES_MAX) {
			ret = region_of(d, pool, PROFILE_DATA_FILE, m->filename, true, &r);
			if (ret < 0)
				return ret;
			img = &pr->images[pr->nimages++];
			*img = (struct data_image){.region = r, .base = m->start, .end = m->start};
		}
	}
	if (img && kind != PROFILE_DATA_STACK &&
	    (kind == PROFILE_DATA_FILE || ((m->flags & MAP_PRIVATE) && (m->prot & PROT_WRITE)))) {
		/* In an image: a segment, or its .bss mapped anonymous. Offsets count from the
		 * image's start, which is its lowest segment's page. */
		if (m->start + m->len > img->end)
			img->end = m->start + m->len;
		if (img == &pr->images[0] && kind != PROFILE_DATA_FILE)
			pr->bss_end = img->end; /* the program's: mapped before its interpreter */
		if (m->prot & PROT_EXEC)
			return 0; /* code: the builder's */
		return maps_mmap(d->maps, m->pid, m->start, m->len, m->start - img->base,
				 img->region, m->time);
	}
	if (m->prot & PROT_EXEC)
		return 0;
	if ((kind == PROFILE_DATA_ANON || kind == PROFILE_DATA_HEAP) && pr->bss_end &&
	    m->start >= pr->bss_end && m->start - pr->bss_end <= BRK_RANDOM)
		kind = PROFILE_DATA_HEAP;
	ret = region_of(d, pool, kind, m->filename, false, &r);
	if (ret < 0)
		return ret;
	if (kind != PROFILE_DATA_FILE)
		pgoff = 0;
	if (kind == PROFILE_DATA_STACK && !strcmp(m->filename, "[stack]")) {
		pr->stack_start = m->start;
		pr->stack_end = m->start + m->len;
		pr->stack_region = r;
	}
	return maps_mmap(d->maps, m->pid, m->start, m->len, pgoff, r, m->time);
}

int data_fork(struct data_collect *d, uint32_t pid, uint32_t ppid, uint64_t time)
{
	const struct data_proc *parent = pid != ppid ? proc_of(d, ppid, false) : NULL;

	if (parent) { /* a child has its parent's layout */
		struct data_proc copy = *parent, *child = proc_of(d, pid, true);
		if (!child)
			return -ENOMEM;
		*child = copy;
		child->pid = pid;
	}
	return d->maps ? maps_fork(d->maps, pid, ppid, time) : 0;
}

void data_exec(struct data_collect *d, uint32_t pid, uint64_t time)
{
	struct data_proc *pr = proc_of(d, pid, false);

	if (pr)
		*pr = (struct data_proc){.pid = pid};
	if (d->maps)
		maps_exec(d->maps, pid, time);
}

int data_sample(struct data_collect *d, const struct hwprof_rec_sample *s, uint32_t loc)
{
	const struct map *mp = d->maps ? maps_find(d->maps, s->pid, s->addr, s->time) : NULL;
	struct data_raw *r;

	if (raw_reserve(d, d->nraw + 1) < 0)
		return -ENOMEM;
	r = &d->raw[d->nraw++];
	*r = (struct data_raw){.region = NO_REGION,
			       .loc = loc,
			       .offset = s->addr,
			       .data_src = s->data_src,
			       .weight = s->weight > UINT32_MAX ? UINT32_MAX : (uint32_t)s->weight,
			       .period = (double)s->period};
	if (mp) {
		r->region = mp->dso;
		if (d->regions[mp->dso].kind == PROFILE_DATA_FILE) {
			r->offset = s->addr - mp->start + mp->pgoff;
			r->start = mp->start - mp->pgoff;
		} else if (d->regions[mp->dso].kind == PROFILE_DATA_STACK) {
			r->start = mp->end; /* a stack counts down from its top */
		} else {
			r->start = mp->start;
		}
	} else {
		const struct data_proc *pr = proc_of(d, s->pid, false);
		if (pr && pr->stack_end && s->addr < pr->stack_start &&
		    pr->stack_start - s->addr <= STACK_GROWN) {
			r->region = pr->stack_region;
			r->start = pr->stack_end;
		}
	}
	d->weighted |= s->weight != 0;
	d->has_src |= s->data_src != 0;
	return 0;
}

/* ---- the order of the raw samples ---------------------------------------------------------
 *
 * By region and address (resolve() caches the last variable), then by what else makes an item
 * (profile_data), so that the samples of one item are next to each other; samples alike in all
 * of that keep the order they came in. A million samples with nearly every address distinct
 * are common (--sort data), so the region and address are sorted by radix, on 16-byte
 * entries, and only the runs of one address by comparison. */

struct raw_ord {
	uint64_t offset;
	uint32_t region, i; /* i: index in data_collect.raw */
};

/* Whether raw sample X goes after Y, for two of one region and address. */
static bool raw_after(const struct data_raw *x, const struct data_raw *y)
{
#define CMP(f)                                                                                     \
	if (x->f != y->f)                                                                          \
		return x->f > y->f;
	CMP(start);
	CMP(loc);
	CMP(data_src);
	CMP(weight);
#undef CMP
	return false;
}

/* Byte K (0 the lowest) of E's key: the offset's 8, then the region's 4 above them. */
static unsigned key_byte(const struct raw_ord *e, unsigned k)
{
	return (unsigned)((k < 8 ? e->offset >> (8 * k) : (uint64_t)e->region >> (8 * (k - 8))) &
			  0xff);
}

/* D's raw samples in order: indices into d->raw, malloc'ed (the caller frees), or NULL on
 * ENOMEM. */
static uint32_t *raw_order(const struct data_collect *d)
{
	size_t n = d->nraw, (*count)[256] = calloc(12, sizeof(*count));
	struct raw_ord *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	uint32_t *ord = NULL;

	if (!count || !a || !b)
		goto out;
	for (size_t i = 0; i < n; i++) {
		a[i] = (struct raw_ord){d->raw[i].offset, d->raw[i].region, (uint32_t)i};
		for (unsigned k = 0; k < 12; k++)
			count[k][key_byte(&a[i], k)]++;
	}
	/* Least significant byte first, each pass stable; a byte all share is no pass. */
	for (unsigned k = 0; k < 12; k++) {
		size_t pos = 0;
		if (count[k][key_byte(&a[0], k)] == n)
			continue;
		for (unsigned v = 0; v < 256; v++) {
			size_t c = count[k][v];
			count[k][v] = pos;
			pos += c;
		}
		for (size_t i = 0; i < n; i++)
			b[count[k][key_byte(&a[i], k)]++] = a[i];
		struct raw_ord *t = a;
		a = b;
		b = t;
	}
	if (!(ord = malloc(n * sizeof(*ord))))
		goto out;
	for (size_t i = 0; i < n; i++)
		ord[i] = a[i].i;
	/* A run of one region and address: by the rest, by insertion (runs are short), stable. */
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		for (hi = lo + 1;
		     hi < n && a[hi].offset == a[lo].offset && a[hi].region == a[lo].region; hi++)
			;
		for (size_t i = lo + 1; i < hi; i++) {
			uint32_t x = ord[i];
			size_t j = i;
			for (; j > lo && raw_after(&d->raw[ord[j - 1]], &d->raw[x]); j--)
				ord[j] = ord[j - 1];
			ord[j] = x;
		}
	}
out:
	free(count);
	free(a);
	free(b);
	return ord;
}

/* Link-time address of OFFSET in D: an image offset (data_region.image) from its lowest
 * segment's page, or a file offset. */
static bool vaddr_of(const struct dso *d, bool image, uint64_t offset, uint64_t *vaddr)
{
	uint64_t low = UINT64_MAX;

	if (!image)
		return dso_offset_to_vaddr_mem(d, offset, vaddr);
	for (size_t i = 0; i < d->nloads; i++)
		if (d->loads[i].vaddr < low)
			low = d->loads[i].vaddr;
	if (low == UINT64_MAX)
		return false;
	*vaddr = (low & ~(uint64_t)4095) + offset;
	return true;
}

/* Whether X and Y are one item but for the weight. */
static bool same_item(const struct profile_data *x, const struct profile_data *y)
{
	return x->loc == y->loc && x->object == y->object && x->elem == y->elem &&
	       x->base == y->base && x->base_start == y->base_start && x->offset == y->offset &&
	       x->image == y->image && x->data_src == y->data_src;
}

/* The last variable member resolved, for the next samples (data_vars_resolve()). */
struct var_cache {
	bool valid;
	uint64_t lo, hi, start;
	const char *object, *base;
	int64_t elem;
};

/* Raw sample R's object into *IT (samples 1, its weight in first_weight). VARS: its region's
 * variables when it is an ELF image's (D_VADDR: its file offsets to link-time addresses). */
static int resolve(const struct data_collect *d, const struct data_raw *r, struct dso *dso,
		   const struct data_vars *vars, struct var_cache *vc, struct strpool *pool,
		   struct profile_data *it)
{
	static const char unknown[] = "[unknown]";
	const struct data_region *g = r->region != NO_REGION ? &d->regions[r->region] : NULL;
	uint64_t vaddr;

	*it = (struct profile_data){.loc = r->loc,
				    .elem = -1,
				    .data_src = r->data_src,
				    .samples = 1,
				    .period = r->period,
				    .first_weight = r->weight};
	if (!g) {
		it->kind = PROFILE_DATA_UNKNOWN;
		it->object = it->base = strpool_intern(pool, unknown);
		it->offset = r->offset;
		return it->object ? 0 : -ENOMEM;
	}
	it->kind = g->kind;
	it->object = it->base = g->name;
	if (g->kind != PROFILE_DATA_FILE) {
		it->base_start = r->start;
		it->offset = r->offset - r->start;
		it->align = (uint32_t)(r->start & 4095);
		return 0;
	}
	/* A file: its offset, or in an ELF image the variable there. */
	it->offset = r->offset;
	it->elem = (int64_t)r->offset;
	it->align = (uint32_t)(r->start & 4095);
	if (dso && vars && vaddr_of(dso, g->image, r->offset, &vaddr)) {
		/* The samples come by address: the last variable's member is often theirs. */
		if (!vc->valid || vaddr < vc->lo || vaddr >= vc->hi) {
			int ret = data_vars_resolve(vars, vaddr, pool, &vc->object, &vc->elem,
						    &vc->base, &vc->start, &vc->lo, &vc->hi);
			if (ret < 0)
				return ret;
			vc->valid = ret == 0;
			if (ret)
				return 0;
		}
		it->kind = PROFILE_DATA_VAR;
		it->image = g->name;
		it->object = vc->object;
		it->elem = vc->object == vc->base && vc->elem >= 0
			       ? (int64_t)(vaddr - vc->start) /* untyped: the offset */
			       : vc->elem;
		it->base = vc->base;
		it->base_start = vc->start;
		it->offset =
		    vaddr - vc->start; /* align unused: line_of() reads IMAGE's addresses */
	}
	return 0;
}

/* Moves to sample R's region: releases the last region's variables in VARS (and VC) and,
 * for an ELF image's region, reads its variables from the DSO that DSO_OF gives into VARS
 * and *DSO (else NULL). Returns 0, or -ENOMEM. */
static int enter_region(struct data_collect *d, const struct data_raw *r, struct profile *p,
			data_dso_fn dso_of, void *ctx, struct data_vars *vars, struct var_cache *vc,
			struct dso **dso)
{
	data_vars_release(vars);
	vc->valid = false;
	*dso = NULL;
	if (r->region != NO_REGION && d->regions[r->region].kind == PROFILE_DATA_FILE &&
	    (*dso = dso_of(ctx, d->regions[r->region].name)) &&
	    data_vars_build(vars, *dso, p->strings) < 0)
		return -ENOMEM;
	return 0;
}

/* Folds the N ITEMS in place (equal ones are next to each other: raw_order()) and sums
 * them into P's data totals; with WEIGHTS, the weights stay one per sample, in order.
 * Returns how many items are left. */
static size_t fold_items(struct profile *p, struct profile_data *items, size_t n, uint32_t *weights)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t w = items[i].first_weight;
		struct profile_data *t = m ? &items[m - 1] : NULL;
		if (weights)
			weights[i] = w;
		p->data_samples++;
		p->data_period += items[i].period;
		if (t && same_item(t, &items[i])) {
			t->samples++;
			t->period += items[i].period;
			continue;
		}
		items[m] = items[i];
		items[m].first_weight = (uint32_t)i;
		m++;
	}
	return m;
}

int data_finish(struct data_collect *d, struct profile *p, data_dso_fn dso_of, void *ctx,
		bool (*keep)(void *ctx, uint32_t loc))
{
	struct profile_data *items = NULL;
	uint32_t *weights = NULL;
	struct data_vars vars = {0};
	struct var_cache vc = {0};
	struct dso *dso = NULL;
	uint32_t *ord = NULL, region = NO_REGION; /* the last kept sample's: vars are its */
	/* KEEP's answer per location, asked once (0 not yet, 1 kept, 2 not): a million samples
	 * have some thousands of locations. */
	uint8_t *kept = NULL;
	size_t n = 0;
	int ret = -ENOMEM;

	if (!d->nraw)
		return 0;
	ord = raw_order(d);
	items = malloc(d->nraw * sizeof(*items));
	want_huge_pages(items, d->nraw * sizeof(*items));
	kept = calloc(p->nlocations ? p->nlocations : 1, 1);
	if (!ord || !items || !kept)
		goto out;
	for (size_t i = 0; i < d->nraw; i++) {
		const struct data_raw *r = &d->raw[ord[i]];
		if (i + 16 < d->nraw) /* the samples are read out of order */
			__builtin_prefetch(&d->raw[ord[i + 16]]);
		if (!kept[r->loc])
			kept[r->loc] = keep(ctx, r->loc) ? 1 : 2;
		if (kept[r->loc] != 1)
			continue;
		/* A new region: an ELF image's variables, once. Compared with the last kept
		 * sample, not the previous one: a filtered-out sample loads nothing. */
		if (n == 0 || r->region != region) {
			region = r->region;
			/* RET, not a bare goto: a sample resolved before left it 0. */
			ret = enter_region(d, r, p, dso_of, ctx, &vars, &vc, &dso);
			if (ret < 0)
				goto out;
		}
		ret = resolve(d, r, dso, &vars, &vc, p->strings, &items[n]);
		if (ret < 0)
			goto out;
		n++;
	}
	ret = -ENOMEM;
	if (d->weighted && !(weights = malloc((n ? n : 1) * sizeof(*weights))))
		goto out;
	p->ndata = fold_items(p, items, n, weights);
	p->data = items;
	p->data_weights = weights;
	p->data_weighted = d->weighted;
	p->data_has_src = d->has_src;
	items = NULL;
	weights = NULL;
	ret = 0;
out:
	data_vars_release(&vars);
	free(kept);
	free(ord);
	free(items);
	free(weights);
	raw_free(d);
	return ret;
}

void data_release(struct data_collect *d)
{
	maps_free(d->maps);
	free(d->procs);
	free(d->regions);
	raw_free(d);
	memset(d, 0, sizeof(*d));
}
