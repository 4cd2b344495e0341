/* funcs.c - the function list of a profile, and finding functions by name (funcs.h). */
#include "funcs.h"

#include "cli.h"
#include "closest.h"
#include "funcname.h"
#include "keymap.h"
#include "textfmt.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static bool is_inlined(const struct profile_loc *l)
{
	return l->inlined_into && l->function;
}

const char *ann_charged_to(const struct profile_loc *l)
{
	if (l->inlined_into)
		return l->inlined_into;
	return l->function ? l->function : "[unknown]";
}

static int func_cmp(const void *pa, const void *pb)
{
	const struct ann_func *a = pa, *b = pb;
	int c;

	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	c = strcmp(a->name, b->name);
	return c ? c : hwprof_namecmp(a->dso, b->dso);
}

struct ann_model *ann_model_build(const struct profile *p)
{
	struct ann_model *m = xcalloc(1, sizeof(*m));
	size_t *func_of = xmalloc((p->nlocs ? p->nlocs : 1) * sizeof(*func_of));
	size_t *fill;
	struct keymap funcs, inl;
	size_t ninl = 0;

	m->profile = p;
	keymap_init(&funcs, 64);
	keymap_init(&inl, 64);
	m->funcs = xmalloc((p->nlocs ? p->nlocs : 1) * sizeof(*m->funcs));
	for (size_t i = 0; i < p->nlocs; i++) {
		const struct profile_loc *l = &p->locs[i];
		size_t f = keymap_get_or_add(&funcs, l->dso, ann_charged_to(l), NULL, m->nfuncs);

		if (f == m->nfuncs)
			m->funcs[m->nfuncs++] = (struct ann_func){.name = ann_charged_to(l),
								  .dso = l->dso ? l->dso : ""};
		func_of[i] = f;
		m->funcs[f].samples += l->samples;
		m->funcs[f].period += l->period;
		m->funcs[f].nlocs++;
		/* Distinct inline functions per function. */
		if (is_inlined(l)) {
			keymap_get_or_add(&inl, l->dso, ann_charged_to(l), l->function, 0);
			if (inl.n > ninl) { /* a new key */
				ninl = inl.n;
				m->funcs[f].ninlined++;
			}
		}
	}
	/* Group the locations by function: a counting sort, locations keep their period order. */
	fill = xcalloc(m->nfuncs ? m->nfuncs : 1, sizeof(*fill));
	for (size_t f = 0, at = 0; f < m->nfuncs; f++) {
		m->funcs[f].first = at;
		at += m->funcs[f].nlocs;
	}
	m->locs = xmalloc((p->nlocs ? p->nlocs : 1) * sizeof(*m->locs));
	for (size_t i = 0; i < p->nlocs; i++) {
		struct ann_func *f = &m->funcs[func_of[i]];

		m->locs[f->first + fill[func_of[i]]++] = &p->locs[i];
	}
	for (size_t f = 0; f < m->nfuncs; f++)
		m->funcs[f].share = p->period > 0 ? m->funcs[f].period / p->period : 0;
	qsort(m->funcs, m->nfuncs, sizeof(*m->funcs), func_cmp);
	keymap_release(&inl);
	keymap_release(&funcs);
	/* Each location's function once, for the stacks' walks (calls.c). */
	keymap_init(&funcs, m->nfuncs);
	for (size_t f = 0; f < m->nfuncs; f++)
		keymap_get_or_add(&funcs, m->funcs[f].dso, m->funcs[f].name, NULL, f);
	m->func_of_location = xmalloc((p->nlocations ? p->nlocations : 1) * sizeof(size_t));
	for (size_t i = 0; i < p->nlocations; i++)
		m->func_of_location[i] = keymap_find(&funcs, p->locations[i].dso,
						     ann_charged_to(&p->locations[i]), NULL);
	keymap_release(&funcs);
	free(fill);
	free(func_of);
	return m;
}

struct ann_model *ann_model_build_lazy(struct profile *p)
{
	struct ann_model *m = ann_model_build(p);

	if (p->lazy) {
		m->lazy = p;
		m->resolved = xcalloc(m->nfuncs ? m->nfuncs : 1, sizeof(*m->resolved));
	}
	return m;
}

void ann_model_resolve(const struct ann_model *m, size_t func)
{
	struct ann_func *fn = &m->funcs[func];
	uint32_t *ids;
	struct keymap inl;

	if (!m->lazy || m->resolved[func])
		return;
	ids = xmalloc((fn->nlocs ? fn->nlocs : 1) * sizeof(*ids));
	for (size_t i = 0; i < fn->nlocs; i++)
		ids[i] = m->locs[fn->first + i]->id;
	if (profile_resolve(m->lazy, ids, fn->nlocs) < 0)
		die("out of memory");
	free(ids);
	/* Its inline functions, now known (ann_model_build counts them the same way). */
	keymap_init(&inl, 16);
	for (size_t i = 0; i < fn->nlocs; i++) {
		const struct profile_loc *l = m->locs[fn->first + i];

		if (is_inlined(l))
			keymap_get_or_add(&inl, l->dso, ann_charged_to(l), l->function, 0);
	}
	fn->ninlined = inl.n;
	keymap_release(&inl);
	m->resolved[func] = true;
}

void ann_model_free(struct ann_model *m)
{
	if (!m)
		return;
	free(m->resolved);
	free(m->funcs);
	free(m->locs);
	free(m->func_of_location);
	free(m);
}

/* The last "::" part of a base name: "ns::Box::work" -> "work". */
static const char *last_part(const char *base)
{
	const char *last = base;

	for (const char *s = base; (s = strstr(s, "::")); s += 2)
		last = s + 2;
	return last;
}

const char *ann_name_ident(const char *name, char *buf, size_t len)
{
	return last_part(fn_base_name(name, buf, len));
}

long ann_model_find(const struct ann_model *m, const char *name, size_t *out, size_t max,
		    char *cands, size_t len)
{
	const char **names = xmalloc((m->nfuncs ? m->nfuncs : 1) * sizeof(*names));
	bool *pick = xmalloc((m->nfuncs ? m->nfuncs : 1) * sizeof(*pick));
	char none[1];
	struct fn_query q;
	long found = 0;
	int got;

	for (size_t i = 0; i < m->nfuncs; i++)
		names[i] = m->funcs[i].name;
	fn_query_init(&q, name);
	got = fn_pick(&q, names, m->nfuncs, pick, cands ? cands : none, cands ? len : 1);
	fn_query_release(&q);
	for (size_t i = 0; got > 0 && i < m->nfuncs; i++) {
		if (!pick[i])
			continue;
		if ((size_t)found < max)
			out[found] = i;
		found++;
	}
	free(names);
	free(pick);
	return got < 0 ? got : found;
}

long ann_model_find_inlined(const struct ann_model *m, const char *name, size_t *out, size_t max)
{
	struct fn_query q;
	long found = 0;

	fn_query_init(&q, name);
	for (size_t i = 0; i < m->nfuncs; i++) {
		const struct ann_func *f = &m->funcs[i];

		for (size_t k = f->first; k < f->first + f->nlocs; k++) {
			const struct profile_loc *l = m->locs[k];

			if (!is_inlined(l) || fn_query_match(&q, l->function) == FN_MATCH_NONE)
				continue;
			if ((size_t)found < max)
				out[found] = i;
			found++;
			break;
		}
	}
	fn_query_release(&q);
	return found;
}

size_t ann_model_closest(const struct ann_model *m, const char *name, size_t *out, size_t max)
{
	size_t *score, stored = 0;

	if (!max || !m->nfuncs)
		return 0;
	score = xmalloc(max * sizeof(*score));
	for (size_t i = 0; i < m->nfuncs; i++) {
		const char *fn = m->funcs[i].name, *last;
		char base[1024];
		size_t d, d2, pos;

		/* Scored on the base name: a return type or parameter list is no part of what
		 * the user would type. */
		fn_base_name(fn, base, sizeof(base));
		last = last_part(base);
		d = hwprof_edit_distance_n(base, strlen(base), name, strlen(name));
		d2 = hwprof_edit_distance_n(last, strlen(last), name, strlen(name));
		d = d2 < d ? d2 : d;
		if (strcasestr(fn, name))
			d = 0;
		/* Insertion into the sorted top MAX; ties keep the hotter function first. */
		if (stored == max && d >= score[max - 1])
			continue;
		pos = stored < max ? stored++ : max - 1;
		while (pos > 0 && score[pos - 1] > d) {
			score[pos] = score[pos - 1];
			out[pos] = out[pos - 1];
			pos--;
		}
		score[pos] = d;
		out[pos] = i;
	}
	free(score);
	return stored;
}

bool ann_text_matches(const char *text, const char *pattern)
{
	for (const char *p = pattern; *p; p++)
		if (isupper((unsigned char)*p))
			return strstr(text, pattern) != NULL;
	return strcasestr(text, pattern) != NULL;
}
