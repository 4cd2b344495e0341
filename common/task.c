/* task.c - /proc/TID/stat, read in one place (task.h). */
#include "task.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int hwprof_task_read(pid_t tid, struct hwprof_task *t)
{
	char path[64], buf[1024], *open_p, *close_p;
	ssize_t n;
	int fd;

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return errno == ESRCH ? -ESRCH : -errno;
	buf[n] = '\0';
	/* "PID (COMM) STATE PPID PGRP SESSION TTY TPGID FLAGS ...": COMM may hold ')' itself. */
	open_p = strchr(buf, '(');
	close_p = strrchr(buf, ')');
	if (!open_p || !close_p || close_p < open_p ||
	    sscanf(close_p + 1, " %c %*d %*d %*d %*d %*d %lu", &t->state, &t->flags) != 2)
		return -EINVAL;
	snprintf(t->comm, sizeof(t->comm), "%.*s", (int)(close_p - open_p - 1), open_p + 1);
	return 0;
}

bool hwprof_task_gone(pid_t tid)
{
	struct hwprof_task t;
	int r = hwprof_task_read(tid, &t);

	return r == -ESRCH || (r == 0 && (t.state == 'Z' || t.state == 'X'));
}
