/* jitmaps.c - copies perf-PID.map files beside the recording (see jitmaps.h). */
#include "jitmaps.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Copies FROM to TO (created, truncated). Returns 0 or the errno of the failing call. */
static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out, e = 0;
	ssize_t n;

	if (in < 0)
		return errno;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		e = errno;
		close(in);
		return e;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0 && !e)
		e = cli_write_all(out, buf, (size_t)n);
	if (n < 0 && !e)
		e = errno;
	if (close(out) < 0 && !e)
		e = errno;
	close(in);
	return e;
}

size_t jitmaps_keep(const char *output, const pid_t *pids, size_t n)
{
	char from[64], to[4096];
	size_t kept = 0;

	for (size_t i = 0; i < n; i++) {
		int e;

		snprintf(from, sizeof(from), "/tmp/perf-%d.map", (int)pids[i]);
		if (access(from, R_OK) != 0)
			continue;
		if (snprintf(to, sizeof(to), "%s.perf-%d.map", output, (int)pids[i]) >=
		    (int)sizeof(to))
			continue;
		e = copy_file(from, to);
		if (e)
			warning_errno(e, "keeping %s as %s: %m (report reads %s while it lasts)",
				      from, to, from);
		else
			kept++;
	}
	return kept;
}
