/* callchain.c - PERF_SAMPLE_CALLCHAIN entries to a sample's callers (callchain.h). */
#include "callchain.h"

#include <linux/perf_event.h>
#include <string.h>

void callchain_callers(const unsigned char *chain, uint64_t nr, uint64_t ip, uint32_t max_stack,
		       struct callchain_stack *out)
{
	uint64_t context = PERF_CONTEXT_USER, entries = 0;

	out->nr = out->nr_kernel = 0;
	out->truncated = false;
	for (uint64_t i = 0; i < nr; i++, chain += 8) {
		uint64_t v;
		memcpy(&v, chain, 8);
		if (v >= (uint64_t)PERF_CONTEXT_MAX) {
			context = v;
			continue;
		}
		if (entries++ == 0 && v == ip)
			continue;
		bool kernel = context == (uint64_t)PERF_CONTEXT_KERNEL;
		if ((!kernel && context != (uint64_t)PERF_CONTEXT_USER) ||
		    (kernel && out->nr > out->nr_kernel))
			continue; /* not this machine's, or kernel after user: not a caller */
		if (out->nr == HWPROF_STACK_MAX) {
			out->truncated = true;
			break;
		}
		out->ips[out->nr++] = v;
		out->nr_kernel += kernel;
	}
	if (max_stack && entries >= max_stack)
		out->truncated = true;
}
