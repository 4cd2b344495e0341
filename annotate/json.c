/* json.c - annotate's model as JSON (--stdio --format json): the rows of each function's view,
 * for scripts, through the streaming writer (json.h), compact, on one line. Numbers are raw
 * (samples, period, shares 0..1). */
#include "header.h"
#include "json.h"
#include "output.h"
#include "views.h"

#include <errno.h>
#include <stdio.h>

static const char *const kinds[] = {
    [ANN_ROW_LINE] = "line", [ANN_ROW_TITLE] = "title",	     [ANN_ROW_GAP] = "gap",
    [ANN_ROW_NOTE] = "note", [ANN_ROW_INSN] = "instruction",
};

static void insn_fields(struct hwprof_jw *j, const struct ann_insn *in)
{
	const char *mem = NULL;
	unsigned rw = in->flags & (DISASM_MEM_READ | DISASM_MEM_WRITE);
	char addr[32];

	if (rw == (DISASM_MEM_READ | DISASM_MEM_WRITE))
		mem = "read+write";
	else if (rw)
		mem = rw == DISASM_MEM_READ ? "read" : "write";
	snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)in->addr);
	hwprof_jw_str(j, "address", addr);
	hwprof_jw_str(j, "symbol", in->sym);
	hwprof_jw_uint(j, "offset", in->off);
	hwprof_jw_str(j, "text", in->text);
	hwprof_jw_str(j, "memory", mem);
	hwprof_jw_str(j, "call", in->callee);
	hwprof_jw_bool(j, "jump_target", in->jump_target);
	hwprof_jw_bool(j, "hot_jump_target", in->hot_jump_target);
	hwprof_jw_bool(j, "skid_cause", in->skid_cause);
}

static void print_row(struct hwprof_jw *j, const struct ann_row *r)
{
	hwprof_jw_object(j, NULL);
	hwprof_jw_str(j, "kind", kinds[r->kind]);
	if (r->kind == ANN_ROW_LINE || r->kind == ANN_ROW_INSN) {
		hwprof_jw_str(j, "file", r->file);
		hwprof_jw_int(j, "line", r->line);
		hwprof_jw_uint(j, "samples", r->samples);
		hwprof_jw_double(j, "period", r->period, 6);
		hwprof_jw_double(j, "share_function", r->share_func, 6);
		hwprof_jw_double(j, "share_total", r->share_total, 6);
	}
	if (r->kind == ANN_ROW_INSN)
		insn_fields(j, r->insn);
	else
		hwprof_jw_str(j, "text", r->text);
	hwprof_jw_end(j);
}

static void print_function(struct hwprof_jw *j, const struct ann_model *m, struct source_cache *src,
			   struct ann_code *code, enum ann_view_mode mode, size_t fi)
{
	const struct ann_func *fn = &m->funcs[fi];
	struct ann_view *v = ann_view_build_mode(m, fi, src, code, mode);

	hwprof_jw_object(j, NULL);
	hwprof_jw_str(j, "name", fn->name);
	hwprof_jw_str(j, "dso", fn->dso);
	hwprof_jw_uint(j, "samples", fn->samples);
	hwprof_jw_double(j, "period", fn->period, 6);
	hwprof_jw_double(j, "share", fn->share, 6);
	hwprof_jw_str(j, "view", ann_view_mode_name(v->mode));
	hwprof_jw_array(j, "rows");
	for (size_t i = 0; i < v->nrows; i++)
		print_row(j, &v->rows[i]);
	hwprof_jw_end(j);
	hwprof_jw_end(j);
	ann_view_free(v);
}

int ann_json(FILE *out, const struct ann_model *m, struct source_cache *src, struct ann_code *code,
	     enum ann_view_mode mode, const size_t *funcs, size_t nfuncs, size_t more)
{
	const struct hwprof_file_event *e = profile_sampling_event(m->profile);
	struct hwprof_jw j;

	hwprof_jw_init(&j, out, true);
	hwprof_jw_object(&j, NULL);
	hwprof_jw_version(&j);
	hwprof_jw_str(&j, "event", e ? e->name : NULL);
	hwprof_jw_uint(&j, "precise_ip", e ? e->precise_obtained : 0);
	hwprof_jw_uint(&j, "samples", m->profile->samples);
	hwprof_jw_double(&j, "period", m->profile->period, 6);
	hwprof_jw_str(&j, "view", ann_view_mode_name(mode));
	hwprof_jw_array(&j, "functions");
	for (size_t i = 0; i < nfuncs; i++)
		print_function(&j, m, src, code, mode, funcs[i]);
	hwprof_jw_end(&j);
	hwprof_jw_uint(&j, "more_functions", more);
	hwprof_jw_end(&j);
	fputc('\n', out);
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}
