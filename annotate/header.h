/* header.h - the lines above annotate's source view: the event and its precise_ip, samples and
 * lost samples, the counted totals with derived metrics (IPC, miss rates, MPKI), and the
 * multiplexing ratio, flagged as hwprof_count_multiplexed() says (its count is then a scaled
 * estimate).
 *
 * Both the TUI and --stdio print these lines; the TUI wraps them to its width.
 */
#ifndef HWPROF_ANNOTATE_HEADER_H
#define HWPROF_ANNOTATE_HEADER_H

#include <stdbool.h>
#include <stddef.h>

#include "profile.h"

struct ann_header_line {
	char *text;
	bool warn; /* worth a highlight: lost samples, multiplexing, skid, warnings */
};

struct ann_header {
	struct ann_header_line *lines;
	size_t n, cap;
};

/* Builds P's header into H, wrapping at WIDTH columns (0: one line per topic). Never fails
 * (allocation failures die). Release with ann_header_release(). */
void ann_header_build(struct ann_header *h, const struct profile *p, int width);

/* Frees H's lines and empties it. */
void ann_header_release(struct ann_header *h);

/* Whether E counts hardware events (PERF_TYPE_HARDWARE, _HW_CACHE, _RAW): the ones whose
 * sampled IPs skid when precise_ip is 0 (perf_event_open(2)). */
bool ann_event_is_hardware(const struct hwprof_file_event *e);

/* How many decimal digits N has (1 for 0): the width of a samples or line-number column. */
int ann_digits(unsigned long long n);

#endif
