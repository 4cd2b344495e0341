/* label.c - how a row's function and location read, the same in every format. */
#include "output.h"
#include "textfmt.h"

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

bool output_has_key(const struct output_opts *o, enum profile_key k)
{
	for (size_t i = 0; i < o->nkeys; i++)
		if (o->keys[i] == k)
			return true;
	return false;
}

const char *row_function_label(const struct profile_row *r, char *buf, size_t len)
{
	if (r->function_mixed)
		snprintf(buf, len, "%s", "");
	else if (r->unknown && r->dso && !r->offset_mixed)
		snprintf(buf, len, "[unknown] %s+0x%" PRIx64, path_base(r->dso), r->offset);
	else if (r->unknown)
		snprintf(buf, len, "[unknown]");
	else if (!r->function)
		snprintf(buf, len, "%s", r->file ? "??" : "");
	else if (r->inlined_into)
		snprintf(buf, len, "%s (inlined into %s)", r->function, r->inlined_into);
	else
		snprintf(buf, len, "%s", r->function);
	return hwprof_text_tame(buf);
}

const char *row_location_label(const struct profile_row *r, bool full, char *buf, size_t len)
{
	const char *file = full ? r->file : path_base(r->file);

	/* One spelling for "no line known" whatever the sort: "??"; blank only for a row whose
	 * locations lie in several files (the sort does not key on lines). */
	if (r->unknown)
		snprintf(buf, len, "??");
	else if (r->file_mixed)
		snprintf(buf, len, "%s", "");
	else if (!r->file)
		snprintf(buf, len, "??");
	else if (r->line)
		snprintf(buf, len, "%s:%d", file, r->line);
	else
		snprintf(buf, len, "%s", file);
	return hwprof_text_tame(buf);
}

const struct hwprof_file_event *profile_sampling_event(const struct profile *p)
{
	return p->event < p->header.nevents ? &p->header.events[p->event] : NULL;
}

size_t profile_events_label(const struct profile *p, char *buf, size_t len)
{
	size_t n = 0, o = 0;

	if (len)
		buf[0] = '\0';
	for (uint32_t i = 0; i < p->header.nevents; i++) {
		const struct hwprof_file_event *e = &p->header.events[i];
		uint64_t k = p->event_samples ? p->event_samples[i] : 0;

		if (!e->sampling && i != p->event)
			continue;
		n++;
		if (o >= len)
			continue;
		o += (size_t)snprintf(buf + o, len - o, "%s%s (%s%" PRIu64 " sample%s)",
				      o ? ", " : "", e->name, i == p->event ? "shown, " : "", k,
				      k == 1 ? "" : "s");
	}
	return n;
}
