/* unwind.h - the callers of a sample from its copied user stack (`--call-graph dwarf`): the one
 * unwinder, used by `hwprof record` while it records (record/record.c) and by the perf.data
 * reader for perf's recordings (report/core/input_perf.c). Internal: not installed, and not
 * in libhwprof (it needs libdw): its own static library, common/meson.build's unwind_dep.
 *
 * With PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER (perf_event_open(2)) the kernel puts
 * into each sample the user-mode registers of the task and a copy of its user stack from the
 * stack pointer up. The copy is unwound with libdwfl and the CFI (.eh_frame, else
 * .debug_frame) of the files the process has mapped; record stores only the return
 * addresses, so the file keeps the size of a frame-pointer recording.
 *
 * The unwinder keeps, per process, the executable mappings that MMAP records announced (and
 * a libdwfl Dwfl built from them when a sample needs it). Feed it every record in time order
 * (unwind_track()), the samples included (unwind_sample()): a sample is then unwound with the
 * mappings its process had when it was taken. A FORK of a new process copies its parent's
 * mappings, an exec (COMM with exec set) drops them, the EXIT of a process frees them.
 *
 * One thread at a time per struct unwind.
 */
#ifndef HWPROF_UNWIND_H
#define HWPROF_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "callchain.h"
#include "hwprof/sampfile.h"

/* A sample's user-space state (PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER,
 * perf_event_open(2)): the registers the task had in user mode and a copy of its user stack
 * from the stack pointer up. Pointers go into the record decoded, valid as long as it is. */
struct unwind_ustack {
	uint64_t abi;		    /* PERF_SAMPLE_REGS_ABI_*; NONE (0): no user state (a kernel
				     * thread), then NREGS is 0 */
	uint64_t mask;		    /* attr.sample_regs_user: which registers REGS holds */
	uint32_t nregs;		    /* registers in REGS: one per bit of MASK */
	const unsigned char *regs;  /* NREGS u64 values, in the bit order of MASK (not
				     * aligned: read with memcpy) */
	const unsigned char *stack; /* the copy: SIZE bytes from the user stack pointer up */
	uint64_t size;		    /* bytes really copied (dyn_size; <= attr.sample_stack_user) */
};

/* ---- the registers (the one architecture-dependent part) ---------------------------------- */

/* Registers of the unwinder's architecture, as libdw numbers them (DWARF register numbers;
 * x86_64: rax rdx rcx rbx rsi rdi rbp rsp r8..r15, then 16 the return address, i.e. rip). */
#define UNWIND_DWARF_REGS 17

/* Whether this build can unwind copied stacks (x86_64 only). */
bool unwind_supported(void);

/* The attr.sample_regs_user mask to ask for: the registers libdw's unwinder reads, as bits
 * of enum perf_event_x86_regs (asm/perf_regs.h). 0 when !unwind_supported(). */
uint64_t unwind_regs_mask(void);

/* Maps NREGS registers REGS (u64 each, unaligned, in the bit order of MASK, as
 * PERF_SAMPLE_REGS_USER lays out those of attr.sample_regs_user MASK: perf's own mask holds
 * more than unwind_regs_mask()) to DWARF[UNWIND_DWARF_REGS]. Returns 0, or -EINVAL when
 * NREGS is not the number of bits of MASK or MASK lacks a bit of unwind_regs_mask(). */
int unwind_regs_to_dwarf(const unsigned char *regs, uint32_t nregs, uint64_t mask, uint64_t *dwarf);

/* The stack pointer and the instruction pointer among DWARF (as filled above). */
uint64_t unwind_dwarf_sp(const uint64_t *dwarf);
uint64_t unwind_dwarf_pc(const uint64_t *dwarf);

/* Reads the u64 at ADDR from the stack copy STACK[SIZE] that starts at the address SP into
 * *OUT. Returns false (nothing read) when any of its 8 bytes lies outside [SP, SP + SIZE). */
bool unwind_stack_word(const unsigned char *stack, uint64_t sp, uint64_t size, uint64_t addr,
		       uint64_t *out);

/* ---- the queued copy of a sample ---------------------------------------------------------- */

/* Packs what a sample's stack needs at write time into one malloc'd buffer *OUT (*LEN bytes),
 * for merge_add_blob(): the kernel part of its callchain (KERNEL, may be NULL; only its
 * kernel entries are kept) and its user registers and stack copy U (the copied bytes only).
 * Returns 0 or -ENOMEM. */
int unwind_pack(const struct callchain_stack *kernel, const struct unwind_ustack *u, void **out,
		size_t *len);

/* ---- the unwinder ------------------------------------------------------------------------- */

struct unwind;

/* Why stacks ended before the outermost caller, as counted by unwind_sample(). */
struct unwind_stats {
	uint64_t samples;   /* samples unwound */
	uint64_t truncated; /* of them, stacks cut (the reasons below add up to it) */
	uint64_t cut_depth; /* more callers than asked for (--max-stack) */
	uint64_t cut_copy;  /* the unwinder needed stack beyond the copy (a larger dwarf,SIZE) */
	uint64_t cut_cfi;   /* a caller in a file without CFI (.eh_frame / .debug_frame) */
	uint64_t cut_map;   /* an address in no file the process mapped (JIT code, [vdso], a
			     * mapping made before recording, or garbage) */
	uint64_t cut_other; /* the unwinder stopped for another reason (no user state, a
			     * process not seen, a CFI error) */
};

/* A new, empty unwinder into *OUT. Returns 0, -ENOTSUP when !unwind_supported(), or -ENOMEM. */
int unwind_new(struct unwind **out);

/* Frees U and every process's state. Accepts NULL. */
void unwind_free(struct unwind *u);

/* Follows REC (any type; in time order): an executable MMAP adds a mapping of its process, a
 * FORK of a new process copies the parent's, a COMM from an exec drops the process's, the EXIT
 * of a process (pid == tid) forgets it. Other records are ignored. Returns 0 or -ENOMEM. */
int unwind_track(struct unwind *u, const struct hwprof_record *rec);

/* The callers of sample S from BLOB[LEN] (unwind_pack()'s) into OUT: the kernel part first
 * (OUT->nr_kernel entries), then, innermost first, the user-space return addresses (for a
 * sample taken in the kernel, the user pc first: where the task entered the kernel); S->ip
 * itself is not among them. At most MAX_CALLERS entries (<= HWPROF_STACK_MAX); OUT->truncated
 * when the unwinding stopped before the outermost frame (counted in the stats by reason).
 * Returns 0, or -EINVAL for a BLOB not of unwind_pack(). */
int unwind_sample(struct unwind *u, const struct hwprof_rec_sample *s, const void *blob, size_t len,
		  uint32_t max_callers, struct callchain_stack *out);

/* The same from the sample's own fields, with no copy: its user state US and the kernel part
 * of its callchain KERNEL (may be NULL; only its first nr_kernel entries are used; not OUT).
 * Returns 0. */
int unwind_sample_state(struct unwind *u, const struct hwprof_rec_sample *s,
			const struct callchain_stack *kernel, const struct unwind_ustack *us,
			uint32_t max_callers, struct callchain_stack *out);

/* The counts so far. */
const struct unwind_stats *unwind_stats(const struct unwind *u);

/* Writes into BUF[LEN] why U's stacks were cut, one "N cause" per cause counted, joined by
 * "; ", with the way out ("N stack copy too small (try --call-graph dwarf,SIZE)"; "" when
 * none was). STACK_USER is the copy's size in bytes (attr.sample_stack_user). */
void unwind_cut_causes(const struct unwind *u, uint32_t stack_user, char *buf, size_t len);

/* The way out for a file in which stacks stopped for want of CFI: a message's tail. */
#define UNWIND_NO_CFI_ADVICE                                                                       \
	"(.eh_frame or .debug_frame; build it with -fasynchronous-unwind-tables, or record it "    \
	"with -g and -fno-omit-frame-pointer)"

/* Calls FN for each file in which at least 1 % of the stacks unwound stopped because it has
 * no CFI (a few samples in some start-up code of the dynamic loader are no cause for a
 * rebuild), with the number of stacks that stopped there, most first. */
void unwind_each_file_without_cfi(struct unwind *u,
				  void (*fn)(const char *path, uint64_t stacks, void *arg),
				  void *arg);

#endif
