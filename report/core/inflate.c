/* inflate.c - compressed DWARF sections inflated by libdeflate, in place.
 *
 * Debian's libc6-dbg ships libc's debug file with zlib-compressed DWARF (4 MB on disk,
 * 10 MB inflated). libdw 0.188 inflates each compressed .debug_* section with zlib when it
 * opens the file (dwarf_begin_elf.c, check_section: elf_compress(scn, 0, 0), then
 * elf_getdata), and in a cold report of the sqlite recording that was the largest single
 * cost: zlib's inflate ran longer than the whole line table of sqlite3.c. libdeflate
 * inflates the same bytes in less than half zlib's time (libc's .debug_info: 20 ms against
 * 9 ms here). check_section takes a section whose header says it is not compressed as its
 * data says, so the section's Elf_Data is pointed at libdeflate's output and its header
 * updated, as elf_compress() itself would leave them. */
#include "inflate.h"

#include "grow.h"

#include <gelf.h>
#include <libdeflate.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* zlib's deflate expands by at most 1032:1; a larger ch_size is a damaged header. */
#define DEFLATE_MAX_RATIO 1032

/* Whether SCN of ELF is a compressed DWARF section (SHF_COMPRESSED, named .debug_*). */
static bool compressed_debug(Elf *elf, size_t shstrndx, Elf_Scn *scn, GElf_Shdr *sh)
{
	const char *name;

	return gelf_getshdr(scn, sh) && (sh->sh_flags & SHF_COMPRESSED) &&
	       sh->sh_type != SHT_NOBITS && (name = elf_strptr(elf, shstrndx, sh->sh_name)) &&
	       !strncmp(name, ".debug_", 7);
}

/* SCN (header SH) inflated into a malloc'ed buffer, installed as its data. Returns the
 * buffer, or NULL when it is not zlib-compressed, its header is damaged, its stream does
 * not inflate to exactly ch_size bytes, or memory ran out (SCN is then as it was). */
static void *inflate_section(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh,
			     struct libdeflate_decompressor *dc)
{
	size_t hdr = gelf_fsize(elf, ELF_T_CHDR, 1, EV_CURRENT), got;
	Elf_Data *d = elf_getdata(scn, NULL);
	GElf_Chdr ch;
	void *buf;

	if (!d || !d->d_buf || !hdr || d->d_size < hdr || !gelf_getchdr(scn, &ch) ||
	    ch.ch_type != ELFCOMPRESS_ZLIB || !ch.ch_size ||
	    ch.ch_size / DEFLATE_MAX_RATIO > d->d_size - hdr || ch.ch_size > SIZE_MAX / 2)
		return NULL;
	buf = malloc((size_t)ch.ch_size);
	if (!buf)
		return NULL;
	if (libdeflate_zlib_decompress(dc, (const char *)d->d_buf + hdr, d->d_size - hdr, buf,
				       (size_t)ch.ch_size, &got) != LIBDEFLATE_SUCCESS ||
	    got != ch.ch_size)
		goto fail;
	sh->sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;
	sh->sh_size = ch.ch_size;
	sh->sh_addralign = ch.ch_addralign;
	if (!gelf_update_shdr(scn, sh))
		goto fail;
	d->d_buf = buf;
	d->d_size = got;
	d->d_type = ELF_T_BYTE;
	d->d_align = ch.ch_addralign ? ch.ch_addralign : 1;
	d->d_off = 0;
	return buf;
fail:
	free(buf);
	return NULL;
}

size_t inflate_debug_sections(Elf *elf, struct inflated *out)
{
	struct libdeflate_decompressor *dc = NULL;
	size_t shstrndx, n = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		void *buf;

		if (!compressed_debug(elf, shstrndx, scn, &sh))
			continue;
		if ((!dc && !(dc = libdeflate_alloc_decompressor())) ||
		    hwprof_grow((void **)&out->buf, &out->cap, out->n + 1, sizeof(*out->buf)) < 0)
			break;
		buf = inflate_section(elf, scn, &sh, dc);
		if (buf) {
			out->buf[out->n++] = buf;
			n++;
		}
	}
	libdeflate_free_decompressor(dc);
	return n;
}

void inflated_free(struct inflated *out)
{
	for (size_t i = 0; i < out->n; i++)
		free(out->buf[i]);
	free(out->buf);
	*out = (struct inflated){0};
}
