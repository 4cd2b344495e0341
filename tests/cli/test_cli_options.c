/* Option tables (cli_options.h): getopt's arrays and the --help list made from one table. */
#include <criterion/criterion.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cli_options.h"
#include "format_opts.h"

enum { OPT_STDIO = 256, OPT_SHARED };

static const struct cli_option shared[] = {
    CLI_VALUE(OPT_SHARED, "shared", "LIST1", "a row of a group that several commands include"),
    CLI_OPT_END,
};

static const struct cli_option options[] = {
    CLI_OPERAND("FILE", "the input"),
    CLI_VALUE('i', "input", "FILE", "sample file"),
    CLI_VALUE('c', "period", "N", "one sample every N events"),
    CLI_VALUE('c', "count-period", "N", NULL), /* an alias: parsed, not listed */
    CLI_FLAG('g', NULL, "short alone"),
    CLI_FLAG(OPT_STDIO, "stdio",
	     "long alone, whose help is long enough to be wrapped at the "
	     "width of a --help text, word by word\nand broken where a "
	     "newline stands"),
    CLI_OPTIONAL('m', "mode", "MODE", "an optional value"),
    CLI_OPT_GROUP(shared),
    CLI_OPT_HELP,
    CLI_OPT_END,
};

static const struct cli_command command = {
    .usage = "usage: hwprof test [OPTIONS] FILE\n\n",
    .options = options,
    .help_column = 20, /* "  -m, --mode[=MODE]" fits before it, "--shared LIST1" not */
    .footer = "\nfooter\n",
};

static const struct cli_command stop_command = {
    .usage = "usage: hwprof test2 [-g] CMD\n\n",
    .options = options,
    .stop_at_operand = true,
};

/* The codes cli_next_option() returns for ARGV, with the values, as "c=v c ..."; *REST the
 * first operand's index. */
static void parse(const struct cli_command *cmd, char **argv, char *out, size_t size, int *rest)
{
	int argc = 0, c;
	size_t o = 0;

	while (argv[argc])
		argc++;
	optind = 0;
	opterr = 0;
	out[0] = '\0';
	while ((c = cli_next_option(cmd, argc, argv)) != -1)
		o += (size_t)snprintf(out + o, size - o, "%s%d%s%s", o ? " " : "", c,
				      optarg ? "=" : "", optarg ? optarg : "");
	*rest = optind;
}

Test(cli_options, short_long_alias_group_and_optional_values)
{
	char *argv[] = {"test",		  "-i",	      "a",  "--input=b", "-cc5",
			"--count-period", "7",	      "-g", "--stdio",	 "-mX",
			"--mode",	  "--shared", "s1", "operand",	 NULL};
	char got[512];
	int rest;

	parse(&command, argv, got, sizeof(got), &rest);
	cr_expect_str_eq(got, "105=a 105=b 99=c5 99=7 103 256 109=X 109 257=s1");
	cr_expect_eq(rest, 13, "the operand after the options: argv[%d]", rest);
}

Test(cli_options, stop_at_operand_leaves_the_command_its_options)
{
	char *argv[] = {"test2", "-g", "prog", "-i", "x", NULL};
	char got[128];
	int rest;

	parse(&stop_command, argv, got, sizeof(got), &rest);
	cr_expect_str_eq(got, "103");
	cr_expect_eq(rest, 2);
}

/* CMD's --help text, malloc'd. */
static char *usage_of(const struct cli_command *cmd)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert(f);
	cli_usage(cmd, f);
	fclose(f);
	return text;
}

Test(cli_options, usage_lists_every_listed_row_once)
{
	char *text = usage_of(&command);

	cr_expect_str_eq(text,
			 "usage: hwprof test [OPTIONS] FILE\n"
			 "\n"
			 "  FILE              the input\n"
			 "  -i, --input FILE  sample file\n"
			 "  -c, --period N    one sample every N events\n"
			 "  -g                short alone\n"
			 "      --stdio       long alone, whose help is long enough to be "
			 "wrapped at the width\n"
			 "                    of a --help text, word by word\n"
			 "                    and broken where a newline stands\n"
			 "  -m, --mode[=MODE] an optional value\n"
			 "      --shared LIST1\n"
			 "                    a row of a group that several commands include\n"
			 "  -h, --help        this text\n"
			 "\n"
			 "footer\n");
	free(text);
}

/* A bad option exits 64 with one line and the --help hint (cli_bad_option()). */
Test(cli_options, unknown_option_is_a_usage_error)
{
	char *argv[] = {"test", "--bogus", NULL};
	int fd[2], status;
	char buf[512] = "";
	pid_t pid;

	cr_assert_eq(pipe(fd), 0);
	pid = fork();
	if (!pid) {
		char got[64];
		int rest;

		dup2(fd[1], 2);
		cli_set_prefix("hwprof test");
		parse(&command, argv, got, sizeof(got), &rest);
		_exit(0);
	}
	close(fd[1]);
	cr_assert_gt(read(fd[0], buf, sizeof(buf) - 1), 0);
	waitpid(pid, &status, 0);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == EXIT_USAGE);
	cr_expect(strstr(buf, "hwprof test: error: '--bogus': unknown option"), "%s", buf);
}

/* The -f/-o group (format_opts.h): the one check of a format against what a command writes,
 * and its --help line made from the command's formats. */
static const struct cli_option fmt_options[] = {
    CLI_OPT_GROUP(format_opts_table),
    CLI_OPT_END,
};

static const struct cli_command fmt_command = {
    .usage = "usage: hwprof fmt\n\n",
    .options = fmt_options,
    .formats = CLI_FMT(TEXT) | CLI_FMT(JSON) | CLI_FMT(FOLDED),
};

/* format_opts_parse() of ARGV's options for fmt_command, in a child: its exit status (10 +
 * the format chosen, when -o names "out.txt") and its stderr in ERR. */
static int parse_formats(char **argv, char *err, size_t size)
{
	int fd[2], status, argc = 0;
	ssize_t n;
	pid_t pid;

	while (argv[argc])
		argc++;
	cr_assert_eq(pipe(fd), 0);
	pid = fork();
	if (!pid) {
		struct format_opts o = FORMAT_OPTS_INIT;
		int c;

		dup2(fd[1], 2);
		cli_set_prefix("hwprof fmt");
		optind = 0;
		opterr = 0;
		while ((c = cli_next_option(&fmt_command, argc, argv)) != -1)
			if (!format_opts_parse(&o, &fmt_command, c))
				_exit(3);
		_exit(o.file && !strcmp(o.file, "out.txt") ? 10 + (int)o.format : 4);
	}
	close(fd[1]);
	n = read(fd[0], err, size - 1);
	err[n > 0 ? n : 0] = '\0';
	close(fd[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Test(cli_options, formats_one_check_for_every_command)
{
	char *ok[] = {"fmt", "-f", "folded", "-o", "out.txt", NULL};
	char *unknown[] = {"fmt", "--format=xml", NULL};
	char *not_ours[] = {"fmt", "-f", "csv", NULL};
	char err[512];

	cr_expect_eq(parse_formats(ok, err, sizeof(err)), 10 + CLI_FORMAT_FOLDED, "%s", err);
	cr_expect_str_eq(cli_format_name(CLI_FORMAT_FOLDED), "folded");
	cr_expect_eq(parse_formats(unknown, err, sizeof(err)), EXIT_USAGE);
	cr_expect(strstr(err, "hwprof fmt: error: --format 'xml': not a format (text, json or "
			      "folded)\n"),
		  "%s", err);
	cr_expect_eq(parse_formats(not_ours, err, sizeof(err)), EXIT_USAGE);
	cr_expect(strstr(err, "hwprof fmt: error: --format 'csv': hwprof fmt writes text, json or "
			      "folded\n"),
		  "%s", err);
}

Test(cli_options, format_help_lists_the_command_formats)
{
	char *text = usage_of(&fmt_command);

	cr_expect_str_eq(text,
			 "usage: hwprof fmt\n"
			 "\n"
			 "  -f, --format FMT       text (default), json or folded (one line per "
			 "distinct stack,\n"
			 "                         'main;work;memcpy 123', for flame graphs)\n"
			 "  -o, --output FILE      write to FILE instead of standard output\n");
	free(text);
}
