/* disasm.c - Capstone behind disasm.h.
 *
 * Capstone (https://www.capstone-engine.org, Debian's libcapstone-dev 4.0) is the one
 * disassembler here: it covers x86 and AArch64 with operand details (type and access), which
 * is how loads and stores are told from the rest. The operand details are the same in AT&T
 * and Intel syntax; AT&T is what objdump and perf print on Linux, so people can compare.
 */
#include "disasm.h"

#include "capstone_lib.h"
#include "grow.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct disasm {
	const struct capstone_lib *lib;
	csh cs;
	cs_arch arch;
};

int disasm_open(struct disasm **out, unsigned e_machine, char *why, size_t whylen)
{
	const struct capstone_lib *lib;
	struct disasm *d;
	cs_mode mode;
	cs_arch arch;

	*out = NULL;
	switch (e_machine) {
	case EM_X86_64:
		arch = CS_ARCH_X86, mode = CS_MODE_64;
		break;
	case EM_386:
		arch = CS_ARCH_X86, mode = CS_MODE_32;
		break;
	case EM_AARCH64:
		arch = CS_ARCH_ARM64, mode = CS_MODE_LITTLE_ENDIAN;
		break;
	default:
		snprintf(why, whylen,
			 "ELF machine %u: no disassembler for it (x86-64, x86, AArch64)",
			 e_machine);
		return -ENOTSUP;
	}
	lib = capstone_lib(why, whylen);
	if (!lib)
		return -ENOTSUP;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->lib = lib;
	if (d->lib->open(arch, mode, &d->cs) != CS_ERR_OK) {
		snprintf(why, whylen, "Capstone %s: this build has no disassembler for it",
			 arch == CS_ARCH_X86 ? "x86" : "AArch64");
		free(d);
		return -ENOTSUP;
	}
	d->arch = arch;
	d->lib->option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	if (arch == CS_ARCH_X86)
		d->lib->option(d->cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	*out = d;
	return 0;
}

/* Memory operands of an x86 instruction: lea computes an address and nop's operand is
 * padding, neither touches memory. An operand without access information counts as read. */
static unsigned x86_flags(const cs_insn *ci)
{
	const cs_x86 *x = &ci->detail->x86;
	unsigned f = 0;

	if (ci->id == X86_INS_LEA || ci->id == X86_INS_NOP)
		return 0;
	/* Capstone 4 says stos reads its destination (rep stosb, memset's loop): it writes it. */
	if (ci->id == X86_INS_STOSB || ci->id == X86_INS_STOSW || ci->id == X86_INS_STOSD ||
	    ci->id == X86_INS_STOSQ)
		return DISASM_MEM_WRITE;
	for (int i = 0; i < x->op_count; i++) {
		if (x->operands[i].type != X86_OP_MEM)
			continue;
		if (x->operands[i].access & CS_AC_WRITE)
			f |= DISASM_MEM_WRITE;
		if ((x->operands[i].access & CS_AC_READ) || !x->operands[i].access)
			f |= DISASM_MEM_READ;
	}
	return f;
}

static unsigned arm64_flags(const cs_insn *ci)
{
	const cs_arm64 *a = &ci->detail->arm64;
	unsigned f = 0;

	for (int i = 0; i < a->op_count; i++) {
		if (a->operands[i].type != ARM64_OP_MEM)
			continue;
		/* Capstone 4 leaves access unset on many AArch64 operands: the mnemonic says
		 * it (ld*: loads, st*: stores; prfm touches no data the program sees). */
		if (!strncmp(ci->mnemonic, "st", 2))
			f |= DISASM_MEM_WRITE;
		else if (strncmp(ci->mnemonic, "prfm", 4))
			f |= DISASM_MEM_READ;
	}
	return f;
}

/* Capstone 4 puts AArch64 branches in no group: their mnemonics say what they are. */
static unsigned arm64_branch(const cs_insn *ci)
{
	static const char *const jumps[] = {"b", "br", "cbz", "cbnz", "tbz", "tbnz"};
	const char *m = ci->mnemonic;

	if (!strcmp(m, "bl") || !strcmp(m, "blr"))
		return DISASM_CALL;
	if (!strcmp(m, "ret"))
		return DISASM_RET;
	if (!strncmp(m, "b.", 2))
		return DISASM_JUMP;
	for (size_t i = 0; i < sizeof(jumps) / sizeof(jumps[0]); i++)
		if (!strcmp(m, jumps[i]))
			return DISASM_JUMP;
	return 0;
}

/* Capstone 4 spells x86-64's branches with an operand size suffix (callq, retq, jmpq) that
 * has one value in 64-bit mode; objdump 2.40 and perf drop it. */
static void x86_mnemonic(char *m)
{
	static const char *const suffixed[] = {"callq", "retq", "jmpq"};

	for (size_t i = 0; i < sizeof(suffixed) / sizeof(suffixed[0]); i++)
		if (!strcmp(m, suffixed[i]))
			m[strlen(m) - 1] = '\0';
}

/* The direct target of a branch: its last immediate operand (x86: the only one; AArch64:
 * cbz x0, #imm and tbz x0, #bit, #imm put it last). */
static bool branch_target(const struct disasm *d, const cs_insn *ci, uint64_t *target)
{
	bool found = false;

	if (d->arch == CS_ARCH_X86) {
		const cs_x86 *x = &ci->detail->x86;
		for (int i = 0; i < x->op_count; i++)
			if (x->operands[i].type == X86_OP_IMM)
				*target = (uint64_t)x->operands[i].imm, found = true;
	} else {
		const cs_arm64 *a = &ci->detail->arm64;
		for (int i = 0; i < a->op_count; i++)
			if (a->operands[i].type == ARM64_OP_IMM)
				*target = (uint64_t)a->operands[i].imm, found = true;
	}
	return found;
}

int disasm_run(struct disasm *d, const uint8_t *code, size_t len, uint64_t addr,
	       struct disasm_insn **out, size_t *n)
{
	cs_insn *ci = d->lib->malloc(d->cs);
	struct disasm_insn *v = NULL;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	if (!ci)
		return -ENOMEM;
	while (len) {
		struct disasm_insn *in;
		bool ok = d->lib->disasm_iter(d->cs, &code, &len, &addr, ci);

		if (hwprof_grow((void **)&v, &cap, *n + 1, sizeof(*v)) < 0) {
			free(v);
			d->lib->free(ci, 1);
			return -ENOMEM;
		}
		in = &v[(*n)++];
		memset(in, 0, sizeof(*in));
		if (!ok) {
			/* A byte Capstone cannot decode (an instruction newer than it, data in
			 * the code): shown as objdump does, the next byte tried next. x86 code
			 * falls back in step within a few bytes; AArch64's are 4 bytes each. */
			size_t skip = d->arch == CS_ARCH_ARM64 && len >= 4 ? 4 : 1;

			in->addr = addr;
			in->size = (uint8_t)skip;
			snprintf(in->mnemonic, sizeof(in->mnemonic), "(bad)");
			code += skip, len -= skip, addr += skip;
			continue;
		}
		in->addr = ci->address;
		in->size = (uint8_t)ci->size;
		snprintf(in->mnemonic, sizeof(in->mnemonic), "%s", ci->mnemonic);
		snprintf(in->operands, sizeof(in->operands), "%s", ci->op_str);
		if (d->arch == CS_ARCH_X86)
			x86_mnemonic(in->mnemonic);
		if (d->arch == CS_ARCH_ARM64)
			in->flags |= arm64_branch(ci);
		else if (d->lib->insn_group(d->cs, ci, CS_GRP_CALL))
			in->flags |= DISASM_CALL;
		else if (d->lib->insn_group(d->cs, ci, CS_GRP_JUMP))
			in->flags |= DISASM_JUMP;
		else if (d->lib->insn_group(d->cs, ci, CS_GRP_RET))
			in->flags |= DISASM_RET;
		if ((in->flags & (DISASM_CALL | DISASM_JUMP)) && branch_target(d, ci, &in->target))
			in->flags |= DISASM_TARGET;
		in->flags |= d->arch == CS_ARCH_X86 ? x86_flags(ci) : arm64_flags(ci);
	}
	d->lib->free(ci, 1);
	*out = v;
	return 0;
}

void disasm_close(struct disasm *d)
{
	if (!d)
		return;
	d->lib->close(&d->cs);
	free(d);
}
