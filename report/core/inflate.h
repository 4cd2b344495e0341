/* inflate.h - compressed DWARF sections inflated in place, ahead of libdw. */
#ifndef HWPROF_REPORT_INFLATE_H
#define HWPROF_REPORT_INFLATE_H

#include <libelf.h>
#include <stddef.h>

/* The buffers inflate_debug_sections() put into an Elf: they must outlive it. */
struct inflated {
	void **buf;
	size_t n, cap;
};

/* Every SHF_COMPRESSED .debug_* section of ELF (a handle open for reading; an mmap'ed one
 * is not written to) compressed with ELFCOMPRESS_ZLIB (gABI "Section Compression") made
 * inflated in ELF's memory: its Elf_Data (elf_getdata(3)) then holds the inflated bytes,
 * and its header has SHF_COMPRESSED cleared and the inflated size and alignment, as after
 * elf_compress(scn, 0, 0). The buffers are appended to OUT; the caller frees them with
 * inflated_free() after elf_end(3) of ELF (or of the Dwfl that owns it).
 *
 * A section compressed another way (zstd) or damaged, or one that finds no memory, is left
 * as it was, and libdw meets it as before. Returns the number of sections inflated. */
size_t inflate_debug_sections(Elf *elf, struct inflated *out);

/* Frees OUT's buffers and empties it. */
void inflated_free(struct inflated *out);

#endif
