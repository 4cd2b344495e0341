/* test_inflate.c - report/core/inflate.c: a zlib- or zstd-compressed debug file's DWARF
 * sections inflated in place give the bytes of the uncompressed file; a damaged stream or a
 * ch_size the stream does not give is emptied and named. RPT_DWARF_DEBUG, RPT_DWARF_DEBUGZ and
 * RPT_DWARF_DEBUGZSTD are one debug file, uncompressed, zlib- and zstd-compressed
 * (split-debug.sh). */
#include <criterion/criterion.h>

#include "core/dso.h"
#include "core/inflate.h"
#include "fixture.h"

#include <dlfcn.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/resource.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __SANITIZE_ADDRESS__
/* ASan's allocator ignores RLIMIT_AS (its shadow needs terabytes of address space): a
 * malloc over 1 GiB returns NULL instead. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1:max_allocation_size_mb=1024";
}

static void limit_memory(void)
{
}
#else
/* An address-space limit of 1 GiB, for a test whose malloc must fail. */
static void limit_memory(void)
{
	struct rlimit rl = {.rlim_cur = (rlim_t)1 << 30, .rlim_max = RLIM_INFINITY};

	setrlimit(RLIMIT_AS, &rl);
}
#endif

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

/* The sections of compressed debug file PATH, inflated, are those of the plain one. */
static void check_equal(const char *path)
{
	static const char *names[] = {".debug_info", ".debug_abbrev", ".debug_line", ".debug_str"};
	int pfd, zfd;
	Elf *plain = open_elf(need_env("RPT_DWARF_DEBUG"), &pfd);
	Elf *z = open_elf(path, &zfd);
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

Test(inflate, sections_equal_the_uncompressed_file)
{
	check_equal(need_env("RPT_DWARF_DEBUGZ"));
}

/* The same compressed with zstd, which libdw 0.188 cannot read itself. */
Test(inflate, zstd_sections_equal_the_uncompressed_file)
{
	check_equal(zstd_debug_file());
}

/* A copy of compressed debug file FROM at TO with .debug_info's stream broken in its middle
 * (CH_SIZE 0), or its header's ch_size made CH_SIZE. */
static void damaged_copy_of(const char *from, const char *to, uint64_t ch_size)
{
	int fd, out;
	Elf *z = open_elf(from, &fd);
	GElf_Shdr sh;
	size_t size;
	char *raw = elf_rawfile(z, &size), *copy;

	cr_assert(raw && gelf_getshdr(section(z, ".debug_info"), &sh));
	copy = malloc(size);
	cr_assert(copy);
	memcpy(copy, raw, size);
	if (ch_size) /* Elf64_Chdr: ch_type, ch_reserved, then ch_size */
		memcpy(copy + sh.sh_offset + 8, &ch_size, sizeof(ch_size));
	else
		for (size_t i = sh.sh_offset + sh.sh_size / 2;
		     i < sh.sh_offset + sh.sh_size / 2 + 64; i++)
			copy[i] ^= 0x5a;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert(out >= 0 && write(out, copy, size) == (ssize_t)size);
	close(out);
	free(copy);
	elf_end(z);
	close(fd);
}

/* The same of the test's own compressed debug file. */
static void damaged_copy(const char *to, uint64_t ch_size)
{
	damaged_copy_of(need_env("RPT_DWARF_DEBUGZ"), to, ch_size);
}

/* The copy of damaged_copy_of(FROM, CH_SIZE): every other section inflated, .debug_info
 * emptied (libdw reads the file as if it had none) and named as damaged. */
static void check_damaged(const char *from, uint64_t ch_size)
{
	char path[PATH_MAX];
	struct inflated bufs = {0};
	size_t before;
	int fd;
	Elf *elf;
	GElf_Shdr sh;
	Elf_Data *d;

	tmp_path(path, sizeof(path), "damaged.debug");
	damaged_copy_of(from, path, ch_size);
	elf = open_elf(path, &fd);
	before = compressed(elf);
	cr_assert_eq(inflate_debug_sections(elf, &bufs), before - 1);
	cr_expect_str_eq(bufs.damaged, ".debug_info");
	cr_expect_eq(compressed(elf), 0, "a section is still flagged compressed");
	cr_assert(gelf_getshdr(section(elf, ".debug_info"), &sh));
	d = elf_getdata(section(elf, ".debug_info"), NULL);
	cr_expect(d && d->d_size == 0 && sh.sh_size == 0, ".debug_info not emptied");
	elf_end(elf);
	inflated_free(&bufs);
	close(fd);
	unlink(path);
}

Test(inflate, a_broken_stream_is_damaged)
{
	check_damaged(need_env("RPT_DWARF_DEBUGZ"), 0);
}

/* A ch_size larger than the stream gives (within zlib's 1032:1): damaged, not inflated. */
Test(inflate, a_ch_size_the_stream_does_not_give_is_damaged)
{
	check_damaged(need_env("RPT_DWARF_DEBUGZ"), 300 * 1032);
}

/* A ch_size within zlib's ratio that no malloc can hold (2 GiB, over ASan's 1 GiB or the
 * 1 GiB RLIMIT_AS) is told from a lack of memory by the stream's real size. It needs a
 * compressed .debug_info over 2 MB: libc's from libc6-dbg (scripts/install-deps). */
Test(inflate, an_unallocatable_ch_size_is_damaged, .init = limit_memory)
{
	char debug[PATH_MAX], hex[41];
	const unsigned char *id;
	Dl_info info;
	int fd;
	Elf *e;
	ssize_t n;

	cr_assert(dladdr((void *)printf, &info) && info.dli_fname);
	e = open_elf(info.dli_fname, &fd);
	n = dwelf_elf_gnu_build_id(e, (const void **)&id);
	cr_assert(n > 2 && n <= 20, "%s has no build-id", info.dli_fname);
	dso_build_id_hex(id, (size_t)n, hex);
	snprintf(debug, sizeof(debug), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	elf_end(e);
	close(fd);
	if (access(debug, R_OK) != 0)
		cr_skip_test("%s: no libc6-dbg debug file", debug);
	check_damaged(debug, (uint64_t)2 << 30);
}

/* A report whose only debug file for RPT_DWARF_BARE is damaged says so, naming the file. */
Test(inflate, a_report_warns_of_a_damaged_debug_file)
{
	const char *bare = need_env("RPT_DWARF_BARE");
	char out[PATH_MAX], dir[PATH_MAX], debug[PATH_MAX];
	const char *dirs[1] = {dir}, *in[1] = {out};
	struct profile_options o = {
	    .inputs = in, .ninputs = 1, .debug_dirs = dirs, .ndebug_dirs = 1};
	struct profile *p;

	build_id_dir(bare, "dmgroot", dir, sizeof(dir), debug, sizeof(debug));
	damaged_copy(debug, 0);
	tmp_path(out, sizeof(out), "dmg.data");
	record(out, bare, "200");
	p = load_opts(&o);
	cr_expect(has_warning(p, debug, "does not inflate"), "no warning names %s", debug);
	profile_free(p);
	unlink(out);
	build_id_dir_remove(dir, debug);
}

/* A damaged debug file in the first --debug-dir does not hide a good one in the second. */
Test(inflate, a_damaged_debug_file_does_not_hide_a_good_one)
{
	const char *bare = need_env("RPT_DWARF_BARE");
	char out[PATH_MAX], bad[PATH_MAX], good[PATH_MAX], bad_file[PATH_MAX], good_file[PATH_MAX];
	const char *dirs[2] = {bad, good}, *in[1] = {out};
	struct profile_options o = {
	    .inputs = in, .ninputs = 1, .debug_dirs = dirs, .ndebug_dirs = 2};
	int line = hot_line("wl_dwarf.c", "dwarf");
	struct profile *p;

	build_id_dir(bare, "badroot", bad, sizeof(bad), bad_file, sizeof(bad_file));
	build_id_dir(bare, "goodroot", good, sizeof(good), good_file, sizeof(good_file));
	damaged_copy(bad_file, 0);
	cr_assert(symlink(need_env("RPT_DWARF_DEBUGZ"), good_file) == 0);
	tmp_path(out, sizeof(out), "badgood.data");
	record(out, bare, "200");
	p = load_opts(&o);
	cr_expect(samples_at(p, "wl_dwarf.c", line, "touch", NULL) >= 190,
		  "wl_dwarf.c:%d not found through %s", line, good);
	profile_free(p);
	unlink(out);
	build_id_dir_remove(bad, bad_file);
	build_id_dir_remove(good, good_file);
}
