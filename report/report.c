/* report.c - `hwprof report`: options, load the profile, print rows in one format. */
#include "builtin.h"
#include "cli.h"
#include "cli_options.h"
#include "rows.h"
#include "output.h"
#include "format_opts.h"
#include "rows_insns.h"
#include "sample_opts.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_KEYS 4

struct report_options {
	struct sample_opts samples; /* which samples: inputs, filters, --inline, ... */
	const char *sort;
	long long limit;	/* -1: the format's default (text 40, csv/json all) */
	double percent_limit;	/* rows under this share (percent) are left out */
	struct format_opts out; /* -f, -o */
	int children;		/* -1: when the recording has stacks; 0 / 1 */
	const char *callgraph;	/* "-G" / "--call-graph" given (call paths under each row), or
				 * NULL */
	enum cg_order order;	/* of the call paths */
	bool folded_lines;
	bool inverted;		/* svg: an icicle */
	bool group;		/* --group: a share column per other sampled event */
	long long line_size;	/* --cacheline-size: bytes per line of --sort cacheline */
	const char *row_option; /* the last of --children, --no-children, --cacheline-size
				 * given (they shape rows), or NULL */
	bool sort_given;	/* -s */
	bool limit_given;	/* -n, not 0 */
	bool percent_given;	/* --percent-limit, not 0 */
	bool inline_given;	/* --inline */
};

typedef int output_fn(FILE *f, const struct profile *p, const struct profile_row *rows, size_t n,
		      const struct output_opts *o);

/* The output formats: to add one, write its output_NAME() (output.h), name it in
 * format_opts.h and list it here and in the command's .formats. */
static const struct output_format {
	output_fn *write;
	long long limit;  /* rows by default (0: all) */
	bool binary;	  /* never written to a terminal */
	bool every_event; /* holds every sampling event's values, not only the shown one's */
} writers[CLI_NFORMATS] = {
    [CLI_FORMAT_TEXT] = {output_text, 40, false, false},
    [CLI_FORMAT_CSV] = {output_csv, 0, false, false},
    [CLI_FORMAT_JSON] = {output_json, 0, false, false},
    [CLI_FORMAT_FOLDED] = {output_folded, 0, false, false},
    [CLI_FORMAT_SVG] = {output_svg, 0, false, false},
    [CLI_FORMAT_PPROF] = {output_pprof, 0, true, true},
};

enum {
	OPT_PERCENT = 256,
	OPT_CHILDREN,
	OPT_NO_CHILDREN,
	OPT_CALL_GRAPH,
	OPT_FOLDED_LINES,
	OPT_INVERTED,
	OPT_GROUP,
	OPT_STDIO,
	OPT_LINE_SIZE,
};

static const struct cli_option options[] = {
    CLI_VALUE('i', "input", "FILE",
	      "sample file (default hwprof.data; - reads standard input); several are merged. "
	      "perf.data is read too, and with -i - perf's pipe stream (perf record -o - | hwprof "
	      "report -i -)"),
    CLI_VALUE(
	's', "sort", "KEYS",
	"group rows by line (default), function, dso, addr (one instruction each, with its "
	"text), data (the variable, member or element, [heap], [stack], [anon] or file+0xOFF "
	"the samples touched: record --data, or -e page-faults), cacheline (its 64-byte lines, "
	"with the distinct source lines touching each), or a list: data,line"),
    CLI_VALUE(OPT_LINE_SIZE, "cacheline-size", "BYTES",
	      "cacheline: bytes per line (default 64; a power of two)"),
    CLI_VALUE('n', "limit", "N", "print the first N rows (text default 40; 0 = all)"),
    CLI_VALUE(OPT_PERCENT, "percent-limit", "P", "leave out rows under P percent of the samples"),
    CLI_OPT_GROUP(format_opts_table),
    CLI_FLAG(OPT_STDIO, "stdio", "the text report (perf's spelling; hwprof report has no TUI)"),
    CLI_FLAG(OPT_FOLDED_LINES, "folded-lines", "folded: each frame with its :line"),
    CLI_FLAG(OPT_INVERTED, "inverted",
	     "svg: an icicle graph, the sampled functions at the top and their callers below"),
    CLI_FLAG(OPT_GROUP, "group",
	     "text: beside the shown event's share, each other sampled event's share of the same "
	     "rows (self shares, as perf's --group)"),
    CLI_FLAG(OPT_CHILDREN, "children",
	     "with stacks (record -g): rows of callers too, sorted by their children (inclusive) "
	     "share, beside self (default)"),
    CLI_FLAG(OPT_NO_CHILDREN, "no-children", "rows of the sampled addresses only, by self share"),
    CLI_FLAG('G', NULL, "the same as --call-graph=caller"),
    CLI_VALUE(OPT_CALL_GRAPH, "call-graph", "ORDER",
	      "under each row the call paths that lead to it, frames as 'file:line function' (a "
	      "caller's line is its call site): caller (from main inward) or callee (outward)"),
    CLI_OPT_GROUP(sample_opts_table),
    CLI_OPT_HELP,
    CLI_OPT_END,
};

static const struct cli_command command = {
    .usage =
	"usage: hwprof report [-i FILE]... [-s line|function|dso|addr|data|cacheline[,...]]\n"
	"                     [-n N] [--cacheline-size BYTES]\n"
	"                     [--percent-limit P] [-f text|csv|json|folded|svg|pprof]\n"
	"                     [-o FILE] [--folded-lines] [--inverted] [--group]\n"
	"                     [--children|--no-children] [-G|--call-graph=caller|callee]\n"
	"                     [--inline[=callee|caller]]\n"
	"                     [--debug-dir DIR]... [--pid LIST] [--tid LIST] [--comm LIST]\n"
	"                     [--dso LIST] [--function LIST] [--event NAME] [--kallsyms FILE]\n"
	"\n"
	"The source lines, functions or DSOs that took the samples of a recording.\n"
	"\n",
    .options = options,
    .formats = CLI_FMT(TEXT) | CLI_FMT(CSV) | CLI_FMT(JSON) | CLI_FMT(FOLDED) | CLI_FMT(SVG) |
	       CLI_FMT(PPROF),
    .footer =
	"\n"
	"Each row's share has a 95% interval (Wilson); '~' marks rows whose order against a\n"
	"neighbour the samples do not settle. A DSO rebuilt or deleted since the recording is\n"
	"read from perf's build-id cache ($PERF_BUILDID_DIR, else ~/.debug) when the build\n"
	"that ran is there. Exit status: 0 ok, 1 partial (file cut short, over 1% of the\n"
	"samples lost, a DSO rebuilt or deleted and not in that cache), 2 error, 64 usage.\n",
};

/* Whether --sort SORT holds the data key (a bad SORT is reported later). */
static bool sort_has_data(const char *sort)
{
	enum profile_key keys[MAX_KEYS];
	char err[256];
	int n = profile_parse_sort(sort, keys, MAX_KEYS, err, sizeof(err));

	for (int i = 0; i < n; i++)
		if (keys[i] == PROFILE_KEY_DATA)
			return true;
	return false;
}

/* Takes option C into O when it shapes the rows (-s, -n, --percent-limit, --children,
 * --no-children, --cacheline-size). Returns whether it was one of them. */
static bool parse_row_option(struct report_options *o, int c)
{
	switch (c) {
	case 's':
		o->sort = optarg;
		o->sort_given = true;
		return true;
	case 'n':
		o->limit = cli_parse_num("--limit", optarg, 0, 1000000000);
		/* 0: every row, what any format can give; the last -n counts. */
		o->limit_given = o->limit != 0;
		return true;
	case OPT_PERCENT:
		o->percent_limit =
		    cli_parse_real("--percent-limit", optarg, 0, 100, "not a percentage in 0..100");
		o->percent_given = o->percent_limit > 0;
		return true;
	case OPT_CHILDREN:
		o->children = 1;
		o->row_option = "--children";
		return true;
	case OPT_NO_CHILDREN:
		o->children = 0;
		o->row_option = "--no-children";
		return true;
	case OPT_LINE_SIZE:
		o->line_size = cli_parse_num("--cacheline-size", optarg, 1, 1 << 30);
		if (o->line_size & (o->line_size - 1))
			die_usage("--cacheline-size %s: not a power of two (try %lld)", optarg,
				  1ll << (63 - __builtin_clzll((unsigned long long)o->line_size)));
		o->row_option = "--cacheline-size";
		return true;
	}
	return false;
}

/* Takes option C into O (and *STDIO) when it shapes the output (-G, --call-graph,
 * --inverted, --group, --stdio, --folded-lines). Returns whether it was one of them. */
static bool parse_output_option(struct report_options *o, int c, bool *stdio)
{
	switch (c) {
	case 'G':
		o->callgraph = "-G";
		o->order = CG_CALLER;
		return true;
	case OPT_CALL_GRAPH:
		o->callgraph = "--call-graph";
		if (!strcmp(optarg, "caller"))
			o->order = CG_CALLER;
		else if (!strcmp(optarg, "callee"))
			o->order = CG_CALLEE;
		else
			die_usage("--call-graph '%s': unknown order (caller or callee)", optarg);
		return true;
	case OPT_INVERTED:
		o->inverted = true;
		return true;
	case OPT_GROUP:
		o->group = true;
		return true;
	case OPT_STDIO:
		*stdio = true; /* perf's spelling of the text report (no TUI here) */
		return true;
	case OPT_FOLDED_LINES:
		o->folded_lines = true;
		return true;
	}
	return false;
}

/* Dies with a usage error when an option of O that shapes rows is given with -f folded, svg
 * or pprof. */
static void check_whole_stacks(const struct report_options *o)
{
	const char *fmt = cli_format_name(o->out.format);

	if (o->callgraph)
		die_usage("%s puts call paths under rows; -f %s already holds every stack "
			  "whole (drop %s)",
			  o->callgraph, fmt, o->callgraph);
	if (o->sort_given && !sort_has_data(o->sort))
		die_usage("-s shapes report's rows; -f %s holds every stack whole (drop -s; "
			  "-s data adds the data objects)",
			  fmt);
	const char *opt = o->limit_given     ? "-n"
			  : o->percent_given ? "--percent-limit"
					     : o->row_option;

	if (opt)
		die_usage("%s shapes report's rows; -f %s holds every stack whole (drop %s)", opt,
			  fmt, opt);
	if (o->inline_given && o->out.format == CLI_FORMAT_PPROF)
		die_usage("--inline shapes report's rows; -f pprof holds every location's "
			  "whole inline chain, for pprof to fold (drop --inline)");
}

/* Dies with a usage error when the options of O (and STDIO) do not go together. */
static void check_options(const struct report_options *o, bool stdio)
{
	if (stdio && o->out.format != CLI_FORMAT_TEXT)
		die_usage("--stdio is the text report; it excludes -f %s",
			  cli_format_name(o->out.format));
	if (o->inverted && o->out.format != CLI_FORMAT_SVG)
		die_usage("--inverted draws an icicle graph: it goes with -f svg");
	if (o->group && o->out.format != CLI_FORMAT_TEXT)
		die_usage("--group puts a column per event in the text report: it goes with -f "
			  "text");
	if (o->group && o->children == 1)
		die_usage("--group's columns are self shares: it goes with --no-children");
	if (o->folded_lines && o->out.format != CLI_FORMAT_FOLDED)
		die_usage("--folded-lines adds lines to folded stacks: it goes with -f folded");
	/* folded, svg and pprof hold every stack whole, for the flame graph or pprof to sort and
	 * cut: options that shape rows do not apply. The data key is the one -s they take: the
	 * objects become leaf frames (output_folded.c, flame.c, output_pprof.c). pprof folds
	 * inline frames itself: each location holds its whole inline chain. */
	if (o->out.format == CLI_FORMAT_FOLDED || o->out.format == CLI_FORMAT_SVG ||
	    o->out.format == CLI_FORMAT_PPROF)
		check_whole_stacks(o);
}

static void parse_options(int argc, char **argv, struct report_options *o)
{
	bool stdio = false;
	int c;

	while ((c = cli_next_option(&command, argc, argv)) != -1) {
		if (sample_opts_parse(&o->samples, c, argc, argv)) {
			if (c == SAMPLE_OPT_INLINE)
				o->inline_given = true;
			continue;
		}
		if (format_opts_parse(&o->out, &command, c) || parse_row_option(o, c) ||
		    parse_output_option(o, c, &stdio))
			continue;
		if (c == 'i')
			sample_opts_add_input(&o->samples, optarg);
	}
	sample_opts_check(&o->samples);
	if (optind < argc)
		die_usage("'%s': unexpected argument (the sample file goes after -i)",
			  argv[optind]);
	check_options(o, stdio);
}

/* What one report holds between its steps. */
struct report_run {
	enum profile_key keys[MAX_KEYS]; /* --sort */
	int nkeys;
	struct profile *p;
	bool children; /* rows of callers too, by inclusive share */
	struct profile_row *rows;
	uint32_t *row_of;
	size_t nrows, shown; /* shown: the first rows within -n and --percent-limit */
	struct rows_insns *insns;
};

/* -o's refusals, and a binary format to a terminal, before the long load. Returns 0, or -1
 * after the error. */
static int check_output(const struct report_options *o)
{
	if (o->out.file && cli_output_check("-o", o->out.file) < 0)
		return -1;
	if (writers[o->out.format].binary && (!o->out.file || !strcmp(o->out.file, "-")) &&
	    cli_stdout_is_tty())
		return error("-f %s writes binary data: not to a terminal (give -o FILE.pb.gz, or "
			     "pipe it)",
			     cli_format_name(o->out.format));
	return 0;
}

/* Whether R's keys have KEY. */
static bool has_sort_key(const struct report_run *r, enum profile_key key)
{
	return r->nkeys > 0 && profile_keys_have(r->keys, (size_t)r->nkeys, key);
}

/* Whether R's keys have a data key (data, cacheline): the rows are profile.data's. */
static bool data_keys(const struct report_run *r)
{
	return has_sort_key(r, PROFILE_KEY_DATA) || has_sort_key(r, PROFILE_KEY_CACHELINE);
}

/* Parses --sort into R's keys and loads the inputs into R->p, with its warnings and notes
 * printed. Returns 0, or -1 after the error. */
static int load(struct report_options *o, struct report_run *r)
{
	char err[1024] = "";

	r->nkeys = profile_parse_sort(o->sort, r->keys, MAX_KEYS, err, sizeof(err));
	if (r->nkeys < 0)
		die_usage("%s", err);
	if (o->line_size && !has_sort_key(r, PROFILE_KEY_CACHELINE))
		die_usage("--cacheline-size sizes the rows of -s cacheline: give -s cacheline, or "
			  "drop --cacheline-size");
	/* --sort addr reads instructions through the files the loader opened; only the data
	 * keys look at the samples' data addresses. */
	for (int i = 0; i < r->nkeys; i++)
		o->samples.po.keep_code |= r->keys[i] == PROFILE_KEY_ADDR;
	o->samples.po.data = data_keys(r);
	o->samples.po.every_event = o->group || writers[o->out.format].every_event;
	if (!o->samples.po.ninputs)
		sample_opts_add_input(&o->samples, "hwprof.data");
	if (profile_load(&r->p, &o->samples.po, err, sizeof(err)) < 0)
		return error("%s", cli_see(err));
	for (size_t i = 0; i < r->p->nwarnings; i++)
		warning("%s", r->p->warnings[i]);
	for (size_t i = 0; i < r->p->nnotes; i++)
		note("%s", r->p->notes[i]);
	return 0;
}

/* Groups R->p's samples into rows by the keys, with the notes on what the profile lacks for
 * the options, and counts the rows shown. Returns 0, or -1 after the error. */
static int group_rows(struct report_options *o, struct report_run *r)
{
	const struct profile *p = r->p;

	if (data_keys(r) && !p->ndata)
		return error("--sort %s: no sample has a data address (record with --data, or an "
			     "event that carries one: -e page-faults; with perf: perf record -d)",
			     o->sort);
	r->children = p->nstacks && o->children != 0 && !o->group && !data_keys(r);
	if (o->group && !p->nvalues)
		note("--group: one sampling event has samples, no other column to show");
	if (o->callgraph && !p->nstacks)
		note("the recording has no stacks: no call paths to show (record with -g)");
	if (p->truncated_samples)
		note("%" PRIu64 " of %" PRIu64 " samples have a truncated stack: their outermost "
		     "callers are missing ([truncated] in call paths)",
		     p->truncated_samples, p->samples);
	struct profile_rows_req req = {
	    .keys = r->keys,
	    .nkeys = (size_t)r->nkeys,
	    .children = r->children,
	    .line_size = (uint32_t)o->line_size,
	    .inline_frames = o->samples.inline_frames,
	    .every_event = o->group,
	};
	if (profile_rows_by(p, &req, &r->rows, &r->nrows, &r->row_of) < 0)
		return error("out of memory grouping %zu locations", p->nlocs);
	if (o->limit < 0)
		o->limit = writers[o->out.format].limit;
	while (r->shown < r->nrows && (!o->limit || r->shown < (size_t)o->limit) &&
	       r->rows[r->shown].share * 100 >= o->percent_limit)
		r->shown++;
	for (int i = 0; i < r->nkeys; i++)
		if (r->keys[i] == PROFILE_KEY_ADDR &&
		    !(r->insns = rows_insns_fill(p, r->rows, r->shown, o->samples.po.debug_dirs,
						 o->samples.po.ndebug_dirs)))
			return error("out of memory reading the instructions of %zu rows",
				     r->shown);
	return 0;
}

/* Writes R's shown rows in -f's format to -o's file or standard output. Returns 0, or -1
 * after the error. */
static int write_rows(const struct report_options *o, const struct report_run *r)
{
	struct output_opts oo = {
	    .keys = r->keys,
	    .nkeys = (size_t)r->nkeys,
	    .inline_mode = o->samples.po.inline_mode,
	    .omitted = r->nrows - r->shown,
	    .children = r->children,
	    .callgraph = o->callgraph != NULL,
	    .order = o->order,
	    .row_of = r->row_of,
	    .percent_limit = o->percent_limit,
	    .folded_lines = o->folded_lines,
	    .inverted = o->inverted,
	    .inline_frames = o->samples.inline_frames,
	    .group = o->group,
	};
	struct cli_output sink;
	FILE *out;
	int fd, ret, closed;

	fd = o->out.file ? cli_output_create("-o", o->out.file) : STDOUT_FILENO;
	if (fd < 0)
		return -1;
	out = cli_output_open(&sink, fd);
	ret = writers[o->out.format].write(out, r->p, r->rows, r->shown, &oo);
	/* The first failed write's errno (ENOSPC, EPIPE), not what stdio says after it. */
	closed = cli_output_close(out, &sink);
	if (fd > STDOUT_FILENO)
		close(fd);
	if (ret < 0 || closed)
		return error_errno(closed ? closed : ret,
				   "writing the report: %m (check the output's disk or pipe)");
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_options o = {
	    .sort = "line",
	    .limit = -1,
	    .percent_limit = 0,
	    .out = FORMAT_OPTS_INIT,
	    .samples = SAMPLE_OPTS_INIT,
	    .children = -1,
	};
	struct report_run r = {0};
	int ret = EXIT_FATAL;

	parse_options(argc, argv, &o);
	if (!check_output(&o) && !load(&o, &r) && !group_rows(&o, &r) && !write_rows(&o, &r))
		ret = r.p->partial ? EXIT_PARTIAL : EXIT_OK;
	rows_insns_free(r.insns);
	free(r.rows);
	free(r.row_of);
	profile_free(r.p);
	sample_opts_release(&o.samples);
	return ret;
}
