/* test_unwind.c - the dwarf unwinder: perf registers to DWARF ones, the stack copy's bounds,
 * and whole unwinds of this very process from a snapshot of its registers and stack, fed
 * with MMAP records made from /proc/self/maps as the kernel would send them. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind.h"

#if defined(__x86_64__)
#include <asm/perf_regs.h>

/* The registers of unwind_regs_mask() in bit order, as a sample carries them: each one's
 * value is 1000 + its perf number. */
static uint32_t fake_regs(unsigned char *out)
{
	uint64_t mask = unwind_regs_mask();
	uint32_t n = 0;

	for (int bit = 0; bit < 64; bit++) {
		uint64_t v = 1000 + (uint64_t)bit;
		if (!(mask & (1ull << bit)))
			continue;
		memcpy(out + 8 * n++, &v, 8);
	}
	return n;
}

Test(unwind, perf_registers_map_to_dwarf_numbers)
{
	unsigned char regs[64 * 8];
	uint64_t dwarf[UNWIND_DWARF_REGS];
	uint32_t n = fake_regs(regs);
	/* psABI order: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip. */
	static const int want[UNWIND_DWARF_REGS] = {
	    PERF_REG_X86_AX,  PERF_REG_X86_DX,	PERF_REG_X86_CX,  PERF_REG_X86_BX,
	    PERF_REG_X86_SI,  PERF_REG_X86_DI,	PERF_REG_X86_BP,  PERF_REG_X86_SP,
	    PERF_REG_X86_R8,  PERF_REG_X86_R9,	PERF_REG_X86_R10, PERF_REG_X86_R11,
	    PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14, PERF_REG_X86_R15,
	    PERF_REG_X86_IP,
	};

	cr_assert(unwind_supported());
	cr_assert_eq(n, 17, "the mask asks for the 16 general registers and ip, got %u", n);
	cr_assert_eq(unwind_regs_mask() & (1ull << PERF_REG_X86_FLAGS), 0);
	cr_assert_eq(unwind_regs_to_dwarf(regs, n, unwind_regs_mask(), dwarf), 0);
	for (int i = 0; i < UNWIND_DWARF_REGS; i++)
		cr_assert_eq(dwarf[i], 1000 + (uint64_t)want[i], "DWARF register %d", i);
	cr_assert_eq(unwind_dwarf_sp(dwarf), 1000 + PERF_REG_X86_SP);
	cr_assert_eq(unwind_dwarf_pc(dwarf), 1000 + PERF_REG_X86_IP);
	cr_assert_eq(unwind_regs_to_dwarf(regs, n - 1, unwind_regs_mask(), dwarf), -EINVAL);
	cr_assert_eq(unwind_regs_to_dwarf(regs, 0, unwind_regs_mask(), dwarf), -EINVAL);
	/* perf record's mask holds the flags and segment registers too: they are skipped. */
	{
		uint64_t wide = unwind_regs_mask() | 1ull << PERF_REG_X86_FLAGS |
				1ull << PERF_REG_X86_CS | 1ull << PERF_REG_X86_SS;
		unsigned char w[64 * 8];
		uint32_t nw = 0;

		for (int bit = 0; bit < 64; bit++) {
			uint64_t v = 1000 + (uint64_t)bit;
			if (wide & (1ull << bit))
				memcpy(w + 8 * nw++, &v, 8);
		}
		cr_assert_eq(unwind_regs_to_dwarf(w, nw, wide, dwarf), 0);
		for (int i = 0; i < UNWIND_DWARF_REGS; i++)
			cr_assert_eq(dwarf[i], 1000 + (uint64_t)want[i], "wide mask, reg %d", i);
		cr_assert_eq(unwind_regs_to_dwarf(w, nw - 1, wide, dwarf), -EINVAL);
		/* A mask without the stack pointer cannot be unwound. */
		cr_assert_eq(
		    unwind_regs_to_dwarf(w, nw - 1, wide & ~(1ull << PERF_REG_X86_SP), dwarf),
		    -EINVAL);
	}
}

Test(unwind, memory_reads_stay_inside_the_copy)
{
	unsigned char stack[24];
	uint64_t v = 0;

	for (int i = 0; i < 24; i++)
		stack[i] = (unsigned char)i;
	cr_assert(unwind_stack_word(stack, 0x1000, 24, 0x1000, &v));
	cr_assert_eq(v, 0x0706050403020100ull);
	cr_assert(unwind_stack_word(stack, 0x1000, 24, 0x1010, &v));
	cr_assert_eq(v, 0x1716151413121110ull);
	cr_assert(unwind_stack_word(stack, 0x1000, 24, 0x1003, &v), "unaligned inside");
	v = 42;
	cr_assert_not(unwind_stack_word(stack, 0x1000, 24, 0x1011, &v), "crosses the end");
	cr_assert_not(unwind_stack_word(stack, 0x1000, 24, 0x1018, &v), "just past the end");
	cr_assert_not(unwind_stack_word(stack, 0x1000, 24, 0xff8, &v), "below the stack pointer");
	cr_assert_not(unwind_stack_word(stack, 0x1000, 24, 0xfff, &v), "straddles sp");
	cr_assert_not(unwind_stack_word(stack, 0x1000, 24, UINT64_MAX - 3, &v), "no wrap");
	cr_assert(unwind_stack_word(stack, UINT64_MAX - 7, 8, UINT64_MAX - 7, &v), "the last word");
	v = 42;
	cr_assert_not(unwind_stack_word(stack, UINT64_MAX - 7, 8, UINT64_MAX, &v), "no wrap");
	cr_assert_not(unwind_stack_word(stack, 0x1000, 0, 0x1000, &v), "an empty copy");
	cr_assert_eq(v, 42, "a failed read leaves the output alone");
}

/* ---- a snapshot of this process, unwound ---------------------------------------------------- */

struct snap {
	uint64_t perf[PERF_REG_X86_64_MAX]; /* by perf register number */
	unsigned char stack[16384];
	uint64_t size;
	uint64_t ra[3]; /* the return addresses the unwinder must find, innermost first */
};

/* The end of the mapping that holds ADDR (the stack's top for a stack address), from
 * /proc/self/maps; 0 when none does. */
static uint64_t mapping_end(uint64_t addr)
{
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long long a, b, end = 0;
	char line[4096];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx", &a, &b) == 2 && a <= addr && addr < b)
			end = b;
	if (f)
		fclose(f);
	return end;
}

/* Copies N bytes of the stack: a plain loop that ASan does not check, since the callers'
 * frames hold its redzones (this is the kernel's copy, not C accesses). */
__attribute__((no_sanitize("address"), noinline)) static void copy_stack(unsigned char *dst,
									 uintptr_t src, size_t n)
{
	const volatile unsigned char *p = (const volatile unsigned char *)src;

	for (size_t i = 0; i < n; i++)
		dst[i] = p[i];
}

/* Fills S->perf with the registers at label 1 below and copies the stack from there up: what
 * the kernel gives for a sample taken at that label. */
static __attribute__((noinline)) void capture(struct snap *s)
{
	uint64_t *p = s->perf;

	__asm__ volatile("movq %%rax, 0(%0)\n\t"
			 "movq %%rbx, 8(%0)\n\t"
			 "movq %%rcx, 16(%0)\n\t"
			 "movq %%rdx, 24(%0)\n\t"
			 "movq %%rsi, 32(%0)\n\t"
			 "movq %%rdi, 40(%0)\n\t"
			 "movq %%rbp, 48(%0)\n\t"
			 "movq %%rsp, 56(%0)\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "movq %%rax, 64(%0)\n\t"
			 "movq %%r8, 128(%0)\n\t"
			 "movq %%r9, 136(%0)\n\t"
			 "movq %%r10, 144(%0)\n\t"
			 "movq %%r11, 152(%0)\n\t"
			 "movq %%r12, 160(%0)\n\t"
			 "movq %%r13, 168(%0)\n\t"
			 "movq %%r14, 176(%0)\n\t"
			 "movq %%r15, 184(%0)\n\t"
			 "1:\n\t"
			 :
			 : "r"(p)
			 : "rax", "memory");
	/* The copy starts at the captured sp; this function's frame and its callers' are above
	 * it and do not change while it is taken (memcpy's own frame is below). */
	s->size = mapping_end(p[PERF_REG_X86_SP]) - p[PERF_REG_X86_SP];
	if (s->size > sizeof(s->stack))
		s->size = sizeof(s->stack);
	copy_stack(s->stack, (uintptr_t)p[PERF_REG_X86_SP], s->size);
	s->ra[0] = (uint64_t)(uintptr_t)__builtin_return_address(0);
}

static __attribute__((noinline)) void level2(struct snap *s)
{
	capture(s);
	s->ra[1] = (uint64_t)(uintptr_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory"); /* no tail call */
}

static __attribute__((noinline)) void level1(struct snap *s)
{
	level2(s);
	s->ra[2] = (uint64_t)(uintptr_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

/* MMAP records for this process's executable file mappings, as the kernel sends them. */
static void feed_maps(struct unwind *u, uint32_t pid)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4096], perms[8], path[4096];
	unsigned long long start, end, pgoff;
	int n = 0;

	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f)) {
		struct hwprof_record rec = {.type = HWPROF_REC_MMAP};

		path[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &start, &end, perms, &pgoff,
			   path) < 4 ||
		    perms[2] != 'x' || path[0] != '/')
			continue;
		rec.mmap = (struct hwprof_rec_mmap){.pid = pid,
						    .tid = pid,
						    .start = start,
						    .len = end - start,
						    .pgoff = pgoff,
						    .prot = 5,
						    .filename = path};
		cr_assert_eq(unwind_track(u, &rec), 0);
		n++;
	}
	fclose(f);
	cr_assert_gt(n, 1, "the test program and its libraries are mapped");
}

static void *pack(const struct snap *s, uint64_t stack_size, size_t *len)
{
	unsigned char regs[64 * 8];
	uint64_t mask = unwind_regs_mask();
	uint32_t n = 0;
	void *blob;

	for (int bit = 0; bit < 64; bit++)
		if (mask & (1ull << bit))
			memcpy(regs + 8 * n++, &s->perf[bit], 8);
	struct unwind_ustack u = {.abi = PERF_SAMPLE_REGS_ABI_64,
				  .mask = mask,
				  .nregs = n,
				  .regs = regs,
				  .stack = s->stack,
				  .size = stack_size};
	cr_assert_eq(unwind_pack(NULL, &u, &blob, len), 0);
	return blob;
}

static struct snap snap;
static struct callchain_stack out;

static struct hwprof_rec_sample sample_of(uint32_t pid)
{
	return (struct hwprof_rec_sample){
	    .pid = pid, .tid = pid, .ip = snap.perf[PERF_REG_X86_IP], .period = 1};
}

Test(unwind, a_snapshot_of_this_process_unwinds_to_its_callers)
{
	struct unwind *u;
	uint32_t pid = (uint32_t)getpid();
	struct hwprof_rec_sample s;
	size_t len;
	void *blob;

	level1(&snap);
	cr_assert_eq(unwind_new(&u), 0);
	feed_maps(u, pid);
	s = sample_of(pid);
	blob = pack(&snap, snap.size, &len);
	cr_assert_eq(unwind_sample(u, &s, blob, len, 127, &out), 0);
	cr_assert_geq(out.nr, 3, "got %u callers", out.nr);
	cr_assert_eq(out.nr_kernel, 0);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(out.ips[i], snap.ra[i], "caller %d: %#" PRIx64 ", want %#" PRIx64, i,
			     out.ips[i], snap.ra[i]);
	cr_assert_not(out.truncated, "criterion's main reaches _start: a whole stack");
	uint32_t whole = out.nr;
	cr_assert_eq(unwind_stats(u)->samples, 1);
	cr_assert_eq(unwind_stats(u)->truncated, 0);

	/* --max-stack: two callers at most, the stack marked cut. */
	cr_assert_eq(unwind_sample(u, &s, blob, len, 2, &out), 0);
	cr_assert_eq(out.nr, 2);
	cr_assert(out.truncated);
	cr_assert_eq(unwind_stats(u)->cut_depth, 1);

	/* A copy of 64 bytes ends a few frames up: cut, "copy too small". */
	free(blob);
	blob = pack(&snap, 64, &len);
	cr_assert_eq(unwind_sample(u, &s, blob, len, 127, &out), 0);
	cr_assert(out.truncated);
	cr_assert_lt(out.nr, whole);
	cr_assert_eq(unwind_stats(u)->cut_copy, 1);

	/* A blob that is not unwind_pack()'s. */
	cr_assert_eq(unwind_sample(u, &s, blob, len - 1, 127, &out), -EINVAL);
	cr_assert_eq(unwind_sample(u, &s, blob, 3, 127, &out), -EINVAL);
	free(blob);
	unwind_free(u);
}

Test(unwind, forked_children_keep_the_maps_an_exec_drops_them)
{
	struct unwind *u;
	uint32_t pid = (uint32_t)getpid(), child = pid + 100000;
	struct hwprof_record fork = {.type = HWPROF_REC_FORK};
	struct hwprof_record comm = {.type = HWPROF_REC_COMM};
	struct hwprof_record ex = {.type = HWPROF_REC_EXIT};
	struct hwprof_rec_sample s;
	size_t len;
	void *blob;

	level1(&snap);
	blob = pack(&snap, snap.size, &len);
	cr_assert_eq(unwind_new(&u), 0);

	/* A process never seen: nothing to unwind with. */
	s = sample_of(pid);
	cr_assert_eq(unwind_sample(u, &s, blob, len, 127, &out), 0);
	cr_assert(out.truncated);
	cr_assert_eq(out.nr, 0);
	cr_assert_eq(unwind_stats(u)->cut_map, 1);

	feed_maps(u, pid);
	fork.task = (struct hwprof_rec_task){.pid = child, .ppid = pid, .tid = child, .ptid = pid};
	cr_assert_eq(unwind_track(u, &fork), 0);
	s = sample_of(child);
	cr_assert_eq(unwind_sample(u, &s, blob, len, 127, &out), 0);
	cr_assert_geq(out.nr, 3);
	cr_assert_eq(out.ips[1], snap.ra[1], "the child unwinds with its parent's maps");

	/* A thread's FORK copies nothing and drops nothing. */
	fork.task = (struct hwprof_rec_task){.pid = child, .ppid = child, .tid = child + 1};
	cr_assert_eq(unwind_track(u, &fork), 0);
	s.tid = child + 1;
	cr_assert_eq(unwind_sample(u, &s, blob, len, 127, &out), 0);
	cr_assert_geq(out.nr, 3);

	/* The child execs: its old maps are gone; the parent keeps its own. */
	comm.comm =
	    (struct hwprof_rec_comm){.pid = child, .tid = child, .exec = true, .comm = "other"};
	cr_assert_eq(unwind_track(u, &comm), 0);
	s = sample_of(child);
	cr_assert_eq(unwind_sample(u, &s, blob, len, 127, &out), 0);
	cr_assert(out.truncated);
	cr_assert_eq(out.nr, 0);
	s = sample_of(pid);
	cr_assert_eq(unwind_sample(u, &s, blob, len, 127, &out), 0);
	cr_assert_geq(out.nr, 3);

	/* The parent exits: forgotten. */
	ex.task = (struct hwprof_rec_task){.pid = pid, .ppid = 1, .tid = pid};
	cr_assert_eq(unwind_track(u, &ex), 0);
	cr_assert_eq(unwind_sample(u, &s, blob, len, 127, &out), 0);
	cr_assert_eq(out.nr, 0);
	cr_assert(out.truncated);
	free(blob);
	unwind_free(u);
}

Test(unwind, the_kernel_part_comes_first)
{
	struct unwind *u;
	uint32_t pid = (uint32_t)getpid();
	struct callchain_stack k = {.nr = 2, .nr_kernel = 2};
	struct hwprof_rec_sample s;
	unsigned char regs[64 * 8];
	uint32_t n = 0;
	uint64_t mask = unwind_regs_mask();
	size_t len;
	void *blob;

	level1(&snap);
	for (int bit = 0; bit < 64; bit++)
		if (mask & (1ull << bit))
			memcpy(regs + 8 * n++, &snap.perf[bit], 8);
	struct unwind_ustack us = {.abi = PERF_SAMPLE_REGS_ABI_64,
				   .mask = mask,
				   .nregs = n,
				   .regs = regs,
				   .stack = snap.stack,
				   .size = snap.size};
	k.ips[0] = 0xffffffff81000010ull;
	k.ips[1] = 0xffffffff81000020ull;
	cr_assert_eq(unwind_pack(&k, &us, &blob, &len), 0);
	cr_assert_eq(unwind_new(&u), 0);
	feed_maps(u, pid);
	/* A sample in the kernel: its callers, then the user pc where the task entered it, then
	 * the user callers. */
	s = sample_of(pid);
	s.kernel = true;
	s.ip = 0xffffffff81000000ull;
	cr_assert_eq(unwind_sample(u, &s, blob, len, 127, &out), 0);
	cr_assert_eq(out.nr_kernel, 2);
	cr_assert_eq(out.ips[0], k.ips[0]);
	cr_assert_eq(out.ips[1], k.ips[1]);
	cr_assert_eq(out.ips[2], snap.perf[PERF_REG_X86_IP], "the user pc");
	cr_assert_eq(out.ips[3], snap.ra[0]);
	cr_assert_eq(out.ips[4], snap.ra[1]);
	free(blob);

	/* A kernel thread: no user state, and the stack is whole. */
	us.abi = PERF_SAMPLE_REGS_ABI_NONE;
	us.nregs = 0;
	us.stack = NULL;
	cr_assert_eq(unwind_pack(&k, &us, &blob, &len), 0);
	cr_assert_eq(unwind_sample(u, &s, blob, len, 127, &out), 0);
	cr_assert_eq(out.nr, 2);
	cr_assert_not(out.truncated);
	free(blob);
	unwind_free(u);
}

#else

Test(unwind, other_architectures_are_refused)
{
	struct unwind *u;

	cr_assert_not(unwind_supported());
	cr_assert_eq(unwind_regs_mask(), 0);
	cr_assert_eq(unwind_new(&u), -ENOTSUP);
}

#endif
