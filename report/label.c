/* label.c - how a row's function and location read, the same in every format. */
#include "output.h"

#include <inttypes.h>
#include <string.h>

const char *path_base(const char *path)
{
	const char *s;

	if (!path)
		return "";
	s = strrchr(path, '/');
	return s ? s + 1 : path;
}

const char *row_function_label(const struct profile_row *r, char *buf, size_t len)
{
	if (r->function_mixed)
		snprintf(buf, len, "%s", "");
	else if (r->unknown)
		snprintf(buf, len, "[unknown]");
	else if (!r->function)
		snprintf(buf, len, "%s", r->file ? "??" : "");
	else if (r->inlined_into)
		snprintf(buf, len, "%s (inlined into %s)", r->function, r->inlined_into);
	else
		snprintf(buf, len, "%s", r->function);
	return buf;
}

const char *row_location_label(const struct profile_row *r, bool full, char *buf, size_t len)
{
	const char *file = full ? r->file : path_base(r->file);

	if (r->file_mixed)
		snprintf(buf, len, "%s", "");
	else if (r->unknown && r->dso)
		snprintf(buf, len, "%s+0x%" PRIx64, path_base(r->dso), r->offset);
	else if (!r->file)
		snprintf(buf, len, "??");
	else if (r->line)
		snprintf(buf, len, "%s:%d", file, r->line);
	else
		snprintf(buf, len, "%s", file);
	return buf;
}

const struct hwprof_file_event *profile_sampling_event(const struct profile *p)
{
	return p->event < p->header.nevents ? &p->header.events[p->event] : NULL;
}
