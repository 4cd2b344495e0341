/* test_inflate.c - report/core/inflate.c: a zlib-compressed debug file's DWARF sections
 * inflated in place give the bytes of the uncompressed file; a damaged stream is left to
 * libdw as it was. RPT_DWARF_DEBUG and RPT_DWARF_DEBUGZ are one debug file, uncompressed and
 * compressed (split-debug.sh). */
#include <criterion/criterion.h>

#include "core/inflate.h"
#include "fixture.h"

#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ELF's section named NAME, or NULL. */
static Elf_Scn *section(Elf *elf, const char *name)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	cr_assert(elf_getshdrstrndx(elf, &shstrndx) == 0);
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n =
		    gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static Elf *open_elf(const char *path, int *fd)
{
	Elf *elf;

	elf_version(EV_CURRENT);
	*fd = open(path, O_RDONLY);
	cr_assert(*fd >= 0, "%s", path);
	elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	cr_assert(elf, "%s: %s", path, elf_errmsg(-1));
	return elf;
}

/* How many .debug_* sections of ELF are SHF_COMPRESSED. */
static size_t compressed(Elf *elf)
{
	size_t shstrndx, n = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	cr_assert(elf_getshdrstrndx(elf, &shstrndx) == 0);
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED) &&
		    !strncmp(elf_strptr(elf, shstrndx, sh.sh_name), ".debug_", 7))
			n++;
	return n;
}

Test(inflate, sections_equal_the_uncompressed_file)
{
	static const char *names[] = {".debug_info", ".debug_abbrev", ".debug_line", ".debug_str"};
	int pfd, zfd;
	Elf *plain = open_elf(need_env("RPT_DWARF_DEBUG"), &pfd);
	Elf *z = open_elf(need_env("RPT_DWARF_DEBUGZ"), &zfd);
	struct inflated bufs = {0};
	size_t n = compressed(z);

	cr_assert_eq(compressed(plain), 0, "the plain debug file is compressed");
	cr_assert(n >= 4, "split-debug.sh compressed %zu sections", n);
	cr_assert_eq(inflate_debug_sections(z, &bufs), n);
	cr_assert_eq(bufs.n, n);
	cr_assert_eq(compressed(z), 0, "a section is still flagged compressed");
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		Elf_Scn *ps = section(plain, names[i]), *zs = section(z, names[i]);
		Elf_Data *pd, *zd;
		GElf_Shdr psh, zsh;

		cr_assert(ps && zs, "%s missing", names[i]);
		pd = elf_getdata(ps, NULL);
		zd = elf_getdata(zs, NULL);
		cr_assert(pd && zd && gelf_getshdr(ps, &psh) && gelf_getshdr(zs, &zsh));
		cr_expect_eq(zd->d_size, pd->d_size, "%s: %zu bytes, not %zu", names[i], zd->d_size,
			     pd->d_size);
		cr_expect_eq(zsh.sh_size, psh.sh_size, "%s: sh_size", names[i]);
		cr_expect(zd->d_size == pd->d_size && !memcmp(zd->d_buf, pd->d_buf, pd->d_size),
			  "%s: other bytes", names[i]);
	}
	/* Nothing is left to inflate a second time. */
	cr_expect_eq(inflate_debug_sections(z, &bufs), 0);
	elf_end(z);
	elf_end(plain);
	inflated_free(&bufs);
	cr_expect_eq(bufs.n, 0);
	close(zfd);
	close(pfd);
}

/* A copy of the compressed file whose .debug_info stream is broken in its middle. */
static void damaged_copy(const char *to)
{
	int fd, out;
	Elf *z = open_elf(need_env("RPT_DWARF_DEBUGZ"), &fd);
	GElf_Shdr sh;
	size_t size;
	char *raw = elf_rawfile(z, &size), *copy;

	cr_assert(raw && gelf_getshdr(section(z, ".debug_info"), &sh));
	copy = malloc(size);
	cr_assert(copy);
	memcpy(copy, raw, size);
	for (size_t i = sh.sh_offset + sh.sh_size / 2; i < sh.sh_offset + sh.sh_size / 2 + 64; i++)
		copy[i] ^= 0x5a;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert(out >= 0 && write(out, copy, size) == (ssize_t)size);
	close(out);
	free(copy);
	elf_end(z);
	close(fd);
}

Test(inflate, a_damaged_stream_is_left_as_it_was)
{
	char path[PATH_MAX];
	struct inflated bufs = {0};
	size_t before;
	int fd;
	Elf *elf;
	GElf_Shdr sh;

	tmp_path(path, sizeof(path), "damaged.debug");
	damaged_copy(path);
	elf = open_elf(path, &fd);
	before = compressed(elf);
	cr_assert_eq(inflate_debug_sections(elf, &bufs), before - 1);
	cr_assert(gelf_getshdr(section(elf, ".debug_info"), &sh));
	cr_expect(sh.sh_flags & SHF_COMPRESSED, ".debug_info lost its flag");
	cr_expect_eq(compressed(elf), 1);
	elf_end(elf);
	inflated_free(&bufs);
	close(fd);
	unlink(path);
}
