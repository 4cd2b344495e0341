/* attach.c - threads, command line and executable mappings of a running process from /proc. */
#include "attach.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int attach_threads(pid_t pid, pid_t **out)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	pid_t *tids = NULL;
	int n = 0, cap = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((de = readdir(d))) {
		long tid = strtol(de->d_name, NULL, 10);

		if (tid <= 0)
			continue;
		if (n == cap) {
			pid_t *p = realloc(tids, (size_t)(cap = cap ? cap * 2 : 16) * sizeof(*p));
			if (!p) {
				free(tids);
				closedir(d);
				return -ENOMEM;
			}
			tids = p;
		}
		/* The main thread first: it owns the side-band records of the process. */
		if (tid == pid && n) {
			tids[n++] = tids[0];
			tids[0] = (pid_t)tid;
		} else {
			tids[n++] = (pid_t)tid;
		}
	}
	closedir(d);
	if (!n) {
		free(tids);
		return -ESRCH;
	}
	*out = tids;
	return n;
}

static int read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return (int)n;
}

int attach_cmdline(pid_t pid, char ***argv)
{
	char path[64], buf[8192];
	char **v;
	int n, argc = 0;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return n == -ENOENT ? -ESRCH : n;
	if (n == 0) {
		char comm[64];
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		if (read_small(path, comm, sizeof(comm)) < 0)
			comm[0] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		n = snprintf(buf, sizeof(buf), "[%s]", comm) + 1;
	}
	for (int i = 0; i < n; i++)
		argc += buf[i] == '\0' || i == n - 1;
	v = calloc((size_t)argc + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (int i = 0, a = 0; i < n && a < argc; a++) {
		v[a] = strndup(buf + i, (size_t)(n - i));
		if (!v[a]) {
			for (int j = 0; j < a; j++)
				free(v[j]);
			free(v);
			return -ENOMEM;
		}
		i += (int)strlen(buf + i) + 1;
	}
	*argv = v;
	return argc;
}

static int synth_comm(pid_t pid, pid_t tid, uint64_t time, attach_record_fn fn, void *arg)
{
	char path[96], comm[64];
	struct hwprof_record rec = {.type = HWPROF_REC_COMM};

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	if (read_small(path, comm, sizeof(comm)) < 0)
		return 0; /* the thread ended meanwhile */
	comm[strcspn(comm, "\n")] = '\0';
	rec.comm.pid = (uint32_t)pid;
	rec.comm.tid = (uint32_t)tid;
	rec.comm.time = time;
	rec.comm.comm = comm;
	return fn(&rec, arg);
}

int attach_synthesize(pid_t pid, const pid_t *tids, size_t n, uint64_t time, attach_record_fn fn,
		      void *arg)
{
	char path[64], line[4096 + 256];
	FILE *f;
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++)
		ret = synth_comm(pid, tids[i], time, fn, arg);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	/* start-end perms offset dev inode [path] */
	while (!ret && fgets(line, sizeof(line), f)) {
		struct hwprof_record rec = {.type = HWPROF_REC_MMAP};
		uint64_t start, end, off;
		char perms[8];
		int name = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &start, &end,
			   perms, &off, &name) < 4 ||
		    !name || perms[2] != 'x')
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (!line[name])
			continue; /* anonymous code (a JIT): nothing to symbolize it with */
		rec.mmap.pid = rec.mmap.tid = (uint32_t)pid;
		rec.mmap.time = time;
		rec.mmap.start = start;
		rec.mmap.len = end - start;
		rec.mmap.pgoff = off;
		rec.mmap.prot = (perms[0] == 'r' ? PROT_READ : 0) |
				(perms[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
		rec.mmap.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		rec.mmap.filename = line + name;
		ret = fn(&rec, arg);
	}
	fclose(f);
	return ret;
}
