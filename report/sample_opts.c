/* sample_opts.c - the "which samples" option group of report, annotate and diff. */
#include "sample_opts.h"

#include "cli.h"
#include "filter.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const struct cli_option sample_opts_table[] = {
    CLI_OPTIONAL(
	SAMPLE_OPT_INLINE, "inline", "MODE",
	"callee: an inlined instruction's line is the inlined function's (default); caller: its "
	"call site's; alone: callee, and call paths and folded stacks show every inline frame "
	"(the nested ones too)"),
    CLI_VALUE(SAMPLE_OPT_DEBUG_DIR, "debug-dir", "DIR",
	      "look for separate debug info in DIR (DIR/.build-id/xx/..., debuglink names) before "
	      "/usr/lib/debug"),
    CLI_VALUE(SAMPLE_OPT_PID, "pid", "LIST", "only samples of these process ids (comma-separated)"),
    CLI_VALUE(SAMPLE_OPT_TID, "tid", "LIST", "only samples of these thread ids (comma-separated)"),
    CLI_VALUE(SAMPLE_OPT_COMM, "comm", "LIST", "only samples of threads with these names"),
    CLI_VALUE(SAMPLE_OPT_DSO, "dso", "LIST",
	      "only samples in these mapped files (path or base name)"),
    CLI_VALUE(
	SAMPLE_OPT_FUNCTION, "function", "LIST",
	"only samples in these functions (a C++ function by its base name, e.g. ns::work, or its "
	"linkage name)"),
    CLI_VALUE(SAMPLE_OPT_EVENT, "event", "NAME",
	      "with several sampling events: the one to show (default: the first)"),
    CLI_VALUE(SAMPLE_OPT_KALLSYMS, "kallsyms", "FILE", "kernel symbols (default /proc/kallsyms)"),
    CLI_FLAG(SAMPLE_OPT_NO_CACHE, "no-cache",
	     "symbolize every address again: neither read nor write the symbol cache "
	     "($XDG_CACHE_HOME/hwprof, default ~/.cache/hwprof)"),
    CLI_OPT_END,
};

void sample_opts_add_input(struct sample_opts *s, const char *file)
{
	cli_push(&s->po.inputs, &s->po.ninputs, &s->cap_inputs, file);
}

static void parse_inline(struct sample_opts *s, int argc, char **argv)
{
	/* "--inline MODE" as before it took no argument alone. */
	if (!optarg && optind < argc &&
	    (!strcmp(argv[optind], "callee") || !strcmp(argv[optind], "caller")))
		optarg = argv[optind++];
	if (!optarg) {
		s->po.inline_mode = INLINE_CALLEE;
		s->inline_frames = true;
	} else if (!strcmp(optarg, "callee"))
		s->po.inline_mode = INLINE_CALLEE;
	else if (!strcmp(optarg, "caller"))
		s->po.inline_mode = INLINE_CALLER;
	else
		die_usage("--inline '%s': unknown mode (callee or caller)", optarg);
}

/* --debug-dir DIR as libdwfl's search path needs it: absolute (libdwfl skips a relative
 * entry for build-id lookups, and takes it under each binary's own directory otherwise) and
 * without ':' (the path's separator); an empty DIR is a usage error. A directory that cannot be
 * searched gets a warning that says why. Returns DIR malloc'ed. */
static char *debug_dir(const char *dir)
{
	char *abs, *cwd;

	/* realpath() fails on "", which would then be taken for the current directory. */
	if (!*dir)
		die_usage("--debug-dir '': an empty name (give a directory)");
	abs = realpath(dir, NULL);
	/* Of the resolved name and the given one, the one without ':'. */
	if (abs && strchr(abs, ':')) {
		free(abs);
		abs = NULL;
	}
	if (!abs && dir[0] == '/') {
		abs = xstrdup(dir);
	} else if (!abs) {
		cwd = getcwd(NULL, 0);
		if (!cwd)
			die_errno(errno, "--debug-dir '%s': the current directory", dir);
		abs = xasprintf("%s/%s", cwd, dir);
		free(cwd);
	}
	if (strchr(abs, ':'))
		die_usage("--debug-dir '%s': a ':' cannot be in it (it separates the directories "
			  "of the search path); give a symbolic link without one",
			  abs);
	sample_opts_check_dir("--debug-dir", dir, "debug info");
	return abs;
}

void sample_opts_check_dir(const char *opt, const char *dir, const char *what)
{
	struct stat st;

	if (stat(dir, &st) != 0 || (S_ISDIR(st.st_mode) && access(dir, R_OK | X_OK) != 0))
		warning("%s '%s': %m (no %s will be found there)", opt, dir, what);
	else if (!S_ISDIR(st.st_mode))
		warning("%s '%s': not a directory (no %s will be found there)", opt, dir, what);
}

bool sample_opts_parse(struct sample_opts *s, int c, int argc, char **argv)
{
	switch (c) {
	case SAMPLE_OPT_INLINE:
		parse_inline(s, argc, argv);
		break;
	case SAMPLE_OPT_DEBUG_DIR:
		cli_push(&s->po.debug_dirs, &s->po.ndebug_dirs, &s->cap_debug_dirs,
			 debug_dir(optarg));
		break;
	case SAMPLE_OPT_PID:
		s->po.pids = optarg;
		break;
	case SAMPLE_OPT_TID:
		s->po.tids = optarg;
		break;
	case SAMPLE_OPT_COMM:
		s->po.comms = optarg;
		break;
	case SAMPLE_OPT_DSO:
		s->po.dsos = optarg;
		break;
	case SAMPLE_OPT_FUNCTION:
		s->po.functions = optarg;
		break;
	case SAMPLE_OPT_KALLSYMS:
		s->po.kallsyms = optarg;
		break;
	case SAMPLE_OPT_EVENT:
		s->po.event = optarg;
		break;
	case SAMPLE_OPT_NO_CACHE:
		s->po.use_cache = false;
		break;
	default:
		return false;
	}
	return true;
}

/* A malformed list (a bad or too large id, an empty value) is a usage error, found by the
 * same parser profile_load() uses; a well-formed one that matches nothing is found there. */
static void check_filter(const char *opt, const char *list, bool numeric)
{
	struct filter f = {0};
	char err[512] = "";
	int ret = filter_parse(&f, opt, list, numeric, err, sizeof(err));

	filter_release(&f);
	if (ret == -ENOMEM)
		die("out of memory");
	if (ret < 0)
		die_usage("%s", err);
}

void sample_opts_check(const struct sample_opts *s)
{
	check_filter("--pid", s->po.pids, true);
	check_filter("--tid", s->po.tids, true);
	check_filter("--comm", s->po.comms, false);
	check_filter("--dso", s->po.dsos, false);
	check_filter("--function", s->po.functions, false);
}

void sample_opts_release(struct sample_opts *s)
{
	free(s->po.inputs);
	for (size_t i = 0; i < s->po.ndebug_dirs; i++)
		free((char *)s->po.debug_dirs[i]);
	free(s->po.debug_dirs);
	s->po.inputs = s->po.debug_dirs = NULL;
	s->po.ninputs = s->po.ndebug_dirs = 0;
	s->cap_inputs = s->cap_debug_dirs = 0;
}
