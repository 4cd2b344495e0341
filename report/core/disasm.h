/* disasm.h - machine code to instructions (Capstone), for annotate's instruction views and
 * report's --sort addr.
 *
 * One disassembler per machine, chosen by the ELF header's e_machine (ELF gABI): EM_X86_64
 * and EM_386 (AT&T syntax, as objdump and perf print them), EM_AARCH64. Each instruction
 * comes with what the views need to know about it: whether it is a call, a jump or a return,
 * its direct target, and whether it reads or writes memory (the loads and stores a cache miss
 * or a page fault can come from).
 */
#ifndef HWPROF_REPORT_DISASM_H
#define HWPROF_REPORT_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum disasm_flag {
	DISASM_CALL = 1 << 0,
	DISASM_JUMP = 1 << 1, /* conditional or not */
	DISASM_RET = 1 << 2,
	DISASM_MEM_READ = 1 << 3,  /* an operand is read from memory (not lea, not nop) */
	DISASM_MEM_WRITE = 1 << 4, /* an operand is written to memory */
	DISASM_TARGET = 1 << 5,	   /* a call or jump to a direct target: disasm_insn.target */
};

struct disasm_insn {
	uint64_t addr;	 /* where it is (the address given to disasm_run, plus its offset) */
	uint8_t size;	 /* bytes */
	unsigned flags;	 /* enum disasm_flag */
	uint64_t target; /* DISASM_TARGET: the address called or jumped to */
	char mnemonic[32];
	char operands[160]; /* as Capstone prints them; may be empty */
};

struct disasm;

/* A disassembler for ELF machine E_MACHINE (EM_X86_64, EM_386, EM_AARCH64); Capstone is
 * loaded on the first call (capstone_lib.h). Returns 0 and *OUT, -ENOTSUP for another
 * machine, a Capstone built without it or one that cannot be loaded (WHY, WHYLEN bytes, says
 * which and what to install), -ENOMEM. */
int disasm_open(struct disasm **out, unsigned e_machine, char *why, size_t whylen);

/* Decodes the LEN bytes at CODE, the first at address ADDR, into *OUT (malloc'd, the caller
 * frees it) and *N. Bytes that decode to no instruction (data, an instruction newer than
 * Capstone) are one "(bad)" instruction each (4 bytes on AArch64, else 1), as objdump shows
 * them, and decoding goes on after them. Returns 0 or -ENOMEM. */
int disasm_run(struct disasm *d, const uint8_t *code, size_t len, uint64_t addr,
	       struct disasm_insn **out, size_t *n);

/* Frees D. Accepts NULL. */
void disasm_close(struct disasm *d);

#endif
