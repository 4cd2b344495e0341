/* label.c - how a row's function and location read, the same in every format. */
#include "output.h"
#include "textfmt.h"

#include <inttypes.h>
#include <string.h>

bool output_has_key(const struct output_opts *o, enum profile_key k)
{
	return profile_keys_have(o->keys, o->nkeys, k);
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

bool profile_event_listed(const struct profile *p, uint32_t i)
{
	return i == p->event ||
	       (p->header.events[i].sampling && p->event_samples && p->event_samples[i]);
}

/* Room kept at the end of the label for its tail ("and 12 more events, 297 of them ..."). */
#define EVENTS_TAIL 64

size_t profile_events_label(const struct profile *p, char *buf, size_t len)
{
	size_t n = 0, o = 0, empty = 0, more = 0;

	if (len)
		buf[0] = '\0';
	for (uint32_t i = 0; i < p->header.nevents; i++) {
		const struct hwprof_file_event *e = &p->header.events[i];
		uint64_t k = p->event_samples ? p->event_samples[i] : 0;
		char item[256];
		int w;

		if (!e->sampling && i != p->event)
			continue;
		n++;
		if (!profile_event_listed(p, i)) {
			empty++;
			continue;
		}
		w = snprintf(item, sizeof(item), "%s%s (%s%" PRIu64 " sample%s)", o ? ", " : "",
			     e->name, i == p->event ? "shown, " : "", k, k == 1 ? "" : "s");
		if (w < 0 || (size_t)w >= sizeof(item))
			w = (int)strlen(item);
		/* The shown one always; the others while they fit before the tail. */
		if (i != p->event && o + (size_t)w + EVENTS_TAIL >= len) {
			more++;
			continue;
		}
		if (o + (size_t)w < len) {
			memcpy(buf + o, item, (size_t)w + 1);
			o += (size_t)w;
		}
	}
	if (more && empty && o < len)
		snprintf(buf + o, len - o, ", and %zu more events, %zu of them with no samples",
			 more + empty, empty);
	else if (more && o < len)
		snprintf(buf + o, len - o, ", and %zu more event%s", more, more == 1 ? "" : "s");
	else if (empty && o < len)
		snprintf(buf + o, len - o, "%sand %zu event%s with no samples", o ? ", " : "",
			 empty, empty == 1 ? "" : "s");
	return n;
}
