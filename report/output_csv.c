/* output_csv.c - one line per row, RFC 4180 quoting (C++ names hold commas). */
#include "output.h"
#include "textfmt.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

int output_csv(FILE *f, const struct profile *p, const struct profile_row *rows, size_t n,
	       const struct output_opts *o)
{
	(void)p;
	(void)o;
	fprintf(f, "samples,share,share_ci95_low,share_ci95_high,rank_uncertain,file,line,"
		   "function,inlined_into,dso,offset\n");
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
			fputs(",\n", f);
		else
			fprintf(f, ",0x%" PRIx64 "\n", r->offset);
	}
	return ferror(f) ? -EIO : 0;
}
