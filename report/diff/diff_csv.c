/* diff_csv.c - one line per diff row, RFC 4180 quoting (C++ names hold commas). */
#include "diff_output.h"
#include "textfmt.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>

static void line_or_empty(FILE *f, const struct profile_row *r)
{
	if (r && r->line)
		fprintf(f, "%d", r->line);
	fputc(',', f);
}

int diff_output_csv(FILE *f, const struct diff *d, const struct diff_row *rows, size_t n,
		    const struct diff_output_opts *o)
{
	(void)d;
	fprintf(
	    f,
	    "status,significant,p,p_adjusted,base_samples,new_samples,base_%s,new_%s,delta,"
	    "relative_change,file,base_line,new_line,function,inlined_into,dso,matched_by,test\n",
	    o->unit ? "rate" : "share", o->unit ? "rate" : "share");
	for (size_t i = 0; i < n; i++) {
		const struct diff_row *r = &rows[i];
		const struct profile_row *b = r->side[DIFF_BASE].row, *nw = r->side[DIFF_NEW].row;
		const struct profile_row *s = nw ? nw : b;

		fprintf(f, "%s,%d,%.6g,%.6g,%" PRIu64 ",%" PRIu64 ",%.6g,%.6g,%.6g,",
			diff_status_name(r->status), r->significant, r->p, r->p_adj,
			r->side[DIFF_BASE].samples, r->side[DIFF_NEW].samples,
			r->side[DIFF_BASE].share, r->side[DIFF_NEW].share, r->delta);
		if (isfinite(r->relative))
			fprintf(f, "%.6g", r->relative);
		fputc(',', f);
		hwprof_csv_str(f, s->file);
		fputc(',', f);
		line_or_empty(f, b);
		line_or_empty(f, nw);
		hwprof_csv_str(f, s->unknown ? "[unknown]" : s->function);
		fputc(',', f);
		hwprof_csv_str(f, s->inlined_into);
		fputc(',', f);
		hwprof_csv_str(f, s->dso);
		fprintf(f, ",%s,%s\n",
			!s->line       ? "name"
			: r->by_number ? "line_number"
				       : "text",
			r->exact ? "exact" : "z");
	}
	return ferror(f) ? -EIO : 0;
}
