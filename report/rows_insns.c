/* rows_insns.c - the instruction text of --sort addr rows (rows_insns.h). */
#include "rows_insns.h"

#include "code.h"
#include "grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A function read, and the mapping it is in. */
struct read_func {
	uint32_t mapping;
	struct code_func f;
};

struct rows_insns {
	struct code_file **files; /* by mapping; NULL: not opened (or not readable) */
	bool *tried;
	size_t nfiles;
	struct read_func *funcs; /* every function read, kept for their texts */
	size_t nfuncs, capfuncs;
};

void rows_insns_free(struct rows_insns *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nfiles; i++)
		code_close(r->files[i]);
	for (size_t i = 0; i < r->nfuncs; i++)
		code_func_release(&r->funcs[i].f);
	free(r->files);
	free(r->tried);
	free(r->funcs);
	free(r);
}

/* The instruction of F at ADDR, or NULL. */
static const struct code_insn *insn_at(const struct code_func *f, uint64_t addr)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->v[mid].in.addr == addr)
			return &f->v[mid];
		if (f->v[mid].in.addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The function of mapping M holding ADDR, read once (the rows are few: --limit). NULL when
 * it cannot be read; -ENOMEM in *ERR. */
static const struct code_func *func_at(struct rows_insns *r, uint32_t m, uint64_t addr, int *err)
{
	struct code_func fn;
	char why[512];
	int rc;

	for (size_t i = 0; i < r->nfuncs; i++)
		if (r->funcs[i].mapping == m && addr - r->funcs[i].f.start < r->funcs[i].f.size)
			return &r->funcs[i].f;
	rc = code_function(r->files[m], addr, &fn, why, sizeof(why));
	if (rc < 0) {
		*err = rc == -ENOMEM ? rc : 0;
		return NULL;
	}
	if (hwprof_grow((void **)&r->funcs, &r->capfuncs, r->nfuncs + 1, sizeof(*r->funcs)) < 0) {
		code_func_release(&fn);
		*err = -ENOMEM;
		return NULL;
	}
	r->funcs[r->nfuncs] = (struct read_func){.mapping = m, .f = fn};
	return &r->funcs[r->nfuncs++].f;
}

struct rows_insns *rows_insns_fill(const struct profile *p, struct profile_row *rows, size_t n,
				   const char **dirs, size_t ndirs)
{
	struct rows_insns *r = calloc(1, sizeof(*r));
	char why[512];
	int err = 0;

	if (!r)
		return NULL;
	r->nfiles = p->nmappings;
	r->files = calloc(r->nfiles ? r->nfiles : 1, sizeof(*r->files));
	r->tried = calloc(r->nfiles ? r->nfiles : 1, sizeof(*r->tried));
	if (!r->files || !r->tried)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		struct profile_row *row = &rows[i];
		const struct code_func *f;
		const struct code_insn *in;
		uint32_t m = row->mapping;

		row->insn = NULL;
		if (row->addr_mixed || row->unknown || m >= r->nfiles)
			continue;
		if (!r->tried[m]) {
			r->tried[m] = true;
			if (code_open_profile(&r->files[m], p, m, dirs, ndirs, why, sizeof(why)) ==
			    -ENOMEM)
				goto nomem;
		}
		if (!r->files[m])
			continue;
		f = func_at(r, m, row->addr, &err);
		if (err)
			goto nomem;
		in = f ? insn_at(f, row->addr) : NULL;
		row->insn = in ? in->text : NULL;
	}
	return r;
nomem:
	rows_insns_free(r);
	return NULL;
}
