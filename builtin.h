/* builtin.h - the hwprof subcommands.
 *
 * How to add a subcommand:
 *   1. Write `int cmd_NAME(int argc, char **argv)` in its own file in the folder of its job
 *      (record/, report/, annotate/). argv[0] is the subcommand name. Declare the options
 *      once, in a `struct cli_option` table with a `struct cli_command` around it
 *      (cli_options.h): its --help text and getopt's arrays are made from it. Parse with
 *      `while ((c = cli_next_option(&command, argc, argv)) != -1) switch (c) ...` into an
 *      options struct of the file's own, with defaults set by designated initialisers;
 *      -h/--help and bad options are cli_next_option()'s (hwprof.c resets getopt before
 *      the call: no optind of your own).
 *   2. Declare it below.
 *   3. Add a row { "NAME", cmd_NAME, "one-line summary" } to the table in hwprof.c.
 * The handler returns the process exit status (cli.h lists the codes); report errors with
 * error()/die() from cli.h, which hwprof.c has already prefixed with "hwprof NAME".
 */
#ifndef HWPROF_BUILTIN_H
#define HWPROF_BUILTIN_H

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_list(int argc, char **argv);

#endif
