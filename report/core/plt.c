/* plt.c - PLT slots named from the GOT relocations they jump through (plt.h). */
#include "plt.h"

#include "grow.h"

#include <errno.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct got_name {
	GElf_Addr at; /* the GOT slot (ELF address) */
	const char *name;
};

static int by_at(const void *a, const void *b)
{
	const struct got_name *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

/* The function names of the GOT slots that ELF's RELA sections against .dynsym relocate,
 * sorted by slot, into *OUT. Returns how many, or -ENOMEM. */
static ssize_t got_names(Elf *elf, struct got_name **out)
{
	struct got_name *v = NULL;
	size_t n = 0, cap = 0;
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh, symsh;
		Elf_Scn *symscn;
		Elf_Data *rel, *syms;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    !(symscn = elf_getscn(elf, sh.sh_link)) || !gelf_getshdr(symscn, &symsh) ||
		    symsh.sh_type != SHT_DYNSYM || !(rel = elf_getdata(scn, NULL)) ||
		    !(syms = elf_getdata(symscn, NULL)))
			continue;
		size_t count = rel->d_size / gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);
		for (size_t k = 0; k < count; k++) {
			GElf_Rela r;
			GElf_Sym sym;
			const char *name;
			unsigned type;
			if (!gelf_getrela(rel, (int)k, &r))
				break;
			type = (unsigned)GELF_R_TYPE(r.r_info);
			if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
			    !GELF_R_SYM(r.r_info) ||
			    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym) ||
			    !(name = elf_strptr(elf, symsh.sh_link, sym.st_name)) || !name[0])
				continue;
			if (hwprof_grow((void **)&v, &cap, n + 1, sizeof(*v)) < 0) {
				free(v);
				return -ENOMEM;
			}
			v[n++] = (struct got_name){r.r_offset, name};
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), by_at);
	*out = v;
	return (ssize_t)n;
}

/* The GOT slot that the slot at BYTES[0..LEN) (ELF address AT) jumps through: the first
 * "jmp *disp32(%rip)" (ff 25), after an endbr64 or a bnd prefix. 0 when there is none (the
 * PLT header's lazy path, .plt's IBT entries). */
static GElf_Addr slot_target(const unsigned char *bytes, size_t len, GElf_Addr at)
{
	for (size_t k = 0; k + 6 <= len; k++)
		if (bytes[k] == 0xff && bytes[k + 1] == 0x25) {
			int32_t disp;
			memcpy(&disp, bytes + k + 2, 4); /* x86-64: little-endian, as the host */
			return at + k + 6 + (GElf_Addr)(int64_t)disp;
		}
	return 0;
}

ssize_t plt_slots(Dwfl_Module *mod, struct plt_slot **out)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	struct got_name *gots = NULL;
	struct plt_slot *v = NULL;
	size_t n = 0, cap = 0, shstrndx;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	ssize_t ngots;

	*out = NULL;
	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
	    elf_getshdrstrndx(elf, &shstrndx) < 0)
		return 0;
	ngots = got_names(elf, &gots);
	if (ngots <= 0)
		return ngots;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *sname;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) ||
		    !(sname = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    (strcmp(sname, ".plt") && strcmp(sname, ".plt.sec") &&
		     strcmp(sname, ".plt.got")) ||
		    !(d = elf_rawdata(scn, NULL)) || !d->d_buf)
			continue;
		/* ld.lld leaves sh_entsize 0; its slots are 16 bytes as ld.bfd's. */
		size_t step = sh.sh_entsize == 8 || sh.sh_entsize == 16 ? sh.sh_entsize : 16;
		for (size_t off = 0; off + step <= d->d_size; off += step) {
			struct got_name key = {slot_target((const unsigned char *)d->d_buf + off,
							   step, sh.sh_addr + off),
					       NULL};
			struct got_name *g =
			    key.at ? bsearch(&key, gots, (size_t)ngots, sizeof(*gots), by_at)
				   : NULL;
			if (!g)
				continue;
			if (hwprof_grow((void **)&v, &cap, n + 1, sizeof(*v)) < 0) {
				free(v);
				free(gots);
				return -ENOMEM;
			}
			v[n++] = (struct plt_slot){sh.sh_addr + off + bias, step, g->name};
		}
	}
	free(gots);
	*out = v;
	return (ssize_t)n;
}
