/* cli_options.c - getopt_long's arrays and the --help option lines, both from one table. */
#include "cli_options.h"

#include "cli.h"
#include "format_opts.h"

#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* The widest line of a --help text. */
#define USAGE_COLUMNS 86
/* Room for the largest table (record's, with its aliases, is about 20 rows). */
#define MAX_OPTIONS 64

const char cli_help_formats[] = "(the command's formats)";

/* The arrays of the command last parsed: a command's loop calls cli_next_option() once per
 * option, and they are built at its first call. */
static struct {
	const struct cli_command *cmd;
	struct option longopts[MAX_OPTIONS + 1];
	size_t nlong;
	char shortopts[3 * MAX_OPTIONS + 2];
	size_t nshort;
} parser;

/* Whether CODE names a short option too. */
static bool is_short(int code)
{
	return code > 0 && code < 128 && isalnum(code);
}

static bool short_seen(int code)
{
	for (size_t i = 0; i < parser.nshort; i++)
		if (parser.shortopts[i] == code)
			return true;
	return false;
}

static void add_rows(const struct cli_option *t)
{
	static const int has_arg[] = {
	    [CLI_NO_ARG] = no_argument,
	    [CLI_ARG] = required_argument,
	    [CLI_OPTIONAL_ARG] = optional_argument,
	};

	for (; t->code || t->group || t->argname; t++) {
		if (t->group) {
			add_rows(t->group);
			continue;
		}
		if (!t->code)
			continue; /* an operand, listed in the help only */
		if (is_short(t->code) && !short_seen(t->code)) {
			if (parser.nshort + 3 >= sizeof(parser.shortopts))
				die("option table too large");
			parser.shortopts[parser.nshort++] = (char)t->code;
			/* getopt's "x::" takes only an attached value; -x VALUE needs "x:". */
			if (t->arg != CLI_NO_ARG)
				parser.shortopts[parser.nshort++] = ':';
		}
		if (t->name) {
			if (parser.nlong >= MAX_OPTIONS)
				die("option table too large");
			parser.longopts[parser.nlong++] =
			    (struct option){t->name, has_arg[t->arg], NULL, t->code};
		}
	}
}

static void build(const struct cli_command *cmd)
{
	memset(&parser, 0, sizeof(parser));
	parser.cmd = cmd;
	if (cmd->stop_at_operand)
		parser.shortopts[parser.nshort++] = '+';
	add_rows(cmd->options);
	parser.shortopts[parser.nshort] = '\0';
}

int cli_next_option(const struct cli_command *cmd, int argc, char **argv)
{
	int c;

	if (parser.cmd != cmd)
		build(cmd);
	c = getopt_long(argc, argv, parser.shortopts, parser.longopts, NULL);
	if (c == 'h') {
		cli_usage(cmd, stdout);
		exit(EXIT_OK);
	}
	if (c == '?' || c == ':')
		cli_bad_option(argv, parser.shortopts, parser.longopts);
	return c;
}

/* HELP from column COL (the cursor is at column AT) to USAGE_COLUMNS, word by word; '\n'
 * ends a line where it stands. */
static void print_help(FILE *f, const char *h, int col, int at)
{
	while (*h) {
		int room = USAGE_COLUMNS - 1 - col, len = 0;

		for (int k = 0; h[k] && h[k] != '\n' && k <= room; k++)
			if (h[k] == ' ' || !h[k + 1] || h[k + 1] == '\n')
				len = h[k] == ' ' ? k : k + 1;
		if (!len)
			len = (int)strcspn(h, " \n");
		fprintf(f, "%*s%.*s\n", col - at, "", len, h);
		at = 0;
		h += len;
		while (*h == ' ')
			h++;
		if (*h == '\n')
			h++;
	}
}

/* The listed rows of T for CMD, SEEN the short options printed so far. */
static void usage_rows(FILE *f, const struct cli_command *cmd, const struct cli_option *t, int col,
		       char *seen, size_t *nseen)
{
	for (; t->code || t->group || t->argname; t++) {
		char words[128], formats[512];
		bool as_short = is_short(t->code) && !memchr(seen, t->code, *nseen);
		int w = 0;

		if (t->group) {
			usage_rows(f, cmd, t->group, col, seen, nseen);
			continue;
		}
		if (as_short)
			seen[(*nseen)++] = (char)t->code;
		if (!t->help)
			continue;
		if (!t->code)
			w = snprintf(words, sizeof(words), "  %s", t->argname);
		else if (as_short && t->name)
			w = snprintf(words, sizeof(words), "  -%c, --%s", t->code, t->name);
		else if (as_short)
			w = snprintf(words, sizeof(words), "  -%c", t->code);
		else
			w = snprintf(words, sizeof(words), "      --%s", t->name);
		if (t->code && t->arg == CLI_ARG)
			w += snprintf(words + w, sizeof(words) - (size_t)w, " %s", t->argname);
		else if (t->code && t->arg == CLI_OPTIONAL_ARG)
			w += snprintf(words + w, sizeof(words) - (size_t)w, "[=%s]", t->argname);
		fputs(words, f);
		if (w >= col) { /* at least one space before the help */
			fputc('\n', f);
			w = 0;
		}
		print_help(f,
			   t->help == cli_help_formats
			       ? cli_formats_help(cmd->formats, formats, sizeof(formats))
			       : t->help,
			   col, w);
	}
}

void cli_usage(const struct cli_command *cmd, FILE *f)
{
	char seen[MAX_OPTIONS];
	size_t nseen = 0;

	fputs(cmd->usage, f);
	usage_rows(f, cmd, cmd->options, cmd->help_column ? cmd->help_column : 25, seen, &nseen);
	if (cmd->footer)
		fputs(cmd->footer, f);
	if (cmd->more_help)
		cmd->more_help(f);
}
