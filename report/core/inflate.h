/* inflate.h - compressed DWARF sections inflated in place, ahead of libdw. */
#ifndef HWPROF_REPORT_INFLATE_H
#define HWPROF_REPORT_INFLATE_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>

/* What inflate_debug_sections() did to an Elf: the buffers it put in (they must outlive the
 * Elf), the names of the sections it found damaged ("" none; ", "-separated, cut at 128
 * bytes), and whether memory ran out for one. */
struct inflated {
	void **buf;
	size_t n, cap;
	char damaged[128];
	bool nomem;
};

/* Every SHF_COMPRESSED .debug_* section of ELF (a handle open for reading; the file is not
 * written) compressed with ELFCOMPRESS_ZLIB or ELFCOMPRESS_ZSTD (gABI "Section Compression";
 * zstd is ch_type 2) made inflated in ELF's memory: its Elf_Data (elf_getdata(3)) then holds
 * the inflated bytes, and its header has SHF_COMPRESSED cleared and the inflated size and
 * alignment, as after elf_compress(scn, 0, 0). The buffers are appended to OUT; the caller
 * frees them with inflated_free() after elf_end(3) of ELF (or of the Dwfl that owns it).
 *
 * A damaged section (its header's sizes impossible, or its stream not inflating to exactly
 * ch_size bytes) is emptied: libdw then reads the file as if it lacked that section, and its
 * name goes into OUT->damaged. A section of another ch_type is left as it was for libdw, and
 * so is one that finds no memory, with OUT->nomem set. Returns the number of sections inflated. */
size_t inflate_debug_sections(Elf *elf, struct inflated *out);

/* Whether the ELF file at PATH has a compressed .debug_* section of ch_type zstd (2): one
 * libdw 0.188 cannot read itself. False also when PATH cannot be read as ELF. */
bool inflate_has_zstd(const char *path);

/* A copy of the ELF file at PATH in an anonymous memory file (memfd_create(2)), its
 * compressed DWARF sections inflated (inflate_debug_sections()), every other part as it is:
 * for libdwfl to read as PATH's debug file when its Elf cannot be reached to inflate in
 * place. Returns the copy's descriptor (offset 0, close-on-exec; the caller owns it), or -1
 * when PATH is not readable ELF, a section is damaged or memory ran out. */
int inflate_copy(const char *path);

/* Frees OUT's buffers and empties it. */
void inflated_free(struct inflated *out);

#endif
