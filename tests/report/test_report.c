/* test_report.c - report/'s model: symbolization of each binary kind (lines found by their
 * HOT: tokens), inline views, C++ names, ld.lld, changed files, separate debug info, the MMAP
 * replay, filters, merged inputs, truncated files, kernel symbols, and the interval math.
 *
 * Real recordings come from `hwprof record -e page-faults -c 1`: with period 1 every fault's
 * IP is exact, so the marked line must take the samples of its file. */
#include <criterion/criterion.h>

#include "builder.h"
#include "hot.h"
#include "filter.h"
#include "funcname.h"
#include "kallsyms.h"
#include "model.h"
#include "output.h"
#include "hwprof/metrics.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* ---- helpers --------------------------------------------------------------------------- */

static void tmp_path(char *buf, size_t len, const char *name)
{
	static int seq;

	snprintf(buf, len, "%s/rpt-%d-%d-%s", need_env("RPT_TMP"), (int)getpid(), seq++, name);
}

static int run(char *const argv[])
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	status = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	cr_assert(status == 0, "spawn %s: %s", argv[0], strerror(status));
	cr_assert(waitpid(pid, &status, 0) == pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Records PROG (with one argument, a page count) into OUT at one sample per page fault. */
static void record(const char *out, const char *prog, const char *arg)
{
	char *argv[] = {(char *)need_env("HWPROF"),
			"record",
			"-e",
			"page-faults",
			"-c",
			"1",
			"-o",
			(char *)out,
			"--",
			(char *)prog,
			(char *)arg,
			NULL};

	cr_assert_eq(run(argv), 0, "hwprof record of %s failed", prog);
}

static struct profile *load_opts(struct profile_options *o)
{
	struct profile *p = NULL;
	char err[1024] = "";
	int ret = profile_load(&p, o, err, sizeof(err));

	cr_assert_eq(ret, 0, "profile_load: %s", err);
	return p;
}

static struct profile *load1(const char *path, enum inline_mode mode)
{
	const char *in[] = {path};
	struct profile_options o = {.inputs = in, .ninputs = 1, .inline_mode = mode};

	return load_opts(&o);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);

	return s && a >= b && !strcmp(s + a - b, suffix) && (a == b || s[a - b - 1] == '/');
}

/* Samples of P at SRC:LINE (LINE 0: anywhere in SRC) whose function is FN (NULL: any) and
 * inline caller INTO (NULL: any, "" none). */
static uint64_t samples_at(const struct profile *p, const char *src, int line, const char *fn,
			   const char *into)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->nlocs; i++) {
		const struct profile_loc *l = &p->locs[i];
		if (!ends_with(l->file, src) || (line && l->line != line))
			continue;
		if (fn && (!l->function || strcmp(l->function, fn)))
			continue;
		if (into && (into[0] ? !l->inlined_into || strcmp(l->inlined_into, into)
				     : l->inlined_into != NULL))
			continue;
		n += l->samples;
	}
	return n;
}

static uint64_t samples_of_dso(const struct profile *p, const char *dso)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->nlocs; i++)
		if (!strcmp(p->locs[i].dso, dso))
			n += p->locs[i].samples;
	return n;
}

static bool has_warning(const struct profile *p, const char *a, const char *b)
{
	for (size_t i = 0; i < p->nwarnings; i++)
		if (strstr(p->warnings[i], a) && (!b || strstr(p->warnings[i], b)))
			return true;
	return false;
}

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

/* ---- the interval math ----------------------------------------------------------------- */

Test(report, wilson_against_hand_computed_values)
{
	double lo, hi;

	/* p = .3, n = 100, z = 1.96: center .30740, half .08845 */
	profile_wilson95(30, 100, &lo, &hi);
	cr_expect(lo > 0.21885 && lo < 0.21895, "lo %f", lo);
	cr_expect(hi > 0.39580 && hi < 0.39590, "hi %f", hi);
	/* 0 of 10: [0, z^2/n / (1 + z^2/n)] = [0, .27753] */
	profile_wilson95(0, 10, &lo, &hi);
	cr_expect(lo == 0 && hi > 0.2775 && hi < 0.2776, "[%f, %f]", lo, hi);
	profile_wilson95(10, 10, &lo, &hi);
	cr_expect(hi > 0.999999 && lo > 0.7224 && lo < 0.7225, "[%f, %f]", lo, hi);
	/* 500 of 1000: .5 +- 1.96 * sqrt(.25/1000 + 3.8415/4e6) / 1.0038415 = [.46907, .53093] */
	profile_wilson95(500, 1000, &lo, &hi);
	cr_expect(lo > 0.46905 && lo < 0.46910 && hi > 0.53090 && hi < 0.53095, "[%f, %f]", lo, hi);
	profile_wilson95(0, 0, &lo, &hi);
	cr_expect(lo == 0 && hi == 1);
}

Test(report, sort_keys_parse)
{
	enum profile_key k[3];
	char err[256] = "";

	cr_assert_eq(profile_parse_sort("function,line", k, 3, err, sizeof(err)), 2);
	cr_expect(k[0] == PROFILE_KEY_FUNCTION && k[1] == PROFILE_KEY_LINE);
	cr_assert_eq(profile_parse_sort("dso", k, 3, err, sizeof(err)), 1);
	cr_expect(k[0] == PROFILE_KEY_DSO);
	cr_expect_eq(profile_parse_sort("line,bogus", k, 3, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "'bogus'") && strstr(err, "line, function, dso"), "%s", err);
	cr_expect_eq(profile_parse_sort("", k, 3, err, sizeof(err)), -EINVAL);
	/* Every bad key is named: a repeated one (not "too many keys" at the last), an alias
	 * of one given before, and unknown ones with the repeats. */
	cr_expect_eq(profile_parse_sort("line,function,dso,line", k, 3, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "--sort 'line,function,dso,line': 'line' given twice (keys:"), "%s",
		  err);
	cr_expect_eq(profile_parse_sort("line,srcline", k, 3, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "'srcline' given twice"), "%s", err);
	cr_expect_eq(
	    profile_parse_sort("bogus,line,nope,line,dso,sym,function", k, 3, err, sizeof(err)),
	    -EINVAL);
	cr_expect(strstr(err, "unknown sort keys 'bogus', 'nope'") &&
		      strstr(err, "; 'line', 'function' given again"),
		  "%s", err);
}

/* ---- symbolization of each binary kind --------------------------------------------------- */

Test(report, pie_gcc_dwarf5)
{
	check_hot(need_env("RPT_DWARF_GCC_5"), "wl_dwarf.c", "dwarf", 2000);
}

Test(report, gcc_dwarf4)
{
	check_hot(need_env("RPT_DWARF_GCC_4"), "wl_dwarf.c", "dwarf", 2000);
}

Test(report, clang_dwarf4)
{
	check_hot(need_env("RPT_DWARF_CLANG_4"), "wl_dwarf.c", "dwarf", 2000);
}

Test(report, clang_dwarf5)
{
	check_hot(need_env("RPT_DWARF_CLANG_5"), "wl_dwarf.c", "dwarf", 2000);
}

/* p_vaddr != p_offset in an lld-linked library: the line must still be right. */
Test(report, shared_library_linked_with_lld)
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

Test(report, cxx_template_member_demangled)
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
Test(report, inline_callee_and_caller_views)
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

/* ---- separate debug info ---------------------------------------------------------------- */

Test(report, stripped_with_gnu_debuglink)
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

Test(report, stripped_with_build_id_directory)
{
	const char *bare = need_env("RPT_DWARF_BARE"), *debug = need_env("RPT_DWARF_DEBUG");
	char out[PATH_MAX], dir[PATH_MAX], sub[PATH_MAX + 64], link[PATH_MAX + 128], hex[41];
	const unsigned char *id;
	const char *dirs[1] = {dir};
	const char *in[1] = {out};
	struct profile_options o = {.inputs = in, .ninputs = 1};
	struct profile *p;
	int line = hot_line("wl_dwarf.c", "dwarf");
	int fd = open(bare, O_RDONLY);
	Elf *e;
	ssize_t n;

	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	n = dwelf_elf_gnu_build_id(e, (const void **)&id);
	cr_assert(n > 2, "%s has no build-id", bare);
	for (ssize_t i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	elf_end(e);
	close(fd);
	tmp_path(dir, sizeof(dir), "debugroot");
	snprintf(sub, sizeof(sub), "%s/.build-id/%.2s", dir, hex);
	snprintf(link, sizeof(link), "%s/%s.debug", sub, hex + 2);
	cr_assert(mkdir(dir, 0755) == 0 &&
		  mkdir(strcat(strcpy(out, dir), "/.build-id"), 0755) == 0);
	cr_assert(mkdir(sub, 0755) == 0 && symlink(debug, link) == 0, "%s", strerror(errno));

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
	unlink(link);
	rmdir(sub);
	rmdir(strcat(strcpy(out, dir), "/.build-id"));
	rmdir(dir);
}

/* ---- changed files ------------------------------------------------------------------------ */

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

Test(report, rebuilt_binary_is_detected_not_misattributed)
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

/* ---- merged inputs ----------------------------------------------------------------------- */

Test(report, merged_recordings_of_one_binary)
{
	char a[PATH_MAX], b[PATH_MAX];
	const char *in[2] = {a, b};
	struct profile_options o = {.inputs = in, .ninputs = 2};
	struct profile *p;
	int line = hot_line("wl_dwarf.c", "dwarf");

	tmp_path(a, sizeof(a), "m1.data");
	tmp_path(b, sizeof(b), "m2.data");
	record(a, need_env("RPT_DWARF_GCC_5"), "1000");
	record(b, need_env("RPT_DWARF_GCC_5"), "3000");
	p = load_opts(&o);
	cr_expect(samples_at(p, "wl_dwarf.c", line, "touch", NULL) >= 3800);
	cr_expect(!has_warning(p, "different builds", NULL));
	cr_expect(p->samples == p->samples_read && p->samples > 4000);
	profile_free(p);
	unlink(a);
	unlink(b);
}

/* ---- synthetic records: replay, filters, kernel, builds, truncation ---------------------- */

static struct hwprof_file_event synth_event = {
    .name = "page-faults",
    .type = 1,
    .config = 2,
    .sampling = true,
    .period_or_freq = 1,
};

static void begin(struct builder *b, const char *name)
{
	struct hwprof_file_header h = {.major = 1, .nevents = 1, .events = &synth_event};

	cr_assert_eq(builder_begin_input(b, name, &h), 0);
}

static void add_mmap(struct builder *b, uint32_t pid, uint64_t t, uint64_t start, const char *file,
		     uint8_t id)
{
	struct hwprof_record r = {.type = HWPROF_REC_MMAP};

	r.mmap = (struct hwprof_rec_mmap){.pid = pid,
					  .tid = pid,
					  .time = t,
					  .start = start,
					  .len = 0x1000,
					  .pgoff = 0,
					  .prot = 5,
					  .build_id_size = id ? 20 : 0,
					  .filename = file};
	memset(r.mmap.build_id, id, sizeof(r.mmap.build_id));
	cr_assert_eq(builder_add(b, &r), 0);
}

static void add_comm(struct builder *b, uint32_t pid, uint32_t tid, uint64_t t, const char *c,
		     bool exec)
{
	struct hwprof_record r = {.type = HWPROF_REC_COMM};

	r.comm =
	    (struct hwprof_rec_comm){.pid = pid, .tid = tid, .time = t, .exec = exec, .comm = c};
	cr_assert_eq(builder_add(b, &r), 0);
}

static void add_fork(struct builder *b, uint32_t pid, uint32_t ppid, uint64_t t)
{
	struct hwprof_record r = {.type = HWPROF_REC_FORK};

	r.task =
	    (struct hwprof_rec_task){.pid = pid, .ppid = ppid, .tid = pid, .ptid = ppid, .time = t};
	cr_assert_eq(builder_add(b, &r), 0);
}

static void add_samples(struct builder *b, uint32_t pid, uint32_t tid, uint64_t t, uint64_t ip,
			int n, bool kernel)
{
	struct hwprof_record r = {.type = HWPROF_REC_SAMPLE};

	r.sample = (struct hwprof_rec_sample){
	    .pid = pid, .tid = tid, .time = t, .ip = ip, .period = 1, .kernel = kernel};
	for (int i = 0; i < n; i++)
		cr_assert_eq(builder_add(b, &r), 0);
}

static struct profile *finish(struct builder *b, char *err, size_t len, int want)
{
	struct profile *p = NULL;

	cr_assert_eq(builder_end_input(b, NULL, HWPROF_READ_OK, NULL), 0);
	cr_assert_eq(builder_finish(b, &p, err, len), want, "%s", err);
	builder_free(b);
	return p;
}

/* Records from per-CPU buffers come out of time order: a sample taken before an exec can be
 * read after it, and must still resolve to the old image. */
Test(report, mmap_replay_follows_time_fork_and_exec)
{
	struct profile_options o = {0};
	struct builder *b;
	struct profile *p;
	char err[256];

	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	begin(b, "synthetic");
	add_mmap(b, 10, 100, 0x400000, "/nonexistent/old", 0);
	add_comm(b, 10, 10, 500, "new", true);
	add_mmap(b, 10, 600, 0x400000, "/nonexistent/new", 0);
	add_samples(b, 10, 10, 400, 0x400010, 3, false); /* before the exec */
	add_samples(b, 10, 10, 700, 0x400010, 5, false); /* after */
	add_fork(b, 11, 10, 800);
	add_samples(b, 11, 11, 900, 0x400020, 7, false); /* the child has the parent's maps */
	add_samples(b, 12, 12, 900, 0x400020, 2, false); /* no maps: [unknown] */
	/* Child 20's exec and new image read before its FORK record. */
	add_comm(b, 20, 20, 1000, "child", true);
	add_mmap(b, 20, 1010, 0x400000, "/nonexistent/child", 0);
	add_samples(b, 20, 20, 1100, 0x400030, 4, false); /* after the exec */
	add_fork(b, 20, 10, 950);
	add_samples(b, 20, 20, 960, 0x400030, 6, false); /* between fork and exec */
	p = finish(b, err, sizeof(err), 0);
	cr_expect_eq(samples_of_dso(p, "/nonexistent/old"), 3);
	cr_expect_eq(samples_of_dso(p, "/nonexistent/new"), 18);
	cr_expect_eq(samples_of_dso(p, "/nonexistent/child"), 4);
	cr_expect_eq(samples_of_dso(p, "[unknown]"), 2);
	cr_expect(has_warning(p, "/nonexistent/new", "deleted or moved"));
	profile_free(p);
}

static struct builder *two_processes(struct profile_options *o, int want_new)
{
	struct builder *b;
	char err[256] = "";

	cr_assert_eq(builder_new(&b, o, err, sizeof(err)), want_new, "%s", err);
	if (want_new)
		return NULL;
	begin(b, "synthetic");
	add_comm(b, 100, 100, 1, "alpha", true);
	add_comm(b, 200, 200, 1, "beta", true);
	add_comm(b, 200, 201, 2, "beta-worker", false);
	add_samples(b, 100, 100, 10, 0x1000, 10, false);
	add_samples(b, 200, 200, 10, 0x2000, 30, false);
	add_samples(b, 200, 201, 10, 0x3000, 60, false);
	return b;
}

Test(report, filters_by_pid_tid_comm)
{
	struct profile_options o = {.pids = "200"};
	struct profile *p;
	char err[256] = "";

	p = finish(two_processes(&o, 0), err, sizeof(err), 0);
	cr_expect_eq(p->samples, 90);
	cr_expect_eq(p->samples_read, 100);
	profile_free(p);

	o = (struct profile_options){.tids = "100,201"};
	p = finish(two_processes(&o, 0), err, sizeof(err), 0);
	cr_expect_eq(p->samples, 70);
	profile_free(p);

	o = (struct profile_options){.comms = "beta"};
	p = finish(two_processes(&o, 0), err, sizeof(err), 0);
	cr_expect_eq(p->samples, 30);
	profile_free(p);
}

Test(report, unknown_filter_values_are_errors)
{
	struct profile_options o = {.pids = "999"};
	char err[256] = "";

	cr_expect_null(finish(two_processes(&o, 0), err, sizeof(err), -EINVAL));
	cr_expect(strstr(err, "--pid '999'") && strstr(err, "100"), "%s", err);

	o = (struct profile_options){.comms = "gamma"};
	finish(two_processes(&o, 0), err, sizeof(err), -EINVAL);
	cr_expect(strstr(err, "--comm 'gamma'") && strstr(err, "alpha"), "%s", err);

	o = (struct profile_options){.pids = "12x"};
	two_processes(&o, -EINVAL);
	o = (struct profile_options){.tids = ","};
	two_processes(&o, -EINVAL);
}

Test(report, filters_by_dso_and_function)
{
	char out[PATH_MAX];
	const char *in[1] = {out};
	struct profile_options o = {
	    .inputs = in, .ninputs = 1, .functions = "poke", .dsos = "rpt_inline"};
	struct profile *p;
	char err[512];

	tmp_path(out, sizeof(out), "filters.data");
	record(out, need_env("RPT_INLINE"), "500");
	p = load_opts(&o);
	cr_expect(p->samples >= 1900 && p->samples <= 2100, "%lu", (unsigned long)p->samples);
	for (size_t i = 0; i < p->nlocs; i++)
		cr_expect_str_eq(p->locs[i].function, "poke");
	profile_free(p);
	o.functions = "no_such_function";
	cr_expect_eq(profile_load(&p, &o, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "--function 'no_such_function'") != NULL, "%s", err);
	unlink(out);
}

Test(report, kernel_ips_from_kallsyms)
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
Test(report, kallsyms_reader_is_bounded, .timeout = 20)
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

Test(report, inputs_with_different_builds_are_kept_apart)
{
	struct profile_options o = {0};
	struct builder *b;
	struct profile *p;
	char err[256];

	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	begin(b, "a.data");
	add_mmap(b, 1, 1, 0x400000, "/nonexistent/prog", 0xaa);
	add_samples(b, 1, 1, 2, 0x400010, 3, false);
	cr_assert_eq(builder_end_input(b, NULL, HWPROF_READ_OK, NULL), 0);
	begin(b, "b.data");
	add_mmap(b, 1, 1, 0x400000, "/nonexistent/prog", 0xbb);
	add_samples(b, 1, 1, 2, 0x400010, 4, false);
	p = finish(b, err, sizeof(err), 0);
	cr_expect(has_warning(p, "/nonexistent/prog", "different builds"));
	cr_expect_eq(p->nlocs, 2, "one location per build");
	cr_expect_eq(p->samples, 7);
	profile_free(p);
}

/* A file cut short: what it has, plus the reader's warning, and the partial flag. */
Test(report, truncated_file_reports_what_it_has)
{
	char out[PATH_MAX], cut[PATH_MAX], cmd[2 * PATH_MAX + 64];
	struct stat st;
	struct profile *p;

	tmp_path(out, sizeof(out), "whole.data");
	tmp_path(cut, sizeof(cut), "cut.data");
	record(out, need_env("RPT_DWARF_GCC_5"), "2000");
	cr_assert(stat(out, &st) == 0);
	/* Drop the last quarter: the trailer and some sample blocks. */
	snprintf(cmd, sizeof(cmd), "head -c %lld '%s' > '%s'", (long long)st.st_size * 3 / 4, out,
		 cut);
	cr_assert(system(cmd) == 0);
	p = load1(cut, INLINE_CALLEE);
	cr_expect(p->partial, "a cut file must be reported as partial");
	cr_expect(p->nwarnings >= 1 && strstr(p->warnings[0], cut), "warning names the file");
	cr_expect(p->samples > 0 && !p->have_trailer);
	profile_free(p);
	unlink(out);
	unlink(cut);
}

/* ---- rows ------------------------------------------------------------------------------- */

Test(report, rows_group_by_keys_with_intervals)
{
	char out[PATH_MAX];
	struct profile *p;
	struct profile_row *rows;
	size_t n;
	enum profile_key line = PROFILE_KEY_LINE, fn = PROFILE_KEY_FUNCTION;
	int poke = hot_line("wl_inline.c", "poke");

	tmp_path(out, sizeof(out), "rows.data");
	record(out, need_env("RPT_INLINE"), "1000");
	p = load1(out, INLINE_CALLEE);
	cr_assert_eq(profile_rows(p, &line, 1, &rows, &n), 0);
	cr_assert(n >= 2);
	/* second (3N) leads first (N); the intervals do not overlap. */
	cr_expect_str_eq(rows[0].function, "poke");
	cr_expect_str_eq(rows[0].inlined_into, "second");
	cr_expect_eq(rows[0].line, poke);
	cr_expect_str_eq(rows[1].inlined_into, "first");
	cr_expect(rows[0].share > 0.70 && rows[0].share < 0.76, "%f", rows[0].share);
	cr_expect(rows[0].ci_lo < rows[0].share && rows[0].share < rows[0].ci_hi);
	cr_expect(!rows[0].rank_uncertain && rows[1].ci_hi < rows[0].ci_lo);
	for (size_t i = 1; i < n; i++)
		cr_expect(rows[i].period <= rows[i - 1].period);
	free(rows);
	cr_assert_eq(profile_rows(p, &fn, 1, &rows, &n), 0);
	cr_expect_str_eq(rows[0].function, "poke");
	cr_expect_eq(rows[0].line, poke, "one line only: kept under --sort function");
	free(rows);
	profile_free(p);
	unlink(out);
}

/* Several sampling events in one file: one shown at a time, the others said. */
Test(report, one_sampling_event_at_a_time)
{
	struct hwprof_file_event evs[2] = {
	    {.name = "cpu-clock", .sampling = true, .period_or_freq = 1000},
	    {.name = "page-faults", .sampling = true, .period_or_freq = 1},
	};
	struct hwprof_file_header h = {.major = 1, .nevents = 2, .events = evs};
	struct hwprof_record r = {.type = HWPROF_REC_SAMPLE};
	struct profile_options o = {0};
	const char *names[] = {NULL, "page-faults", "bogus"};
	struct builder *b;
	struct profile *p;
	char err[256] = "";

	for (int k = 0; k < 3; k++) {
		o.event = names[k];
		cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
		cr_assert_eq(builder_begin_input(b, "two.data", &h), 0);
		for (int i = 0; i < 10; i++) {
			r.sample = (struct hwprof_rec_sample){.pid = 1,
							      .tid = 1,
							      .ip = 0x1000,
							      .period = 1,
							      .event = (uint16_t)(i % 2 ? 1 : 0)};
			if (i >= 6)
				r.sample.event = 1;
			cr_assert_eq(builder_add(b, &r), 0);
		}
		p = finish(b, err, sizeof(err), k == 2 ? -EINVAL : 0);
		if (k == 0) {
			cr_expect_eq(p->samples, 3);
			cr_expect_str_eq(p->header.events[p->event].name, "cpu-clock");
		} else if (k == 1) {
			cr_expect_eq(p->samples, 7);
			cr_expect_str_eq(p->header.events[p->event].name, "page-faults");
		} else {
			cr_expect(strstr(err, "--event 'bogus'") && strstr(err, "cpu-clock"), "%s",
				  err);
		}
		profile_free(p);
	}
}

/* Shares weigh samples by their period (-F varies it); the header's counted totals are scaled
 * for multiplexing, flagged under 90%, and give derived metrics with formulas. */
Test(report, period_weights_and_counted_totals)
{
	struct hwprof_file_count counts[2] = {
	    {.event = "instructions",
	     .counted = true,
	     .value = 3000,
	     .enabled_ns = 100,
	     .running_ns = 50,
	     .scale = 1.0},
	    {.event = "cycles",
	     .counted = true,
	     .value = 1000,
	     .enabled_ns = 100,
	     .running_ns = 50,
	     .scale = 1.0},
	};
	struct hwprof_file_trailer t = {
	    .samples = 2, .duration_ns = 1000000000, .ncounts = 2, .counts = counts};
	struct profile_options o = {0};
	struct builder *b;
	struct profile *p = NULL;
	struct profile_row *rows;
	struct output_opts oo = {0};
	enum profile_key key = PROFILE_KEY_LINE;
	char err[256], *text = NULL;
	size_t n, len;
	FILE *f;

	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	begin(b, "weights.data");
	add_samples(b, 1, 1, 1, 0x1000, 1, false);
	{
		struct hwprof_record r = {.type = HWPROF_REC_SAMPLE};
		r.sample = (struct hwprof_rec_sample){
		    .pid = 1, .tid = 1, .time = 2, .ip = 0x2000, .period = 3};
		cr_assert_eq(builder_add(b, &r), 0);
	}
	cr_assert_eq(builder_end_input(b, &t, HWPROF_READ_OK, NULL), 0);
	cr_assert_eq(builder_finish(b, &p, err, sizeof(err)), 0, "%s", err);
	builder_free(b);
	cr_assert_eq(profile_rows(p, &key, 1, &rows, &n), 0);
	cr_assert_eq(n, 2);
	cr_expect(rows[0].share > 0.7499 && rows[0].share < 0.7501, "%f", rows[0].share);
	cr_expect_eq(rows[0].offset, 0x2000);
	cr_expect(profile_count_read(&counts[0]).scaled == 6000.0);

	f = open_memstream(&text, &len);
	cr_assert_eq(output_text(f, p, rows, n, &oo), 0);
	fclose(f);
	cr_expect(strstr(text, "instructions") && strstr(text, "6,000"), "%s", text);
	cr_expect(strstr(text, "50.0%  (multiplexed"), "multiplexing not flagged:\n%s", text);
	cr_expect(strstr(text, "IPC") && strstr(text, "3.000"), "no IPC 3.000:\n%s", text);
	free(text);

	text = NULL;
	f = open_memstream(&text, &len);
	cr_assert_eq(output_json(f, p, rows, n, &oo), 0);
	fclose(f);
	cr_expect(strstr(text, "\"counts\":[{\"event\":\"instructions\",\"value\":3000,"
			       "\"enabled_ns\":100,\"running_ns\":50,\"scaled\":6000"),
		  "%s", text);
	cr_expect(strstr(text, "\"name\":\"IPC\",\"value\":3"), "%s", text);
	free(text);
	free(rows);
	profile_free(p);
}

/* --sort function: the addresses of a DSO without symbols are one "[unknown]" row, not one
 * row per address (a stripped binary otherwise floods the report). --sort line keeps them
 * apart: there the address is the only location there is. */
Test(report, unknown_addresses_group_under_function_sort)
{
	static const char dso[] = "/usr/bin/stripped", lib[] = "/lib/libc.so.6";
	struct profile_loc locs[] = {
	    {.dso = dso, .offset = 0x4883, .unknown = true, .samples = 30, .period = 30},
	    {.dso = dso, .offset = 0x4330, .unknown = true, .samples = 20, .period = 20},
	    {.dso = lib, .offset = 0x100, .unknown = true, .samples = 10, .period = 10},
	};
	struct profile p = {.locs = locs, .nlocs = 3, .samples = 60, .period = 60};
	enum profile_key fn = PROFILE_KEY_FUNCTION, line = PROFILE_KEY_LINE;
	struct profile_row *rows;
	size_t n;

	cr_assert_eq(profile_rows(&p, &fn, 1, &rows, &n), 0);
	cr_assert_eq(n, 2, "one row per DSO, got %zu", n);
	cr_expect_eq(rows[0].dso, dso);
	cr_expect_eq(rows[0].samples, 50);
	cr_expect(rows[0].unknown && rows[0].function == NULL);
	free(rows);
	cr_assert_eq(profile_rows(&p, &line, 1, &rows, &n), 0);
	cr_expect_eq(n, 3);
	free(rows);
}

/* --sort dso: a row is the DSO alone, whatever its locations have in common. */
Test(report, dso_rows_show_only_the_dso)
{
	static const char dso[] = "/usr/bin/stripped", file[] = "a.c", fn[] = "f";
	struct profile_loc locs[] = {
	    {.dso = dso, .offset = 0x10, .unknown = true, .samples = 3, .period = 3},
	    {.dso = "/lib/x.so",
	     .file = file,
	     .line = 7,
	     .function = fn,
	     .samples = 1,
	     .period = 1},
	};
	struct profile p = {.locs = locs, .nlocs = 2, .samples = 4, .period = 4};
	enum profile_key key = PROFILE_KEY_DSO;
	struct profile_row *rows;
	size_t n;

	cr_assert_eq(profile_rows(&p, &key, 1, &rows, &n), 0);
	cr_assert_eq(n, 2);
	for (size_t i = 0; i < n; i++) {
		cr_expect(!rows[i].unknown && !rows[i].file && !rows[i].line && !rows[i].function,
			  "row %zu shows more than its DSO", i);
	}
	free(rows);
}

/* ---- findings F20, F23, F25, F26 (model.c, filter.c, output_text.c) ------------------------ */

/* A synthetic recording of PROG through gen_case.c with KV (NULL-terminated). */
static void gen_case(const char *out, const char *prog, const char *kv1, const char *kv2)
{
	char *argv[] = {(char *)need_env("RPT_GEN_CASE"),
			(char *)out,
			(char *)prog,
			(char *)kv1,
			(char *)kv2,
			NULL};

	cr_assert_eq(run(argv), 0, "gen_case %s %s", kv1 ? kv1 : "", kv2 ? kv2 : "");
}

Test(report, cxx_base_names_and_matching)
{
	static const char full[] = "long hw::work<int, long>(std::map<int, long, std::less<int>, "
				   "std::allocator<std::pair<int const, long> > >&)";
	static const struct {
		const char *name, *base;
	} cases[] = {
	    {full, "hw::work"},
	    {"ns::Box<int>::get(int) const", "ns::Box::get"},
	    {"touch_pages.constprop.0", "touch_pages"},
	    {"ns::f(int) [clone .cold]", "ns::f"},
	    {"std::ostream& operator<< <char>(std::ostream&, Foo const&)", "operator<<"},
	    {"Foo::operator()(int) const", "Foo::operator()"},
	    {"Foo::operator unsigned long() const", "Foo::operator unsigned long"},
	    {"(anonymous namespace)::helper(char const*, ...)", "(anonymous namespace)::helper"},
	    {"main", "main"},
	    {"<c::Toucher as c::Touch>::touch", "<c::Toucher as c::Touch>::touch"},
	    {"<alloc::vec::Vec<u8> as core::ops::Drop>::drop",
	     "<alloc::vec::Vec<u8> as core::ops::Drop>::drop"},
	    {"c::sum::<u8>", "c::sum"},
	};
	char buf[256];
	struct fn_query q;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_str_eq(fn_base_name(cases[i].name, buf, sizeof(buf)), cases[i].base);
	fn_query_init(&q, "work");
	cr_expect_eq(fn_query_match(&q, full), FN_MATCH_BASE);
	cr_expect_eq(fn_query_match(&q, "hw::network(int)"), FN_MATCH_NONE);
	fn_query_release(&q);
	fn_query_init(&q, "touch");
	cr_expect_eq(fn_query_match(&q, "<c::Toucher as c::Touch>::touch"), FN_MATCH_BASE);
	fn_query_release(&q);
	fn_query_init(&q, "hw::work<int, long>");
	cr_expect_eq(fn_query_match(&q, full), FN_MATCH_FULL);
	fn_query_release(&q);
	fn_query_init(&q, "_ZN2hw4workIilEElRSt3mapIT_T0_St4lessIS2_ESaISt4pairIKS2_S3_EEE");
	cr_expect_eq(fn_query_match(&q, full), FN_MATCH_FULL, "linkage name: %s", q.demangled);
	fn_query_release(&q);
}

Test(report, lost_samples_over_one_percent_make_it_partial)
{
	char out[PATH_MAX];
	struct profile *p;

	tmp_path(out, sizeof(out), "lost.data");
	gen_case(out, need_env("RPT_INLINE"), "lost=500", NULL);
	p = load1(out, INLINE_CALLEE);
	cr_expect(p->partial);
	cr_expect(has_warning(p, "500 of 1500 samples (33.3 %) were lost", "larger -m"));
	profile_free(p);
	gen_case(out, need_env("RPT_INLINE"), "lost=10", NULL); /* 1.0%: not over */
	p = load1(out, INLINE_CALLEE);
	cr_expect(!p->partial && !has_warning(p, "were lost", NULL));
	profile_free(p);
	unlink(out);
}

Test(report, same_file_twice_is_read_once_and_differences_noted)
{
	char a[PATH_MAX], b[PATH_MAX];
	const char *in[3] = {a, a, b};
	struct profile_options o = {.inputs = in, .ninputs = 2};
	struct profile *p;

	tmp_path(a, sizeof(a), "twice.data");
	tmp_path(b, sizeof(b), "other.data");
	gen_case(a, need_env("RPT_INLINE"), "samples=100", NULL);
	gen_case(b, need_env("RPT_INLINE"), "samples=50", "period=16");
	p = load_opts(&o);
	cr_expect_eq(p->samples, 100);
	cr_expect(has_warning(p, "the same file as", "read once"));
	cr_expect_eq(p->nnotes, 0);
	profile_free(p);
	o.ninputs = 3;
	p = load_opts(&o);
	cr_expect_eq(p->samples, 150);
	cr_assert_eq(p->nnotes, 1);
	cr_expect(strstr(p->notes[0], "4000 Hz") && strstr(p->notes[0], "period 16"), "%s",
		  p->notes[0]);
	profile_free(p);
	unlink(a);
	unlink(b);
}

Test(report, text_cuts_long_function_names_and_keeps_the_dso_column)
{
	static const char longfn[] = "long hw::work<int, long>(std::map<int, long, std::less<int>, "
				     "std::allocator<std::pair<int const, long> > >&)";
	struct profile_loc locs[] = {
	    {.dso = "/bin/prog",
	     .function = longfn,
	     .file = "w.cc",
	     .line = 3,
	     .samples = 3,
	     .period = 3},
	    {.dso = "/bin/prog",
	     .function = "main",
	     .file = "w.cc",
	     .line = 9,
	     .samples = 2,
	     .period = 2},
	    {.dso = "/lib/libc.so.6", .function = "memset", .samples = 1, .period = 1},
	};
	struct profile p = {.locs = locs, .nlocs = 3, .samples = 6, .period = 6, .samples_read = 6};
	enum profile_key key = PROFILE_KEY_LINE;
	struct output_opts oo = {.keys = &key, .nkeys = 1};
	struct profile_row *rows;
	char *text = NULL, *at;
	size_t n, len = 0;
	FILE *f = open_memstream(&text, &len);
	long col[3];

	cr_assert_eq(profile_rows(&p, &key, 1, &rows, &n), 0);
	cr_assert_eq(output_text(f, &p, rows, n, &oo), 0);
	fclose(f);
	/* Cut to the widest column (72 characters, the "…" included), not dropped. */
	cr_expect(!strstr(text, longfn) &&
		      strstr(text, "long hw::work<int, long>(std::map<int, long, "
				   "std::less<int>, std::alloc\u2026  prog"),
		  "%s", text);
	/* The dso column starts at the same character on every row ("…" is one character). */
	at = text;
	for (int i = 0; i < 3; i++) {
		char *row = strstr(at, i == 2 ? "memset" : i ? "main" : "long hw"), *dso;
		cr_assert(row);
		dso = strstr(row, i == 2 ? "libc.so.6" : "prog");
		while (row > text && row[-1] != '\n')
			row--;
		col[i] = (long)(dso - row) - (i == 0 ? 2 : 0);
	}
	cr_expect(col[0] == col[1] && col[1] == col[2], "%ld %ld %ld\n%s", col[0], col[1], col[2],
		  text);
	cr_expect(strstr(text, "?"
			       "?") != NULL,
		  "memset without a line");
	free(rows);
	free(text);
}

/* ---- merged inputs of different events and counters (M4, M5) ---------------------------- */

static void gen_casev(const char *out, const char *prog, const char *const *kv)
{
	char *argv[16] = {(char *)need_env("RPT_GEN_CASE"), (char *)out, (char *)prog};
	size_t n = 3;

	for (; *kv && n + 1 < sizeof(argv) / sizeof(argv[0]); kv++)
		argv[n++] = (char *)*kv;
	argv[n] = NULL;
	cr_assert_eq(run(argv), 0, "gen_case %s", out);
}

/* P's report in FORMAT ("text" or "json") as a malloc'd string. */
static char *render(const struct profile *p, const char *format)
{
	enum profile_key key = PROFILE_KEY_LINE;
	struct output_opts oo = {.keys = &key, .nkeys = 1};
	struct profile_row *rows = NULL;
	size_t nrows = 0, len = 0;
	char *s = NULL;
	FILE *f = open_memstream(&s, &len);

	cr_assert_not_null(f);
	cr_assert_eq(profile_rows(p, &key, 1, &rows, &nrows), 0);
	if (!strcmp(format, "json"))
		cr_assert_eq(output_json(f, p, rows, nrows, &oo), 0);
	else
		cr_assert_eq(output_text(f, p, rows, nrows, &oo), 0);
	fclose(f);
	free(rows);
	return s;
}

/* M5: inputs that sampled different events are one event at a time, as the events of one
 * file are: the periods of page faults and of nanoseconds are never added. */
Test(report, merged_inputs_of_different_events_show_one_event)
{
	char a[PATH_MAX], b[PATH_MAX];
	const char *in[2] = {a, b};
	const char *kva[] = {"samples=30", "event=page-faults", "period=1", NULL};
	const char *kvb[] = {"samples=20", NULL};
	struct profile_options o = {.inputs = in, .ninputs = 2};
	struct profile *p;
	char *text;

	tmp_path(a, sizeof(a), "ev-pf.data");
	tmp_path(b, sizeof(b), "ev-cc.data");
	gen_casev(a, need_env("RPT_INLINE"), kva);
	gen_casev(b, need_env("RPT_INLINE"), kvb);

	p = load_opts(&o);
	cr_expect_eq(p->samples, 30);
	cr_expect_eq(p->period, 30.0);
	cr_expect_str_eq(profile_sampling_event(p)->name, "page-faults");
	cr_expect(has_warning(p, "20 samples of 'cpu-clock' are not shown", "--event cpu-clock"));
	cr_expect(!has_warning(p, "merged anyway", NULL));
	text = render(p, "text");
	cr_expect(strstr(text, "# event: page-faults, period 1,"), "%s", text);
	cr_expect(strstr(text, "# events recorded: page-faults (shown, 30 samples), cpu-clock (20 "
			       "samples); --event NAME shows another"),
		  "%s", text);
	free(text);
	profile_free(p);

	/* --event picks the later input's event: the header names it, with its rate. */
	o.event = "cpu-clock";
	p = load_opts(&o);
	cr_expect_eq(p->samples, 20);
	cr_expect_eq(p->period, 20 * 250000.0);
	cr_expect_str_eq(profile_sampling_event(p)->name, "cpu-clock");
	cr_expect(profile_sampling_event(p)->freq);
	cr_expect(
	    has_warning(p, "30 samples of 'page-faults' are not shown", "--event page-faults"));
	cr_expect(!has_warning(p, "merged anyway", NULL));
	text = render(p, "text");
	cr_expect(strstr(text, "# event: cpu-clock, 4000 Hz,"), "%s", text);
	cr_expect(strstr(text, "page-faults (30 samples), cpu-clock (shown, 20 samples)"), "%s",
		  text);
	free(text);
	text = render(p, "json");
	cr_expect(strstr(text, "{\"event\":\"cpu-clock\","), "%s", text);
	cr_expect(strstr(text, "\"events\":[{\"name\":\"page-faults\",\"shown\":false,\"samples\":"
			       "30},{\"name\":\"cpu-clock\",\"shown\":true,\"samples\":20}]"),
		  "%s", text);
	free(text);
	profile_free(p);
	unlink(a);
	unlink(b);
}

/* M4: counted totals are summed per event over the inputs, like samples and duration; an
 * event some input did not count gets no total that covers only part of the run. */
Test(report, merged_inputs_sum_counted_totals)
{
	char a[PATH_MAX], b[PATH_MAX];
	const char *in[2] = {a, b};
	const char *kva[] = {"samples=30", "count=instructions:3000:100:100",
			     "count=cycles:1000:100:100", "count=page-faults:500:100:100", NULL};
	const char *kvb[] = {"samples=20", "count=instructions:1000:100:100",
			     "count=cycles:1000:100:50", NULL};
	struct profile_options o = {.inputs = in, .ninputs = 2};
	struct hwprof_metric m[8];
	struct profile *p;
	size_t nm;
	char *text;

	tmp_path(a, sizeof(a), "cnt-a.data");
	tmp_path(b, sizeof(b), "cnt-b.data");
	gen_casev(a, need_env("RPT_INLINE"), kva);
	gen_casev(b, need_env("RPT_INLINE"), kvb);
	p = load_opts(&o);
	cr_assert_eq(p->trailer.ncounts, 3);
	cr_expect_str_eq(p->trailer.counts[0].event, "instructions");
	cr_expect_eq(p->trailer.counts[0].value, 4000);
	cr_expect_eq(p->trailer.counts[0].enabled_ns, 200);
	cr_expect_eq(p->trailer.counts[0].running_ns, 200);
	cr_expect_eq(p->trailer.counts[1].value, 2000);
	cr_expect_eq(p->trailer.counts[1].running_ns, 150);
	cr_expect(!profile_count_partial(p, 0) && !profile_count_partial(p, 1));
	cr_expect_str_eq(p->trailer.counts[2].event, "page-faults");
	cr_expect(profile_count_partial(p, 2));
	cr_expect_eq(p->ninputs, 2);
	cr_assert_not_null(p->count_inputs);
	cr_expect_eq(p->count_inputs[2], 1);
	/* IPC from the sums: 4000 / (2000 * 200 / 150). */
	nm = profile_metrics(p, m, sizeof(m) / sizeof(m[0]));
	cr_assert_geq(nm, 1);
	cr_expect_str_eq(m[0].name, "IPC");
	cr_expect_float_eq(m[0].value, 4000.0 / (2000.0 * 200 / 150), 1e-9);
	text = render(p, "text");
	cr_expect(strstr(text, "page-faults") && strstr(text, "counted in 1 of 2 inputs"), "%s",
		  text);
	cr_expect(!strstr(text, " 500 "), "%s", text);
	free(text);
	text = render(p, "json");
	cr_expect(strstr(text, "{\"event\":\"instructions\",\"value\":4000,\"enabled_ns\":200,"
			       "\"running_ns\":200,"),
		  "%s", text);
	cr_expect(strstr(text, "{\"event\":\"page-faults\",\"value\":null,\"enabled_ns\":null,"
			       "\"running_ns\":null,\"scaled\":null,\"counted\":false,"),
		  "%s", text);
	cr_expect(strstr(text, "\"inputs_counted\":1,\"inputs\":2"), "%s", text);
	free(text);
	profile_free(p);
	unlink(a);
	unlink(b);
}

/* M8: the list of what the input holds ends with "..." only when it was shortened. */
Test(report, filter_error_lists_end_with_dots_only_when_cut)
{
	struct profile_options o = {.pids = "999"};
	struct builder *b;
	char err[256] = "";

	finish(two_processes(&o, 0), err, sizeof(err), -EINVAL);
	cr_expect(strstr(err, "(the input holds: 100, 200)"), "%s", err);
	o = (struct profile_options){.comms = "gamma"};
	finish(two_processes(&o, 0), err, sizeof(err), -EINVAL);
	cr_expect(strstr(err, "(the input holds: alpha, beta, beta-worker)"), "%s", err);
	o = (struct profile_options){.dsos = "nosuch"};
	finish(two_processes(&o, 0), err, sizeof(err), -EINVAL);
	cr_expect(!strstr(err, "..."), "%s", err);

	o = (struct profile_options){.pids = "999"};
	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	begin(b, "many");
	for (uint32_t pid = 1; pid <= 12; pid++)
		add_samples(b, pid, pid, 10, 0x1000, 1, false);
	finish(b, err, sizeof(err), -EINVAL);
	cr_expect(strstr(err, "(the input holds: 1, 2, 3, 4, 5, 6, 7, 8, ...)"), "%s", err);
}

Test(report, counted_total_scaled_up_never_down)
{
	/* time_running a tick past time_enabled (seen on some kernels): the value as read. */
	struct hwprof_file_count over = {.event = "task-clock",
					 .value = 1000,
					 .enabled_ns = 999,
					 .running_ns = 1000,
					 .counted = true,
					 .scale = 1.0};
	struct hwprof_file_count half = {.event = "cycles",
					 .value = 1000,
					 .enabled_ns = 2000,
					 .running_ns = 1000,
					 .counted = true,
					 .scale = 0.5};
	struct hwprof_file_count never = {.event = "cycles",
					  .value = 0,
					  .enabled_ns = 2000,
					  .running_ns = 0,
					  .counted = true,
					  .scale = 1.0};

	struct hwprof_count k = profile_count_read(&over);

	cr_expect(k.scaled == 1000.0 && k.ratio == 1.0 && k.counted, "%f %f", k.scaled, k.ratio);
	k = profile_count_read(&half);
	cr_expect(k.scaled == 1000.0, "%f", k.scaled);
	cr_expect(k.ratio == 0.5 && hwprof_count_multiplexed(&k), "%f", k.ratio);
	k = profile_count_read(&never);
	cr_expect(k.scaled == 0.0 && k.ratio == 0.0 && !k.counted);
	over.counted = false;
	k = profile_count_read(&over);
	cr_expect(k.scaled == 0.0 && !k.counted, "not counted in the file: not counted");
}

/* ---- stacks: the producer's stack calls into the profile's stack table -------------------- */

static void add_stack_samples(struct builder *b, uint32_t pid, uint64_t t, uint64_t ip, int n,
			      uint32_t stack_id)
{
	struct hwprof_rec_sample s = {.pid = pid, .tid = pid, .time = t, .ip = ip, .period = 2};

	for (int i = 0; i < n; i++)
		cr_assert_eq(builder_add_sample(b, &s, stack_id), 0);
}

/* The location of stack S's frame I. */
static const struct profile_loc *frame(const struct profile *p, const struct profile_stack *s,
				       uint32_t i)
{
	cr_assert_lt(i, s->n);
	cr_assert_lt(s->locs[i], p->nlocations);
	return &p->locations[s->locs[i]];
}

static const struct profile_stack *stack_with(const struct profile *p, uint64_t leaf, uint32_t n)
{
	for (size_t i = 0; i < p->nstacks; i++)
		if (p->stacks[i].n == n && frame(p, &p->stacks[i], 0)->offset == leaf)
			return &p->stacks[i];
	return NULL;
}

Test(report, stacks_interned_with_call_sites_and_stackless_samples)
{
	struct profile_options o = {0};
	const struct profile_stack *s;
	const uint64_t ab[] = {0x400100, 0x400200}, ac[] = {0x400100, 0x400300};
	const uint64_t kern[] = {0xffffffff81000010ull, 0x400100};
	struct builder *b;
	struct profile *p;
	char err[256];

	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	begin(b, "synthetic");
	add_mmap(b, 10, 1, 0x400000, "/nonexistent/prog", 0);
	cr_assert_eq(builder_add_stack(b, 1, ab, 2, 0, false), 0);
	cr_assert_eq(builder_add_stack(b, 2, ac, 2, 0, true), 0);
	cr_assert_eq(builder_add_stack(b, 7, kern, 2, 1, false), 0);
	cr_assert_eq(builder_add_stack(b, 0, ab, 2, 0, false), -EINVAL);
	add_stack_samples(b, 10, 5, 0x400010, 3, 1);
	add_stack_samples(b, 10, 6, 0x400010, 1, 2);
	add_stack_samples(b, 10, 7, 0x400010, 2, 0); /* no stack */
	add_stack_samples(b, 10, 8, 0x400020, 4, 7);
	p = finish(b, err, sizeof(err), 0);
	/* Flat rows as without stacks. */
	cr_expect_eq(p->samples, 10);
	cr_expect_eq(samples_of_dso(p, "/nonexistent/prog"), 10);
	cr_expect_eq(p->nlocs, 2);
	cr_assert_eq(p->nstacks, 4);
	s = stack_with(p, 0x10, 3);
	cr_assert(s && s->samples == 3 && s->period == 6 && !s->truncated);
	/* Callers at return address - 1: the call instruction's last byte. */
	cr_expect_eq(frame(p, s, 1)->offset, 0xff);
	cr_expect_eq(frame(p, s, 2)->offset, 0x1ff);
	cr_expect_eq(frame(p, s, 1)->samples, 0, "a caller's address has no samples of its own");
	s = stack_with(p, 0x10, 1);
	cr_assert(s && s->samples == 2 && s->period == 4, "stackless samples: their own stack");
	cr_expect_eq(p->truncated_samples, 1);
	s = stack_with(p, 0x20, 3);
	cr_assert(s && s->samples == 4);
	cr_expect_str_eq(frame(p, s, 1)->dso, "[kernel]");
	cr_expect_eq(frame(p, s, 1)->offset, 0xffffffff8100000full);
	cr_expect_eq(frame(p, s, 2)->offset, 0xff);
	cr_expect_eq(frame(p, s, 2)->id, s->locs[2]);
	cr_expect(!has_warning(p, "name a stack", NULL));
	profile_free(p);
}

Test(report, stack_ids_never_given_are_said_and_filters_apply)
{
	struct profile_options o = {.dsos = "b"};
	const uint64_t ips[] = {0x500100};
	struct builder *b;
	struct profile *p;
	char err[256];

	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	begin(b, "synthetic");
	add_mmap(b, 10, 1, 0x400000, "/nonexistent/a", 0);
	add_mmap(b, 10, 1, 0x500000, "/nonexistent/b", 0);
	cr_assert_eq(builder_add_stack(b, 3, ips, 1, 0, false), 0);
	add_stack_samples(b, 10, 5, 0x400010, 3, 3); /* in a: left out with its stack */
	add_stack_samples(b, 10, 5, 0x500010, 2, 3);
	add_stack_samples(b, 10, 5, 0x500010, 1, 9); /* stack 9 never given */
	p = finish(b, err, sizeof(err), 0);
	cr_expect_eq(p->samples, 3);
	cr_assert_eq(p->nstacks, 2);
	for (size_t i = 0; i < p->nstacks; i++)
		cr_expect_str_eq(frame(p, &p->stacks[i], 0)->dso, "/nonexistent/b");
	cr_expect(stack_with(p, 0x10, 2) && stack_with(p, 0x10, 2)->samples == 2);
	cr_expect(stack_with(p, 0x10, 1) && stack_with(p, 0x10, 1)->truncated);
	cr_expect(has_warning(p, "1 samples name a stack", NULL));
	cr_expect(p->partial);
	profile_free(p);
}

/* Samples dropped with no record of it (a kernel before 6.0, a child's drops) show as an
 * event that counted more than its samples and lost samples stand for: a warning, partial.
 * Within the period per task and CPU (a period not sampled yet at the end), nothing. */
Test(report, events_counted_beyond_samples_and_lost_make_it_partial)
{
	char out[PATH_MAX];
	struct profile *p;
	const char *missing[] = {"period=1",	      "samples=100", "sampled=0:149:-",
				 "event=page-faults", "config=2",    NULL};
	const char *within[] = {"period=1",	     "samples=100", "sampled=0:101:0",
				"event=page-faults", "config=2",    NULL};
	const char *lost[] = {"period=1",	   "samples=100", "lost=49", "sampled=0:149:49",
			      "event=page-faults", "config=2",	  NULL};

	tmp_path(out, sizeof(out), "unaccounted.data");
	gen_casev(out, need_env("RPT_INLINE"), missing);
	p = load1(out, INLINE_CALLEE);
	cr_expect(p->partial);
	cr_expect(has_warning(p,
			      "'page-faults' counted 149 events, but its 100 samples and 0 lost "
			      "samples stand for 100: about 49 samples are missing",
			      "larger -m"));
	profile_free(p);
	gen_casev(out, need_env("RPT_INLINE"), within);
	p = load1(out, INLINE_CALLEE);
	cr_expect(!p->partial && !has_warning(p, "counted", NULL));
	profile_free(p);
	/* Announced: the lost-share warning says it, not this one. */
	gen_casev(out, need_env("RPT_INLINE"), lost);
	p = load1(out, INLINE_CALLEE);
	cr_expect(has_warning(p, "49 of 149 samples (32.9 %) were lost", NULL));
	cr_expect(!has_warning(p, "are missing", NULL));
	profile_free(p);
	unlink(out);
	/* A clock event restarts its timer at each switch-in: its count runs ahead of samples x
	 * period with nothing dropped (cpu-clock -c 100000 of a busy loop: 41 'missing'). */
	const char *timer[] = {"period=1", "samples=100", "sampled=0:149:-", NULL};
	gen_casev(out, need_env("RPT_INLINE"), timer);
	p = load1(out, INLINE_CALLEE);
	cr_expect(!p->partial);
	cr_expect(!has_warning(p, "samples are missing", NULL));
	profile_free(p);
	unlink(out);
}

/* Two sampling events: the lost share is the shown event's own (its lost count of its samples
 * plus lost) when the file has each event's, else every event's LOST records of all samples,
 * and it says so. */
Test(report, lost_share_with_two_sampling_events)
{
	char out[PATH_MAX];
	struct profile *p;
	struct profile_lost lo;
	const char *own[] = {"samples=1000",	"other=page-faults:3000", "lost=400",
			     "sampled=0:-:100", "sampled=1:-:300",	  NULL};
	const char *all[] = {"samples=1000", "other=page-faults:3000", "lost=400", NULL};

	tmp_path(out, sizeof(out), "lost2.data");
	gen_casev(out, need_env("RPT_INLINE"), own);
	p = load1(out, INLINE_CALLEE);
	profile_lost(p, &lo);
	cr_expect_eq(lo.lost, 100);
	cr_expect_eq(lo.of, 1100);
	cr_expect(lo.per_event);
	cr_expect(has_warning(p, "100 of 1100 samples (9.1 %) were lost", NULL));
	profile_free(p);
	gen_casev(out, need_env("RPT_INLINE"), all);
	p = load1(out, INLINE_CALLEE);
	profile_lost(p, &lo);
	cr_expect_eq(lo.lost, 400);
	cr_expect_eq(lo.of, 4400);
	cr_expect_not(lo.per_event);
	cr_expect(has_warning(p, "400 of 4400 samples (9.1 %) of all events", NULL));
	profile_free(p);
	unlink(out);
}
