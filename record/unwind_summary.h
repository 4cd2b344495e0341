/* unwind_summary.h - what `hwprof record --call-graph dwarf` says about its stacks. */
#ifndef HWPROF_RECORD_UNWIND_SUMMARY_H
#define HWPROF_RECORD_UNWIND_SUMMARY_H

#include <stdint.h>

#include "unwind.h"

/* Prints to stderr how many stacks U cut and why, with the way out for each cause, and a
 * warning per file without CFI. STACK_USER is the stack copy's size in bytes, MAX_STACK the
 * --max-stack in effect. */
void unwind_summary(struct unwind *u, uint32_t stack_user, long long max_stack);

#endif
