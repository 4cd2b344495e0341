/* inflate.h - compressed DWARF sections inflated in place, ahead of libdw. */
#ifndef HWPROF_REPORT_INFLATE_H
#define HWPROF_REPORT_INFLATE_H

#include <libelf.h>
#include <stddef.h>

/* What inflate_debug_sections() did to an Elf: the buffers it put in (they must outlive the
 * Elf), and the names of the sections it found damaged ("" none; ", "-separated). */
struct inflated {
	void **buf;
	size_t n, cap;
	char damaged[128];
};

/* Every SHF_COMPRESSED .debug_* section of ELF (a handle open for reading; the file is not
 * written) compressed with ELFCOMPRESS_ZLIB (gABI "Section Compression") made inflated in
 * ELF's memory: its Elf_Data (elf_getdata(3)) then holds the inflated bytes, and its header
 * has SHF_COMPRESSED cleared and the inflated size and alignment, as after
 * elf_compress(scn, 0, 0). The buffers are appended to OUT; the caller frees them with
 * inflated_free() after elf_end(3) of ELF (or of the Dwfl that owns it).
 *
 * A damaged section (its header's sizes impossible, or its stream not inflating to exactly
 * ch_size bytes) is emptied: libdw then reads the file as if it lacked that section, and its
 * name goes into OUT->damaged. A section compressed another way (zstd), or one that finds no
 * memory, is left as it was for libdw. Returns the number of sections inflated. */
size_t inflate_debug_sections(Elf *elf, struct inflated *out);

/* Frees OUT's buffers and empties it. */
void inflated_free(struct inflated *out);

#endif
