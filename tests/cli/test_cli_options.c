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

Test(cli_options, usage_lists_every_listed_row_once)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cli_usage(&command, f);
	fclose(f);
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
