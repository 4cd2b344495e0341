/* unwind_summary.c - what `record --call-graph dwarf` says about its stacks (see unwind.h). */
#include "cli.h"
#include "unwind.h"

#include <inttypes.h>
#include <stdio.h>

struct no_cfi {
	uint64_t samples; /* samples unwound */
	unsigned warned, more;
};

/* A file is named when at least 1 % of the stacks stopped in its code: a few samples in some
 * start-up code of the dynamic loader are no cause for a rebuild. */
static void warn_no_cfi(const char *path, uint64_t stacks, void *arg)
{
	struct no_cfi *n = arg;

	if (stacks * 100 < n->samples)
		return;
	if (n->warned == 5) {
		n->more++;
		return;
	}
	n->warned++;
	warning("%s: %" PRIu64 " stack%s stopped in its code without CFI (.eh_frame or "
		".debug_frame; build it with -fasynchronous-unwind-tables, or record it with -g "
		"and -fno-omit-frame-pointer)",
		path, stacks, stacks == 1 ? "" : "s");
}

/* Appends ", N WHAT" to BUF when N > 0. */
static void cause(char *buf, size_t len, size_t *at, uint64_t n, const char *what)
{
	int w;

	if (!n || *at >= len)
		return;
	w = snprintf(buf + *at, len - *at, "%s%" PRIu64 " %s", *at ? "; " : "", n, what);
	if (w > 0)
		*at += (size_t)w;
}

void unwind_summary(struct unwind *u, uint32_t stack_user, long long max_stack)
{
	const struct unwind_stats *s = unwind_stats(u);
	char why[640] = "", copy[96];
	size_t at = 0;
	struct no_cfi files = {.samples = s->samples};

	if (stack_user < 65528)
		snprintf(copy, sizeof(copy), "stack copy too small (try --call-graph dwarf,%u)",
			 stack_user * 2 <= 65528 ? stack_user * 2 : 65528);
	else
		snprintf(copy, sizeof(copy), "stack deeper than the largest copy, 65528 bytes");
	cause(why, sizeof(why), &at, s->cut_copy, copy);
	cause(why, sizeof(why), &at, s->cut_cfi, "in code without CFI");
	cause(why, sizeof(why), &at, s->cut_map, "at an address in no mapped file");
	cause(why, sizeof(why), &at, s->cut_depth, "deeper than --max-stack");
	cause(why, sizeof(why), &at, s->cut_other, "other unwinding errors");
	fprintf(stderr,
		"hwprof record: call graph (dwarf, %u-byte stack copies, --max-stack %lld): "
		"%" PRIu64 " sample%s with a truncated stack%s%s%s\n",
		stack_user, max_stack, s->truncated, s->truncated == 1 ? "" : "s", at ? " (" : "",
		why, at ? ")" : "");
	unwind_each_file_without_cfi(u, warn_no_cfi, &files);
	if (files.more)
		warning("%u more files without CFI", files.more);
}
