/* callchain.h - a sample's PERF_SAMPLE_CALLCHAIN as the callers of its ip: the one rule, used
 * by record (record/decode.c, the live ring buffers) and by the perf.data reader
 * (report/core/input_perf.c). Internal: not installed.
 *
 * The chain is `u64 nr, u64 ips[nr]` (linux/perf_event.h, PERF_SAMPLE_CALLCHAIN); entries at
 * or above PERF_CONTEXT_MAX are markers (PERF_CONTEXT_KERNEL, _USER, _HV, _GUEST, ...) saying
 * whose the entries after them are.
 */
#ifndef HWPROF_CALLCHAIN_H
#define HWPROF_CALLCHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/sampfile.h"

/* The callers of one sample, as hwprof_writer_add_stack() takes them: innermost first, the
 * first NR_KERNEL in the kernel; the sample's own ip is not among them. */
struct callchain_stack {
	uint64_t ips[HWPROF_STACK_MAX];
	uint32_t nr, nr_kernel;
	bool truncated; /* the chain reached MAX_STACK entries, or HWPROF_STACK_MAX callers */
};

/* Turns the NR chain entries at CHAIN (raw bytes, host byte order, not necessarily aligned)
 * of a sample at IP into *OUT: markers say which entries are kernel and which user ones;
 * entries of other contexts (hypervisor, guest) and kernel entries after user ones are left
 * out; the first entry is dropped when it repeats IP (the kernel stores regs->ip first,
 * perf_event_open(2)). MAX_STACK is attr.sample_max_stack (0: unknown): a chain of that many
 * entries counts as truncated. */
void callchain_callers(const unsigned char *chain, uint64_t nr, uint64_t ip, uint32_t max_stack,
		       struct callchain_stack *out);

#endif
