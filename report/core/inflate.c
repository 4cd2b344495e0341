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
 * updated, as elf_compress() itself would leave them. Sections compressed with zstd
 * (binutils 2.40's --compress-debug-sections=zstd), which libdw 0.188 cannot read at all,
 * are inflated the same way by libzstd. */
#include "inflate.h"

#include "grow.h"

#include <gelf.h>
#include <libdeflate.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

/* zlib's deflate expands by at most 1032:1; a larger ch_size is a damaged header. */
#define DEFLATE_MAX_RATIO 1032

/* The gABI's ch_type for zstd (Linux's elf.h of glibc 2.36 lacks it). */
#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2
#endif

/* Whether SCN of ELF is a compressed DWARF section (SHF_COMPRESSED, named .debug_*). */
static bool compressed_debug(Elf *elf, size_t shstrndx, Elf_Scn *scn, GElf_Shdr *sh)
{
	const char *name;

	return gelf_getshdr(scn, sh) && (sh->sh_flags & SHF_COMPRESSED) &&
	       sh->sh_type != SHT_NOBITS && (name = elf_strptr(elf, shstrndx, sh->sh_name)) &&
	       !strncmp(name, ".debug_", 7);
}

/* What became of one compressed section. */
enum outcome { INFLATED, NOT_OURS, DAMAGED, NO_MEMORY };

/* The size that SIZE bytes of zlib stream at IN really inflate to, counted through a small
 * window (zlib, streaming): how a header whose ch_size finds no memory is told from a lie.
 * Stops past LIMIT. Returns the size, or SIZE_MAX when the stream is broken. */
static size_t stream_size(const unsigned char *in, size_t size, uint64_t limit)
{
	unsigned char window[65536];
	z_stream z = {.next_in = (unsigned char *)in};
	size_t total = 0;
	int r = Z_OK;

	if (inflateInit(&z) != Z_OK)
		return SIZE_MAX;
	while (r == Z_OK && total <= limit) {
		/* avail_in is a uInt: a larger stream is fed in pieces. */
		if (!z.avail_in && size) {
			z.avail_in = size > UINT_MAX ? UINT_MAX : (uInt)size;
			size -= z.avail_in;
		}
		z.next_out = window;
		z.avail_out = sizeof(window);
		r = inflate(&z, Z_NO_FLUSH);
		total += sizeof(window) - z.avail_out;
	}
	inflateEnd(&z);
	return r == Z_STREAM_END ? total : SIZE_MAX;
}

/* SCN's header SH and data D made those of an inflated section of SIZE bytes at BUF
 * (alignment ALIGN). Returns 0, or -1 when libelf refuses the header. */
static int install(Elf_Scn *scn, GElf_Shdr *sh, Elf_Data *d, void *buf, size_t size, uint64_t align)
{
	sh->sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;
	sh->sh_size = size;
	sh->sh_addralign = align;
	if (!gelf_update_shdr(scn, sh))
		return -1;
	d->d_buf = buf;
	d->d_size = size;
	d->d_type = ELF_T_BYTE;
	d->d_align = align ? align : 1;
	d->d_off = 0;
	return 0;
}

/* Whether zlib stream IN (SIZE bytes) and header CH fit: a ch_size the stream can give
 * (zlib's deflate expands by at most DEFLATE_MAX_RATIO), and, when BUF (CH's size) could not
 * be allocated, the size the stream really gives (stream_size()). */
static bool zlib_fits(const unsigned char *in, size_t size, const GElf_Chdr *ch, bool allocated)
{
	if (ch->ch_size / DEFLATE_MAX_RATIO > size)
		return false;
	return allocated || stream_size(in, size, ch->ch_size) == ch->ch_size;
}

/* Whether zstd frame IN (SIZE bytes) and header CH fit: the frame's own content size, when
 * it gives one, is CH's. */
static bool zstd_fits(const unsigned char *in, size_t size, const GElf_Chdr *ch)
{
	unsigned long long n = ZSTD_getFrameContentSize(in, size);

	return n != ZSTD_CONTENTSIZE_ERROR && (n == ZSTD_CONTENTSIZE_UNKNOWN || n == ch->ch_size);
}

/* IN (SIZE bytes, compressed as CH says) inflated into BUF (ch_size bytes). Returns whether
 * exactly ch_size bytes came out. */
static bool decompress(const GElf_Chdr *ch, const unsigned char *in, size_t size, void *buf,
		       struct libdeflate_decompressor *dc)
{
	size_t got;

	if (ch->ch_type == ELFCOMPRESS_ZSTD) {
		got = ZSTD_decompress(buf, (size_t)ch->ch_size, in, size);
		return !ZSTD_isError(got) && got == ch->ch_size;
	}
	return libdeflate_zlib_decompress(dc, in, size, buf, (size_t)ch->ch_size, &got) ==
		   LIBDEFLATE_SUCCESS &&
	       got == ch->ch_size;
}

/* SCN (header SH) inflated into a malloc'ed buffer *BUF, installed as its data; a damaged
 * one emptied (*BUF NULL). */
static enum outcome inflate_section(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh,
				    struct libdeflate_decompressor *dc, void **buf)
{
	size_t hdr = gelf_fsize(elf, ELF_T_CHDR, 1, EV_CURRENT), in;
	Elf_Data *d = elf_getdata(scn, NULL);
	const unsigned char *src;
	GElf_Chdr ch;

	*buf = NULL;
	if (!d || !hdr)
		return NOT_OURS;
	if (!gelf_getchdr(scn, &ch))
		goto damaged;
	if (ch.ch_type != ELFCOMPRESS_ZLIB && ch.ch_type != ELFCOMPRESS_ZSTD)
		return NOT_OURS;
	if (!d->d_buf || d->d_size <= hdr || !ch.ch_size || ch.ch_size > SIZE_MAX / 2)
		goto damaged;
	src = (const unsigned char *)d->d_buf + hdr;
	in = d->d_size - hdr;
	if (ch.ch_type == ELFCOMPRESS_ZSTD ? !zstd_fits(src, in, &ch)
					   : !zlib_fits(src, in, &ch, true))
		goto damaged;
	*buf = malloc((size_t)ch.ch_size);
	if (!*buf)
		return ch.ch_type == ELFCOMPRESS_ZLIB && !zlib_fits(src, in, &ch, false)
			   ? (install(scn, sh, d, NULL, 0, 1), DAMAGED)
			   : NO_MEMORY;
	if (!decompress(&ch, src, in, *buf, dc))
		goto damaged;
	if (install(scn, sh, d, *buf, (size_t)ch.ch_size, ch.ch_addralign) == 0)
		return INFLATED;
damaged:
	free(*buf);
	*buf = NULL;
	return install(scn, sh, d, NULL, 0, 1) < 0 ? NOT_OURS : DAMAGED;
}

/* Adds NAME to OUT's list of damaged sections. */
static void note_damaged(struct inflated *out, const char *name)
{
	size_t at = strlen(out->damaged);

	if (at + 1 < sizeof(out->damaged))
		snprintf(out->damaged + at, sizeof(out->damaged) - at, "%s%s", at ? ", " : "",
			 name);
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
		enum outcome o;
		void *buf;

		if (!compressed_debug(elf, shstrndx, scn, &sh))
			continue;
		if ((!dc && !(dc = libdeflate_alloc_decompressor())) ||
		    hwprof_grow((void **)&out->buf, &out->cap, out->n + 1, sizeof(*out->buf)) < 0) {
			out->nomem = true;
			break;
		}
		o = inflate_section(elf, scn, &sh, dc, &buf);
		if (o == INFLATED) {
			out->buf[out->n++] = buf;
			n++;
		} else if (o == DAMAGED) {
			note_damaged(out, elf_strptr(elf, shstrndx, sh.sh_name));
		} else if (o == NO_MEMORY) {
			out->nomem = true;
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

bool inflate_has_zstd(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool zstd = false;
	GElf_Shdr sh;
	GElf_Chdr ch;

	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0)
		while (!zstd && (scn = elf_nextscn(elf, scn)))
			zstd = compressed_debug(elf, shstrndx, scn, &sh) &&
			       gelf_getchdr(scn, &ch) && ch.ch_type == ELFCOMPRESS_ZSTD;
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return zstd;
}

/* Section I of IN, as it is now (inflated or not), appended to OUT. Returns 0 or -1. */
static int copy_section(Elf *in, Elf *out, size_t i)
{
	Elf_Scn *is = elf_getscn(in, i), *os = elf_newscn(out);
	Elf_Data *id, *od;
	GElf_Shdr sh;

	if (!is || !os || !gelf_getshdr(is, &sh) || !(id = elf_getdata(is, NULL)) ||
	    !(od = elf_newdata(os)))
		return -1;
	*od = *id;
	return gelf_update_shdr(os, &sh) ? 0 : -1;
}

/* IN written whole to descriptor FD: its ELF header, program headers and sections as IN's
 * handle holds them, laid out by libelf. Returns 0 or -1. */
static int write_copy(Elf *in, int fd)
{
	Elf *out = elf_begin(fd, ELF_C_WRITE, NULL);
	size_t phnum, nscn;
	GElf_Ehdr eh;
	int r = -1;

	/* Extended section numbering (e_shstrndx in section 0's sh_link) is not copied. */
	if (!out || !gelf_getehdr(in, &eh) || eh.e_shstrndx >= SHN_LORESERVE || eh.e_shnum == 0 ||
	    !gelf_newehdr(out, gelf_getclass(in)) || elf_getphdrnum(in, &phnum) < 0 ||
	    elf_getshdrnum(in, &nscn) < 0 || (phnum && !gelf_newphdr(out, phnum)))
		goto out;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(in, (int)i, &ph) || !gelf_update_phdr(out, (int)i, &ph))
			goto out;
	}
	for (size_t i = 1; i < nscn; i++)
		if (copy_section(in, out, i) < 0)
			goto out;
	if (gelf_update_ehdr(out, &eh) && elf_update(out, ELF_C_WRITE) >= 0)
		r = 0;
out:
	elf_end(out);
	return r;
}

int inflate_copy(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), mfd = -1;
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	struct inflated bufs = {0};

	if (elf && elf_kind(elf) == ELF_K_ELF && inflate_debug_sections(elf, &bufs) > 0 &&
	    !bufs.damaged[0] && !bufs.nomem)
		mfd = memfd_create("hwprof-debuginfo", MFD_CLOEXEC);
	if (mfd >= 0 && (write_copy(elf, mfd) < 0 || lseek(mfd, 0, SEEK_SET) != 0)) {
		close(mfd);
		mfd = -1;
	}
	elf_end(elf);
	inflated_free(&bufs);
	if (fd >= 0)
		close(fd);
	return mfd;
}
