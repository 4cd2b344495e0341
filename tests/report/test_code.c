/* test_code.c - code.h and disasm.h on real binaries: every instruction objdump lists for a
 * function at the same address, PLT calls and jumps within the function named by symbol,
 * stores and loads told from the rest, and each address's line as the profile finds it. */
#include "code.h"

#include <criterion/criterion.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *env(const char *name)
{
	const char *v = getenv(name);

	cr_assert(v && *v, "%s is not set (run through meson test)", name);
	return v;
}

static struct code_file *open_file(const char *path)
{
	struct profile_mapping m = {.file = path, .bias_known = true};
	struct code_file *f = NULL;
	char why[512] = "";
	int rc = code_open(&f, &m, NULL, 0, why, sizeof(why));

	cr_assert_eq(rc, 0, "code_open(%s): %d %s", path, rc, why);
	return f;
}

/* The address of symbol NAME in PATH, by nm. */
static unsigned long long symbol(const char *path, const char *name)
{
	char cmd[4200], line[512];
	unsigned long long addr = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm '%s'", path);
	p = popen(cmd, "r");
	cr_assert(p);
	while (fgets(line, sizeof(line), p)) {
		char type, sym[400];
		unsigned long long a;
		if (sscanf(line, "%llx %c %399s", &a, &type, sym) == 3 && !strcmp(sym, name))
			addr = a;
	}
	pclose(p);
	cr_assert(addr, "no %s in %s", name, path);
	return addr;
}

/* objdump's instruction addresses of function NAME in PATH into V (room for MAX). */
static size_t objdump_addrs(const char *path, const char *name, unsigned long long *v, size_t max)
{
	char cmd[4200], line[512];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -d --no-show-raw-insn --disassemble='%s' '%s'", name,
		 path);
	p = popen(cmd, "r");
	cr_assert(p);
	while (fgets(line, sizeof(line), p) && n < max) {
		unsigned long long a;
		char c;
		if (sscanf(line, " %llx%c", &a, &c) == 2 && c == ':' && line[0] == ' ')
			v[n++] = a;
	}
	pclose(p);
	return n;
}

static const struct code_insn *find_text(const struct code_func *fn, const char *text)
{
	for (size_t i = 0; i < fn->n; i++)
		if (strstr(fn->v[i].text, text))
			return &fn->v[i];
	return NULL;
}

Test(code, instructions_as_objdump)
{
	const char *path = env("RPT_PLT");
	struct code_file *f = open_file(path);
	unsigned long long want[512], addr = symbol(path, "main");
	size_t nwant = objdump_addrs(path, "main", want, 512);
	struct code_func fn;
	char why[512] = "";

	cr_assert_eq(code_function(f, addr + 3, &fn, why, sizeof(why)), 0, "%s", why);
	cr_assert_str_eq(fn.name, "main");
	cr_assert_eq(fn.start, addr);
	cr_assert_gt(nwant, 5);
	cr_assert_eq(fn.n, nwant, "%zu instructions, objdump %zu", fn.n, nwant);
	for (size_t i = 0; i < nwant; i++)
		cr_assert_eq(fn.v[i].in.addr, want[i], "instruction %zu at %llx, objdump %llx", i,
			     (unsigned long long)fn.v[i].in.addr, want[i]);
	code_func_release(&fn);
	code_close(f);
}

Test(code, targets_named)
{
	const char *path = env("RPT_PLT");
	struct code_file *f = open_file(path);
	const struct code_insn *call, *loop = NULL;
	struct code_func fn;
	char why[512] = "";

	cr_assert_eq(code_function(f, symbol(path, "main"), &fn, why, sizeof(why)), 0, "%s", why);
	call = find_text(&fn, "plt_id@plt");
	cr_assert(call, "no call to plt_id@plt");
	cr_assert(call->in.flags & DISASM_CALL);
	cr_assert(call->in.flags & DISASM_TARGET);
	cr_assert_str_eq(call->text, "call   plt_id@plt");
	/* The loop's backward jump lands on an instruction of main, named main+0xOFF. */
	for (size_t i = 0; i < fn.n; i++)
		if ((fn.v[i].in.flags & DISASM_JUMP) && fn.v[i].in.target < fn.v[i].in.addr &&
		    fn.v[i].target_name)
			loop = &fn.v[i];
	cr_assert(loop, "no backward jump");
	cr_assert_str_eq(loop->target_name, "main");
	cr_assert_eq(loop->target_off, loop->in.target - fn.start);
	char want[64];
	snprintf(want, sizeof(want), "main+0x%llx", (unsigned long long)loop->target_off);
	cr_assert(strstr(loop->text, want), "%s has no %s", loop->text, want);
	for (size_t i = 0; i < fn.n; i++)
		if (fn.v[i].in.flags & DISASM_TARGET)
			cr_assert_not_null(fn.v[i].target_name, "target not named: %s",
					   fn.v[i].text);
	code_func_release(&fn);
	code_close(f);
}

/* rpt_inline's first(): the byte store of poke (inlined) to the pages; rpt_plt's main: the load
 * of argv[1]. The lea and nops of padding touch no memory. */
static size_t count_access(const char *path, const char *name, unsigned flag)
{
	struct code_file *f = open_file(path);
	struct code_func fn;
	char why[512] = "";
	size_t n = 0;

	cr_assert_eq(code_function(f, symbol(path, name), &fn, why, sizeof(why)), 0, "%s", why);
	for (size_t i = 0; i < fn.n; i++) {
		const struct code_insn *c = &fn.v[i];
		bool nop =
		    !strncmp(c->in.mnemonic, "nop", 3) || !strncmp(c->in.mnemonic, "xchg", 4);

		if (nop || !strncmp(c->in.mnemonic, "lea", 3))
			cr_assert_eq(c->in.flags & (DISASM_MEM_READ | DISASM_MEM_WRITE), 0, "%s",
				     c->text);
		if (!strncmp(c->in.mnemonic, "mov", 3) && strchr(c->in.operands, '('))
			cr_assert(c->in.flags & (DISASM_MEM_READ | DISASM_MEM_WRITE), "%s",
				  c->text);
		n += (c->in.flags & flag) != 0;
	}
	code_func_release(&fn);
	code_close(f);
	return n;
}

Test(code, memory_access)
{
	cr_assert_eq(count_access(env("RPT_INLINE"), "first", DISASM_MEM_WRITE), 1);
	cr_assert_eq(count_access(env("RPT_INLINE"), "first", DISASM_MEM_READ), 0);
	cr_assert_geq(count_access(env("RPT_PLT"), "main", DISASM_MEM_READ), 1);
}

/* Each instruction's line, by the rule the profile uses: first()'s store is poke's line (the
 * inline frame), HOT: poke, inlined into first. */
Test(code, lines)
{
	const char *path = env("RPT_INLINE");
	struct code_file *f = open_file(path);
	struct code_func fn;
	struct sym_result r;
	char why[512] = "", src[4200], line[512];
	bool seen = false;
	FILE *in;
	int n = 0;

	cr_assert_eq(code_function(f, symbol(path, "first"), &fn, why, sizeof(why)), 0, "%s", why);
	for (size_t i = 0; i < fn.n && !seen; i++) {
		if (!(fn.v[i].in.flags & DISASM_MEM_WRITE))
			continue;
		cr_assert_eq(code_lookup(f, fn.v[i].in.addr, INLINE_CALLEE, &r), 0);
		cr_assert_not_null(r.file);
		cr_assert(strstr(r.file, "wl_inline.c"), "%s", r.file);
		cr_assert_str_eq(r.function, "poke");
		cr_assert_str_eq(r.inlined_into, "first");
		seen = true;
		snprintf(src, sizeof(src), "%s/wl_inline.c", env("RPT_SRC"));
		in = fopen(src, "r");
		cr_assert(in, "%s", src);
		while (fgets(line, sizeof(line), in) && ++n < r.line)
			;
		fclose(in);
		cr_assert(strstr(line, "HOT: poke"), "line %d: %s", r.line, line);
	}
	cr_assert(seen);
	code_func_release(&fn);
	code_close(f);
}

Test(code, errors)
{
	struct profile_mapping kernel = {.file = "[kernel]"},
			       gone = {.file = "/nonexistent/x", .bias_known = true};
	struct code_file *f = NULL;
	struct disasm *d = NULL;
	char why[512] = "";

	cr_assert_eq(code_open(&f, &kernel, NULL, 0, why, sizeof(why)), -ENOENT);
	cr_assert(strstr(why, "[kernel]"), "%s", why);
	cr_assert_eq(code_open(&f, &gone, NULL, 0, why, sizeof(why)), -ENOENT);
	cr_assert(strstr(why, "/nonexistent/x"), "%s", why);
	cr_assert_null(f);
	cr_assert_eq(disasm_open(&d, EM_PPC64, why, sizeof(why)), -ENOTSUP);
	cr_assert(strstr(why, "21"), "%s", why);
	cr_assert_eq(disasm_open(&d, EM_AARCH64, why, sizeof(why)), 0, "%s", why);
	disasm_close(d);
}

/* AArch64 bytes (ldr x1, [x0]; str x1, [x0, #8]; bl .+8; ret), decoded by the same code. */
Test(code, aarch64)
{
	static const uint8_t code[] = {0x01, 0x00, 0x40, 0xf9, 0x01, 0x04, 0x00, 0xf9,
				       0x02, 0x00, 0x00, 0x94, 0xc0, 0x03, 0x5f, 0xd6};
	struct disasm *d = NULL;
	struct disasm_insn *v = NULL;
	size_t n = 0;
	char why[256];

	cr_assert_eq(disasm_open(&d, EM_AARCH64, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(disasm_run(d, code, sizeof(code), 0x1000, &v, &n), 0);
	cr_assert_eq(n, 4);
	cr_assert_str_eq(v[0].mnemonic, "ldr");
	cr_assert(v[0].flags & DISASM_MEM_READ);
	cr_assert(v[1].flags & DISASM_MEM_WRITE);
	cr_assert(v[2].flags & DISASM_CALL);
	cr_assert(v[2].flags & DISASM_TARGET);
	cr_assert_eq(v[2].target, 0x1010);
	cr_assert(v[3].flags & DISASM_RET);
	free(v);
	disasm_close(d);
}

/* An opcode x86-64 does not have (0x06, push %es outside 64-bit mode) is one (bad) byte, and
 * decoding goes on: the ret after it is found. */
Test(code, bad_bytes)
{
	static const uint8_t code[] = {0x06, 0x90, 0xc3};
	struct disasm *d = NULL;
	struct disasm_insn *v = NULL;
	size_t n = 0;
	char why[256];

	cr_assert_eq(disasm_open(&d, EM_X86_64, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(disasm_run(d, code, sizeof(code), 0x400, &v, &n), 0);
	cr_assert_eq(n, 3);
	cr_assert_str_eq(v[0].mnemonic, "(bad)");
	cr_assert_eq(v[0].size, 1);
	cr_assert_str_eq(v[1].mnemonic, "nop");
	cr_assert_eq(v[2].addr, 0x402);
	cr_assert(v[2].flags & DISASM_RET, "%s", v[2].mnemonic);
	free(v);
	disasm_close(d);
}
