/* diff.c - `hwprof diff`: two profiles loaded as report loads one, their rows matched by
 * content, each change tested against sampling noise. */
#include "builtin.h"
#include "cli.h"
#include "cli_options.h"
#include "diff.h"
#include "diff_view.h"
#include "diff_output.h"
#include "format_opts.h"
#include "sample_opts.h"
#include "grow.h"
#include "source.h"

#include "hwprof/hwprof.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_KEYS 3

/* What a row's events are divided by (--normalize). */
enum diff_norm {
	NORM_SHARE,	   /* shares of each side's samples */
	NORM_INSTRUCTIONS, /* events per 1000 instructions counted */
	NORM_TIME,	   /* events per second (task-clock counted, else the duration) */
	NORM_RUN,	   /* events per recording: both did the same work */
};

struct diff_options {
	struct sample_opts samples; /* which samples (both sides): filters, --inline, ... */
	const char **files[2];	    /* --base, --new, or the positional BASE NEW */
	size_t nfiles[2], capfiles[2];
	const char *sort;
	long long limit; /* -1: the format's default (text 40, csv/json all) */
	double percent_limit;
	struct format_opts out; /* -f, -o */
	double alpha;
	double fail_if_worse; /* NAN: none */
	enum diff_norm norm;
};

enum {
	OPT_BASE = 256,
	OPT_NEW,
	OPT_PERCENT,
	OPT_ALPHA,
	OPT_FAIL_IF_WORSE,
	OPT_NORMALIZE,
};

static const struct cli_option options[] = {
    CLI_OPERAND(
	"BASE NEW",
	"the two sample files (default hwprof.data.old hwprof.data, the file record kept and the "
	"one it wrote)"),
    CLI_VALUE(OPT_BASE, "base", "FILE", "a base sample file, instead of BASE; several are merged"),
    CLI_VALUE(OPT_NEW, "new", "FILE", "a new sample file, instead of NEW; several are merged"),
    CLI_VALUE('s', "sort", "KEYS", "match rows by line (default), function, dso, or a list"),
    CLI_VALUE('n', "limit", "N", "print the first N rows (text default 40; 0 = all)"),
    CLI_VALUE(OPT_PERCENT, "percent-limit", "P",
	      "leave out rows under P percent of the samples on both sides"),
    CLI_OPT_GROUP(format_opts_table),
    CLI_VALUE(OPT_ALPHA, "alpha", "A",
	      "significance level (default 0.05): the chance that any unchanged row is called "
	      "significant (Holm's correction)"),
    CLI_VALUE(OPT_FAIL_IF_WORSE, "fail-if-worse", "P",
	      "exit 1 when a row's share grew significantly by P points or more (--normalize: by P "
	      "in the rate's unit)"),
    CLI_VALUE(
	OPT_NORMALIZE, "normalize", "WHAT",
	"share (default): each side's shares of its own samples; instructions: events per "
	"1000 instructions (both recordings counted instructions); time: events per second "
	"(task-clock counted, else the recording's duration); run: events per recording (both "
	"sides did the same work)"),
    CLI_OPT_GROUP(sample_opts_table),
    CLI_OPT_HELP,
    CLI_OPT_END,
};

static const struct cli_command command = {
    .usage = "usage: hwprof diff [--base FILE]... [--new FILE]... [-s line|function|dso[,...]]\n"
	     "                   [-n N] [--percent-limit P] [-f text|csv|json] [-o FILE]\n"
	     "                   [--alpha A] [--fail-if-worse P]\n"
	     "                   [--normalize share|instructions|time|run]\n"
	     "                   [--inline[=callee|caller]] [--debug-dir DIR]... [--pid LIST]\n"
	     "                   [--tid LIST] [--comm LIST] [--dso LIST] [--function LIST]\n"
	     "                   [--event NAME] [--kallsyms FILE] [BASE NEW]\n"
	     "\n"
	     "Which source lines, functions or DSOs took a larger or smaller share of the samples\n"
	     "from one recording (BASE) to another (NEW), and which of those changes the samples\n"
	     "show to be real. Rows match by name and source text, so a rebuild that moved a line\n"
	     "still matches it.\n"
	     "\n",
    .options = options,
    .formats = CLI_FMT(TEXT) | CLI_FMT(CSV) | CLI_FMT(JSON),
    .footer =
	"\n"
	"Rows are sorted significant first, then by the size of the change. A row is\n"
	"significant when a two-proportion z-test on its samples, Holm-corrected over all the\n"
	"rows compared, rejects 'no change' at --alpha. Exit status: 0 ok, 1 a regression\n"
	"(--fail-if-worse) or a partial input, 2 error, 64 usage.\n",
};

static enum diff_norm parse_norm(const char *arg)
{
	if (!strcmp(arg, "share"))
		return NORM_SHARE;
	if (!strcmp(arg, "instructions"))
		return NORM_INSTRUCTIONS;
	if (!strcmp(arg, "time"))
		return NORM_TIME;
	if (!strcmp(arg, "run"))
		return NORM_RUN;
	die_usage("--normalize '%s': not a choice (share, instructions, time or run)", arg);
}

/* Appends PATH (not copied) to the sample files of SIDE. */
static void push_file(struct diff_options *o, int side, const char *path)
{
	cli_push(&o->files[side], &o->nfiles[side], &o->capfiles[side], path);
}

/* BASE NEW after the options fill the sides --base and --new left empty. */
static void positional(struct diff_options *o, int argc, char **argv)
{
	for (int side = 0; side < 2; side++)
		if (!o->nfiles[side] && optind < argc)
			push_file(o, side, argv[optind++]);
	if (optind < argc)
		die_usage("'%s': unexpected argument (give BASE NEW, or --base and --new)",
			  argv[optind]);
	if (!o->nfiles[DIFF_BASE] && !o->nfiles[DIFF_NEW]) {
		push_file(o, DIFF_BASE, "hwprof.data.old");
		push_file(o, DIFF_NEW, "hwprof.data");
	}
	if (!o->nfiles[DIFF_NEW])
		die_usage("no new sample file (give BASE NEW, or --new FILE)");
	if (!o->nfiles[DIFF_BASE])
		die_usage("no base sample file (give BASE NEW, or --base FILE)");
}

static void parse_options(int argc, char **argv, struct diff_options *o)
{
	int c;

	while ((c = cli_next_option(&command, argc, argv)) != -1) {
		if (sample_opts_parse(&o->samples, c, argc, argv) ||
		    format_opts_parse(&o->out, &command, c))
			continue;
		switch (c) {
		case OPT_BASE:
			push_file(o, DIFF_BASE, optarg);
			break;
		case OPT_NEW:
			push_file(o, DIFF_NEW, optarg);
			break;
		case 's':
			o->sort = optarg;
			break;
		case 'n':
			o->limit = cli_parse_num("--limit", optarg, 0, 1000000000);
			break;
		case OPT_PERCENT:
			o->percent_limit = cli_parse_real("--percent-limit", optarg, 0, 100,
							  "not a percentage in 0..100");
			break;
		case OPT_ALPHA:
			o->alpha = cli_parse_real("--alpha", optarg, 1e-12, 0.5,
						  "not a significance level in (0, 0.5]");
			break;
		case OPT_FAIL_IF_WORSE:
			o->fail_if_worse = cli_parse_real("--fail-if-worse", optarg, 0, 1e18,
							  "not a size of change (0 or more)");
			break;
		case OPT_NORMALIZE:
			o->norm = parse_norm(optarg);
			break;
		}
	}
	sample_opts_check(&o->samples);
	positional(o, argc, argv);
}

/* "a.data" or "a.data,b.data": into a malloc'd string. */
static char *inputs_label(const char **files, size_t n)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < n; i++)
		len += strlen(files[i]) + 1;
	s = xmalloc(len);
	s[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(s, ",");
		strcat(s, files[i]);
	}
	return s;
}

static int load(struct profile **p, const struct diff_options *o, int side, const char *what)
{
	struct profile_options po = o->samples.po;
	char err[1024] = "";

	po.inputs = o->files[side];
	po.ninputs = o->nfiles[side];
	if (profile_load(p, &po, err, sizeof(err)) < 0)
		return error("%s: %s", what, cli_see(err));
	for (size_t i = 0; i < (*p)->nwarnings; i++)
		warning("%s: %s", what, (*p)->warnings[i]);
	for (size_t i = 0; i < (*p)->nnotes; i++)
		note("%s: %s", what, (*p)->notes[i]);
	return 0;
}

/* The counted total of EVENT in P (scaled), or 0 when it was not counted throughout. */
static double counted(const struct profile *p, const char *event)
{
	for (uint32_t i = 0; i < p->trailer.ncounts; i++) {
		const struct hwprof_file_count *c = &p->trailer.counts[i];
		struct hwprof_count k;

		if (strcmp(c->event, event) || profile_count_partial(p, i))
			continue;
		k = profile_count_read(c);
		return k.counted ? k.scaled : 0;
	}
	return 0;
}

/* Each side's work for --normalize into REQ, and the unit's name. Returns 0, or -1 after an
 * error saying what a recording lacks. */
static int work(const struct diff_options *o, struct profile *const p[2], struct diff_req *req,
		const char **unit)
{
	static const char *const side_name[2] = {"the base", "the new profile"};

	*unit = NULL;
	if (o->norm == NORM_SHARE)
		return 0;
	for (int s = 0; s < 2; s++) {
		if (o->norm == NORM_RUN) {
			req->work[s] = 1;
		} else if (o->norm == NORM_INSTRUCTIONS) {
			req->work[s] = counted(p[s], "instructions");
			if (req->work[s] <= 0)
				return error("--normalize instructions: %s has no counted total of "
					     "instructions (record with --count instructions on a "
					     "host with a PMU, or use --normalize time)",
					     side_name[s]);
		} else {
			req->work[s] = counted(p[s], "task-clock");
			if (req->work[s] <= 0 && p[s]->have_trailer)
				req->work[s] = (double)p[s]->trailer.duration_ns;
			if (req->work[s] <= 0)
				return error("--normalize time: %s has no task-clock count and no "
					     "duration (a file cut short; record again)",
					     side_name[s]);
		}
	}
	req->scale = o->norm == NORM_INSTRUCTIONS ? 1000 : o->norm == NORM_TIME ? 1e9 : 1;
	*unit = o->norm == NORM_INSTRUCTIONS ? "per 1k instructions"
		: o->norm == NORM_TIME	     ? "per second"
					     : "per recording";
	return 0;
}

/* The reasons two profiles cannot be compared, as one error. Returns 0 or -1. */
static int comparable(struct profile *const p[2], const char *const label[2])
{
	const char *eb = diff_event_name(p[DIFF_BASE]), *en = diff_event_name(p[DIFF_NEW]);

	if (strcmp(eb, en))
		return error("the base (%s) samples '%s' and the new profile (%s) '%s': a diff "
			     "compares one event (record both with the same -e, or pick one both "
			     "have with --event)",
			     label[DIFF_BASE], eb, label[DIFF_NEW], en);
	for (int s = 0; s < 2; s++)
		if (!p[s]->samples)
			return error("%s: no samples%s (nothing to compare)", label[s],
				     p[s]->samples_read ? " pass the filters" : "");
	return 0;
}

static bool worse(const struct diff_row *r, double p)
{
	return r->significant && r->delta > 0 && r->delta >= p;
}

/* The rows to print, in the diff's order: within --percent-limit (either side's share) and
 * --limit. */
static size_t pick_rows(const struct diff *d, const struct diff_options *o, struct diff_row *shown)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[i];
		double sb = d->p[0]->period > 0 ? r->side[0].period / d->p[0]->period : 0;
		double sn = d->p[1]->period > 0 ? r->side[1].period / d->p[1]->period : 0;

		if (fmax(sb, sn) * 100 < o->percent_limit)
			continue;
		if (o->limit && n >= (size_t)o->limit)
			break;
		shown[n++] = *r;
	}
	return n;
}

static int print(const struct diff *d, const struct diff_options *o, struct diff_output_opts *oo)
{
	static diff_output_fn *const writers[] = {
	    [CLI_FORMAT_TEXT] = diff_output_text,
	    [CLI_FORMAT_CSV] = diff_output_csv,
	    [CLI_FORMAT_JSON] = diff_output_json,
	};
	struct diff_row *shown = xcalloc(d->nrows ? d->nrows : 1, sizeof(*shown));
	struct cli_output sink;
	size_t n = pick_rows(d, o, shown);
	int fd, r, r2;
	FILE *out;

	oo->omitted = d->nrows - n;
	fd = o->out.file ? cli_output_create("-o", o->out.file) : STDOUT_FILENO;
	if (fd < 0) {
		free(shown);
		return -1;
	}
	out = cli_output_open(&sink, fd);
	r = writers[o->out.format](out, d, shown, n, oo);
	r2 = cli_output_close(out, &sink);
	if (fd > STDOUT_FILENO)
		close(fd);
	free(shown);
	if (r < 0 || r2)
		return error_errno(r2 ? r2 : r, "writing the diff: %m (check the output's disk or "
						"pipe)");
	return 0;
}

/* The keys of --sort SORT into KEYS (MAX_KEYS): the ones diff can match rows by. Returns
 * their count; dies with a usage error for the others. */
static int parse_keys(const char *sort, enum profile_key *keys)
{
	char err[512] = "";
	int nkeys = profile_parse_sort(sort, keys, MAX_KEYS, err, sizeof(err));

	if (nkeys < 0)
		die_usage("%s", err);
	for (int i = 0; i < nkeys; i++) {
		if (keys[i] == PROFILE_KEY_ADDR)
			die_usage("--sort '%s': diff matches rows by name and source text, and "
				  "addresses move in a rebuild (sort by line, function or dso)",
				  sort);
		/* The matcher knows the instruction's names only: two data objects of one line
		 * would be matched as one row. */
		if (keys[i] == PROFILE_KEY_DATA || keys[i] == PROFILE_KEY_CACHELINE)
			die_usage(
			    "--sort '%s': diff matches rows by line, function or dso; data "
			    "objects and cache lines are hwprof report --sort data/cacheline's",
			    sort);
	}
	return nkeys;
}

/* The file of ROW's side S when it is one of a program's own files: not the kernel's, the
 * vDSO's or an unknown address's ("[...]" names), which any two programs share; else NULL. */
static const char *own_file(const struct diff_row *row, int s)
{
	const struct profile_row *r = row->side[s].row;

	return r && r->dso && r->dso[0] != '[' ? r->dso : NULL;
}

/* Adds FILE to the N distinct files at *V (room *CAP) unless there. Returns 0 or -ENOMEM. */
static int add_file(const char ***v, size_t *n, size_t *cap, const char *file)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i] == file)
			return 0;
	if (hwprof_grow((void **)v, cap, *n + 1, sizeof(**v)) < 0)
		return -ENOMEM;
	(*v)[(*n)++] = file;
	return 0;
}

/* Whether the two sides of D have files of their own and none of one side's base names is
 * the other's: two different programs, whatever the kernel's rows they share. Out of memory
 * it answers false (the diff goes on as before). */
static bool no_file_in_common(const struct diff *d)
{
	const char **files[2] = {NULL, NULL};
	size_t n[2] = {0, 0}, cap[2] = {0, 0};
	bool common = false, nomem = false;

	for (size_t i = 0; i < d->nrows && !nomem; i++)
		for (int s = 0; s < 2; s++) {
			const char *f = own_file(&d->rows[i], s);
			nomem |= f && add_file(&files[s], &n[s], &cap[s], f) < 0;
		}
	for (size_t i = 0; i < n[0] && !common; i++)
		for (size_t k = 0; k < n[1] && !common; k++)
			common = !strcmp(path_base(files[0][i]), path_base(files[1][k]));
	free(files[0]);
	free(files[1]);
	return !nomem && !common && n[0] && n[1];
}

/* Matches the rows of P[2] (labelled LABEL) into D by REQ, the source read through SRC.
 * Returns 0, or -1 with the error printed (out of memory, or no row in common under
 * --sort SORT, or no file of the program's own on both sides). */
static int match(struct diff *d, struct profile *const *p, struct diff_req *req,
		 struct source_cache *src, char *const *label, const char *sort)
{
	req->source = ann_diff_source;
	req->source_ctx = src;
	if (diff_build(d, p[DIFF_BASE], p[DIFF_NEW], req) < 0) {
		error("out of memory matching %zu and %zu locations", p[0]->nlocs, p[1]->nlocs);
		return -1;
	}
	if (!d->ncommon) {
		error("no row of the base (%s) matches one of the new profile (%s): different "
		      "programs, or nothing in common under --sort %s (try --sort function or dso)",
		      label[DIFF_BASE], label[DIFF_NEW], sort);
		return -1;
	}
	if (no_file_in_common(d)) {
		error("no file in user space of the base (%s) is one of the new profile (%s), only "
		      "the kernel's or the vDSO's rows match: different programs (diff two "
		      "recordings of one program; --sort dso shows each side's files)",
		      label[DIFF_BASE], label[DIFF_NEW]);
		return -1;
	}
	const char *prog[2] = {profile_program(p[DIFF_BASE]), profile_program(p[DIFF_NEW])};
	if (prog[0] && prog[1] && strcmp(path_base(prog[0]), path_base(prog[1])))
		note("the base (%s) recorded %s, the new profile (%s) %s: diff compares two "
		     "recordings of one program",
		     label[DIFF_BASE], path_base(prog[0]), label[DIFF_NEW], path_base(prog[1]));
	return 0;
}

/* --fail-if-worse: whether a row of D grew by more than its threshold, significantly (the
 * first such row is printed as an error, its delta in UNIT or points). */
static bool any_worse(const struct diff *d, const struct diff_options *o, const char *unit)
{
	for (size_t i = 0; !isnan(o->fail_if_worse) && i < d->nrows; i++) {
		char loc[512], fn[512];
		if (!worse(&d->rows[i], o->fail_if_worse))
			continue;
		error("--fail-if-worse %g: %s %s grew by %.3g %s, significant (p_adj %.2g)",
		      o->fail_if_worse, diff_location_label(&d->rows[i], loc, sizeof(loc)),
		      diff_function_label(&d->rows[i], fn, sizeof(fn)), d->rows[i].delta,
		      unit ? unit : "points", d->rows[i].p_adj);
		return true;
	}
	return false;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_options o = {
	    .samples = SAMPLE_OPTS_INIT,
	    .sort = "line",
	    .limit = -1,
	    .out = FORMAT_OPTS_INIT,
	    .alpha = 0.05,
	    .fail_if_worse = NAN,
	};
	static const struct source_options no_dirs;
	enum profile_key keys[MAX_KEYS];
	struct profile *p[2] = {NULL, NULL};
	struct diff d = {0};
	char *label[2] = {NULL, NULL};
	struct source_cache *src = NULL;
	int nkeys, ret = EXIT_FATAL;

	parse_options(argc, argv, &o);
	if (o.out.file && cli_output_check("-o", o.out.file) < 0)
		goto done;
	nkeys = parse_keys(o.sort, keys);
	if (o.limit < 0)
		o.limit = o.out.format == CLI_FORMAT_TEXT ? 40 : 0;
	for (int s = 0; s < 2; s++)
		label[s] = inputs_label(o.files[s], o.nfiles[s]);
	if (load(&p[DIFF_BASE], &o, DIFF_BASE, "base") < 0 ||
	    load(&p[DIFF_NEW], &o, DIFF_NEW, "new") < 0 ||
	    comparable(p, (const char *const *)label) < 0)
		goto done;

	struct diff_req req = {.keys = keys, .nkeys = (size_t)nkeys, .alpha = o.alpha};
	struct diff_output_opts oo = {
	    .keys = keys,
	    .nkeys = (size_t)nkeys,
	    .inputs = {label[DIFF_BASE], label[DIFF_NEW]},
	    .alpha = o.alpha,
	};
	if (work(&o, p, &req, &oo.unit) < 0)
		goto done;
	src = source_cache_new(&no_dirs);
	if (match(&d, p, &req, src, label, o.sort) < 0 || print(&d, &o, &oo) < 0)
		goto done;
	ret = p[0]->partial || p[1]->partial ? EXIT_PARTIAL : EXIT_OK;
	if (any_worse(&d, &o, oo.unit))
		ret = EXIT_PARTIAL;
done:
	diff_release(&d);
	source_cache_free(src);
	profile_free(p[0]);
	profile_free(p[1]);
	free(label[0]);
	free(label[1]);
	free(o.files[0]);
	free(o.files[1]);
	sample_opts_release(&o.samples);
	return ret;
}
