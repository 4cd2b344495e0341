/* tracefs.c - tracepoint ids and names from tracefs (see tracefs.h). */
#include "tracefs.h"
#include "grow.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *hwprof_tracefs_root(void)
{
	/* Debian mounts tracefs at /sys/kernel/tracing on boot; older systems only under
	 * debugfs. A directory without events/ is a mount point with nothing mounted. */
	static const char *const roots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	const char *env = getenv("HWPROF_TRACEFS_ROOT");
	char path[PATH_MAX];
	struct stat st;

	if (env && *env) {
		snprintf(path, sizeof(path), "%s/events", env);
		return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? env : NULL;
	}
	for (size_t i = 0; i < sizeof(roots) / sizeof(*roots); i++) {
		snprintf(path, sizeof(path), "%s/events", roots[i]);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return roots[i];
		/* Mounted but root's (mode 0700): its readers then say EACCES, not "not
		 * mounted". An empty mount point is readable. */
		if (errno == EACCES)
			return roots[i];
	}
	return NULL;
}

/* A name as a tracefs directory entry may be: no path separators, no dot entries. */
static int bad_name(const char *s)
{
	return !*s || strchr(s, '/') || !strcmp(s, ".") || !strcmp(s, "..");
}

int hwprof_tracefs_event_id(const char *sys, const char *event, uint64_t *id)
{
	const char *root = hwprof_tracefs_root();
	char path[PATH_MAX], buf[32], *end;
	FILE *f;
	size_t n;

	if (!root)
		return -ENODEV;
	if (bad_name(sys) || bad_name(event))
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, sys, event);
	f = fopen(path, "r");
	if (!f)
		return errno == EACCES || errno == EPERM ? -EACCES : -ENOENT;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	errno = 0;
	*id = strtoull(buf, &end, 10);
	if (end == buf || errno || (*end && *end != '\n'))
		return -EINVAL;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends "SYS:EVENT" to *V. Returns 0 or -ENOMEM. */
static int push(char ***v, size_t *n, size_t *cap, const char *sys, const char *event)
{
	size_t len = strlen(sys) + strlen(event) + 2;
	char *s;

	if (hwprof_grow((void **)v, cap, *n + 1, sizeof(**v)) < 0)
		return -ENOMEM;
	s = malloc(len);
	if (!s)
		return -ENOMEM;
	snprintf(s, len, "%s:%s", sys, event);
	(*v)[(*n)++] = s;
	return 0;
}

int hwprof_tracefs_events(const char *pattern, char ***out, size_t *n)
{
	const char *root = hwprof_tracefs_root();
	char path[PATH_MAX], **v = NULL, name[2 * NAME_MAX + 2];
	size_t cnt = 0, cap = 0;
	struct dirent *d, *e;
	DIR *top, *sub;
	int r = 0;

	*out = NULL;
	*n = 0;
	if (!root)
		return -ENODEV;
	snprintf(path, sizeof(path), "%s/events", root);
	top = opendir(path);
	if (!top)
		return errno == EACCES || errno == EPERM ? -EACCES : -ENODEV;
	while (r == 0 && (d = readdir(top))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", root, d->d_name);
		sub = opendir(path);
		if (!sub)
			continue; /* a file (enable, header_page, ...), not a system */
		while (r == 0 && (e = readdir(sub))) {
			char id[PATH_MAX + NAME_MAX + 8];

			if (e->d_name[0] == '.')
				continue;
			snprintf(name, sizeof(name), "%s:%s", d->d_name, e->d_name);
			if (pattern && fnmatch(pattern, name, 0) != 0)
				continue;
			snprintf(id, sizeof(id), "%s/%s/id", path, e->d_name);
			if (access(id, F_OK) != 0)
				continue; /* "enable", "filter": files of the system itself */
			r = push(&v, &cnt, &cap, d->d_name, e->d_name);
		}
		closedir(sub);
	}
	closedir(top);
	if (r < 0) {
		hwprof_tracefs_names_free(v, cnt);
		return r;
	}
	if (cnt)
		qsort(v, cnt, sizeof(*v), cmp_names);
	*out = v;
	*n = cnt;
	return 0;
}

void hwprof_tracefs_names_free(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}
