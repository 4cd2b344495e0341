/* load.c - profile_load(): each input through its format's producer (producer.h) into the
 * builder.
 *
 * What needs every input at once is done here, around the builder: inputs given twice,
 * merged recordings that differ, the one event shown and the others left out, lost samples,
 * DSOs changed since the recording, and --function (fnfilter.c, after symbolizing). */
#include "profile.h"

#include "builder.h"
#include "grow.h"
#include "heap.h"
#include "filter.h"
#include "producer.h"
#include "strpool.h"
#include "textfmt.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
	size_t nids, capids;
	size_t nread; /* inputs read */
	/* The first input that has the shown event, to compare the others' sampling with. */
	const char *ref_path;
	bool ref_freq;
	uint64_t ref_period_or_freq;
	/* The first input, to compare the others' command with. */
	char *first_cmd;
	const char *first_path;
	char **warnings, **notes; /* added to the profile at the end */
	size_t nwarnings, nnotes, cap_warnings, cap_notes;
};

/* The input formats, tried in order by their probe; the first is also the one used when
 * none knows a file (or it cannot be probed: a pipe). */
static const struct producer *const producers[] = {&producer_hwprof, &producer_perf};

struct input {
	struct loader *l;
	const char *path;
	const struct hwprof_file_header *h; /* the producer's, until input_end() */
	uint64_t *counts;		    /* samples per event of H */
	int shown;			    /* H's event shown, or -1 */
	const char *name;		    /* its name (builder_input_event()) */
};

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
		    profile_push_line(&l->notes, &l->nnotes, &l->cap_notes,
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
		    &l->warnings, &l->nwarnings, &l->cap_warnings,
		    "%s: %s are not shown (one event at a time; --event NAME shows "
		    "one)",
		    path, list);
	if (nother == 1)
		return profile_push_line(
		    &l->warnings, &l->nwarnings, &l->cap_warnings,
		    "%s: %s are not shown (one event at a time: '%s' is shown; --event "
		    "%s shows %s)",
		    path, list, name, h->events[other].name, shown >= 0 ? "the other" : "them");
	return profile_push_line(
	    &l->warnings, &l->nwarnings, &l->cap_warnings,
	    "%s: %s are not shown (one event at a time: '%s' is shown; --event "
	    "NAME shows another)",
	    path, list, name);
}

/* Whether PATH was read already (same device and inode); records it when not. */
static int seen_before(struct loader *l, const char *path, const struct stat *st,
		       const char **first)
{
	for (size_t i = 0; i < l->nids; i++)
		if (l->ids[i].dev == st->st_dev && l->ids[i].ino == st->st_ino) {
			*first = l->ids[i].path;
			return 1;
		}
	if (hwprof_grow((void **)&l->ids, &l->capids, l->nids + 1, sizeof(*l->ids)) < 0)
		return -ENOMEM;
	l->ids[l->nids++] = (struct input_id){.dev = st->st_dev, .ino = st->st_ino, .path = path};
	return 0;
}

void input_default_event(struct input *in, uint32_t event)
{
	builder_default_event(in->l->b, event);
}

int input_begin(struct input *in, const struct hwprof_file_header *h)
{
	struct loader *l = in->l;
	int ret;

	in->h = h;
	in->counts = calloc(h->nevents + 1, sizeof(*in->counts));
	ret = in->counts ? builder_begin_input(l->b, in->path, h) : -ENOMEM;
	if (ret == 0) {
		in->shown = builder_input_event(l->b, &in->name);
		ret = compare_inputs(l, in->path, h, in->shown);
	}
	l->nread++;
	return ret;
}

int input_record(struct input *in, const struct hwprof_record *rec)
{
	if (rec->type == HWPROF_REC_SAMPLE && rec->sample.event < in->h->nevents)
		in->counts[rec->sample.event]++;
	/* The builder keeps the shown event's samples only: other events' periods are in
	 * other units. It counts every event's; the warning about them is made here. */
	return builder_add(in->l->b, rec);
}

int input_end(struct input *in, const struct hwprof_file_trailer *trailer,
	      enum hwprof_read_status status, const char *msg)
{
	int ret = in->l->opt->every_event ? 0
					  : other_events_warning(in->l, in->path, in->h, in->shown,
								 in->name, in->counts);

	return ret ? ret : builder_end_input(in->l->b, trailer, status, msg);
}

int input_note(struct input *in, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = profile_push_vline(&in->l->notes, &in->l->nnotes, &in->l->cap_notes, fmt, ap);
	va_end(ap);
	return ret;
}

int input_warning(struct input *in, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret =
	    profile_push_vline(&in->l->warnings, &in->l->nwarnings, &in->l->cap_warnings, fmt, ap);
	va_end(ap);
	return ret;
}

/* Up to LEN of the first bytes of the pipe FD without consuming them: tee(2) copies what the
 * pipe holds into a pipe of our own, which is read instead. Returns the bytes seen, or -1
 * (FD is not a pipe, or tee(2) failed). Blocks until the writer has written something or
 * closed its end. */
static ssize_t peek_pipe(int fd, unsigned char *buf, size_t len)
{
	int p[2];
	ssize_t n;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	do
		n = tee(fd, p[1], len, 0);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		n = read(p[0], buf, (size_t)n);
	close(p[0]);
	close(p[1]);
	return n;
}

/* The producer for PATH: the first whose probe knows its first bytes (peeked at without
 * consuming them in a pipe, PIPE_FD: `perf record -o - | hwprof report -i -`); the first
 * producer when none does or PATH cannot be read ahead (a device, a socket). */
static const struct producer *pick_producer(const char *path, const struct stat *sb, int pipe_fd)
{
	unsigned char head[64];
	ssize_t n = -1;
	int fd;

	if (pipe_fd >= 0) {
		n = peek_pipe(pipe_fd, head, sizeof(head));
	} else if (sb && S_ISREG(sb->st_mode) && (fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = pread(fd, head, sizeof(head), 0);
		close(fd);
	}
	for (size_t i = 0; n > 0 && i < sizeof(producers) / sizeof(producers[0]); i++)
		if (producers[i]->probe(head, (size_t)n))
			return producers[i];
	return producers[0];
}

/* Whether directory PATH is perf record --threads' output: its "data" the header of one. */
static bool perf_data_dir(const char *path)
{
	unsigned char head[104];
	char file[PATH_MAX];
	struct stat sb;
	ssize_t n = -1;
	int fd;

	if (snprintf(file, sizeof(file), "%s/data", path) >= (int)sizeof(file))
		return false;
	/* Non-blocking: a FIFO of that name would block open(2). */
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
		n = pread(fd, head, sizeof(head), 0);
	close(fd);
	return n > 0 && perf_header_is_dir_format(head, (size_t)n);
}

static int load_one(struct loader *l, const char *path, char *err, size_t errlen)
{
	const char *first = NULL;
	struct stat sb;
	bool have_stat;
	int ret;

	/* "-" is standard input (a pipe is read whole), as for perf: a file of that name is
	 * "./-". */
	if (!strcmp(path, "-"))
		path = "/dev/stdin";
	have_stat = stat(path, &sb) == 0;
	if (have_stat) {
		if (S_ISDIR(sb.st_mode) && perf_data_dir(path)) {
			snprintf(err, errlen,
				 "%s: a perf.data directory (perf record --threads), which hwprof "
				 "does not read; record without --threads",
				 path);
			return -EISDIR;
		}
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
			    &l->warnings, &l->nwarnings, &l->cap_warnings,
			    "%s: the same file as %s (given twice with -i): read once, "
			    "not counted twice",
			    path, first);
	}
	/* A pipe or FIFO is opened once, for the probe and the reader: opened again after its
	 * writer had gone, a FIFO would wait for another, what was written lost. */
	int fd = -1;
	if (have_stat && S_ISFIFO(sb.st_mode) && (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		ret = -errno;
		hwprof_msgf(err, errlen, ret, "%s: cannot open: %m", path);
		return ret;
	}
	struct input in = {.l = l, .path = path, .shown = -1};
	ret = pick_producer(path, have_stat ? &sb : NULL, fd)->read(&in, path, fd, err, errlen);
	if (ret < 0 && !err[0])
		hwprof_msgf(err, errlen, ret, "%s: %m", path);
	if (fd >= 0)
		close(fd);
	free(in.counts);
	return ret;
}

/* ---- after the builder ------------------------------------------------------------------ */

/* Moves the *NFROM lines of *FROM (room for *CAPFROM) to the end of *TO's (*NTO, room for
 * *CAPTO), leaving *FROM empty. Returns 0 or -ENOMEM (nothing moved). */
static int move_lines(char ***to, size_t *nto, size_t *capto, char ***from, size_t *nfrom,
		      size_t *capfrom)
{
	if (!*nfrom)
		return 0;
	if (hwprof_grow((void **)to, capto, *nto + *nfrom, sizeof(**to)) < 0)
		return -ENOMEM;
	memcpy(*to + *nto, *from, *nfrom * sizeof(**to));
	*nto += *nfrom;
	free(*from);
	*from = NULL;
	*nfrom = 0;
	*capfrom = 0;
	return 0;
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
	    &l->warnings, &l->nwarnings, &l->cap_warnings,
	    "%s%s%s%" PRIu64 " of %" PRIu64 " samples (%.1f %%)%s were lost while "
	    "recording; shares may be biased (record with a larger -m or a larger "
	    "-c / lower -F)",
	    l->nread == 1 ? l->first_path : "", l->nread == 1 ? ": " : "",
	    lo.at_least ? "at least " : "", lo.lost, lo.of, 100.0 * (double)lo.lost / (double)lo.of,
	    lo.per_event ? "" : " of all events (the kernel's LOST records do not say whose)");
}

/* A counted total some inputs lack covers part of the run only: said once, no sum shown. */
static int note_partial_counts(struct loader *l, const struct profile *p)
{
	for (uint32_t i = 0; i < p->trailer.ncounts; i++)
		if (profile_count_partial(p, i) &&
		    profile_push_line(
			&l->notes, &l->nnotes, &l->cap_notes,
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
	/* --function is applied here, after symbolizing: see fnfilter.c. */
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
	heap_use_huge_pages();
	ret = builder_new(&l.b, &bopt, err, errlen);
	for (size_t i = 0; ret == 0 && i < opt->ninputs; i++)
		ret = load_one(&l, opt->inputs[i], err, errlen);
	if (ret == 0)
		ret = builder_finish(l.b, &p, err, errlen);
	if (ret == 0 && opt->functions)
		ret = profile_keep_functions(p, opt->functions, opt->ninputs, opt->inline_mode, err,
					     errlen);
	if (ret == 0)
		ret = check_lost(&l, p);
	if (ret == 0)
		ret = move_lines(&p->warnings, &p->nwarnings, &p->cap_warnings, &l.warnings,
				 &l.nwarnings, &l.cap_warnings);
	if (ret == 0)
		ret = note_partial_counts(&l, p);
	if (ret == 0)
		ret = move_lines(&p->notes, &p->nnotes, &p->cap_notes, &l.notes, &l.nnotes,
				 &l.cap_notes);
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
