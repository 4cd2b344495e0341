/* profile.c - the profile's own functions: its lines, its lost share, freeing it. */
#include "profile.h"

#include "dso.h"
#include "grow.h"
#include "perf_meta.h"
#include "resolve.h"
#include "strpool.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int profile_push_vline(char ***v, size_t *n, size_t *cap, const char *fmt, va_list ap)
{
	if (hwprof_grow((void **)v, cap, *n + 1, sizeof(**v)) < 0)
		return -ENOMEM;
	if (vasprintf(&(*v)[*n], fmt, ap) < 0)
		return -ENOMEM;
	(*n)++;
	return 0;
}

int profile_push_line(char ***v, size_t *n, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = profile_push_vline(v, n, cap, fmt, ap);
	va_end(ap);
	return ret;
}

void profile_lost(const struct profile *p, struct profile_lost *out)
{
	const struct hwprof_file_header *h = &p->header;
	const struct hwprof_file_sampled *e =
	    p->trailer.sampled && p->event < h->nevents ? &p->trailer.sampled[p->event] : NULL;
	uint32_t nsampling = 0;
	uint64_t all = 0;

	for (uint32_t i = 0; i < h->nevents; i++) {
		nsampling += h->events[i].sampling;
		all += p->event_samples ? p->event_samples[i] : 0;
	}
	*out = (struct profile_lost){.lost = p->trailer.lost, .at_least = p->lost_partial};
	if (nsampling <= 1) {
		/* Every LOST record is the one event's; record wrote its PERF_FORMAT_LOST
		 * beyond them as one more. */
		if (e && e->lost_known && e->lost > out->lost)
			out->lost = e->lost;
		out->per_event = true;
		out->of = p->samples_read + out->lost;
	} else if (e && e->lost_known && !p->lost_partial) {
		out->lost = e->lost;
		out->per_event = true;
		out->of = p->samples_read + out->lost;
	} else {
		out->of = all + out->lost;
	}
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	if (p->dsos)
		dso_table_release(p->dsos);
	free(p->dsos);
	profile_lazy_free(p->lazy);
	for (uint32_t i = 0; i < p->header.argc; i++)
		free(p->header.argv[i]);
	free(p->header.argv);
	free(p->header.events);
	free(p->trailer.counts);
	free(p->trailer.sampled);
	for (size_t i = 0; i < p->nwarnings; i++)
		free(p->warnings[i]);
	free(p->warnings);
	for (size_t i = 0; i < p->nnotes; i++)
		free(p->notes[i]);
	free(p->notes);
	free(p->event_samples);
	free(p->count_inputs);
	free(p->locs);
	free(p->locations);
	free(p->stacks);
	free(p->stack_locs);
	free(p->mappings);
	free(p->functions);
	free(p->lines);
	free(p->value_event);
	free(p->vsamples);
	free(p->loc_values);
	free(p->vsample_locs);
	free(p->vsample_values);
	free(p->data);
	free(p->data_weights);
	strpool_free(p->strings);
	free(p);
}

const char *path_base(const char *path)
{
	const char *s;

	if (!path)
		return "";
	s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Where the program's word is in P's argv: 0 for hwprof's recordings, whose argv is the
 * command it ran; a perf.data's header (version 0: perf_meta_header()) holds perf's own
 * command line, the program after record's options. argc when there is none. */
static size_t program_word(const struct profile *p)
{
	const struct hwprof_file_header *h = &p->header;

	return h->major ? 0 : perf_cmdline_target(h->argv, h->argc);
}

const char *profile_program(const struct profile *p)
{
	const struct hwprof_file_header *h = &p->header;
	size_t t = program_word(p);

	if (t >= h->argc || !h->argv[t])
		return NULL;
	if (!t)
		return h->argv[0];
	/* A guess from perf's options: trusted when the recording mapped that file. */
	for (size_t i = 0; i < p->nmappings; i++)
		if (p->mappings[i].file &&
		    !strcmp(path_base(p->mappings[i].file), path_base(h->argv[t])))
			return h->argv[t];
	return NULL;
}

size_t profile_command_start(const struct profile *p)
{
	size_t t = program_word(p);

	return t && profile_program(p) ? t : 0;
}

const struct profile_line *profile_loc_lines(const struct profile *p, const struct profile_loc *l,
					     uint32_t *n)
{
	/* A profile made by hand (tests) may have locations without the tables. */
	if (!p->lines || !l->nlines || l->first_line + (size_t)l->nlines > p->nlines) {
		*n = 0;
		return NULL;
	}
	*n = l->nlines;
	return p->lines + l->first_line;
}
