/* asm.h - one function's instructions with their samples: annotate's instruction model, free
 * of curses and output formats.
 *
 * The code comes from the mapping's file (report/core/code.h): every function symbol that
 * holds a sampled address of the function (a function split by the compiler, "f.cold", has
 * two), in address order. Each instruction has its samples (the profile's locations at its
 * address), its share of the function, a heat level as lines have (lines.h), its source line
 * by the rule the profile's locations use (the DWARF line table, inline frames included), and
 * marks:
 *   - a jump target: a jump of the function lands on it (hot when that jump is hot);
 *   - skid: for a hardware event sampled with precise_ip 0, the sample's IP is the instruction
 *     after (or a few after) the one that caused it; the memory access just before each hot
 *     instruction is marked as the likely cause.
 */
#ifndef HWPROF_ANNOTATE_ASM_H
#define HWPROF_ANNOTATE_ASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "disasm.h"
#include "funcs.h"

enum ann_heat;

/* What the recording says of the IPs of its samples. */
enum ann_skid {
	ANN_SKID_NONE,	 /* a software event: the IP is where the event happened */
	ANN_SKID_EXACT,	 /* a hardware event with precise_ip >= 1 (PEBS, IBS): exact IPs */
	ANN_SKID_LIKELY, /* a hardware event with precise_ip 0: the IP skids past the cause */
};

/* The skid of P's shown event (perf_event_open(2): precise_ip; 0 "can have arbitrary skid"). */
enum ann_skid ann_skid_of(const struct profile *p);

struct ann_insn {
	uint64_t addr;	  /* link-time address in the function's DSO */
	uint8_t size;	  /* bytes */
	unsigned flags;	  /* disasm.h's enum disasm_flag */
	const char *text; /* "mov %al,(%rdi,%rdx,1)", a target named ("call memcpy@plt") */
	const char *sym;  /* the symbol it is in, and its offset there: its label without a line */
	uint64_t off;
	uint64_t target;    /* a direct call's or jump's target (flags DISASM_TARGET) */
	const char *callee; /* a call's target symbol ("memcpy@plt"), or NULL */
	/* Its line (strings compared by content: they are not the profile's). */
	const char *inl;  /* the inline function it belongs to, NULL for the function's own */
	const char *file; /* NULL: no line information */
	int line;
	uint64_t samples;
	double period;
	double share_func, share_total; /* of the function's period, of the profile's */
	int heat;			/* enum ann_heat of share_func */
	bool hot;			/* heat >= ANN_HEAT_WARM */
	size_t jump_to;			/* a jump within the function: the index of its target
					 * instruction, else (size_t)-1 */
	bool jump_target;		/* a jump within the function lands here */
	bool hot_jump_target;		/* ... and that jump, or the code before it, is hot */
	bool skid_cause; /* ANN_SKID_LIKELY: the likely cause of a hot one's samples */
};

struct ann_asm {
	struct ann_insn *v; /* in address order */
	size_t n;
	enum ann_skid skid;
	bool have_lines;	  /* some instruction has a source line */
	uint64_t samples_outside; /* samples of the function at no instruction read */
	char why[512];		  /* N == 0 or samples outside: why (the file missing,
				   * rebuilt, no symbol) */
	char **owned;		  /* strings of V */
	size_t nowned;
};

/* The open mapping files of one model, each opened once on first use. */
struct ann_code;

/* A cache for M's mappings, looking for separate debug info in DIRS too (as report). */
struct ann_code *ann_code_new(const struct ann_model *m, const char **dirs, size_t ndirs);

/* Frees C and the files it opened. Accepts NULL. */
void ann_code_free(struct ann_code *c);

/* Function FUNC of M's instructions into *A, through C. Never fails (allocation failures
 * die): without code, A->n is 0 and A->why says why. Release with ann_asm_release(). */
void ann_asm_build(struct ann_asm *a, struct ann_code *c, const struct ann_model *m, size_t func);

void ann_asm_release(struct ann_asm *a);

/* The index of the instruction of A that holds ADDR, or (size_t)-1. */
size_t ann_asm_find(const struct ann_asm *a, uint64_t addr);

/* How many instructions back from a hot one the skid mark looks for a memory access. */
#define ANN_SKID_WINDOW 4

#endif
