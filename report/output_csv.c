/* output_csv.c - one line per row, RFC 4180 quoting (C++ names hold commas). */
#include "output.h"
#include "rows_data.h"
#include "textfmt.h"

#include "datasrc.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

int output_csv(FILE *f, const struct profile *p, const struct profile_row *rows, size_t n,
	       const struct output_opts *o)
{
	bool addr = output_has_key(o, PROFILE_KEY_ADDR);
	bool data = n && rows[0].data;
	char buf[1024];

	(void)p;
	/* --sort addr, data, cacheline: more columns at the end, so that the others keep their
	 * place. */
	fprintf(f,
		"samples,share,share_ci95_low,share_ci95_high,rank_uncertain,file,line,"
		"function,inlined_into,dso,offset%s%s\n",
		addr ? ",address,instruction" : "",
		data ? ",data,cacheline,srclines,served_from,served_share,tlb,tlb_share,"
		       "latency_mean,latency_p90"
		     : "");
	for (size_t i = 0; i < n; i++) {
		const struct profile_row *r = &rows[i];
		fprintf(f, "%" PRIu64 ",%.6f,%.6f,%.6f,%d,", r->samples, r->share, r->ci_lo,
			r->ci_hi, r->rank_uncertain);
		hwprof_csv_str(f, r->file);
		fputc(',', f);
		if (r->line)
			fprintf(f, "%d", r->line);
		fputc(',', f);
		hwprof_csv_str(f, r->unknown ? "[unknown]" : r->function);
		fputc(',', f);
		hwprof_csv_str(f, r->inlined_into);
		fputc(',', f);
		hwprof_csv_str(f, r->dso);
		/* Empty for a row of several addresses: no one offset is the row's. */
		if (r->offset_mixed)
			fputs(",", f);
		else
			fprintf(f, ",0x%" PRIx64, r->offset);
		if (addr && !r->addr_mixed && !r->unknown)
			fprintf(f, ",0x%" PRIx64 ",", r->addr);
		else if (addr)
			fputs(",,", f);
		if (addr)
			hwprof_csv_str(f, r->insn);
		if (data) {
			const struct profile_row_data *d = r->data;
			fputc(',', f);
			hwprof_csv_str(f, row_data_label(r, buf, sizeof(buf)));
			fputc(',', f);
			hwprof_csv_str(f, row_cacheline_label(r, buf, sizeof(buf)));
			fprintf(f, ",%" PRIu32 ",", d->srclines);
			if (d->src_samples)
				fprintf(f, "%s,%.6f,%s,%.6f", data_level_name(d->level),
					d->level_share, d->tlb ? data_tlb_name(d->tlb) : "",
					d->tlb ? d->tlb_share : 0);
			else
				fputs(",,,", f);
			if (d->weighted)
				fprintf(f, ",%.1f,%.0f", d->weight_mean, d->weight_p90);
			else
				fputs(",,", f);
		}
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}
