/* json.c - annotate's model as JSON (--stdio --format json): the rows of each function's view,
 * for scripts. Numbers are raw (samples, period, shares 0..1); strings are JSON-escaped. */
#include "header.h"
#include "json.h"
#include "output.h"
#include "textfmt.h"
#include "views.h"

#include <errno.h>
#include <stdio.h>

static const char *const kinds[] = {
    [ANN_ROW_LINE] = "line", [ANN_ROW_TITLE] = "title",	     [ANN_ROW_GAP] = "gap",
    [ANN_ROW_NOTE] = "note", [ANN_ROW_INSN] = "instruction",
};

static void num_field(FILE *out, const char *name, double v)
{
	fprintf(out, ",\"%s\":", name);
	hwprof_json_double(out, v, 6);
}

static void insn_fields(FILE *out, const struct ann_insn *in)
{
	const char *mem = NULL;
	unsigned rw = in->flags & (DISASM_MEM_READ | DISASM_MEM_WRITE);

	if (rw == (DISASM_MEM_READ | DISASM_MEM_WRITE))
		mem = "read+write";
	else if (rw)
		mem = rw == DISASM_MEM_READ ? "read" : "write";
	fprintf(out, ",\"address\":\"0x%llx\",\"symbol\":", (unsigned long long)in->addr);
	hwprof_json_str(out, in->sym);
	fprintf(out, ",\"offset\":%llu,\"text\":", (unsigned long long)in->off);
	hwprof_json_str(out, in->text);
	fputs(",\"memory\":", out);
	hwprof_json_str(out, mem);
	fputs(",\"call\":", out);
	hwprof_json_str(out, in->callee);
	fprintf(out, ",\"jump_target\":%s,\"hot_jump_target\":%s,\"skid_cause\":%s",
		in->jump_target ? "true" : "false", in->hot_jump_target ? "true" : "false",
		in->skid_cause ? "true" : "false");
}

static void print_row(FILE *out, const struct ann_row *r)
{
	fprintf(out, "{\"kind\":\"%s\"", kinds[r->kind]);
	if (r->kind == ANN_ROW_LINE || r->kind == ANN_ROW_INSN) {
		fputs(",\"file\":", out);
		hwprof_json_str(out, r->file);
		fprintf(out, ",\"line\":%d,\"samples\":%llu", r->line,
			(unsigned long long)r->samples);
		num_field(out, "period", r->period);
		num_field(out, "share_function", r->share_func);
		num_field(out, "share_total", r->share_total);
	}
	if (r->kind == ANN_ROW_INSN)
		insn_fields(out, r->insn);
	else {
		fputs(",\"text\":", out);
		hwprof_json_str(out, r->text);
	}
	fputc('}', out);
}

static void print_function(FILE *out, const struct ann_model *m, struct source_cache *src,
			   struct ann_code *code, enum ann_view_mode mode, size_t fi)
{
	const struct ann_func *fn = &m->funcs[fi];
	struct ann_view *v = ann_view_build_mode(m, fi, src, code, mode);

	fputs("{\"name\":", out);
	hwprof_json_str(out, fn->name);
	fputs(",\"dso\":", out);
	hwprof_json_str(out, fn->dso);
	fprintf(out, ",\"samples\":%llu", (unsigned long long)fn->samples);
	num_field(out, "period", fn->period);
	num_field(out, "share", fn->share);
	fprintf(out, ",\"view\":\"%s\",\"rows\":[", ann_view_mode_name(v->mode));
	for (size_t i = 0; i < v->nrows; i++) {
		if (i)
			fputc(',', out);
		print_row(out, &v->rows[i]);
	}
	fputs("]}", out);
	ann_view_free(v);
}

int ann_json(FILE *out, const struct ann_model *m, struct source_cache *src, struct ann_code *code,
	     enum ann_view_mode mode, const size_t *funcs, size_t nfuncs, size_t more)
{
	const struct hwprof_file_event *e = profile_sampling_event(m->profile);

	fprintf(out, "{\"version\":%d,\"event\":", HWPROF_JSON_VERSION);
	hwprof_json_str(out, e ? e->name : NULL);
	fprintf(out, ",\"precise_ip\":%u,\"samples\":%llu", e ? e->precise_obtained : 0,
		(unsigned long long)m->profile->samples);
	num_field(out, "period", m->profile->period);
	fprintf(out, ",\"view\":\"%s\",\"functions\":[", ann_view_mode_name(mode));
	for (size_t i = 0; i < nfuncs; i++) {
		if (i)
			fputc(',', out);
		print_function(out, m, src, code, mode, funcs[i]);
	}
	fprintf(out, "],\"more_functions\":%zu}\n", more);
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}
