/* sample_opts.h - the "which samples" options every command that loads a profile takes
 * (report, annotate, diff), declared once: --inline, --debug-dir, --pid, --tid, --comm,
 * --dso, --function, --event, --kallsyms, --no-cache. Each command puts
 * CLI_OPT_GROUP(sample_opts_table) in its option table (cli_options.h), which lists them in
 * its --help too, hands every code cli_next_option() returns to sample_opts_parse() first and
 * calls sample_opts_check() after the loop.
 *
 * CLI code: errors are usage errors through cli.h (die_usage() exits 64).
 */
#ifndef HWPROF_REPORT_SAMPLE_OPTS_H
#define HWPROF_REPORT_SAMPLE_OPTS_H

#include <stdbool.h>
#include <stdio.h>

#include "cli_options.h"
#include "profile.h"

/* The options' getopt codes: above any command's own (which start at 256). */
enum {
	SAMPLE_OPT_INLINE = 0x1000,
	SAMPLE_OPT_DEBUG_DIR,
	SAMPLE_OPT_PID,
	SAMPLE_OPT_TID,
	SAMPLE_OPT_COMM,
	SAMPLE_OPT_DSO,
	SAMPLE_OPT_FUNCTION,
	SAMPLE_OPT_KALLSYMS,
	SAMPLE_OPT_EVENT,
	SAMPLE_OPT_NO_CACHE,
};

/* The group's rows, for a command's table: CLI_OPT_GROUP(sample_opts_table). */
extern const struct cli_option sample_opts_table[];

/* What the options chose. Start from SAMPLE_OPTS_INIT. */
struct sample_opts {
	struct profile_options po;	   /* every field but inputs: the command adds those;
					    * po.debug_dirs' strings are absolute, malloc'ed */
	size_t cap_inputs, cap_debug_dirs; /* room in po.inputs, po.debug_dirs */
	bool inline_frames;		   /* --inline alone: every inline frame in call paths */
};

#define SAMPLE_OPTS_INIT                                                                           \
	{                                                                                          \
		.po = {.inline_mode = INLINE_CALLEE, .use_cache = true }                           \
	}

/* Takes getopt_long's answer C (with optarg, and ARGC/ARGV for "--inline MODE" given as two
 * words). Returns true when C was one of the group's options (now stored in S), false when
 * it is the command's own. */
bool sample_opts_parse(struct sample_opts *s, int c, int argc, char **argv);

/* Appends FILE (not copied) to S's inputs: for the commands' -i and their positional files. */
void sample_opts_add_input(struct sample_opts *s, const char *file);

/* After the getopt loop: a malformed filter list (a bad or too large id, an empty value) is a
 * usage error, found by the parser profile_load() uses. */
void sample_opts_check(const struct sample_opts *s);

/* A warning when DIR, given to option OPT ("--debug-dir"), cannot be searched: missing,
 * unreadable, or not a directory; WHAT names what will not be found there ("debug info"). */
void sample_opts_check_dir(const char *opt, const char *dir, const char *what);

/* Frees the lists S allocated (not the strings, which are argv's). */
void sample_opts_release(struct sample_opts *s);

#endif
