/* rows_data.c - a data row's source lines, data sources and latencies (rows_data.h). */
#include "rows_data.h"

#include "datasrc.h"
#include "grow.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_srcline(const void *a, const void *b)
{
	const struct srcline *x = a, *y = b;

	if (x->file != y->file)
		return (uintptr_t)x->file < (uintptr_t)y->file ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int rows_data_stats(const struct profile *p, const size_t *items, size_t n,
		    struct profile_row_data *rd, struct rows_data_scratch *s)
{
	uint64_t levels[DATA_NLEVELS] = {0}, tlbs[DATA_NTLBS] = {0}, nw = 0;
	double wsum = 0;
	size_t nl = 0;

	if (hwprof_grow((void **)&s->lines, &s->cap_lines, n, sizeof(*s->lines)) < 0)
		return -ENOMEM;
	if (s->cap_seen < p->nlocations) {
		uint32_t *v = realloc(s->seen, p->nlocations * sizeof(*v));
		if (!v)
			return -ENOMEM;
		memset(v + s->cap_seen, 0, (p->nlocations - s->cap_seen) * sizeof(*v));
		s->seen = v;
		s->cap_seen = p->nlocations;
	}
	if (++s->gen == 0) { /* wrapped: forget every mark */
		memset(s->seen, 0, s->cap_seen * sizeof(*s->seen));
		s->gen = 1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct profile_data *d = &p->data[items[i]];
		const struct profile_loc *l = &p->locations[d->loc];
		/* The row's distinct lines are counted from its distinct locations: a row of a
		 * million items has few of those. */
		if (s->seen[d->loc] != s->gen) {
			s->seen[d->loc] = s->gen;
			s->lines[nl++] = (struct srcline){l->file, l->line};
		}
		if (d->data_src) {
			struct data_src src;
			data_src_decode(d->data_src, &src);
			levels[src.level] += d->samples;
			tlbs[src.tlb] += d->samples;
			rd->src_samples += d->samples;
		}
		if (!p->data_weights)
			continue;
		if (hwprof_grow((void **)&s->weights, &s->cap_weights, nw + d->samples,
				sizeof(*s->weights)) < 0)
			return -ENOMEM;
		for (uint64_t j = 0; j < d->samples; j++) {
			uint32_t w = p->data_weights[d->first_weight + j];
			if (w) {
				s->weights[nw++] = w;
				wsum += w;
			}
		}
	}
	qsort(s->lines, nl, sizeof(*s->lines), by_srcline);
	rd->srclines = 0;
	for (size_t i = 0; i < nl; i++)
		rd->srclines += i == 0 || by_srcline(&s->lines[i], &s->lines[i - 1]) != 0;
	/* The level (TLB outcome) most samples name; unknown only when none names one. */
	rd->level = rd->tlb = 0;
	for (int i = 1; i < DATA_NLEVELS; i++)
		if (levels[i] > (rd->level ? levels[rd->level] : 0))
			rd->level = i;
	for (int i = 1; i < DATA_NTLBS; i++)
		if (tlbs[i] > (rd->tlb ? tlbs[rd->tlb] : 0))
			rd->tlb = i;
	rd->level_share = rd->src_samples ? (double)levels[rd->level] / (double)rd->src_samples : 0;
	rd->tlb_share = rd->src_samples ? (double)tlbs[rd->tlb] / (double)rd->src_samples : 0;
	rd->weighted = nw;
	if (nw) {
		/* The 90th percentile by nearest rank: the smallest weight with at least 90% of
		 * the weights at or below it. */
		qsort(s->weights, nw, sizeof(*s->weights), by_u32);
		uint64_t rank = (nw * 9 + 9) / 10;
		rd->weight_mean = wsum / (double)nw;
		rd->weight_p90 = s->weights[rank - 1];
	}
	return 0;
}

void rows_data_scratch_release(struct rows_data_scratch *s)
{
	free(s->weights);
	free(s->lines);
	free(s->seen);
	memset(s, 0, sizeof(*s));
}

const char *row_data_label(const struct profile_row *r, char *buf, size_t len)
{
	const struct profile_row_data *d = r->data;
	char range[64];

	*buf = '\0';
	if (!d || !d->object)
		return buf;
	if (d->elem_lo < 0) {
		snprintf(buf, len, "%s", d->object);
		return buf;
	}
	const char *hole = d->kind == PROFILE_DATA_VAR ? strstr(d->object, "[]") : NULL;
	if (hole) {
		if (d->elem_lo == d->elem_hi)
			snprintf(range, sizeof(range), "[%" PRId64 "]", d->elem_lo);
		else
			snprintf(range, sizeof(range), "[%" PRId64 "-%" PRId64 "]", d->elem_lo,
				 d->elem_hi);
		snprintf(buf, len, "%.*s%s%s", (int)(hole - d->object), d->object, range, hole + 2);
		return buf;
	}
	/* A symbol without a type, a file: the byte offsets. */
	if (d->elem_lo == d->elem_hi)
		snprintf(buf, len, "%s+0x%" PRIx64, d->object, (uint64_t)d->elem_lo);
	else
		snprintf(buf, len, "%s+0x%" PRIx64 "-0x%" PRIx64, d->object, (uint64_t)d->elem_lo,
			 (uint64_t)d->elem_hi);
	return buf;
}

const char *row_cacheline_label(const struct profile_row *r, char *buf, size_t len)
{
	const struct profile_row_data *d = r->data;

	*buf = '\0';
	if (!d || !d->base)
		return buf;
	if (d->line < 0)
		snprintf(buf, len, "%s-0x%" PRIx64, d->base, (uint64_t)-d->line);
	else
		snprintf(buf, len, "%s+0x%" PRIx64, d->base, (uint64_t)d->line);
	return buf;
}
