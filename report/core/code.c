/* code.c - a mapped file's machine code (code.h). */
#include "code.h"

#include "dso.h"
#include "strpool.h"

#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct code_file {
	struct strpool *pool;
	struct dso_table dsos; /* the one DSO read, at index 2 (the table's reserved ones
				* before it); empty when D is the profile's */
	struct dso *d;
	struct disasm *dis;
	Elf *elf;
	uint64_t bias;
};

void code_close(struct code_file *f)
{
	if (!f)
		return;
	disasm_close(f->dis);
	dso_table_release(&f->dsos);
	strpool_free(f->pool);
	free(f);
}

/* Opens D for F (the profile's DSO or F's own): checked, opened for symbols, its ELF
 * header's machine a disassembler. M is the mapping D stands for. */
static int open_dso(struct code_file *f, const struct profile_mapping *m, const char **dirs,
		    size_t ndirs, char *why, size_t whylen)
{
	GElf_Ehdr eh;
	bool has_dwarf;
	int rc;

	/* The profile read the file and found it the recorded build (bias_known); without a
	 * recorded build-id that is all there is to know. */
	if (f->d->state != DSO_OK && dso_check(f->d, why, whylen) < 0)
		return f->d->state == DSO_MISMATCH ? -ESTALE : -ENOENT;
	if (!m->bias_known) {
		snprintf(why, whylen, "%s: not the recorded build, or unreadable", m->file);
		return -ESTALE;
	}
	if (!f->d->sym && (rc = dso_sym_open(f->d, dirs, ndirs, &has_dwarf, why, whylen)) < 0)
		return rc == -ENOMEM ? rc : -ENOENT;
	f->elf = dso_sym_elf(f->d, &f->bias);
	if (!f->elf || !gelf_getehdr(f->elf, &eh)) {
		snprintf(why, whylen, "%s: libelf cannot read its header: %s", m->file,
			 elf_errmsg(-1));
		return -ENOENT;
	}
	rc = disasm_open(&f->dis, eh.e_machine, why, whylen);
	if (rc == -ENOMEM)
		snprintf(why, whylen, "%s: out of memory", m->file);
	return rc;
}

int code_open(struct code_file **out, const struct profile_mapping *m, const char **dirs,
	      size_t ndirs, char *why, size_t whylen)
{
	struct code_file *f = calloc(1, sizeof(*f));
	int id, rc = -ENOMEM;

	*out = NULL;
	if (!f || !(f->pool = strpool_new()) || dso_table_init(&f->dsos, f->pool) < 0)
		goto fail_nomem;
	id = dso_table_get(&f->dsos, f->pool, m->file, m->build_id, m->build_id_size, NULL);
	if (id < 0)
		goto fail_nomem;
	f->d = &f->dsos.v[id];
	if (f->d->state == DSO_PSEUDO || id < 2) {
		snprintf(why, whylen, "%s: no file to read the code from", m->file);
		rc = -ENOENT;
		goto fail;
	}
	rc = open_dso(f, m, dirs, ndirs, why, whylen);
	if (rc < 0)
		goto fail;
	*out = f;
	return 0;
fail_nomem:
	snprintf(why, whylen, "%s: out of memory", m->file);
	rc = -ENOMEM;
fail:
	code_close(f);
	return rc;
}

int code_open_profile(struct code_file **out, const struct profile *p, uint32_t mapping,
		      const char **dirs, size_t ndirs, char *why, size_t whylen)
{
	const struct profile_mapping *m = &p->mappings[mapping];
	struct code_file *f;
	int rc;

	if (!p->dsos || mapping >= p->dsos->n)
		return code_open(out, m, dirs, ndirs, why, whylen);
	*out = NULL;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->pool = strpool_new())) {
		free(f);
		snprintf(why, whylen, "%s: out of memory", m->file);
		return -ENOMEM;
	}
	f->d = &p->dsos->v[mapping];
	if (f->d->state == DSO_PSEUDO || mapping <= DSO_ID_KERNEL) {
		snprintf(why, whylen, "%s: no file to read the code from", m->file);
		rc = -ENOENT;
	} else {
		rc = open_dso(f, m, dirs, ndirs, why, whylen);
	}
	if (rc < 0) {
		code_close(f);
		return rc;
	}
	*out = f;
	return 0;
}

/* Copies the LEN bytes at link-time address ADDR from the section of F's file that holds
 * them all. Returns 0, -ENODATA when no section with file bytes holds them. */
static int read_bytes(struct code_file *f, uint64_t addr, uint8_t *buf, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(f->elf, scn))) {
		uint64_t lo;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_type == SHT_NOBITS)
			continue;
		lo = sh.sh_addr + f->bias;
		if (addr < lo || addr - lo >= sh.sh_size || len > sh.sh_size - (addr - lo))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || data->d_size < (addr - lo) + len)
			return -ENODATA;
		memcpy(buf, (const uint8_t *)data->d_buf + (addr - lo), len);
		return 0;
	}
	return -ENODATA;
}

/* The range [*START, *START + *SIZE) of the call frame information entry (an FDE of
 * .eh_frame, else of .debug_frame) holding ADDR. A stripped file has no symbol for its
 * functions but keeps their FDEs for unwinding, and an FDE spans one function (or one part
 * of it: a .cold part has its own). */
static bool cfi_range(struct code_file *f, uint64_t addr, uint64_t *start, uint64_t *size)
{
	Dwfl_Module *mod = dso_sym_module(f->d);

	for (int pass = 0; mod && pass < 2; pass++) {
		Dwarf_Addr bias = 0, lo, hi;
		Dwarf_CFI *cfi =
		    pass ? dwfl_module_dwarf_cfi(mod, &bias) : dwfl_module_eh_cfi(mod, &bias);
		Dwarf_Frame *frame = NULL;

		if (!cfi || addr < bias || dwarf_cfi_addrframe(cfi, addr - bias, &frame) != 0)
			continue;
		if (dwarf_frame_info(frame, &lo, &hi, NULL) < 0 || hi <= lo) {
			free(frame);
			continue;
		}
		free(frame);
		*start = lo + bias;
		*size = hi - lo;
		return true;
	}
	return false;
}

/* The function symbol holding ADDR, else its call frame entry's range named "sub_ADDR" (the
 * name disassemblers give a function without a symbol). */
static bool find_function(struct code_file *f, uint64_t addr, const char **name, uint64_t *start,
			  uint64_t *size)
{
	char buf[32];

	if (dso_sym_symbol(f->d, addr, f->pool, name, start, size))
		return true;
	if (!cfi_range(f, addr, start, size))
		return false;
	snprintf(buf, sizeof(buf), "sub_%" PRIx64, *start);
	*name = strpool_intern(f->pool, buf);
	return *name != NULL;
}

const char *code_symbol(struct code_file *f, uint64_t addr, uint64_t *off)
{
	const char *name;
	uint64_t start, size;

	if (!find_function(f, addr, &name, &start, &size))
		return NULL;
	*off = addr - start;
	return name;
}

/* IN's text: the mnemonic, then its operands, a direct target as NAME+0xOFF. */
static void insn_text(struct code_insn *ci)
{
	const struct disasm_insn *in = &ci->in;

	if (ci->target_name && ci->target_off)
		snprintf(ci->text, sizeof(ci->text), "%-6s %s+0x%" PRIx64, in->mnemonic,
			 ci->target_name, ci->target_off);
	else if (ci->target_name)
		snprintf(ci->text, sizeof(ci->text), "%-6s %s", in->mnemonic, ci->target_name);
	else if (in->operands[0])
		snprintf(ci->text, sizeof(ci->text), "%-6s %s", in->mnemonic, in->operands);
	else
		snprintf(ci->text, sizeof(ci->text), "%s", in->mnemonic);
}

/* Larger symbols than this are not read (a data blob mislabelled as code). */
#define CODE_MAX_FUNCTION (4u << 20)

int code_function(struct code_file *f, uint64_t addr, struct code_func *out, char *why,
		  size_t whylen)
{
	struct disasm_insn *ins = NULL;
	uint8_t *bytes;
	size_t n = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!find_function(f, addr, &out->name, &out->start, &out->size)) {
		snprintf(why, whylen,
			 "%s: no function symbol and no call frame information holds 0x%" PRIx64,
			 f->d->path, addr);
		return -ENOENT;
	}
	if (!out->size || out->size > CODE_MAX_FUNCTION) {
		snprintf(why, whylen, "%s: symbol %s has %" PRIu64 " bytes: not read as code",
			 f->d->path, out->name, out->size);
		return -ENODATA;
	}
	bytes = malloc(out->size);
	if (!bytes)
		return -ENOMEM;
	rc = read_bytes(f, out->start, bytes, out->size);
	if (rc < 0) {
		snprintf(why, whylen, "%s: the bytes of %s are not in the file", f->d->path,
			 out->name);
		free(bytes);
		return rc;
	}
	rc = disasm_run(f->dis, bytes, out->size, out->start, &ins, &n);
	free(bytes);
	if (rc < 0)
		return rc;
	out->v = calloc(n ? n : 1, sizeof(*out->v));
	if (!out->v) {
		free(ins);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct code_insn *ci = &out->v[i];

		ci->in = ins[i];
		if (ci->in.flags & DISASM_TARGET)
			ci->target_name = code_symbol(f, ci->in.target, &ci->target_off);
		insn_text(ci);
	}
	out->n = n;
	free(ins);
	return 0;
}

void code_func_release(struct code_func *fn)
{
	free(fn->v);
	memset(fn, 0, sizeof(*fn));
}

int code_lookup(struct code_file *f, uint64_t addr, enum inline_mode mode, struct sym_result *r)
{
	return dso_sym_lookup(f->d, addr, mode, f->pool, r);
}
