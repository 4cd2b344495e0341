/* wl_asm.S - two functions written as bare labels: no .type, no .size (STT_NOTYPE, size 0),
 * as hand-written assembly often has them. Linked first, asm_touch follows crtbegin's
 * frame_dummy (a size-0 FUNC). asm_touch(p, n) writes one byte in each of N pages from P,
 * asm_poke(p, n) the same with another value. */
	.text
	.globl	asm_touch
asm_touch:
	testq	%rsi, %rsi
	je	2f
1:	movb	$1, (%rdi)	/* HOT: asm_touch */
	addq	$4096, %rdi
	decq	%rsi
	jne	1b
2:	ret

	.globl	asm_poke
asm_poke:
	testq	%rsi, %rsi
	je	2f
1:	movb	$2, (%rdi)	/* HOT: asm_poke */
	addq	$4096, %rdi
	decq	%rsi
	jne	1b
2:	ret

	.section .note.GNU-stack,"",@progbits
