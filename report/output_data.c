/* output_data.c - the text table of rows grouped by data keys (--sort data, cacheline): what
 * the samples touched, where it was served from and how long it took. */
#include "output.h"
#include "rows_data.h"
#include "textfmt.h"

#include "datasrc.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define DATA_MIN_WIDTH 8
#define DATA_MAX_WIDTH 48
#define LOC_WIDTH      36

/* Page faults sample an address once per page: its first touch. */
static bool page_granule(const struct profile *p)
{
	const struct hwprof_file_event *ev = profile_sampling_event(p);

	return ev && ev->type == PERF_TYPE_SOFTWARE &&
	       (ev->config == PERF_COUNT_SW_PAGE_FAULTS ||
		ev->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
		ev->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
}

static size_t column_width(const struct profile_row *rows, size_t n,
			   const char *(*label)(const struct profile_row *, char *, size_t),
			   const char *title)
{
	char buf[1024];
	size_t w = strlen(title);

	for (size_t i = 0; i < n; i++) {
		size_t k = hwprof_text_width(label(&rows[i], buf, sizeof(buf)));
		w = k > w ? k : w;
	}
	return w < DATA_MIN_WIDTH ? DATA_MIN_WIDTH : w > DATA_MAX_WIDTH ? DATA_MAX_WIDTH : w;
}

/* The table's columns: which are shown, and the widths of data and cache line. */
struct data_cols {
	bool cline, data, loc, dso;
	size_t dw, cw;
};

/* The table's head: the count of data addresses, the page-fault note and the titles of the
 * columns C (the N ROWS, of line size LINE_SIZE). */
static void print_data_head(FILE *f, const struct profile *p, uint32_t line_size,
			    const struct data_cols *c)
{
	fprintf(f, "# data addresses: %" PRIu64 " of %" PRIu64 " samples", p->data_samples,
		p->samples);
	if (c->cline)
		fprintf(f, "; cache lines of %u bytes", line_size);
	fputc('\n', f);
	if (c->cline && page_granule(p))
		fprintf(f, "# page faults sample only the first touch of each page: a line stands "
			   "for its page (--cacheline-size 4096 groups by page)\n");
	fprintf(f, "%7s  %-15s %9s  ", "share", "95% interval", "samples");
	if (p->data_has_src)
		fprintf(f, "%-20s %-14s ", "served from", "TLB");
	if (p->data_weighted)
		fprintf(f, "%8s %8s  ", "latency", "p90");
	if (c->data)
		fprintf(f, "%-*s  ", (int)c->dw, "data");
	if (c->cline)
		fprintf(f, "%-*s %8s  ", (int)c->cw, "cache line", "srclines");
	if (c->loc)
		fprintf(f, "%-*s  %s  ", LOC_WIDTH, "file:line", "function");
	if (c->dso)
		fprintf(f, "dso");
	fputc('\n', f);
}

/* A row's "served from" and "TLB" columns, from D's data sources. */
static void print_data_src(FILE *f, const struct profile_row_data *d)
{
	char buf[128];

	if (d->src_samples)
		snprintf(buf, sizeof(buf), "%s %.0f%%", data_level_name(d->level),
			 d->level_share * 100);
	else
		snprintf(buf, sizeof(buf), "-");
	fprintf(f, "%-20s ", buf);
	if (d->src_samples && d->tlb)
		snprintf(buf, sizeof(buf), "%s %.0f%%", data_tlb_name(d->tlb), d->tlb_share * 100);
	else
		snprintf(buf, sizeof(buf), "-");
	fprintf(f, "%-14s ", buf);
}

/* Row R in the columns C. */
static void print_data_row(FILE *f, const struct profile *p, const struct profile_row *r,
			   const struct data_cols *c)
{
	const struct profile_row_data *d = r->data;
	char buf[4096], fn[4096], ci[32];

	snprintf(ci, sizeof(ci), "[%.1f, %.1f]", floor(r->ci_lo * 1000) / 10,
		 fmin(ceil(r->ci_hi * 1000) / 10, 100.0));
	fprintf(f, "%6.2f%%%c %-15s %9" PRIu64 "  ", r->share * 100, r->rank_uncertain ? '~' : ' ',
		ci, r->samples);
	if (p->data_has_src)
		print_data_src(f, d);
	if (p->data_weighted) {
		if (d->weighted)
			fprintf(f, "%8.1f %8.0f  ", d->weight_mean, d->weight_p90);
		else
			fprintf(f, "%8s %8s  ", "-", "-");
	}
	if (c->data) {
		hwprof_text_column(f, row_data_label(r, buf, sizeof(buf)), c->dw);
		fputs("  ", f);
	}
	if (c->cline) {
		hwprof_text_column(f, row_cacheline_label(r, buf, sizeof(buf)), c->cw);
		fprintf(f, " %8" PRIu32 "  ", d->srclines);
	}
	if (c->loc) {
		row_location_label(r, false, buf, sizeof(buf));
		hwprof_text_column(f, buf, LOC_WIDTH);
		fputs("  ", f);
		hwprof_text_put(f, row_function_label(r, fn, sizeof(fn)));
		fputs("  ", f);
	}
	if (c->dso)
		hwprof_text_put(f, r->dso ? path_base(r->dso) : "");
	fputc('\n', f);
}

int output_data_rows(FILE *f, const struct profile *p, const struct profile_row *rows, size_t n,
		     const struct output_opts *o, bool *uncertain)
{
	struct data_cols c = {
	    .cline = output_has_key(o, PROFILE_KEY_CACHELINE),
	    .data = output_has_key(o, PROFILE_KEY_DATA),
	    .loc = output_has_key(o, PROFILE_KEY_LINE) || output_has_key(o, PROFILE_KEY_FUNCTION) ||
		   output_has_key(o, PROFILE_KEY_ADDR),
	};

	c.dso = c.loc || output_has_key(o, PROFILE_KEY_DSO);
	c.dw = c.data ? column_width(rows, n, row_data_label, "data") : 0;
	c.cw = c.cline ? column_width(rows, n, row_cacheline_label, "cache line") : 0;
	print_data_head(f, p, rows[0].data->line_size, &c);
	for (size_t i = 0; i < n; i++) {
		print_data_row(f, p, &rows[i], &c);
		*uncertain |= rows[i].rank_uncertain;
	}
	return ferror(f) ? -EIO : 0;
}
