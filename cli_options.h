/* cli_options.h - a subcommand's options declared once, in a table: the getopt_long arrays
 * and the option lines of its --help are both made from it (as git's parse-options does).
 *
 * A command writes one `struct cli_option` table, `{code, long name, argument, help}` per
 * option (the CLI_FLAG / CLI_VALUE / ... rows below), ended by CLI_OPT_END, and a `struct
 * cli_command` around it (synopsis, the help column, the text after the options). Its loop is
 *
 *     while ((c = cli_next_option(&cmd, argc, argv)) != -1)
 *             switch (c) { case 'o': ...; }
 *
 * with no arm for -h/--help (cli_next_option() prints the help and exits 0) or for a bad
 * option (it reports it through cli_bad_option() and exits 64). hwprof.c has reset getopt.
 *
 * CLI code: a table larger than the parser's arrays dies (a programming error).
 */
#ifndef HWPROF_CLI_OPTIONS_H
#define HWPROF_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

/* Whether an option takes a value (getopt_long's has_arg). */
enum cli_arg {
	CLI_NO_ARG,	  /* --stdio */
	CLI_ARG,	  /* --input FILE, --input=FILE, -i FILE, -iFILE */
	CLI_OPTIONAL_ARG, /* --inline, --inline=MODE (only attached with '=') */
};

/* One row of a table. */
struct cli_option {
	/* What cli_next_option() returns for it: a letter (or digit) is also the short option
	 * -CODE; a code of 256 or more is a long option alone. 0 marks a row that is not an
	 * option: a positional argument (ARGNAME and HELP printed in the list) or, with GROUP
	 * set, another table whose rows stand here. */
	int code;
	const char *name;		/* long name without "--"; NULL: the short option alone */
	enum cli_arg arg;		/* does it take a value */
	const char *argname;		/* the value in the help ("FILE"); NULL without a value */
	const char *help;		/* one paragraph, wrapped to the help width ('\n' breaks a
					 * line where it stands); NULL: not listed (an alias, or a
					 * perf spelling that is refused with a reason) */
	const struct cli_option *group; /* with CODE 0: rows shared by several commands */
};

/* The rows of a table. CODE and NAME as in struct cli_option, ARGNAME the value's word in
 * the help ("FILE"), HELP its paragraph (NULL: not listed). */
#define CLI_FLAG(code, name, help)                                                                 \
	{                                                                                          \
		(code), (name), CLI_NO_ARG, NULL, (help), NULL                                     \
	}
#define CLI_VALUE(code, name, argname, help)                                                       \
	{                                                                                          \
		(code), (name), CLI_ARG, (argname), (help), NULL                                   \
	}
#define CLI_OPTIONAL(code, name, argname, help)                                                    \
	{                                                                                          \
		(code), (name), CLI_OPTIONAL_ARG, (argname), (help), NULL                          \
	}
/* An operand: listed in the help ("  BASE NEW   the two files"), not an option. */
#define CLI_OPERAND(argname, help)                                                                 \
	{                                                                                          \
		0, NULL, CLI_NO_ARG, (argname), (help), NULL                                       \
	}
/* The rows of TABLE (another table, ended by CLI_OPT_END) at this place. */
#define CLI_OPT_GROUP(table)                                                                       \
	{                                                                                          \
		0, NULL, CLI_NO_ARG, NULL, NULL, (table)                                           \
	}
/* -h, --help: handled by cli_next_option() itself. */
#define CLI_OPT_HELP CLI_FLAG('h', "help", "this text")
/* The last row of every table. */
#define CLI_OPT_END                                                                                \
	{                                                                                          \
		0, NULL, CLI_NO_ARG, NULL, NULL, NULL                                              \
	}

/* A subcommand's command line. */
struct cli_command {
	const char *usage; /* printed first by --help: "usage: hwprof NAME ...", the
			    * synopsis lines and a description, ending in "\n\n" */
	const struct cli_option *options;
	int help_column;	    /* where each option's help starts (0: 25) */
	const char *footer;	    /* printed after the options (NULL: nothing) */
	void (*more_help)(FILE *f); /* then this (annotate: its keys), or NULL */
	bool stop_at_operand;	    /* options end at the first word that is not one (record and
				     * stat: the command's own options are not ours), as getopt's
				     * '+' */
	unsigned formats;	    /* the -f formats it writes: CLI_FMT() bits (format_opts.h) */
};

/* A row's HELP that stands for the list of the command's formats (struct
 * cli_command.formats), made when the help is printed: format_opts.h's -f row. */
extern const char cli_help_formats[];

/* The next option of ARGV for CMD, as getopt_long() gives it: its code (struct
 * cli_option.code), with its value in optarg; -1 when the options end (optind is then the
 * first operand). -h / --help prints cli_usage() to stdout and exits EXIT_OK; an unknown
 * option, a missing or an unwanted value exits EXIT_USAGE with one error line. ARGC/ARGV
 * must be the same on every call. */
int cli_next_option(const struct cli_command *cmd, int argc, char **argv);

/* CMD's --help text to F: the usage, one line (or more, wrapped) per listed option, the
 * footer, more_help(). */
void cli_usage(const struct cli_command *cmd, FILE *f);

#endif
