/* calls.c - callers and line call costs from the stacks (calls.h). */
#include "calls.h"

#include "cli.h"
#include "textfmt.h"

#include <stdlib.h>
#include <string.h>

/* F's own line of location L: its line, or for inlined code the line of F that inlined it. */
static void own_line(const struct profile_loc *l, const char **file, int *line)
{
	if (l->inlined_into && l->function) {
		*file = l->call_file;
		*line = l->call_line;
	} else {
		*file = l->file;
		*line = l->line;
	}
}

static struct ann_caller *caller_slot(struct ann_calls *c, const char *fn, const char *file,
				      int line, size_t *cap)
{
	for (size_t i = 0; i < c->ncallers; i++)
		if (c->callers[i].function == fn && c->callers[i].file == file &&
		    c->callers[i].line == line)
			return &c->callers[i];
	if (c->ncallers == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		c->callers = xrealloc(c->callers, *cap * sizeof(*c->callers));
	}
	c->callers[c->ncallers] = (struct ann_caller){.function = fn, .file = file, .line = line};
	return &c->callers[c->ncallers++];
}

static int caller_cmp(const void *pa, const void *pb)
{
	const struct ann_caller *a = pa, *b = pb;

	int c;

	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	if ((c = hwprof_namecmp(a->function, b->function)) ||
	    (c = hwprof_namecmp(a->file, b->file)))
		return c;
	return (a->line > b->line) - (a->line < b->line);
}

void ann_calls_build(const struct ann_model *m, size_t func, struct ann_calls *c)
{
	const struct profile *p = m->profile;
	const size_t *fn = m->func_of_location;
	size_t ccap = 0, lcap = 0;

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *s = &p->stacks[i];
		uint32_t j = 0, k;

		while (j < s->n && fn[s->locs[j]] != func)
			j++;
		if (j == s->n)
			continue;
		c->samples += s->samples;
		c->period += s->period;
		/* The caller: the first frame outside F's innermost run of frames. */
		for (k = j + 1; k < s->n && fn[s->locs[k]] == func; k++)
			;
		{
			const struct profile_loc *l = k < s->n ? &p->locations[s->locs[k]] : NULL;
			struct ann_caller *cl =
			    caller_slot(c, l ? ann_charged_to(l) : NULL, l ? l->file : NULL,
					l ? l->line : 0, &ccap);
			cl->samples += s->samples;
			cl->period += s->period;
		}
		/* F's lines that make a call in this stack: its frames beyond the leaf. */
		for (k = j ? j : 1; k < s->n; k++) {
			const struct profile_loc *l = &p->locations[s->locs[k]], *callee;
			struct ann_line_calls *lc;
			const char *file;
			int line;

			if (fn[s->locs[k]] != func)
				continue;
			own_line(l, &file, &line);
			lc = (struct ann_line_calls *)ann_calls_at(c, file, line);
			if (!lc) {
				if (c->nlines == lcap) {
					lcap = lcap ? lcap * 2 : 16;
					c->lines = xrealloc(c->lines, lcap * sizeof(*c->lines));
				}
				lc = &c->lines[c->nlines++];
				*lc = (struct ann_line_calls){.file = file, .line = line};
			}
			if (lc->stamp == i + 1)
				continue; /* this stack counted on that line already */
			lc->stamp = i + 1;
			lc->samples += s->samples;
			lc->period += s->period;
			/* The callee: the frame inside this call. The hottest one seen is kept
			 * (a line calling two functions names the one that costs more, mostly). */
			callee = &p->locations[s->locs[k - 1]];
			if (!lc->callee || s->period > lc->callee_period) {
				lc->callee = ann_charged_to(callee);
				lc->callee_dso = callee->dso;
				lc->callee_period = s->period;
			}
		}
	}
	for (size_t i = 0; i < c->ncallers; i++)
		c->callers[i].share = c->period > 0 ? c->callers[i].period / c->period : 0;
	if (c->ncallers > 1)
		qsort(c->callers, c->ncallers, sizeof(*c->callers), caller_cmp);
}

const struct ann_line_calls *ann_calls_at(const struct ann_calls *c, const char *file, int line)
{
	for (size_t i = 0; i < c->nlines; i++)
		if (c->lines[i].file == file && c->lines[i].line == line)
			return &c->lines[i];
	return NULL;
}

void ann_calls_release(struct ann_calls *c)
{
	free(c->callers);
	free(c->lines);
	memset(c, 0, sizeof(*c));
}
