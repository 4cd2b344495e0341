/* rows_data.h - what a row of data keys says beyond its samples: the distinct source lines
 * that touched it, where its loads were served from (DATA_SRC), their latency (WEIGHT). */
#ifndef HWPROF_REPORT_ROWS_DATA_H
#define HWPROF_REPORT_ROWS_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "rows.h"

/* Work space reused from row to row. */
struct rows_data_scratch {
	uint32_t *weights;
	size_t cap_weights;
	struct srcline {
		const char *file;
		int line;
	} * lines;
	size_t cap_lines;
	uint32_t *seen; /* per location: the call that last met it (GEN) */
	size_t cap_seen;
	uint32_t gen;
};

/* Fills RD's srclines, level, tlb and weight fields from the N items ITEMS (indexes into
 * P->data) of one row. Returns 0 or -ENOMEM. */
int rows_data_stats(const struct profile *p, const size_t *items, size_t n,
		    struct profile_row_data *rd, struct rows_data_scratch *s);

/* Frees S's buffers. */
void rows_data_scratch_release(struct rows_data_scratch *s);

/* The row's data label into BUF: the object with its element range ("table[0-7].key",
 * "counter+0x10", "data.bin+0x3000-0x3fff", "g.b", "[heap]"), or "" for a mixed row. */
const char *row_data_label(const struct profile_row *r, char *buf, size_t len);

/* The row's cache line into BUF: "g+0x40", "[heap]+0x1c0" (offsets from the object's start,
 * "g-0x10" when the line begins before it), or "" when the row has none. */
const char *row_cacheline_label(const struct profile_row *r, char *buf, size_t len);

#endif
