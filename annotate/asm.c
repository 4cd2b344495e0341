/* asm.c - one function's instructions with their samples (asm.h). */
#include "asm.h"

#include "cli.h"
#include "code.h"
#include "header.h"
#include "lines.h"
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum ann_skid ann_skid_of(const struct profile *p)
{
	const struct hwprof_file_event *e = profile_sampling_event(p);

	if (!e || !ann_event_is_hardware(e))
		return ANN_SKID_NONE;
	return e->precise_obtained ? ANN_SKID_EXACT : ANN_SKID_LIKELY;
}

/* One mapping's file: opened on first use, or why it cannot be. */
struct code_slot {
	bool tried;
	struct code_file *f;
	int err;
	char why[400];
};

struct ann_code {
	const struct ann_model *m;
	const char **dirs;
	size_t ndirs;
	struct code_slot *slots; /* by profile mapping index */
	size_t nslots;
};

struct ann_code *ann_code_new(const struct ann_model *m, const char **dirs, size_t ndirs)
{
	struct ann_code *c = xcalloc(1, sizeof(*c));

	c->m = m;
	c->dirs = dirs;
	c->ndirs = ndirs;
	c->nslots = m->profile->nmappings;
	c->slots = xcalloc(c->nslots ? c->nslots : 1, sizeof(*c->slots));
	return c;
}

void ann_code_free(struct ann_code *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nslots; i++)
		code_close(c->slots[i].f);
	free(c->slots);
	free(c);
}

static struct code_slot *code_get(struct ann_code *c, uint32_t mapping)
{
	struct code_slot *s;

	if (mapping >= c->nslots)
		return NULL;
	s = &c->slots[mapping];
	if (!s->tried) {
		s->tried = true;
		s->err = code_open_profile(&s->f, c->m->profile, mapping, c->dirs, c->ndirs, s->why,
					   sizeof(s->why));
		if (s->err == -ENOMEM)
			die("out of memory");
	}
	return s;
}

static char *keep(struct ann_asm *a, const char *s)
{
	if (!s)
		return NULL;
	if (a->nowned % 64 == 0)
		a->owned = xrealloc(a->owned, (a->nowned + 64) * sizeof(*a->owned));
	return a->owned[a->nowned++] = xstrdup(s);
}

size_t ann_asm_find(const struct ann_asm *a, uint64_t addr)
{
	size_t lo = 0, hi = a->n;

	while (lo < hi) { /* the first instruction above ADDR */
		size_t mid = lo + (hi - lo) / 2;
		if (a->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr - a->v[lo - 1].addr < a->v[lo - 1].size)
		return lo - 1;
	return (size_t)-1;
}

static int by_addr(const void *pa, const void *pb)
{
	const struct ann_insn *a = pa, *b = pb;

	return (a->addr > b->addr) - (a->addr < b->addr);
}

/* Adds the instructions of the symbol holding ADDR to A. */
static void read_symbol(struct ann_asm *a, struct code_file *f, uint64_t addr, size_t *cap)
{
	struct code_func fn;
	char why[400];
	int rc = code_function(f, addr, &fn, why, sizeof(why));

	if (rc == -ENOMEM)
		die("out of memory");
	if (rc < 0) {
		if (!a->why[0])
			snprintf(a->why, sizeof(a->why), "%s", why);
		return;
	}
	for (size_t i = 0; i < fn.n; i++) {
		const struct code_insn *ci = &fn.v[i];
		struct ann_insn *in;

		if (a->n == *cap) {
			*cap = *cap ? *cap * 2 : 256;
			a->v = xrealloc(a->v, *cap * sizeof(*a->v));
		}
		in = &a->v[a->n++];
		*in = (struct ann_insn){.addr = ci->in.addr,
					.size = ci->in.size,
					.flags = ci->in.flags,
					.text = keep(a, ci->text),
					.sym = fn.name,
					.off = ci->in.addr - fn.start,
					.target = ci->in.target,
					.jump_to = (size_t)-1};
		if ((ci->in.flags & DISASM_CALL) && ci->target_name)
			in->callee = ci->target_name;
	}
	code_func_release(&fn);
}

/* Each instruction's line, as the profile's locations get theirs (annotate loads the profile
 * with INLINE_CALLEE: the innermost frame's line, its function when inlined). */
static void fill_lines(struct ann_asm *a, struct code_file *f)
{
	for (size_t i = 0; i < a->n; i++) {
		struct ann_insn *in = &a->v[i];
		struct sym_result r;

		if (code_lookup(f, in->addr, INLINE_CALLEE, &r) < 0)
			die("out of memory");
		in->file = r.file;
		in->line = r.file ? r.line : 0;
		in->inl = r.inlined_into && r.function ? r.function : NULL;
		a->have_lines |= r.file != NULL;
	}
}

/* Jumps within the function: each marks its target; hot when the jump or its target is hot,
 * or, jumping back, the loop's body between them. */
static void mark_jumps(struct ann_asm *a)
{
	for (size_t i = 0; i < a->n; i++) {
		struct ann_insn *in = &a->v[i];
		size_t t, lo, hi;
		bool hot = false;

		if (!(in->flags & DISASM_JUMP) || !(in->flags & DISASM_TARGET))
			continue;
		t = ann_asm_find(a, in->target);
		if (t == (size_t)-1 || a->v[t].addr != in->target)
			continue;
		in->jump_to = t;
		a->v[t].jump_target = true;
		lo = t < i ? t : i;
		hi = t < i ? i : t;
		hot = a->v[i].hot || a->v[t].hot;
		for (size_t k = lo; t < i && k <= hi && !hot; k++)
			hot = a->v[k].hot;
		a->v[t].hot_jump_target |= hot;
	}
}

/* With skid, the sampled IP is the instruction after the one that caused the event, or a few
 * after it (the PMU's interrupt is taken later): the nearest memory access before each hot
 * instruction, within ANN_SKID_WINDOW instructions, is the likely cause. */
static void mark_skid(struct ann_asm *a)
{
	for (size_t i = 0; i < a->n; i++) {
		if (!a->v[i].hot)
			continue;
		for (size_t k = i; k-- > 0 && i - k <= ANN_SKID_WINDOW;) {
			if (a->v[k].flags & (DISASM_MEM_READ | DISASM_MEM_WRITE)) {
				a->v[k].skid_cause = true;
				break;
			}
		}
	}
}

void ann_asm_build(struct ann_asm *a, struct ann_code *c, const struct ann_model *m, size_t func)
{
	const struct ann_func *fn = &m->funcs[func];
	double total = m->profile->period;
	struct code_slot *slot;
	uint64_t *starts = NULL;
	size_t cap = 0, nstarts = 0, capstarts = 0;

	memset(a, 0, sizeof(*a));
	a->skid = ann_skid_of(m->profile);
	if (!fn->nlocs)
		return;
	slot = code_get(c, m->locs[fn->first]->mapping);
	if (!slot || !slot->f) {
		snprintf(a->why, sizeof(a->why), "%s",
			 slot ? slot->why : "no file for its mapping");
		for (size_t i = 0; i < fn->nlocs; i++)
			a->samples_outside += m->locs[fn->first + i]->samples;
		return;
	}
	/* Every symbol holding one of its sampled addresses, each read once. */
	for (size_t i = 0; i < fn->nlocs; i++) {
		uint64_t addr = m->locs[fn->first + i]->addr, off = 0;
		bool seen = false;

		if (ann_asm_find(a, addr) != (size_t)-1)
			continue;
		if (!code_symbol(slot->f, addr, &off)) {
			if (!a->why[0])
				snprintf(a->why, sizeof(a->why),
					 "no function symbol and no call frame information holds "
					 "0x%llx in %s",
					 (unsigned long long)addr, fn->dso);
			continue;
		}
		for (size_t k = 0; k < nstarts && !seen; k++)
			seen = starts[k] == addr - off;
		if (seen)
			continue;
		xgrow(&starts, &capstarts, nstarts + 1, sizeof(*starts));
		starts[nstarts++] = addr - off;
		read_symbol(a, slot->f, addr, &cap);
		if (a->n)
			qsort(a->v, a->n, sizeof(*a->v), by_addr);
	}
	free(starts);
	fill_lines(a, slot->f);
	for (size_t i = 0; i < fn->nlocs; i++) {
		const struct profile_loc *l = m->locs[fn->first + i];
		size_t k = ann_asm_find(a, l->addr);

		if (k == (size_t)-1) {
			a->samples_outside += l->samples;
			continue;
		}
		a->v[k].samples += l->samples;
		a->v[k].period += l->period;
	}
	for (size_t i = 0; i < a->n; i++) {
		struct ann_insn *in = &a->v[i];

		in->share_func = fn->period > 0 ? in->period / fn->period : 0;
		in->share_total = total > 0 ? in->period / total : 0;
		in->heat = in->samples ? (int)ann_heat_of(in->share_func) : ANN_HEAT_NONE;
		in->hot = in->heat >= ANN_HEAT_WARM;
	}
	mark_jumps(a);
	if (a->skid == ANN_SKID_LIKELY)
		mark_skid(a);
	if (a->samples_outside && (!a->why[0] || a->n))
		snprintf(a->why, sizeof(a->why),
			 "%llu samples at addresses outside the function's symbols",
			 (unsigned long long)a->samples_outside);
}

void ann_asm_release(struct ann_asm *a)
{
	for (size_t i = 0; i < a->nowned; i++)
		free(a->owned[i]);
	free(a->owned);
	free(a->v);
	memset(a, 0, sizeof(*a));
}
