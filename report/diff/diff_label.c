/* diff_label.c - how a diff row's function and place read, the same in every format. */
#include "diff_output.h"
#include "output.h"

#include <stdio.h>

static const struct profile_row *shown_row(const struct diff_row *r)
{
	return r->side[DIFF_NEW].row ? r->side[DIFF_NEW].row : r->side[DIFF_BASE].row;
}

const char *diff_function_label(const struct diff_row *r, char *buf, size_t len)
{
	return row_function_label(shown_row(r), buf, len);
}

const char *diff_location_label(const struct diff_row *r, char *buf, size_t len)
{
	const struct profile_row *b = r->side[DIFF_BASE].row, *n = r->side[DIFF_NEW].row;
	const struct profile_row *s = shown_row(r);

	if (!s->file && !s->line) {
		row_location_label(s, false, buf, len);
		return buf;
	}
	if (b && n && b->line != n->line && b->line && n->line)
		snprintf(buf, len, "%s:%d->%d", path_base(s->file), b->line, n->line);
	else
		row_location_label(s, false, buf, len);
	return buf;
}

const char *diff_status_name(enum diff_status s)
{
	return s == DIFF_NEW_ROW ? "new" : s == DIFF_GONE ? "gone" : "common";
}

const char *diff_event_name(const struct profile *p)
{
	const struct hwprof_file_event *e = profile_sampling_event(p);

	return e ? e->name : "";
}
