/* format_opts.h - the output options every command that writes a report takes (report, diff,
 * annotate, list, stat), declared once: -f/--format FMT and -o/--output FILE. Each format is
 * spelled once here (enum cli_format, its name and its help); a command says which it writes
 * in its struct cli_command's .formats (CLI_FMT() bits), puts
 * CLI_OPT_GROUP(format_opts_table) (-f and -o) or CLI_OPT_GROUP(format_only_table) (-f
 * alone) in its option table, and hands every code cli_next_option() returns to
 * format_opts_parse() first. The -f line of its --help lists its formats, made from the same
 * table.
 *
 * CLI code: a format the command does not write is a usage error (die_usage() exits 64).
 */
#ifndef HWPROF_FORMAT_OPTS_H
#define HWPROF_FORMAT_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "cli_options.h"

/* The output formats, by their -f names: text, csv, json, folded, svg, pprof. */
enum cli_format {
	CLI_FORMAT_TEXT,
	CLI_FORMAT_CSV,
	CLI_FORMAT_JSON,
	CLI_FORMAT_FOLDED,
	CLI_FORMAT_SVG,
	CLI_FORMAT_PPROF,
	CLI_NFORMATS,
};

/* FMT's bit for struct cli_command.formats: CLI_FMT(TEXT) | CLI_FMT(JSON). */
#define CLI_FMT(fmt) (1u << CLI_FORMAT_##fmt)

/* The group's getopt codes: the short letters, the same in every command. */
enum { FORMAT_OPT_FORMAT = 'f', FORMAT_OPT_FILE = 'o' };

/* The rows for a command's table: -f FMT and -o FILE ("write to FILE instead of standard
 * output"); -f FMT alone, for a command without -o or with its own -o (stat's goes to
 * stderr by default). */
extern const struct cli_option format_opts_table[];
extern const struct cli_option format_only_table[];

/* What the options chose. Start from FORMAT_OPTS_INIT. */
struct format_opts {
	enum cli_format format; /* -f; else what -o FILE's name says (.json, .csv, .folded,
				 * .svg, .pb.gz) when the command writes it; else text */
	const char *file;	/* -o FILE (argv's); NULL: standard output */
	bool format_given;	/* -f was given */
};

#define FORMAT_OPTS_INIT                                                                           \
	{                                                                                          \
		.format = CLI_FORMAT_TEXT, .file = NULL, .format_given = false                     \
	}

/* Takes getopt_long's answer C (with optarg) for CMD. Returns true when C was -f or -o (now
 * stored in O; -o FILE also sets O's format from FILE's name, unless -f came or comes),
 * false when it is the command's own. An unknown format, or one CMD does not write (not in
 * CMD->formats), exits 64 naming CMD's formats. */
bool format_opts_parse(struct format_opts *o, const struct cli_command *cmd, int c);

/* FMT's -f name ("json"). */
const char *cli_format_name(enum cli_format fmt);

/* The -f line's help for a command writing FORMATS (CLI_FMT() bits) into BUF of SIZE bytes:
 * "text (default), csv or json", each with its note. Returns BUF. */
char *cli_formats_help(unsigned formats, char *buf, size_t size);

#endif
