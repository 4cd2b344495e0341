/* annotate.c - `hwprof annotate`: the source view of a sample file, in a TUI or as text. */
#include "builtin.h"
#include "cli.h"
#include "cli_options.h"
#include "format_opts.h"
#include "diff_view.h"
#include "lines.h"
#include "profile.h"
#include "sample_opts.h"
#include "source.h"
#include "views.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct annotate_options {
	struct sample_opts samples; /* which samples: -i (default hwprof.data), filters, ... */
	bool stdio;
	const char **source_dirs;
	size_t nsource_dirs, capsource_dirs;
	const char **prefix_maps;
	size_t nprefix_maps, capprefix_maps;
	long long limit; /* functions in --stdio; 0: all */
	const char *function;
	enum ann_view_mode mode;   /* --asm: source + instructions; --no-source: instructions */
	struct format_opts out;	   /* -f: text or json (with --stdio) */
	bool json;		   /* -f json */
	bool diff;		   /* --diff BASE NEW FUNCTION */
	const char *diff_files[2]; /* BASE, NEW */
};

enum {
	OPT_STDIO = 256,
	OPT_SOURCE_DIR,
	OPT_PREFIX_MAP,
	OPT_LIMIT,
	OPT_ASM,
	OPT_NO_SOURCE,
	OPT_DIFF,
};

static const struct cli_option options[] = {
    CLI_VALUE('i', "input", "FILE",
	      "sample file (default hwprof.data; - reads standard input); several are merged. "
	      "perf.data is read too, and with -i - perf's pipe stream (perf record -o -)"),
    CLI_FLAG(OPT_STDIO, "stdio", "print plain text: the header, then functions hottest first"),
    CLI_VALUE(OPT_SOURCE_DIR, "source-dir", "DIR",
	      "look for source files under DIR (by their trailing path)"),
    CLI_VALUE(OPT_PREFIX_MAP, "prefix-map", "OLD=NEW", "read sources recorded under OLD from NEW"),
    CLI_VALUE(OPT_LIMIT, "limit", "N", "--stdio: the N hottest functions (default 20, 0: all)"),
    CLI_FLAG(OPT_ASM, "asm",
	     "each source line followed by its instructions, each with its samples (instructions "
	     "only without line information)"),
    CLI_FLAG(OPT_NO_SOURCE, "no-source", "instructions only, named by symbol + offset"),
    CLI_OPT_GROUP(format_only_table),
    CLI_FLAG(OPT_DIFF, "diff",
	     "FUNCTION's lines in two sample files, BASE and NEW, as text: both shares, the "
	     "change, '*' when significant (hwprof diff's matching and test)"),
    CLI_OPT_GROUP(sample_opts_table),
    CLI_OPERAND("FUNCTION", "its name as report prints it, or a C++ function's base name "
			    "(ns::work) or linkage name (_Z...)"),
    CLI_OPT_HELP,
    CLI_OPT_END,
};

static const struct cli_command command = {
    .usage =
	"usage: hwprof annotate [-i FILE]... [--stdio] [--source-dir DIR]...\n"
	"                       [--prefix-map OLD=NEW]... [--limit N] [--asm | --no-source]\n"
	"                       [-f text|json] [--inline[=callee|caller]] [--debug-dir DIR]...\n"
	"                       [--pid LIST] [--tid LIST] [--comm LIST] [--dso LIST]\n"
	"                       [--function LIST] [--event NAME] [--kallsyms FILE] [FUNCTION]\n"
	"       hwprof annotate --diff [OPTIONS] BASE NEW FUNCTION\n"
	"\n"
	"Shows the source lines of the sampled functions with their share of the samples: a\n"
	"terminal view that opens on the hottest function (or FUNCTION), or plain text.\n"
	"\n",
    .options = options,
    .formats = CLI_FMT(TEXT) | CLI_FMT(JSON),
    .help_column = 27,
    .footer = "\n"
	      "Without a terminal (or one smaller than 40x12) annotate prints --stdio output.\n",
    .more_help = ann_tui_keys_usage,
};

static void parse_options(struct annotate_options *o, int argc, char **argv)
{
	int c;

	while ((c = cli_next_option(&command, argc, argv)) != -1) {
		if (sample_opts_parse(&o->samples, c, argc, argv) ||
		    format_opts_parse(&o->out, &command, c))
			continue;
		switch (c) {
		case 'i':
			sample_opts_add_input(&o->samples, optarg);
			break;
		case OPT_STDIO:
			o->stdio = true;
			break;
		case OPT_DIFF:
			o->diff = true;
			break;
		case OPT_SOURCE_DIR:
			sample_opts_check_dir("--source-dir", optarg, "sources");
			cli_push(&o->source_dirs, &o->nsource_dirs, &o->capsource_dirs, optarg);
			break;
		case OPT_PREFIX_MAP:
			if (source_prefix_map_check(optarg))
				die_usage("--prefix-map '%s': not OLD=NEW with a non-empty OLD",
					  optarg);
			cli_push(&o->prefix_maps, &o->nprefix_maps, &o->capprefix_maps, optarg);
			break;
		case OPT_LIMIT:
			o->limit = cli_parse_num("--limit", optarg, 0, 1000000000);
			break;
		case OPT_ASM:
		case OPT_NO_SOURCE:
			if (o->mode != ANN_VIEW_SOURCE &&
			    o->mode != (c == OPT_ASM ? ANN_VIEW_MIXED : ANN_VIEW_ASM))
				die_usage("--asm and --no-source: one view at a time");
			o->mode = c == OPT_ASM ? ANN_VIEW_MIXED : ANN_VIEW_ASM;
			break;
		}
	}
	sample_opts_check(&o->samples);
	o->json = o->out.format == CLI_FORMAT_JSON;
	if (o->diff) {
		if (o->samples.po.ninputs)
			die_usage("--diff takes BASE NEW FUNCTION, not -i");
		if (o->samples.po.functions)
			die_usage(
			    "--diff shows one FUNCTION: give it after BASE NEW, not --function");
		if (o->mode != ANN_VIEW_SOURCE || o->json)
			die_usage(
			    "--diff shows source lines as text: without --asm, --no-source, -f");
		if (argc - optind != 3)
			die_usage("--diff takes BASE NEW FUNCTION (%d given)", argc - optind);
		o->diff_files[0] = argv[optind++];
		o->diff_files[1] = argv[optind++];
	}
	if (optind < argc)
		o->function = argv[optind++];
	if (optind < argc)
		die_usage("'%s': one FUNCTION at most", argv[optind]);
	if (!o->samples.po.ninputs)
		sample_opts_add_input(&o->samples, "hwprof.data");
	if (o->json && !o->stdio)
		die_usage("--format json: with --stdio (the terminal view has no other format)");
}

/* P's warnings, before an error that they may explain: a binary rebuilt or deleted since the
 * recording has no symbols read, a file cut short has no samples. */
static void warn_before_error(const struct profile *p)
{
	for (size_t i = 0; i < p->nwarnings; i++)
		warning("%s", p->warnings[i]);
}

/* "no function 'x' in the profile (closest: a, b, c)". */
static int unknown_function(const struct ann_model *m, const char *name)
{
	size_t idx[5], n = ann_model_closest(m, name, idx, 5);
	char list[512] = "";
	size_t o = 0;

	for (size_t i = 0; i < n && o < sizeof(list); i++) {
		bool again = false; /* one name in two DSOs: listed once */

		for (size_t k = 0; k < i && !again; k++)
			again = !strcmp(m->funcs[idx[k]].name, m->funcs[idx[i]].name);
		if (!again)
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", o ? ", " : "",
					      m->funcs[idx[i]].name);
	}
	warn_before_error(m->profile); /* likelier causes than the name */
	error("FUNCTION '%s': no samples in a function of that name (closest: %s)", name,
	      n ? list : "none");
	return EXIT_FATAL;
}

/* Which functions to show, hottest first: those named FUNCTION, else (with a note) the ones
 * that inline it, or every function when FUNCTION is NULL. Fills FUNCS (room for M->nfuncs)
 * and *N. Returns 0, or the exit status after an error naming FUNCTION. */
static int pick_functions(const struct ann_model *m, const char *function, size_t *funcs, size_t *n)
{
	char cands[768] = "", list[512] = "";
	size_t len = 0;
	long found;

	if (!function) {
		for (*n = 0; *n < m->nfuncs; (*n)++)
			funcs[*n] = *n;
		return 0;
	}
	found = ann_model_find(m, function, funcs, m->nfuncs, cands, sizeof(cands));
	if (found == -ENOMEM)
		die("out of memory");
	if (found < 0)
		return error_status(EXIT_FATAL,
				    "FUNCTION '%s': several functions have that name (%s; give one "
				    "as the function list names it)",
				    function, cands);
	*n = (size_t)found;
	if (*n)
		return 0;
	found = ann_model_find_inlined(m, function, funcs, m->nfuncs);
	if (found <= 0)
		return unknown_function(m, function);
	*n = (size_t)found;
	for (size_t i = 0; i < *n && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
					m->funcs[funcs[i]].name);
	note("'%s' has no code of its own in the profile, only inlined: showing %s, which %s it",
	     function, list, *n > 1 ? "inline" : "inlines");
	return 0;
}

/* After a view was shown: P's warnings and notes, and the exit status. AS_TEXT: the --stdio
 * view was printed (its header has the warnings). */
static int end_status(const struct profile *p, bool as_text)
{
	/* Warnings go to stderr after the view, where the TUI cannot hide them; --stdio has them
	 * in its header already, so on a terminal (stdout and stderr both) they are not said
	 * twice. */
	if (!(as_text && cli_stdout_is_tty() && isatty(STDERR_FILENO)))
		for (size_t i = 0; i < p->nwarnings; i++)
			warning("%s", p->warnings[i]);
	for (size_t i = 0; i < p->nnotes; i++)
		note("%s", p->notes[i]);
	/* Partial (docs/exit-codes.md), as in report: a file cut short, over 1% of the samples
	 * lost, a DSO changed since the recording (profile_load() sets partial). A counted
	 * total shown as "not counted" says so itself and is no missing part of the profile:
	 * as a user, context switches are always not counted. */
	return p->partial || !p->have_trailer ? EXIT_PARTIAL : EXIT_OK;
}

/* The profile PO names and its annotate model into *P and *M. Returns 0, or -1 after an
 * error (*P NULL). */
static int load_model(const struct profile_options *po, struct profile **p, struct ann_model **m)
{
	char err[512] = "";
	int rc = profile_load(p, po, err, sizeof(err));

	if (rc) {
		if (err[0])
			error("%s", cli_see(err));
		else
			error_errno(rc, "loading the profile: %m");
		return -1;
	}
	*m = ann_model_build_lazy(*p);
	return 0;
}

/* The source lookup options of O (--source-dir, --prefix-map). */
static struct source_options source_options_of(const struct annotate_options *o)
{
	return (struct source_options){.source_dirs = o->source_dirs,
				       .nsource_dirs = o->nsource_dirs,
				       .prefix_maps = o->prefix_maps,
				       .nprefix_maps = o->nprefix_maps};
}

/* Loads O's profile into *P and its model into *M for the view asked for. Returns 0, or
 * nonzero after reporting. */
static int load_for_view(struct annotate_options *o, struct profile **p, struct ann_model **m)
{
	/* --stdio FUNCTION shows FUNCTION alone: the other functions' lines are not read (libc's
	 * compressed debug file was a third of the time for a function in the program). */
	if (o->stdio && o->function)
		o->samples.po.focus = o->function;
	/* The instruction views read code and lines through the files the loader opened: a
	 * large CU's line table is decoded once. */
	o->samples.po.keep_code = !o->stdio || o->mode != ANN_VIEW_SOURCE;
	/* Otherwise functions are ranked by their symbols, and each one's lines read when it is
	 * shown: the TUI's first screen and --stdio's first function wait for theirs only. */
	if (!o->samples.po.focus)
		o->samples.po.lazy_lines = o->samples.po.keep_code = true;
	if (load_model(&o->samples.po, p, m))
		return 1;
	/* A name that no symbol gives (a function only inlined, an alias the DWARF names) is
	 * looked for in the whole profile. */
	if ((o->samples.po.focus || (o->function && (*p)->lazy)) &&
	    !ann_model_find(*m, o->function, NULL, 0, NULL, 0) &&
	    !ann_model_find_inlined(*m, o->function, NULL, 0)) {
		ann_model_free(*m);
		profile_free(*p);
		*m = NULL;
		*p = NULL;
		o->samples.po.focus = NULL;
		o->samples.po.lazy_lines = false;
		if (load_model(&o->samples.po, p, m))
			return 1;
	}
	return 0;
}

/* Shows the NFUNCS functions FUNCS of M: the TUI, or when it cannot start or --stdio was
 * asked for, the --stdio or JSON view (*AS_TEXT: the --stdio one was printed). Returns 0, or
 * EXIT_FATAL after reporting. */
static int show(const struct annotate_options *o, struct ann_model *m, struct source_cache *src,
		struct ann_code *code, const size_t *funcs, size_t nfuncs, bool *as_text)
{
	size_t more = 0;
	int rc;

	if (!o->stdio) {
		char why[256] = "";

		if (ann_tui(m, src, code, o->mode, funcs[0], why, sizeof(why)) == 0)
			return 0;
		note("%s: printing the --stdio view instead", why);
	}
	if (o->limit && nfuncs > (size_t)o->limit) {
		more = nfuncs - (size_t)o->limit;
		nfuncs = (size_t)o->limit;
	}
	*as_text = !o->json;
	rc = o->json ? ann_json(stdout, m, src, code, o->mode, funcs, nfuncs, more)
		     : ann_stdio_view(stdout, m, src, code, o->mode, funcs, nfuncs, more);
	if (rc)
		return error_errno_status(EXIT_FATAL, rc, "writing the output: %m");
	return 0;
}

int cmd_annotate(int argc, char **argv)
{
	struct annotate_options o = {
	    .samples = SAMPLE_OPTS_INIT, .out = FORMAT_OPTS_INIT, .limit = 20};
	struct source_options sopt;
	struct profile *p = NULL;
	struct ann_model *m = NULL;
	struct source_cache *src = NULL;
	struct ann_code *code = NULL;
	size_t *funcs = NULL, nfuncs = 0;
	int ret = EXIT_FATAL;
	bool as_text = false; /* the --stdio view was printed (its header has the warnings) */

	parse_options(&o, argc, argv);
	sopt = source_options_of(&o);
	if (o.diff) {
		src = source_cache_new(&sopt);
		ret = ann_diff_stdio(stdout, &o.samples.po, o.diff_files[0], o.diff_files[1],
				     o.function, src);
		goto out;
	}
	if (load_for_view(&o, &p, &m))
		goto out;
	if (!m->nfuncs) {
		warn_before_error(p);
		error("%s: no samples to annotate (record a longer run, or with a smaller period)",
		      o.samples.po.inputs[0]);
		goto out;
	}
	src = source_cache_new(&sopt);
	code = ann_code_new(m, o.samples.po.debug_dirs, o.samples.po.ndebug_dirs);
	funcs = xmalloc(m->nfuncs * sizeof(*funcs));
	ret = pick_functions(m, o.function, funcs, &nfuncs);
	if (ret)
		goto out;
	ret = show(&o, m, src, code, funcs, nfuncs, &as_text);
	if (ret == 0)
		ret = end_status(p, as_text);
out:
	free(funcs);
	ann_code_free(code);
	source_cache_free(src);
	ann_model_free(m);
	profile_free(p);
	sample_opts_release(&o.samples);
	free(o.source_dirs);
	free(o.prefix_maps);
	return ret;
}
