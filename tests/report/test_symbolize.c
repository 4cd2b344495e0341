/* test_symbolize.c - report/core's symbolization of real recordings: each binary kind (gcc and
 * clang, DWARF 4 and 5, PIE, ld.lld), C++ names, inline views and chains, separate debug info
 * (debuglink, build-id directory), rebuilt binaries, and kernel symbols from a kallsyms file. Lines
 * are found by their HOT: tokens. */
#include <criterion/criterion.h>

#include "fixture.h"
#include "kallsyms.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Records PROG and checks that SRC's HOT: TOKEN line holds >= 95% of SRC's samples, and that
 * it took about PAGES samples. */
static void check_hot(const char *prog, const char *src, const char *token, int pages)
{
	char out[PATH_MAX], arg[16];
	struct profile *p;
	int line = hot_line(src, token);
	uint64_t hot, all;

	tmp_path(out, sizeof(out), "hot.data");
	snprintf(arg, sizeof(arg), "%d", pages);
	record(out, prog, arg);
	p = load1(out, INLINE_CALLEE);
	hot = samples_at(p, src, line, NULL, NULL);
	all = samples_at(p, src, 0, NULL, NULL);
	cr_expect(hot * 100 >= all * 95, "%s: %s:%d has %lu of the file's %lu samples", prog, src,
		  line, (unsigned long)hot, (unsigned long)all);
	cr_expect(hot >= (uint64_t)pages * 95 / 100, "%s: %s:%d has %lu samples for %d pages", prog,
		  src, line, (unsigned long)hot, pages);
	profile_free(p);
	unlink(out);
}

Test(symbolize, pie_gcc_dwarf5)
{
	check_hot(need_env("RPT_DWARF_GCC_5"), "wl_dwarf.c", "dwarf", 2000);
}

Test(symbolize, gcc_dwarf4)
{
	check_hot(need_env("RPT_DWARF_GCC_4"), "wl_dwarf.c", "dwarf", 2000);
}

Test(symbolize, clang_dwarf4)
{
	check_hot(need_env("RPT_DWARF_CLANG_4"), "wl_dwarf.c", "dwarf", 2000);
}

Test(symbolize, clang_dwarf5)
{
	check_hot(need_env("RPT_DWARF_CLANG_5"), "wl_dwarf.c", "dwarf", 2000);
}

/* p_vaddr != p_offset in an lld-linked library: the line must still be right. */
Test(symbolize, shared_library_linked_with_lld)
{
	const char *lib = need_env("RPT_LLD_LIB");
	int fd = open(lib, O_RDONLY);
	Elf *e;
	size_t n;
	bool shifted = false;

	elf_version(EV_CURRENT);
	cr_assert(fd >= 0);
	e = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert(e && elf_getphdrnum(e, &n) == 0);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			shifted = ph.p_vaddr != ph.p_offset;
	}
	elf_end(e);
	close(fd);
	cr_expect(shifted,
		  "%s: its text segment has p_vaddr == p_offset; the test proves "
		  "nothing about lld's layout",
		  lib);
	check_hot(need_env("RPT_LLD"), "wl_lld_lib.c", "lld", 2000);
}

Test(symbolize, cxx_template_member_demangled)
{
	char out[PATH_MAX];
	struct profile *p;
	int line = hot_line("wl_tmpl.cpp", "tmpl");

	tmp_path(out, sizeof(out), "tmpl.data");
	record(out, need_env("RPT_TMPL"), "2000");
	p = load1(out, INLINE_CALLEE);
	cr_expect(samples_at(p, "wl_tmpl.cpp", line, "hw::Filler<int>::fill(unsigned long)",
			     NULL) >= 1900,
		  "no 'hw::Filler<int>::fill(unsigned long)' at wl_tmpl.cpp:%d", line);
	profile_free(p);
	unlink(out);
}

/* poke() inlined into first() (N pages) and second() (3N pages). */
Test(symbolize, inline_callee_and_caller_views)
{
	char out[PATH_MAX];
	struct profile *p;
	int poke = hot_line("wl_inline.c", "poke");
	int c1 = hot_line("wl_inline.c", "call_first");
	int c2 = hot_line("wl_inline.c", "call_second");
	uint64_t a, b;

	tmp_path(out, sizeof(out), "inline.data");
	record(out, need_env("RPT_INLINE"), "1000");

	p = load1(out, INLINE_CALLEE);
	a = samples_at(p, "wl_inline.c", poke, "poke", "first");
	b = samples_at(p, "wl_inline.c", poke, "poke", "second");
	cr_expect(a >= 950 && a <= 1050, "poke (inlined into first) at :%d: %lu samples", poke,
		  (unsigned long)a);
	cr_expect(b >= 2850 && b <= 3150, "poke (inlined into second) at :%d: %lu samples", poke,
		  (unsigned long)b);
	/* The callee view keeps the call site for annotate. */
	for (size_t i = 0; i < p->nlocs; i++)
		if (p->locs[i].function && !strcmp(p->locs[i].function, "poke") &&
		    p->locs[i].line == poke)
			cr_expect(p->locs[i].call_line == c1 || p->locs[i].call_line == c2,
				  "call_line %d", p->locs[i].call_line);
	profile_free(p);

	p = load1(out, INLINE_CALLER);
	a = samples_at(p, "wl_inline.c", c1, "first", "");
	b = samples_at(p, "wl_inline.c", c2, "second", "");
	cr_expect(a >= 950 && a <= 1050, "first at call site :%d: %lu samples", c1,
		  (unsigned long)a);
	cr_expect(b >= 2850 && b <= 3150, "second at call site :%d: %lu samples", c2,
		  (unsigned long)b);
	cr_expect_eq(samples_at(p, "wl_inline.c", poke, NULL, NULL), 0);
	profile_free(p);
	unlink(out);
}

/* The location table (profile.h) keeps an address's whole inline chain, the middle frame the
 * flat view drops too, the same under either --inline mode; functions are each one entry. */
static void check_chain(const struct profile *p)
{
	int poke = hot_line("wl_inline_chain.c", "poke");
	int call_poke = hot_line("wl_inline_chain.c", "call_poke");
	int call_mid = hot_line("wl_inline_chain.c", "call_mid");
	uint64_t seen = 0;

	for (size_t i = 0; i < p->nlocs; i++) {
		const struct profile_loc *l = &p->locs[i];
		const struct profile_line *ln;
		uint32_t n;

		if (!ends_with(l->file, "wl_inline_chain.c") ||
		    (l->line != poke && l->line != call_mid))
			continue;
		ln = profile_loc_lines(p, l, &n);
		cr_assert_eq(n, 3, "%s:%d: %u lines, want poke, mid, outer", l->file, l->line, n);
		const struct profile_function *f0 = &p->functions[ln[0].function],
					      *f1 = &p->functions[ln[1].function],
					      *f2 = &p->functions[ln[2].function];
		cr_expect_str_eq(f0->name, "poke");
		cr_expect_eq(ln[0].line, poke);
		cr_expect(ends_with(ln[0].file, "wl_inline_chain.c"));
		cr_expect_str_eq(f1->name, "mid");
		cr_expect_eq(ln[1].line, call_poke, "mid at %d, want its call of poke at %d",
			     ln[1].line, call_poke);
		cr_expect_str_eq(f2->name, "outer");
		cr_expect_str_eq(f2->system_name, "outer");
		cr_expect_eq(ln[2].line, call_mid);
		/* Each declared above where it calls. */
		cr_expect(f0->start_line > 0 && f0->start_line < poke, "poke declared at %d",
			  f0->start_line);
		cr_expect(f1->start_line > poke && f1->start_line < call_poke);
		cr_expect(f2->start_line > call_poke && f2->start_line < call_mid);
		cr_expect(ends_with(f2->file, "wl_inline_chain.c"));
		/* The mapping: the workload, linked with a build-id, read (bias known). */
		cr_assert_lt(l->mapping, p->nmappings);
		const struct profile_mapping *m = &p->mappings[l->mapping];
		cr_expect_eq(m->file, l->dso);
		cr_expect_eq(m->build_id_size, 20);
		cr_expect(m->bias_known && m->bias == 0, "bias %lld", (long long)m->bias);
		seen += l->samples;
	}
	cr_expect(seen >= 950 && seen <= 1050, "%lu samples in the chain for 1000 pages",
		  (unsigned long)seen);
	/* Functions by value: no two entries alike; [0] the unknown one. */
	cr_expect(!p->functions[0].name && !p->functions[0].system_name);
	for (size_t i = 1; i < p->nfunctions; i++)
		for (size_t j = i + 1; j < p->nfunctions; j++)
			cr_expect(p->functions[i].name != p->functions[j].name ||
				      p->functions[i].system_name != p->functions[j].system_name ||
				      p->functions[i].file != p->functions[j].file ||
				      p->functions[i].start_line != p->functions[j].start_line,
				  "functions %zu and %zu are one (%s)", i, j, p->functions[i].name);
}

Test(symbolize, locations_keep_the_whole_inline_chain)
{
	char out[PATH_MAX];
	struct profile *p;

	tmp_path(out, sizeof(out), "chain.data");
	record(out, need_env("RPT_INLINE_CHAIN"), "1000");
	p = load1(out, INLINE_CALLEE);
	check_chain(p);
	profile_free(p);
	/* The tables do not depend on the view: the caller view's location holds the chain. */
	p = load1(out, INLINE_CALLER);
	check_chain(p);
	profile_free(p);
	unlink(out);
}

Test(symbolize, stripped_with_gnu_debuglink)
{
	char out[PATH_MAX];
	struct profile *p;
	int line = hot_line("wl_dwarf.c", "dwarf");

	tmp_path(out, sizeof(out), "linked.data");
	record(out, need_env("RPT_DWARF_LINKED"), "2000");
	p = load1(out, INLINE_CALLEE);
	cr_expect(samples_at(p, "wl_dwarf.c", line, "touch", NULL) >= 1900,
		  "debuglink: wl_dwarf.c:%d not found", line);
	profile_free(p);
	unlink(out);
}

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out;
	ssize_t n;

	unlink(to);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	cr_assert(in >= 0 && out >= 0, "copy %s -> %s", from, to);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		cr_assert(write(out, buf, (size_t)n) == n);
	close(in);
	close(out);
}

/* RPT_DWARF_BARE, stripped to its build-id note, has its lines only through DEBUG placed in a
 * --debug-dir's .build-id tree. */
static void check_build_id_directory(const char *debug)
{
	const char *bare = need_env("RPT_DWARF_BARE");
	char out[PATH_MAX], dir[PATH_MAX], link[PATH_MAX];
	const char *dirs[1] = {dir};
	const char *in[1] = {out};
	struct profile_options o = {.inputs = in, .ninputs = 1};
	struct profile *p;
	int line = hot_line("wl_dwarf.c", "dwarf");

	build_id_dir(bare, "debugroot", dir, sizeof(dir), link, sizeof(link));
	cr_assert(symlink(debug, link) == 0, "%s", strerror(errno));
	tmp_path(out, sizeof(out), "bare.data");
	record(out, bare, "2000");
	/* Without the directory there is nothing to find the lines by. */
	p = load_opts(&o);
	cr_expect_eq(samples_at(p, "wl_dwarf.c", 0, NULL, NULL), 0);
	cr_expect(samples_of_dso(p, bare) >= 1900);
	profile_free(p);
	o.debug_dirs = dirs;
	o.ndebug_dirs = 1;
	p = load_opts(&o);
	cr_expect(samples_at(p, "wl_dwarf.c", line, "touch", NULL) >= 1900,
		  "build-id dir %s: wl_dwarf.c:%d not found", dir, line);
	profile_free(p);
	unlink(out);
	build_id_dir_remove(dir, link);
}

Test(symbolize, stripped_with_build_id_directory)
{
	check_build_id_directory(need_env("RPT_DWARF_DEBUG"));
}

/* A FIFO made at FIFO where libdwfl would look for PROG's debug file: a recording of PROG,
 * loaded with O (its one input set here), takes its samples and names the FIFO as not
 * opened. */
static void check_fifo_skipped(const char *prog, const char *fifo, struct profile_options *o)
{
	char out[PATH_MAX];
	const char *in[1] = {out};
	struct profile *p;

	cr_assert(mkfifo(fifo, 0644) == 0, "%s", strerror(errno));
	tmp_path(out, sizeof(out), "fifo.data");
	record(out, prog, "200");
	o->inputs = in;
	o->ninputs = 1;
	p = load_opts(o);
	cr_expect(samples_of_dso(p, prog) >= 190);
	cr_expect(has_warning(p, fifo, "not a regular file"), "no warning names %s", fifo);
	profile_free(p);
	unlink(out);
}

/* A FIFO where the build-id debug file would be: libdwfl's open of it would wait for a
 * writer forever. It is not opened, and the warning names it. */
Test(symbolize, build_id_fifo_is_not_opened, .timeout = 30)
{
	const char *bare = need_env("RPT_DWARF_BARE");
	char dir[PATH_MAX], fifo[PATH_MAX];
	const char *dirs[1] = {dir};
	struct profile_options o = {.debug_dirs = dirs, .ndebug_dirs = 1};

	build_id_dir(bare, "fiforoot", dir, sizeof(dir), fifo, sizeof(fifo));
	check_fifo_skipped(bare, fifo, &o);
	build_id_dir_remove(dir, fifo);
}

/* The same where libdwfl looks by name: a FIFO beside the binary named as its debug file
 * (FILE.debug, as it has no .gnu_debuglink). Copied, as the FIFO goes in its directory. */
Test(symbolize, debug_name_fifo_is_not_opened, .timeout = 30)
{
	char dir[PATH_MAX], prog[PATH_MAX + 16], fifo[PATH_MAX + 32];
	struct profile_options o = {0};

	tmp_path(dir, sizeof(dir), "fifodir");
	cr_assert(mkdir(dir, 0755) == 0);
	snprintf(prog, sizeof(prog), "%s/bare", dir);
	snprintf(fifo, sizeof(fifo), "%s.debug", prog);
	copy_file(need_env("RPT_DWARF_BARE"), prog);
	check_fifo_skipped(prog, fifo, &o);
	unlink(fifo);
	unlink(prog);
	rmdir(dir);
}

/* The same debug file with its DWARF zlib-compressed (as libc6-dbg's): inflated by
 * inflate.c ahead of libdw, the same lines. */
Test(symbolize, stripped_with_compressed_debug_file)
{
	check_build_id_directory(need_env("RPT_DWARF_DEBUGZ"));
}

/* Compressed with zstd (binutils 2.40's objcopy), which libdw 0.188 cannot read itself. */
Test(symbolize, stripped_with_zstd_debug_file)
{
	check_build_id_directory(zstd_debug_file());
}

Test(symbolize, rebuilt_binary_is_detected_not_misattributed)
{
	char prog[PATH_MAX], out[PATH_MAX];
	struct profile *p;

	tmp_path(prog, sizeof(prog), "rebuilt");
	tmp_path(out, sizeof(out), "rebuilt.data");
	copy_file(need_env("RPT_DWARF_GCC_5"), prog);
	record(out, prog, "2000");
	/* "Rebuilt": another build of the same source at the same path. */
	copy_file(need_env("RPT_DWARF_CLANG_5"), prog);
	p = load1(out, INLINE_CALLEE);
	cr_expect(has_warning(p, prog, "rebuilt since the recording"), "no rebuild warning");
	cr_expect(samples_of_dso(p, prog) >= 1900, "the samples must stay, as [unknown]");
	cr_expect_eq(samples_at(p, "wl_dwarf.c", 0, NULL, NULL), 0,
		     "samples attributed to the new build's lines");
	for (size_t i = 0; i < p->nlocs; i++)
		if (!strcmp(p->locs[i].dso, prog))
			cr_expect(p->locs[i].unknown && !p->locs[i].function);
	profile_free(p);

	unlink(prog);
	p = load1(out, INLINE_CALLEE);
	cr_expect(has_warning(p, prog, "deleted"), "no warning about the deleted file");
	cr_expect(samples_of_dso(p, prog) >= 1900);
	profile_free(p);
	unlink(out);
}

Test(symbolize, kernel_ips_from_kallsyms)
{
	char ks[PATH_MAX], err[256];
	struct profile_options o = {.kallsyms = ks};
	struct builder *b;
	struct profile *p;
	FILE *f;

	tmp_path(ks, sizeof(ks), "kallsyms");
	f = fopen(ks, "w");
	cr_assert(f);
	fputs("ffffffff81000000 T _stext\nffffffff81001000 t clear_page_erms\n"
	      "ffffffff81002000 D some_data\nffffffff81003000 T handle_mm_fault\n"
	      "ffffffffc0000000 t e1000_poll\t[e1000]\n",
	      f);
	fclose(f);
	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	begin(b, "synthetic");
	add_samples(b, 1, 1, 1, 0xffffffff81001010ull, 4, true);
	add_samples(b, 1, 1, 1, 0xffffffff81003100ull, 2, true);
	add_samples(b, 1, 1, 1, 0xffffffffc0000010ull, 1, true);
	p = finish(b, err, sizeof(err), 0);
	cr_assert_eq(p->nlocs, 3);
	cr_expect_str_eq(p->locs[0].function, "clear_page_erms");
	cr_expect_str_eq(p->locs[0].dso, "[kernel]");
	cr_expect_str_eq(p->locs[1].function, "handle_mm_fault");
	cr_expect_str_eq(p->locs[2].function, "e1000_poll [e1000]");
	profile_free(p);
	unlink(ks);

	/* Unreadable: [kernel] and a warning, never a crash. */
	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	begin(b, "synthetic");
	add_samples(b, 1, 1, 1, 0xffffffff81001010ull, 4, true);
	p = finish(b, err, sizeof(err), 0);
	cr_expect(p->locs[0].unknown && !p->locs[0].function);
	cr_expect(has_warning(p, ks, "[kernel]"));
	profile_free(p);
}

/* The warning for kernel samples when PATH gives no usable symbols. */
static struct profile *kernel_profile(const char *path)
{
	struct profile_options o = {.kallsyms = path};
	struct builder *b;
	char err[256];

	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	begin(b, "synthetic");
	add_samples(b, 1, 1, 1, 0xffffffff81001010ull, 4, true);
	return finish(b, err, sizeof(err), 0);
}

/* --kallsyms /dev/zero read forever (no newline, no end); a device or junk is no kallsyms
 * file and gets no "run as root" advice, which only hidden addresses deserve. */
Test(symbolize, kallsyms_reader_is_bounded, .timeout = 20)
{
	char path[PATH_MAX], why[160];
	struct kallsyms ks;
	struct profile *p;
	FILE *f;

	cr_expect_eq(kallsyms_load(&ks, "/dev/zero", why, sizeof(why)), -EINVAL);
	cr_expect(strstr(why, "a character device, not a kallsyms file"), "%s", why);
	p = kernel_profile("/dev/zero");
	cr_expect(has_warning(p, "/dev/zero: a character device", "[kernel]"));
	profile_free(p);
	p = kernel_profile("/dev/null");
	cr_expect(has_warning(p, "/dev/null: a character device", "--kallsyms /proc/kallsyms"));
	cr_expect(!has_warning(p, "as root", NULL));
	profile_free(p);

	tmp_path(path, sizeof(path), "kallsyms-long");
	f = fopen(path, "w");
	cr_assert(f);
	fputs("ffffffff81000000 T _stext\n", f);
	for (int i = 0; i < 5000; i++)
		fputc('x', f);
	fclose(f);
	cr_expect_eq(kallsyms_load(&ks, path, why, sizeof(why)), -EBADMSG);
	cr_expect(strstr(why, "line 2 longer than 1023 bytes"), "%s", why);

	/* No text symbol at all: not a kallsyms file, whoever runs it. */
	f = fopen(path, "w");
	cr_assert(f);
	fputs("hello\nffffffff81002000 D some_data\n", f);
	fclose(f);
	p = kernel_profile(path);
	cr_expect(has_warning(p, "no kernel text symbol in it", "--kallsyms /proc/kallsyms"));
	cr_expect(!has_warning(p, "as root", NULL));
	profile_free(p);

	/* Hidden addresses: root is told about kptr_restrict only. */
	f = fopen(path, "w");
	cr_assert(f);
	fputs("0000000000000000 T _stext\n0000000000000000 t clear_page_erms\n", f);
	fclose(f);
	cr_assert_eq(kallsyms_load(&ks, path, why, sizeof(why)), 0);
	cr_expect(ks.n == 0 && ks.hidden == 2, "%zu %zu", ks.n, ks.hidden);
	kallsyms_release(&ks);
	p = kernel_profile(path);
	cr_expect(has_warning(p, "addresses hidden", "lower kernel.kptr_restrict"));
	cr_expect(has_warning(p, "addresses hidden", "as root") == (geteuid() != 0));
	profile_free(p);
	unlink(path);
}

/* profile_options.focus = "second": second's addresses keep their lines and inline frames,
 * every other address gets its function from the symbol table only, and the DSOs none of
 * whose addresses are second's (libc, ld.so) have their DWARF never read. */
Test(symbolize, focus_reads_the_lines_of_one_function)
{
	char out[PATH_MAX];
	struct profile *full, *p;
	int poke = hot_line("wl_inline.c", "poke");
	uint64_t in_second = 0;

	tmp_path(out, sizeof(out), "focus.data");
	record(out, need_env("RPT_INLINE"), "500");
	full = load1(out, INLINE_CALLEE);
	struct profile_options o = {
	    .inputs = (const char *[]){out}, .ninputs = 1, .focus = "second"};
	p = load_opts(&o);

	cr_expect_eq(samples_at(p, "wl_inline.c", poke, "poke", "second"),
		     samples_at(full, "wl_inline.c", poke, "poke", "second"));
	cr_expect_geq(samples_at(p, "wl_inline.c", poke, "poke", "second"), 1400);
	cr_expect_eq(p->samples, full->samples);
	for (size_t i = 0; i < p->nlocs; i++) {
		const struct profile_loc *l = &p->locs[i];
		bool second = l->inlined_into ? !strcmp(l->inlined_into, "second")
					      : l->function && !strcmp(l->function, "second");

		in_second += second ? l->samples : 0;
		if (!second)
			cr_expect(!l->file && !l->line && l->nlines <= 1,
				  "%s+%#lx (%s): %s:%d, %u frames, read without focus", l->dso,
				  (unsigned long)l->addr, l->function ? l->function : "?",
				  l->file ? l->file : "-", l->line, l->nlines);
	}
	cr_expect_eq(in_second, samples_at(full, "wl_inline.c", 0, NULL, "second") +
				    samples_at(full, "wl_inline.c", 0, "second", ""));
	/* poke's first() copy is named by its symbol: first, no line. */
	cr_expect_eq(samples_at(p, "wl_inline.c", 0, "poke", "first"), 0);
	cr_expect(!has_warning(p, "no debug info", NULL));
	profile_free(p);
	profile_free(full);
	unlink(out);
}
