/* hwprof.c - the subcommand table and dispatch. */
#include "builtin.h"
#include "cli.h"
#include "closest.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct subcommand commands[] = {
    {"record", cmd_record, "sample a program into a sample file (hwprof.data)"},
    {"report", cmd_report, "top source lines, functions and DSOs of a sample file"},
    {"annotate", cmd_annotate, "source view with per-line shares (TUI or --stdio)"},
    {"diff", cmd_diff, "what changed between two recordings, and whether it is real"},
    {"stat", cmd_stat, "count events for a program: scaled counts, spread, IPC, miss rates"},
    {"list", cmd_list, "events this host exposes, precise_ip levels, perf_event_paranoid"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: hwprof [--version] [--help] COMMAND [ARGS]\n\n"
		   "Which source lines cause your cache misses, cycles and page faults.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "   %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'hwprof COMMAND --help' shows the options of one command.\n");
}

static const struct subcommand *find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* "'X' is not a hwprof command", with the closest command when NAME looks like a typo of one.
 * Returns EXIT_USAGE. */
static int not_a_command(const char *name)
{
	struct hwprof_suggest s;
	const char *best;

	hwprof_suggest_init(&s, name);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		hwprof_suggest_consider(&s, commands[i].name);
	best = hwprof_suggest_result(&s);
	if (*best)
		fprintf(stderr,
			"hwprof: '%s' is not a hwprof command (did you mean '%s'? see 'hwprof "
			"--help')\n",
			name, best);
	else
		fprintf(stderr, "hwprof: '%s' is not a hwprof command; see 'hwprof --help'\n",
			name);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	static char prefix[64];
	const struct subcommand *cmd;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version") ||
	    !strcmp(argv[1], "-v")) {
		printf("hwprof %s\n", HWPROF_VERSION);
		return EXIT_OK;
	}
	/* "hwprof --help record" as git and perf take it: the command's own help. */
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		if (argc > 2 && !strcmp(argv[2], "help")) {
			usage(stdout);
			return EXIT_OK;
		}
		if (argc > 2 && !find(argv[2]))
			return not_a_command(argv[2]);
		if (argc > 2) {
			char *args[] = {argv[2], "--help", NULL};
			snprintf(prefix, sizeof(prefix), "hwprof %s", argv[2]);
			cli_set_prefix(prefix);
			optind = 0;
			return cli_finish(find(argv[2])->fn(2, args));
		}
		usage(stdout);
		return EXIT_OK;
	}
	cmd = find(argv[1]);
	if (!cmd)
		return not_a_command(argv[1]);
	snprintf(prefix, sizeof(prefix), "hwprof %s", cmd->name);
	cli_set_prefix(prefix);
	/* Subcommands report bad options themselves, with the prefix (cli_bad_option), and
	 * each parses its argv with getopt from the start: glibc's optind = 0 is the full
	 * re-initialisation, done here once for every subcommand. */
	opterr = 0;
	optind = 0;
	return cli_finish(cmd->fn(argc - 1, argv + 1));
}
