/* resolve.c - a location's symbolization into the profile, and profile_resolve() (resolve.h). */
#include "resolve.h"

#include "dso.h"
#include "grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void loc_set_result(struct profile_loc *loc, const struct sym_result *r)
{
	loc->function = r->function;
	loc->inlined_into = r->inlined_into;
	loc->file = r->file;
	loc->line = r->line;
	loc->call_file = r->call_file;
	loc->call_line = r->call_line;
	loc->unknown = !r->function && !r->file;
}

int lines_append(struct profile *p, struct fn_table *fns, const struct sym_frame *f, uint32_t n,
		 struct profile_loc *loc)
{
	loc->first_line = (uint32_t)p->nlines;
	loc->nlines = n;
	for (uint32_t j = 0; j < n; j++) {
		struct profile_function fn = {.name = f[j].function,
					      .system_name = f[j].linkage,
					      .file = f[j].decl_file,
					      .start_line = f[j].decl_line};
		struct profile_line *l = &p->lines[p->nlines++];

		*l = (struct profile_line){.file = f[j].file, .line = f[j].line};
		if (fn_table_intern(fns, &fn, &l->function) < 0)
			return -ENOMEM;
	}
	return 0;
}

void profile_lazy_free(struct profile_lazy *z)
{
	if (!z)
		return;
	free(z->pending);
	free(z->loc_index);
	free(z);
}

/* P's function table again, from profile.functions (the same ids: insertion order). */
static int functions_table(const struct profile *p, struct fn_table *fns)
{
	uint32_t id;

	if (fn_table_init(fns) < 0)
		return -ENOMEM;
	for (size_t i = 1; i < p->nfunctions; i++)
		if (fn_table_intern(fns, &p->functions[i], &id) < 0)
			return -ENOMEM;
	return 0;
}

int profile_resolve(struct profile *p, const uint32_t *ids, size_t n)
{
	struct profile_lazy *z = p->lazy;
	struct fn_table fns = {0};
	struct sym_result r;
	size_t todo = 0;
	int ret = -ENOMEM;

	if (!z || !p->dsos)
		return 0;
	for (size_t i = 0; i < n; i++)
		todo += ids[i] < p->nlocations && z->pending[ids[i]];
	if (!todo)
		return 0;
	if (!z->loc_index) {
		if (!(z->loc_index = calloc(p->nlocations ? p->nlocations : 1, sizeof(uint32_t))))
			return -ENOMEM;
		for (size_t i = 0; i < p->nlocs; i++)
			z->loc_index[p->locs[i].id] = (uint32_t)i + 1;
	}
	if (functions_table(p, &fns) < 0) {
		fn_table_release(&fns);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t id = ids[i];
		struct profile_loc *loc;

		if (id >= p->nlocations || !z->pending[id])
			continue;
		loc = &p->locations[id];
		if (dso_sym_lookup(&p->dsos->v[loc->mapping], loc->addr, z->mode, p->strings, &r) <
			0 ||
		    hwprof_grow((void **)&p->lines, &z->lines_cap, p->nlines + (size_t)r.nchain,
				sizeof(*p->lines)) < 0)
			goto out;
		loc_set_result(loc, &r);
		if (lines_append(p, &fns, r.chain, (uint32_t)r.nchain, loc) < 0)
			goto out;
		z->pending[id] = false;
		if (z->loc_index[id]) {
			struct profile_loc *copy = &p->locs[z->loc_index[id] - 1];
			uint64_t samples = copy->samples;
			double period = copy->period;

			*copy = *loc;
			copy->samples = samples;
			copy->period = period;
		}
	}
	ret = 0;
out:
	/* The lines appended so far name functions of FNS: the table is kept either way. */
	free(p->functions);
	p->functions = fns.v;
	p->nfunctions = fns.n;
	fns.v = NULL;
	fn_table_release(&fns);
	return ret;
}
