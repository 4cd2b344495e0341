/* model.c - profile_load(): read each sample file into the builder; profile_free().
 *
 * What needs every input at once is done here, around the builder: inputs given twice,
 * merged recordings that differ, the one event shown and the others left out, lost samples,
 * DSOs changed since the recording, and --function (whose base-name matching must see every
 * function name before it can tell a unique name from an ambiguous one). */
#include "model.h"

#include "builder.h"
#include "filter.h"
#include "funcname.h"
#include "strpool.h"
#include "textfmt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Share of lost samples (of samples + lost) above which the shares may be biased: the
 * kernel drops samples in bursts when the ring buffer is full, not at random. */
#define LOST_PERCENT_WARN 1.0

struct input_id {
	dev_t dev;
	ino_t ino;
	const char *path;
};

struct loader {
	const struct profile_options *opt;
	struct builder *b;
	struct input_id *ids;
	size_t nids;
	size_t nread; /* inputs read */
	/* The first input that has the shown event, to compare the others' sampling with. */
	const char *ref_path;
	bool ref_freq;
	uint64_t ref_period_or_freq;
	/* The first input, to compare the others' command with. */
	char *first_cmd;
	const char *first_path;
	char **warnings, **notes; /* added to the profile at the end */
	size_t nwarnings, nnotes;
};

int profile_push_line(char ***v, size_t *n, const char *fmt, ...)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(**v));
	va_list ap;
	int ret;

	if (!nv)
		return -ENOMEM;
	*v = nv;
	va_start(ap, fmt);
	ret = vasprintf(&nv[*n], fmt, ap);
	va_end(ap);
	if (ret < 0)
		return -ENOMEM;
	(*n)++;
	return 0;
}

static char *command_line(const struct hwprof_file_header *h)
{
	return hwprof_argv_line(h->argv, h->argc);
}

static void sampling_label(char *buf, size_t len, bool freq, uint64_t v)
{
	if (freq)
		snprintf(buf, len, "%" PRIu64 " Hz", v);
	else
		snprintf(buf, len, "period %" PRIu64, v);
}

/* One note per later input whose recording differs from the earlier ones': merging them is
 * allowed (same binaries), but the header shows one recording's facts. The shown event's
 * sampling is compared with the first input that has it, the command with the first input's.
 * An input without the shown event gets a warning instead (other_events_warning()). */
static int compare_inputs(struct loader *l, const char *path, const struct hwprof_file_header *h,
			  int shown)
{
	char what[1024] = "", a[64], b[64], *cmd = command_line(h);
	size_t o = 0;
	int ret = 0;

	if (!cmd)
		return -ENOMEM;
	if (!l->nread) {
		l->first_path = path;
		l->first_cmd = cmd;
		cmd = NULL;
	}
	if (shown >= 0 && !l->ref_path) {
		l->ref_path = path;
		l->ref_freq = h->events[shown].freq;
		l->ref_period_or_freq = h->events[shown].period_or_freq;
	} else if (shown >= 0 && (h->events[shown].freq != l->ref_freq ||
				  h->events[shown].period_or_freq != l->ref_period_or_freq)) {
		sampling_label(a, sizeof(a), h->events[shown].freq,
			       h->events[shown].period_or_freq);
		sampling_label(b, sizeof(b), l->ref_freq, l->ref_period_or_freq);
		o += (size_t)snprintf(what + o, sizeof(what) - o, "sampling %s (%s: %s)", a,
				      l->ref_path == l->first_path ? "first" : l->ref_path, b);
	}
	if (cmd && strcmp(cmd, l->first_cmd) && o < sizeof(what))
		o += (size_t)snprintf(what + o, sizeof(what) - o, "%scommand '%s' (first: '%s')",
				      o ? ", " : "", cmd, l->first_cmd);
	if (o)
		ret =
		    profile_push_line(&l->notes, &l->nnotes,
				      "%s was recorded differently from %s: %s; merged, the header "
				      "shows %s's recording",
				      path, l->first_path, what, l->first_path);
	free(cmd);
	return ret;
}

/* "5 samples of 'page-faults' and 3 of 'minor-faults'" for the events of PATH not shown: one
 * event at a time, the same in one file and across inputs. */
static int other_events_warning(struct loader *l, const char *path,
				const struct hwprof_file_header *h, int shown, const char *name,
				const uint64_t *counts)
{
	char list[1024] = "";
	size_t o = 0, nother = 0, k = 0;
	uint32_t other = 0;

	for (uint32_t i = 0; i < h->nevents; i++)
		if ((int)i != shown && counts[i])
			nother++, other = i;
	if (!nother)
		return 0;
	for (uint32_t i = 0; i < h->nevents && o < sizeof(list); i++) {
		if ((int)i == shown || !counts[i])
			continue;
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%" PRIu64 "%s '%s'",
				      !k		? ""
				      : k + 1 == nother ? " and "
							: ", ",
				      counts[i], k ? " of" : " samples of", h->events[i].name);
		k++;
	}
	if (!name)
		return profile_push_line(
		    &l->warnings, &l->nwarnings,
		    "%s: %s are not shown (one event at a time; --event NAME shows "
		    "one)",
		    path, list);
	if (nother == 1)
		return profile_push_line(
		    &l->warnings, &l->nwarnings,
		    "%s: %s are not shown (one event at a time: '%s' is shown; --event "
		    "%s shows %s)",
		    path, list, name, h->events[other].name, shown >= 0 ? "the other" : "them");
	return profile_push_line(
	    &l->warnings, &l->nwarnings,
	    "%s: %s are not shown (one event at a time: '%s' is shown; --event "
	    "NAME shows another)",
	    path, list, name);
}

/* Whether PATH was read already (same device and inode); records it when not. */
static int seen_before(struct loader *l, const char *path, const struct stat *st,
		       const char **first)
{
	struct input_id *v;

	for (size_t i = 0; i < l->nids; i++)
		if (l->ids[i].dev == st->st_dev && l->ids[i].ino == st->st_ino) {
			*first = l->ids[i].path;
			return 1;
		}
	v = realloc(l->ids, (l->nids + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->ids = v;
	v[l->nids++] = (struct input_id){.dev = st->st_dev, .ino = st->st_ino, .path = path};
	return 0;
}

static int add_record(struct loader *l, const struct hwprof_record *rec, uint64_t *counts,
		      uint32_t nevents)
{
	if (rec->type == HWPROF_REC_SAMPLE && rec->sample.event < nevents)
		counts[rec->sample.event]++;
	/* The builder keeps the shown event's samples only: other events' periods are in
	 * other units. It counts every event's; the warning about them is made here. */
	return builder_add(l->b, rec);
}

static int load_one(struct loader *l, const char *path, char *err, size_t errlen)
{
	struct hwprof_reader *r = NULL;
	const struct hwprof_file_header *h;
	struct hwprof_record rec;
	const char *msg = NULL, *first = NULL, *name = NULL;
	enum hwprof_read_status st;
	uint64_t *counts = NULL;
	struct stat sb;
	int ret, shown = -1;

	/* "-" is standard input (a pipe is read whole), as for perf: a file of that name is
	 * "./-". */
	if (!strcmp(path, "-"))
		path = "/dev/stdin";
	if (stat(path, &sb) == 0) {
		if (S_ISDIR(sb.st_mode)) {
			snprintf(err, errlen,
				 "%s: is a directory (name a sample file with -i, e.g. "
				 "%s%shwprof.data)",
				 path, path, path[strlen(path) - 1] == '/' ? "" : "/");
			return -EISDIR;
		}
		ret = seen_before(l, path, &sb, &first);
		if (ret < 0)
			return ret;
		if (ret)
			return profile_push_line(
			    &l->warnings, &l->nwarnings,
			    "%s: the same file as %s (given twice with -i): read once, "
			    "not counted twice",
			    path, first);
	}
	ret = hwprof_reader_open(&r, path, err, errlen);
	if (ret < 0) {
		if (!err[0])
			hwprof_msgf(err, errlen, ret, "%s: %m", path);
		return ret;
	}
	h = hwprof_reader_header(r);
	counts = calloc(h->nevents + 1, sizeof(*counts));
	ret = counts ? builder_begin_input(l->b, path, h) : -ENOMEM;
	if (ret == 0) {
		shown = builder_input_event(l->b, &name);
		ret = compare_inputs(l, path, h, shown);
	}
	l->nread++;
	while (ret == 0 && hwprof_reader_next(r, &rec) == 1)
		ret = add_record(l, &rec, counts, h->nevents);
	if (ret == 0)
		ret = other_events_warning(l, path, h, shown, name, counts);
	if (ret == 0) {
		st = hwprof_reader_status(r, &msg);
		ret = builder_end_input(l->b, hwprof_reader_trailer(r), st, msg);
	}
	if (ret == 0 && hwprof_reader_trailing_bytes(r))
		ret = profile_push_line(&l->notes, &l->nnotes,
					"%s: %" PRIu64 " bytes follow the recording's trailer, not "
					"read (appended to the file after recording; the recording "
					"itself is whole)",
					path, hwprof_reader_trailing_bytes(r));
	if (ret < 0)
		hwprof_msgf(err, errlen, ret, "%s: %m", path);
	free(counts);
	hwprof_reader_close(r);
	return ret;
}

/* ---- after the builder ------------------------------------------------------------------ */

static int move_lines(char ***to, size_t *nto, char ***from, size_t *nfrom)
{
	char **v;

	if (!*nfrom)
		return 0;
	v = realloc(*to, (*nto + *nfrom) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	*to = v;
	memcpy(v + *nto, *from, *nfrom * sizeof(*v));
	*nto += *nfrom;
	free(*from);
	*from = NULL;
	*nfrom = 0;
	return 0;
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

/* Lost samples leave holes where the target was busiest: past 1% the shares may be biased. */
static int check_lost(struct loader *l, struct profile *p)
{
	struct profile_lost lo;

	profile_lost(p, &lo);
	if (!lo.lost || (double)lo.lost * 100 <= LOST_PERCENT_WARN * (double)lo.of)
		return 0;
	p->partial = true;
	return profile_push_line(
	    &l->warnings, &l->nwarnings,
	    "%s%s%s%" PRIu64 " of %" PRIu64 " samples (%.1f %%)%s were lost while "
	    "recording; shares may be biased (record with a larger -m or a larger "
	    "-c / lower -F)",
	    l->nread == 1 ? l->first_path : "", l->nread == 1 ? ": " : "",
	    lo.at_least ? "at least " : "", lo.lost, lo.of, 100.0 * (double)lo.lost / (double)lo.of,
	    lo.per_event ? "" : " of all events (the kernel's LOST records do not say whose)");
}

struct name_ref {
	const char *name;
	size_t first; /* index of its hottest location */
};

static int by_name(const void *a, const void *b)
{
	const struct name_ref *x = a, *y = b;

	if (x->name != y->name)
		return (uintptr_t)x->name < (uintptr_t)y->name ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int by_first(const void *a, const void *b)
{
	const struct name_ref *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* --function: each value picks functions by fn_pick(); the locations of none are dropped. */
static int by_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (const char *const *)a,
		  y = (uintptr_t) * (const char *const *)b;

	return x < y ? -1 : x > y;
}

/* Whether L is in one of the N functions NAMES (sorted by pointer): its own or the one it
 * is inlined into. */
static bool picked(const struct profile_loc *l, const char **names, size_t n)
{
	return (l->function && bsearch(&l->function, names, n, sizeof(*names), by_ptr)) ||
	       (l->inlined_into && bsearch(&l->inlined_into, names, n, sizeof(*names), by_ptr));
}

static int filter_functions(struct profile *p, const char *list, size_t ninputs,
			    enum inline_mode mode, char *err, size_t errlen)
{
	struct filter f = {0};
	struct name_ref *refs = NULL;
	const char **names = NULL;
	bool *pick = NULL, *keep_name = NULL;
	size_t n = 0, keep = 0, nchosen = 0;
	int ret;

	ret = filter_parse(&f, "--function", list, false, err, errlen);
	if (ret < 0)
		return ret;
	ret = -ENOMEM;
	refs = calloc(2 * p->nlocs + 1, sizeof(*refs));
	if (!refs)
		goto out;
	/* Distinct names (interned: one pointer each), hottest first: a location answers to its
	 * function and, when that is inlined, to the real function it is inlined into, as
	 * perf's --symbols counts all of a function's code. */
	for (size_t i = 0; i < p->nlocs; i++) {
		if (p->locs[i].function)
			refs[n++] = (struct name_ref){.name = p->locs[i].function, .first = i};
		if (p->locs[i].inlined_into)
			refs[n++] = (struct name_ref){.name = p->locs[i].inlined_into, .first = i};
	}
	qsort(refs, n, sizeof(*refs), by_name);
	for (size_t i = 0, o = 0; i < n; i++)
		if (!o || refs[o - 1].name != refs[i].name)
			refs[o++] = refs[i], keep = o;
	n = keep;
	qsort(refs, n, sizeof(*refs), by_first);
	names = calloc(n + 1, sizeof(*names));
	pick = calloc(n + 1, sizeof(*pick));
	keep_name = calloc(n + 1, sizeof(*keep_name));
	if (!names || !pick || !keep_name)
		goto out;
	for (size_t i = 0; i < n; i++)
		names[i] = refs[i].name;
	for (size_t v = 0; v < f.n; v++) {
		struct fn_query q;
		char cands[768];
		int got;

		fn_query_init(&q, f.v[v]);
		got = fn_pick(&q, names, n, pick, cands, sizeof(cands));
		fn_query_release(&q);
		if (got == -ENOMEM) {
			ret = -ENOMEM;
			goto out;
		}
		if (got == -EINVAL) {
			snprintf(err, errlen,
				 "--function '%s': several functions have that name (%s; give "
				 "one as `hwprof report -s function` prints it)",
				 f.v[v], cands);
			ret = -EINVAL;
			goto out;
		}
		if (got <= 0) {
			char seen[512];
			list_strs(seen, sizeof(seen), names, n < 8 ? n : 8);
			snprintf(err, errlen,
				 "--function '%s': no sample has it (the input%s: %s%s%s)", f.v[v],
				 ninputs > 1 ? "s hold" : " holds",
				 seen[0] ? seen : "nothing to match", n > 8 ? ", ..." : "",
				 mode == INLINE_CALLER ? "; --inline=caller charges inlined "
							 "functions to their callers"
						       : "");
			ret = -EINVAL;
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			keep_name[i] |= pick[i];
	}
	/* Keep the picked functions' locations, in their period order. */
	for (size_t i = 0; i < n; i++)
		if (keep_name[i])
			names[nchosen++] = names[i];
	qsort(names, nchosen, sizeof(*names), by_ptr);
	keep = 0;
	p->samples = 0;
	p->period = 0;
	for (size_t i = 0; i < p->nlocs; i++) {
		if (!picked(&p->locs[i], names, nchosen))
			continue;
		p->samples += p->locs[i].samples;
		p->period += p->locs[i].period;
		p->locs[keep++] = p->locs[i];
	}
	p->nlocs = keep;
	/* A stack goes with its sampled address. */
	keep = 0;
	p->truncated_samples = 0;
	for (size_t i = 0; i < p->nstacks; i++) {
		if (!picked(&p->locations[p->stacks[i].locs[0]], names, nchosen))
			continue;
		if (p->stacks[i].truncated)
			p->truncated_samples += p->stacks[i].samples;
		p->stacks[keep++] = p->stacks[i];
	}
	p->nstacks = keep;
	ret = 0;
out:
	free(refs);
	free(names);
	free(pick);
	free(keep_name);
	filter_release(&f);
	return ret;
}

/* A counted total some inputs lack covers part of the run only: said once, no sum shown. */
static int note_partial_counts(struct loader *l, const struct profile *p)
{
	for (uint32_t i = 0; i < p->trailer.ncounts; i++)
		if (profile_count_partial(p, i) &&
		    profile_push_line(
			&l->notes, &l->nnotes,
			"%s counted in %" PRIu32 " of %" PRIu32 " inputs: its total and "
			"what derives from it are not shown (merge recordings made with the "
			"same counting events)",
			p->trailer.counts[i].event, p->count_inputs[i], p->ninputs) < 0)
			return -ENOMEM;
	return 0;
}

static void loader_release(struct loader *l)
{
	for (size_t i = 0; i < l->nwarnings; i++)
		free(l->warnings[i]);
	for (size_t i = 0; i < l->nnotes; i++)
		free(l->notes[i]);
	free(l->warnings);
	free(l->notes);
	free(l->first_cmd);
	free(l->ids);
	builder_free(l->b);
}

int profile_load(struct profile **out, const struct profile_options *opt, char *err, size_t errlen)
{
	/* --function is applied here, after symbolizing: see filter_functions(). */
	struct profile_options bopt = *opt;
	struct loader l = {.opt = opt};
	struct profile *p = NULL;
	int ret;

	*out = NULL;
	err[0] = '\0';
	if (!opt->ninputs) {
		snprintf(err, errlen, "no input file given (use -i FILE)");
		return -EINVAL;
	}
	bopt.functions = NULL;
	ret = builder_new(&l.b, &bopt, err, errlen);
	for (size_t i = 0; ret == 0 && i < opt->ninputs; i++)
		ret = load_one(&l, opt->inputs[i], err, errlen);
	if (ret == 0)
		ret = builder_finish(l.b, &p, err, errlen);
	if (ret == 0 && opt->functions)
		ret = filter_functions(p, opt->functions, opt->ninputs, opt->inline_mode, err,
				       errlen);
	if (ret == 0)
		ret = check_lost(&l, p);
	if (ret == 0)
		ret = move_lines(&p->warnings, &p->nwarnings, &l.warnings, &l.nwarnings);
	if (ret == 0)
		ret = note_partial_counts(&l, p);
	if (ret == 0)
		ret = move_lines(&p->notes, &p->nnotes, &l.notes, &l.nnotes);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (ret < 0 && !err[0])
		hwprof_msgf(err, errlen, ret, "%m");
	if (ret < 0)
		profile_free(p);
	else
		*out = p;
	loader_release(&l);
	return ret;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
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
	strpool_free(p->strings);
	free(p);
}
