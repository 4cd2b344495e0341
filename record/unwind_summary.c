/* unwind_summary.c - what `record --call-graph dwarf` says about its stacks (see unwind.h). */
#include "cli.h"
#include "unwind_summary.h"

#include <inttypes.h>
#include <stdio.h>

struct no_cfi {
	unsigned warned, more;
};

static void warn_no_cfi(const char *path, uint64_t stacks, void *arg)
{
	struct no_cfi *n = arg;

	if (n->warned == 5) {
		n->more++;
		return;
	}
	n->warned++;
	warning("%s: %" PRIu64 " stack%s stopped in its code without CFI " UNWIND_NO_CFI_ADVICE,
		path, stacks, stacks == 1 ? "" : "s");
}

void unwind_summary(struct unwind *u, uint32_t stack_user, long long max_stack)
{
	const struct unwind_stats *s = unwind_stats(u);
	char why[640];
	struct no_cfi files = {0};

	unwind_cut_causes(u, stack_user, why, sizeof(why));
	fprintf(stderr,
		"hwprof record: call graph (dwarf, %u-byte stack copies, --max-stack %lld): "
		"%" PRIu64 " sample%s with a truncated stack%s%s%s\n",
		stack_user, max_stack, s->truncated, s->truncated == 1 ? "" : "s", *why ? " (" : "",
		why, *why ? ")" : "");
	unwind_each_file_without_cfi(u, warn_no_cfi, &files);
	if (files.more)
		warning("%u more files without CFI", files.more);
}
