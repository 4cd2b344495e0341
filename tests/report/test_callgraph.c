/* test_callgraph.c - stacks through the builder into rows with children, call-path trees
 * (-G), and folded stacks, over rpt_calls (wl_calls.c) at real addresses: each frame's
 * address is taken from the binary's line table at a HOT: line, so symbolization is real.
 * The stacks are made here (the producer calls a reader would make), as `record -g` would
 * record them: callers innermost first, as return addresses. */
#include <criterion/criterion.h>

#include "builder.h"
#include "callgraph.h"
#include "hot.h"
#include "rows.h"
#include "output.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BASE 0x555555554000ull
#define SRC  "wl_calls.c"

static struct hwprof_file_event ev = {
    .name = "page-faults", .type = 1, .config = 2, .sampling = true, .period_or_freq = 1};

struct bin {
	const char *path;
	uint64_t off, vaddr, filesz; /* the executable PT_LOAD */
	Dwfl *dwfl;
	Dwfl_Module *mod;
};

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
};

static void bin_open(struct bin *b)
{
	int fd;
	Elf *elf;
	size_t n;

	b->path = need_env("RPT_CALLS");
	elf_version(EV_CURRENT);
	fd = open(b->path, O_RDONLY);
	cr_assert_geq(fd, 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert(elf && elf_getphdrnum(elf, &n) == 0);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			b->off = ph.p_offset, b->vaddr = ph.p_vaddr, b->filesz = ph.p_filesz;
			break;
		}
	}
	elf_end(elf);
	close(fd);
	cr_assert(b->filesz);
	b->dwfl = dwfl_begin(&callbacks);
	b->mod = dwfl_report_elf(b->dwfl, "calls", b->path, -1, 0, false);
	cr_assert(b->mod && dwfl_report_end(b->dwfl, NULL, NULL) == 0);
}

/* The link-time line of ADDR, 0 when none. */
static int line_at(struct bin *b, Dwarf_Addr addr)
{
	Dwfl_Line *l = dwfl_module_getsrc(b->mod, addr);
	int line = 0;

	if (l)
		dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	return line;
}

/* The run-time address (mapped at BASE as the MMAP record says) of an instruction of the
 * HOT: TOKEN line inside FUNCTION; with RET, the address just past the line's code: the
 * return address of the call that ends the line (the workload follows each call with a
 * store of its own line). */
static uint64_t addr_of(struct bin *b, const char *token, const char *function, bool ret)
{
	int line = hot_line(SRC, token);
	Dwfl_Line **lines = NULL;
	size_t n = 0;

	cr_assert_eq(dwfl_module_getsrc_file(b->mod, SRC, line, 0, &lines, &n), 0, "%s", token);
	for (size_t i = 0; i < n; i++) {
		Dwarf_Addr a;
		dwfl_lineinfo(lines[i], &a, NULL, NULL, NULL, NULL);
		const char *fn = dwfl_module_addrname(b->mod, a);
		if (!fn || strcmp(fn, function))
			continue;
		while (line_at(b, a) != line)
			a++;
		while (ret && line_at(b, a) == line)
			a++;
		free(lines);
		return BASE + (a - b->vaddr + b->off);
	}
	cr_assert_fail("no address of line %d in %s", line, function);
	return 0;
}

#define ip_of(b, token, fn)  addr_of(b, token, fn, false)
#define ret_of(b, token, fn) addr_of(b, token, fn, true)

static struct builder *begin(struct bin *b, const struct profile_options *o)
{
	struct hwprof_file_header h = {.major = 1, .nevents = 1, .events = &ev};
	struct hwprof_record r = {.type = HWPROF_REC_MMAP};
	struct builder *bld;
	char err[256];

	cr_assert_eq(builder_new(&bld, o, err, sizeof(err)), 0);
	cr_assert_eq(builder_begin_input(bld, "calls", &h), 0);
	r.mmap = (struct hwprof_rec_mmap){.pid = 1,
					  .tid = 1,
					  .time = 1,
					  .start = BASE + (b->off & ~0xfffull),
					  .len = b->filesz + (b->off & 0xfff),
					  .pgoff = b->off & ~0xfffull,
					  .prot = 5,
					  .filename = b->path};
	cr_assert_eq(builder_add(bld, &r), 0);
	return bld;
}

static void samples(struct builder *bld, uint64_t ip, uint32_t stack, int n)
{
	struct hwprof_rec_sample s = {.pid = 1, .tid = 1, .time = 2, .ip = ip, .period = 1};

	for (int i = 0; i < n; i++)
		cr_assert_eq(builder_add_sample(bld, &s, stack), 0);
}

static struct profile *finish(struct builder *bld)
{
	struct profile *p;
	char err[256];

	cr_assert_eq(builder_end_input(bld, NULL, HWPROF_READ_OK, NULL), 0);
	cr_assert_eq(builder_finish(bld, &p, err, sizeof(err)), 0, "%s", err);
	builder_free(bld);
	return p;
}

/* The two paths (1000 : 3000 samples of leaf), the second through the inlined hop; 50 levels
 * of recursion (500); main alone (1, no stack). */
static struct profile *calls_profile(struct bin *b, const struct profile_options *o)
{
	struct builder *bld = begin(b, o);
	uint64_t leaf = ip_of(b, "leaf", "leaf");
	uint64_t a[] = {ret_of(b, "call_a", "path_a"), ret_of(b, "main_a", "main")};
	uint64_t bb[] = {ret_of(b, "call_hop", "path_b"), ret_of(b, "main_b", "main")};
	uint64_t deep[51];

	deep[0] = ret_of(b, "call_deep", "recurse");
	for (int i = 1; i < 50; i++)
		deep[i] = ret_of(b, "recurse", "recurse");
	deep[50] = ret_of(b, "main_deep", "main");
	cr_assert_eq(builder_add_stack(bld, 1, a, 2, 0, false), 0);
	cr_assert_eq(builder_add_stack(bld, 2, bb, 2, 0, false), 0);
	cr_assert_eq(builder_add_stack(bld, 3, deep, 51, 0, false), 0);
	samples(bld, leaf, 1, 1000);
	samples(bld, leaf, 2, 3000);
	samples(bld, leaf, 3, 500);
	samples(bld, ip_of(b, "main_a", "main"), 0, 1);
	return finish(bld);
}

/* OUT of writing P's rows (children as asked, sorted by KEY) through FN. */
static char *render(const struct profile *p, enum profile_key key, bool children, bool graph,
		    enum cg_order order, double limit,
		    int (*fn)(FILE *, const struct profile *, const struct profile_row *, size_t,
			      const struct output_opts *))
{
	struct profile_rows_req req = {.keys = &key, .nkeys = 1, .children = children};
	struct profile_row *rows;
	uint32_t *row_of;
	size_t n, len;
	char *out;
	FILE *f = open_memstream(&out, &len);

	cr_assert_eq(profile_rows_by(p, &req, &rows, &n, &row_of), 0);
	struct output_opts o = {.keys = &key,
				.nkeys = 1,
				.children = children,
				.callgraph = graph,
				.order = order,
				.row_of = row_of,
				.percent_limit = limit};
	cr_assert_eq(fn(f, p, rows, n, &o), 0);
	fclose(f);
	free(rows);
	free(row_of);
	return out;
}

static char *line_label(const char *token, const char *fn)
{
	static char buf[8][128];
	static int k;
	char *s = buf[k++ % 8];

	snprintf(s, 128, SRC ":%d %s", hot_line(SRC, token), fn);
	return s;
}

Test(callgraph, two_paths_one_to_three_with_call_site_lines)
{
	struct profile_options o = {0};
	struct bin b;
	struct profile *p;
	char *out, want[512];

	bin_open(&b);
	p = calls_profile(&b, &o);
	cr_assert_eq(p->samples, 4501);
	out = render(p, PROFILE_KEY_FUNCTION, false, true, CG_CALLEE, 0, output_text);
	/* Under leaf's row, outward: hop (inlined into path_b) at its call of leaf, then path_b
	 * at hop's call site, then main. */
	snprintf(want, sizeof(want), "%6.2f%%  %s\n%*s%s\n%*s%s\n", 3000 * 100.0 / 4501,
		 line_label("call_hop", "hop"), 19, "", line_label("call_b", "path_b"), 19, "",
		 line_label("main_b", "main"));
	cr_expect(strstr(out, want), "want\n%s\nin\n%s", want, out);
	snprintf(want, sizeof(want), "%6.2f%%  %s\n%*s%s\n", 1000 * 100.0 / 4501,
		 line_label("call_a", "path_a"), 19, "", line_label("main_a", "main"));
	cr_expect(strstr(out, want), "want\n%s\nin\n%s", want, out);
	free(out);
	/* Caller order: main first, its three calls as three branches. */
	out = render(p, PROFILE_KEY_FUNCTION, false, true, CG_CALLER, 0, output_text);
	snprintf(want, sizeof(want), "%6.2f%%  %s\n%*s%s\n%*s%s\n", 3000 * 100.0 / 4501,
		 line_label("main_b", "main"), 19, "", line_label("call_b", "path_b"), 19, "",
		 line_label("call_hop", "hop"));
	cr_expect(strstr(out, want), "want\n%s\nin\n%s", want, out);
	free(out);
	/* --percent-limit prunes the paths as the rows. */
	out = render(p, PROFILE_KEY_FUNCTION, false, true, CG_CALLEE, 30, output_text);
	cr_expect(strstr(out, line_label("call_hop", "hop")));
	cr_expect(!strstr(out, line_label("call_a", "path_a")), "%s", out);
	free(out);
	profile_free(p);
	dwfl_end(b.dwfl);
}

Test(callgraph, children_rows_count_each_stack_once)
{
	struct profile_options o = {0};
	enum profile_key key = PROFILE_KEY_FUNCTION;
	struct profile_rows_req req = {.keys = &key, .nkeys = 1, .children = true};
	struct profile_row *rows;
	struct bin b;
	struct profile *p;
	size_t n;
	bool seen_main = false, seen_recurse = false, seen_path_b = false, seen_hop = false;

	bin_open(&b);
	p = calls_profile(&b, &o);
	cr_assert_eq(profile_rows_by(p, &req, &rows, &n, NULL), 0);
	cr_assert_str_eq(rows[0].function, "main");
	for (size_t i = 0; i < n; i++) {
		const struct profile_row *r = &rows[i];
		cr_expect(r->children);
		if (!strcmp(r->function, "main")) {
			seen_main = true;
			cr_expect_eq(r->samples, 4501);
			cr_expect_eq(r->self_samples, 1);
		} else if (!strcmp(r->function, "recurse")) {
			/* 50 frames of it in one stack: its 500 samples once. */
			seen_recurse = true;
			cr_expect_eq(r->samples, 500);
			cr_expect_eq(r->self_samples, 0);
			cr_expect_float_eq(r->share, 500.0 / 4501, 1e-9);
		} else if (!strcmp(r->function, "leaf")) {
			cr_expect_eq(r->samples, 4500);
			cr_expect_eq(r->self_samples, 4500);
		} else if (!strcmp(r->function, "path_b")) {
			/* Its only frame in the stacks is hop's call site, inlined into it: the
			 * stack passes through path_b all the same (as -G shows it). */
			seen_path_b = true;
			cr_expect_eq(r->samples, 3000);
			cr_expect_eq(r->self_samples, 0);
			cr_expect(!r->inlined_into);
		} else if (!strcmp(r->function, "hop")) {
			seen_hop = true;
			cr_expect_eq(r->samples, 3000);
			cr_expect_str_eq(r->inlined_into, "path_b");
		}
	}
	cr_expect(seen_main && seen_recurse);
	cr_expect(seen_path_b, "no row for path_b, which hop is inlined into");
	cr_expect(seen_hop);
	free(rows);
	/* Without children the rows are the flat ones. */
	req.children = false;
	cr_assert_eq(profile_rows_by(p, &req, &rows, &n, NULL), 0);
	cr_expect_eq(n, 2);
	cr_expect_str_eq(rows[0].function, "leaf");
	cr_expect_eq(rows[0].samples, 4500);
	cr_expect(!rows[0].children);
	free(rows);
	profile_free(p);
	dwfl_end(b.dwfl);
}

/* --sort addr: an inlined instruction's outer frame has the instruction's own key; its row
 * still names the inlined function and its line. */
Test(callgraph, children_addr_rows_keep_the_inlined_function)
{
	struct profile_options o = {0};
	enum profile_key key = PROFILE_KEY_ADDR;
	struct profile_rows_req req = {.keys = &key, .nkeys = 1, .children = true};
	struct profile_row *rows;
	struct bin b;
	struct profile *p;
	size_t n, hops = 0;

	bin_open(&b);
	p = calls_profile(&b, &o);
	cr_assert_eq(profile_rows_by(p, &req, &rows, &n, NULL), 0);
	for (size_t i = 0; i < n; i++) {
		cr_expect(rows[i].function, "row %zu (0x%llx) lost its function", i,
			  (unsigned long long)rows[i].addr);
		if (rows[i].function && !strcmp(rows[i].function, "hop")) {
			hops++;
			cr_expect_str_eq(rows[i].inlined_into, "path_b");
			cr_expect_eq(rows[i].line, hot_line(SRC, "call_hop"));
			cr_expect_eq(rows[i].samples, 3000);
		}
	}
	cr_expect_eq(hops, 1);
	free(rows);
	profile_free(p);
	dwfl_end(b.dwfl);
}

Test(callgraph, folded_one_line_per_stack_with_inline_frames)
{
	struct profile_options o = {0};
	struct bin b;
	struct profile *p;
	char *out, deep[2048];
	size_t k;

	bin_open(&b);
	p = calls_profile(&b, &o);
	out = render(p, PROFILE_KEY_LINE, false, false, CG_CALLER, 0, output_folded);
	cr_expect(strstr(out, "main;path_a;leaf 1000\n"), "%s", out);
	cr_expect(strstr(out, "main;path_b;hop;leaf 3000\n"), "%s", out);
	cr_expect(strstr(out, "main 1\n"), "%s", out);
	k = (size_t)snprintf(deep, sizeof(deep), "main");
	for (int i = 0; i < 50; i++)
		k += (size_t)snprintf(deep + k, sizeof(deep) - k, ";recurse");
	snprintf(deep + k, sizeof(deep) - k, ";leaf 500\n");
	cr_expect(strstr(out, deep), "%s", out);
	/* Four distinct stacks, four lines. */
	k = 0;
	for (const char *s = out; (s = strchr(s, '\n')); s++)
		k++;
	cr_expect_eq(k, 4, "%s", out);
	free(out);
	profile_free(p);
	dwfl_end(b.dwfl);
}

Test(callgraph, json_rows_carry_call_paths)
{
	struct profile_options o = {0};
	struct bin b;
	struct profile *p;
	char *out, want[256];

	bin_open(&b);
	p = calls_profile(&b, &o);
	out = render(p, PROFILE_KEY_FUNCTION, true, false, CG_CALLEE, 0, output_json);
	cr_expect(strstr(out, "\"children\":true,\"stacks\":4,"), "%s", out);
	/* leaf's row: its path through hop and path_b, 3000 samples, frames outward. */
	snprintf(want, sizeof(want),
		 "{\"samples\":3000,\"period\":3000,\"share\":%.10g,\"frames\":[{\"function\":"
		 "\"hop\",",
		 3000 / 4501.0);
	cr_expect(strstr(out, want), "%s\nin\n%s", want, out);
	snprintf(want, sizeof(want), "/wl_calls.c\",\"line\":%d,", hot_line(SRC, "call_b"));
	cr_expect(strstr(out, want), "%s\nin\n%s", want, out);
	cr_expect(strstr(out, "\"self_samples\":4500,"), "%s", out);
	free(out);
	profile_free(p);
	dwfl_end(b.dwfl);
}

/* The same stacks through a sample file: the writer interns them, the reader gives STACK
 * records before their samples, and profile_load() feeds them to the builder. */
Test(callgraph, stacks_read_from_a_sample_file)
{
	struct hwprof_file_header h = {.major = 1, .nevents = 1, .events = &ev, .stacks = true};
	struct hwprof_file_trailer tr = {0};
	struct hwprof_writer *w;
	struct hwprof_record r = {.type = HWPROF_REC_MMAP};
	struct profile_options o = {0};
	struct profile *p;
	struct bin b;
	char path[] = "/tmp/rpt-callgraph-XXXXXX", err[256], *out;
	uint32_t ida, idb;
	const char *inputs[1] = {path};
	int fd;

	bin_open(&b);
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	uint64_t a[] = {ret_of(&b, "call_a", "path_a"), ret_of(&b, "main_a", "main")};
	uint64_t bb[] = {ret_of(&b, "call_hop", "path_b"), ret_of(&b, "main_b", "main")};
	cr_assert_eq(hwprof_writer_open(&w, path, &h), 0);
	r.mmap = (struct hwprof_rec_mmap){.pid = 1,
					  .tid = 1,
					  .time = 1,
					  .start = BASE + (b.off & ~0xfffull),
					  .len = b.filesz + (b.off & 0xfff),
					  .pgoff = b.off & ~0xfffull,
					  .prot = 5,
					  .filename = b.path};
	cr_assert_eq(hwprof_writer_add(w, &r), 0);
	cr_assert_eq(hwprof_writer_add_stack(w, a, 2, 0, false, &ida), 0);
	cr_assert_eq(hwprof_writer_add_stack(w, bb, 2, 0, false, &idb), 0);
	for (int i = 0; i < 400; i++) {
		r = (struct hwprof_record){.type = HWPROF_REC_SAMPLE};
		r.sample = (struct hwprof_rec_sample){.pid = 1,
						      .tid = 1,
						      .time = 2 + (uint64_t)i,
						      .ip = ip_of(&b, "leaf", "leaf"),
						      .period = 1,
						      .stack_id = i % 4 ? idb : ida};
		cr_assert_eq(hwprof_writer_add(w, &r), 0);
	}
	tr.samples = 400;
	cr_assert_eq(hwprof_writer_close(w, &tr), 0);
	o.inputs = inputs;
	o.ninputs = 1;
	cr_assert_eq(profile_load(&p, &o, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(p->nstacks, 2);
	out = render(p, PROFILE_KEY_LINE, false, false, CG_CALLER, 0, output_folded);
	cr_expect_str_eq(out, "main;path_a;leaf 100\nmain;path_b;hop;leaf 300\n");
	free(out);
	profile_free(p);
	unlink(path);
	dwfl_end(b.dwfl);
}
