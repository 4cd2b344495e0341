/* unwind_regs.c - perf's user registers to libdw's DWARF registers, and the stack copy's
 * bounds (see unwind.h). The only file that knows the architecture.
 *
 * The DWARF numbers are those of the x86-64 psABI (section 3.6.2, "DWARF Register Number
 * Mapping"), the order libdw's x86_64 backend takes in set_initial_registers: 0 rax, 1 rdx,
 * 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15, 16 the return address (rip). The
 * flags and segment registers take no part in CFI, so they are not asked for.
 */
#include "unwind.h"

#include <errno.h>
#include <string.h>

#if defined(__x86_64__)
#include <asm/perf_regs.h>

/* For each DWARF register, its perf register (enum perf_event_x86_regs). */
static const int dwarf_to_perf[UNWIND_DWARF_REGS] = {
    PERF_REG_X86_AX,  PERF_REG_X86_DX,	PERF_REG_X86_CX,  PERF_REG_X86_BX,  PERF_REG_X86_SI,
    PERF_REG_X86_DI,  PERF_REG_X86_BP,	PERF_REG_X86_SP,  PERF_REG_X86_R8,  PERF_REG_X86_R9,
    PERF_REG_X86_R10, PERF_REG_X86_R11, PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14,
    PERF_REG_X86_R15, PERF_REG_X86_IP,
};

bool unwind_supported(void)
{
	return true;
}

uint64_t unwind_regs_mask(void)
{
	uint64_t mask = 0;

	for (int i = 0; i < UNWIND_DWARF_REGS; i++)
		mask |= 1ull << dwarf_to_perf[i];
	return mask;
}

int unwind_regs_to_dwarf(const unsigned char *regs, uint32_t nregs, uint64_t mask, uint64_t *dwarf)
{
	uint64_t need = unwind_regs_mask();

	if (nregs != (uint32_t)__builtin_popcountll(mask) || (mask & need) != need)
		return -EINVAL;
	for (int i = 0; i < UNWIND_DWARF_REGS; i++) {
		/* The sample holds the masked registers in bit order: the position of perf
		 * register P is the number of mask bits below it. */
		int p = dwarf_to_perf[i];
		int pos = __builtin_popcountll(mask & ((1ull << p) - 1));

		memcpy(&dwarf[i], regs + (size_t)pos * 8, 8);
	}
	return 0;
}

uint64_t unwind_dwarf_sp(const uint64_t *dwarf)
{
	return dwarf[7];
}

uint64_t unwind_dwarf_pc(const uint64_t *dwarf)
{
	return dwarf[16];
}

#else /* no other architecture yet */

bool unwind_supported(void)
{
	return false;
}

uint64_t unwind_regs_mask(void)
{
	return 0;
}

int unwind_regs_to_dwarf(const unsigned char *regs, uint32_t nregs, uint64_t mask, uint64_t *dwarf)
{
	(void)regs;
	(void)nregs;
	(void)mask;
	(void)dwarf;
	return -EINVAL;
}

uint64_t unwind_dwarf_sp(const uint64_t *dwarf)
{
	(void)dwarf;
	return 0;
}

uint64_t unwind_dwarf_pc(const uint64_t *dwarf)
{
	(void)dwarf;
	return 0;
}

#endif

bool unwind_stack_word(const unsigned char *stack, uint64_t sp, uint64_t size, uint64_t addr,
		       uint64_t *out)
{
	/* Written so that no sum can wrap: ADDR near 2^64 must not pass. */
	if (addr < sp || addr - sp > size || size - (addr - sp) < 8)
		return false;
	memcpy(out, stack + (addr - sp), 8);
	return true;
}
