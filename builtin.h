/* builtin.h - the hwprof subcommands.
 *
 * How to add a subcommand:
 *   1. Write `int cmd_NAME(int argc, char **argv)` in its own file in the folder of its job
 *      (record/, report/, annotate/). argv[0] is the subcommand name; parse options with
 *      getopt_long into an options struct of the file's own, with defaults set by designated
 *      initialisers (hwprof.c resets getopt before the call: no optind of your own). `--help`
 * prints the usage text (man-page synopsis shape) to stdout, exits 0.
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
