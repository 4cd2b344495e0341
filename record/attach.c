/* attach.c - threads, command line and executable mappings of a running process from /proc. */
#include "attach.h"
#include "task.h"

#include <dirent.h>
#include <pwd.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

bool attach_defunct(pid_t pid, const struct attach_target *t)
{
	pid_t *tids = NULL;
	int n;

	if (t->state != 'Z')
		return false;
	n = attach_threads(pid, &tids);
	free(tids);
	return n == 1;
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

int attach_proc_stat(pid_t pid, struct attach_target *t)
{
	struct hwprof_task task;
	int n = hwprof_task_read(pid, &task);

	memset(t, 0, sizeof(*t));
	if (n < 0)
		return n;
	snprintf(t->comm, sizeof(t->comm), "%s", task.comm);
	t->state = task.state;
	t->kthread = (task.flags & 0x00200000ul) != 0; /* PF_KTHREAD, include/linux/sched.h */
	return 0;
}

int attach_inspect(pid_t pid, struct attach_target *t)
{
	char path[64], buf[1024];
	FILE *f;
	int n = attach_proc_stat(pid, t);

	if (n < 0)
		return n;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	int got = 0;
	while (fgets(buf, sizeof(buf), f)) {
		unsigned a, b, c;

		if (sscanf(buf, "Uid: %u %u %u", &a, &b, &c) == 3) {
			t->uid[0] = a, t->uid[1] = b, t->uid[2] = c;
			got |= 1;
		} else if (sscanf(buf, "Gid: %u %u %u", &a, &b, &c) == 3) {
			t->gid[0] = a, t->gid[1] = b, t->gid[2] = c;
			got |= 2;
		}
	}
	fclose(f);
	t->ids_known = got == 3;
	return 0;
}

bool attach_privileged(void)
{
	/* include/uapi/linux/capability.h */
	const unsigned long long want = 1ull << 19 /* CAP_SYS_PTRACE */ |
					1ull << 21 /* CAP_SYS_ADMIN */ |
					1ull << 38 /* CAP_PERFMON */;
	char line[256];
	unsigned long long eff = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return (eff & want) != 0;
}

static const char *user_name(uid_t uid, char *buf, size_t len)
{
	struct passwd pw, *res = NULL;
	char tmp[1024];

	if (getpwuid_r(uid, &pw, tmp, sizeof(tmp), &res) == 0 && res)
		snprintf(buf, len, "%s", res->pw_name);
	else
		snprintf(buf, len, "uid %u", (unsigned)uid);
	return buf;
}

const char *attach_denied(pid_t pid, const struct attach_target *t, char *buf, size_t len)
{
	static const char way_out[] =
	    "profile your own processes, or run as root / with CAP_PERFMON";
	uid_t me = getuid();
	gid_t my_gid = getgid();
	char who[64];

	if (!t->ids_known || attach_privileged())
		return NULL;
	if (t->uid[0] != me) {
		snprintf(buf, len, "process %d belongs to %s, not to you (%s)", (int)pid,
			 user_name(t->uid[0], who, sizeof(who)), way_out);
		return buf;
	}
	/* Your own user started it, but a set-user-ID or set-group-ID program runs with
	 * other credentials, and the kernel compares all of them. */
	for (int i = 1; i < 3; i++) {
		if (t->uid[i] != me) {
			snprintf(buf, len,
				 "process %d runs as %s (a set-user-ID program), not as you "
				 "(%s)",
				 (int)pid, user_name(t->uid[i], who, sizeof(who)), way_out);
			return buf;
		}
	}
	for (int i = 0; i < 3; i++) {
		if (t->gid[i] != my_gid) {
			snprintf(buf, len,
				 "process %d runs with group id %u (a set-group-ID "
				 "program or another group), not yours (%s)",
				 (int)pid, (unsigned)t->gid[i], way_out);
			return buf;
		}
	}
	return NULL;
}
