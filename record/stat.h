/* stat.h - the options of `hwprof stat` (record/stat.c parses them), as the files of the
 * command (stat_*.c) share them.
 */
#ifndef HWPROF_STAT_H
#define HWPROF_STAT_H

#include <stdbool.h>
#include <sys/types.h>

#include "format_opts.h"

struct stat_opts {
	const char *events;	/* -e, NULL: the host's default set */
	const char *metrics;	/* -M, NULL: none asked for by name */
	long long runs;		/* -r */
	pid_t pid;		/* -p, -1: none */
	bool system_wide;	/* -a */
	bool bandwidth;		/* --bandwidth */
	struct format_opts out; /* -f; -o: NULL stderr, "-" stdout */
	char **argv;		/* the command, NULL-terminated; NULL: none */
	int argc;
};

#endif
