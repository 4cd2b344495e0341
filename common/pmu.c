/* pmu.c - sysfs PMU discovery; see pmu.h. */
#include "pmu.h"

#include "grow.h"
#include "hwprof/event.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *hwprof_sysfs_root(void)
{
	const char *r = getenv("HWPROF_SYSFS_ROOT");
	return r && *r ? r : "/sys";
}

int pmu_path(char *buf, size_t len, const char *pmu, const char *rel)
{
	int n = snprintf(buf, len, "%s/bus/event_source/devices/%s%s%s", hwprof_sysfs_root(), pmu,
			 *rel ? "/" : "", rel);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int pmu_read(const char *pmu, const char *rel, char *buf, size_t len)
{
	char path[4096];
	int r = pmu_path(path, sizeof(path), pmu, rel);
	if (r < 0)
		return r;
	if (len == 0)
		return -EINVAL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, len - 1);
	int err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

bool pmu_exists(const char *pmu)
{
	char path[4096];
	struct stat st;
	if (!*pmu || strchr(pmu, '/') || pmu[0] == '.')
		return false;
	return pmu_path(path, sizeof(path), pmu, "") == 0 && stat(path, &st) == 0 &&
	       S_ISDIR(st.st_mode);
}

int pmu_type(const char *pmu, uint32_t *type)
{
	char buf[64], *end;
	if (!pmu_exists(pmu))
		return -ENOENT;
	int r = pmu_read(pmu, "type", buf, sizeof(buf));
	if (r < 0)
		return r;
	errno = 0;
	unsigned long v = strtoul(buf, &end, 10);
	if (errno || end == buf || *end || v > UINT32_MAX)
		return -EINVAL;
	*type = (uint32_t)v;
	return 0;
}

int pmu_format_parse(const char *text, struct pmu_format *f)
{
	const char *p = text;
	memset(f, 0, sizeof(*f));
	if (strncmp(p, "config", 6))
		return -EINVAL;
	p += 6;
	if (*p == '1' || *p == '2')
		f->word = *p++ - '0';
	if (*p++ != ':')
		return -EINVAL;
	for (;;) {
		char *end;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			hi = strtoul(p, &end, 10);
			p = end;
		}
		if (hi < lo || hi > 63 || f->nbits + (hi - lo + 1) > 64)
			return -EINVAL;
		for (unsigned long b = lo; b <= hi; b++)
			f->bit[f->nbits++] = (uint8_t)b;
		if (*p == ',') {
			p++;
			continue;
		}
		while (isspace((unsigned char)*p))
			p++;
		return *p ? -EINVAL : 0;
	}
}

int pmu_format_read(const char *pmu, const char *field, struct pmu_format *f)
{
	char rel[512], buf[256];
	if (!*field || strchr(field, '/') || field[0] == '.')
		return -ENOENT;
	if (snprintf(rel, sizeof(rel), "format/%s", field) >= (int)sizeof(rel))
		return -ENOENT;
	int r = pmu_read(pmu, rel, buf, sizeof(buf));
	if (r < 0)
		return r == -ENOTDIR ? -ENOENT : r;
	return pmu_format_parse(buf, f);
}

int pmu_format_apply(const struct pmu_format *f, uint64_t value, uint64_t config[3])
{
	if (f->nbits < 64 && (value >> f->nbits))
		return -ERANGE;
	for (int i = 0; i < f->nbits; i++) {
		uint64_t m = 1ull << f->bit[i];
		config[f->word] &= ~m;
		if (value >> i & 1)
			config[f->word] |= m;
	}
	return 0;
}

void pmu_format_describe(const struct pmu_format *f, char *buf, size_t len)
{
	size_t pos = 0;
	int n = snprintf(buf, len, "config%s:", f->word ? (f->word == 1 ? "1" : "2") : "");
	pos = n > 0 ? (size_t)n : 0;
	for (int i = 0; i < f->nbits && pos < len;) {
		int j = i;
		while (j + 1 < f->nbits && f->bit[j + 1] == f->bit[j] + 1)
			j++;
		if (j > i)
			n = snprintf(buf + pos, len - pos, "%s%d-%d", i ? "," : "", f->bit[i],
				     f->bit[j]);
		else
			n = snprintf(buf + pos, len - pos, "%s%d", i ? "," : "", f->bit[i]);
		pos += n > 0 ? (size_t)n : 0;
		i = j + 1;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether an events/ entry is a companion file of an alias rather than an alias. */
static bool is_companion(const char *name)
{
	static const char *const suffix[] = {".scale", ".unit", ".per-pkg", ".snapshot"};
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof(suffix) / sizeof(*suffix); i++) {
		size_t s = strlen(suffix[i]);
		if (n > s && !strcmp(name + n - s, suffix[i]))
			return true;
	}
	return false;
}

static int list_dir(const char *path, bool skip_companions, char ***names, size_t *n)
{
	char **v = NULL;
	size_t cnt = 0, cap = 0;
	int r = 0;
	*names = NULL;
	*n = 0;
	DIR *d = opendir(path);
	if (!d)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || (skip_companions && is_companion(de->d_name)))
			continue;
		if (hwprof_grow((void **)&v, &cap, cnt + 1, sizeof(*v)) < 0) {
			r = -ENOMEM;
			goto out;
		}
		if (!(v[cnt] = strdup(de->d_name))) {
			r = -ENOMEM;
			goto out;
		}
		cnt++;
	}
	if (cnt)
		qsort(v, cnt, sizeof(*v), cmp_str);
out:
	closedir(d);
	if (r < 0) {
		pmu_names_free(v, cnt);
		return r;
	}
	*names = v;
	*n = cnt;
	return 0;
}

int pmu_list(char ***names, size_t *n)
{
	char path[4096];
	if (snprintf(path, sizeof(path), "%s/bus/event_source/devices", hwprof_sysfs_root()) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	return list_dir(path, false, names, n);
}

int pmu_names(const char *pmu, const char *dir, char ***names, size_t *n)
{
	char path[4096];
	*names = NULL;
	*n = 0;
	int r = pmu_path(path, sizeof(path), pmu, dir);
	if (r < 0)
		return r;
	return list_dir(path, !strcmp(dir, "events"), names, n);
}

void pmu_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

bool pmu_is_core(const char *pmu)
{
	char path[4096];
	if (!strcmp(pmu, "cpu"))
		return pmu_exists(pmu);
	return pmu_path(path, sizeof(path), pmu, "cpus") == 0 && access(path, F_OK) == 0;
}

int pmu_max_precise(const char *pmu)
{
	char buf[32], *end;
	int r = pmu_read(pmu, "caps/max_precise", buf, sizeof(buf));
	if (r < 0)
		return r == -ENOTDIR ? -ENOENT : r;
	long v = strtol(buf, &end, 10);
	if (end == buf || *end || v < 0 || v > 3)
		return -EINVAL;
	return (int)v;
}

int pmu_cpus(const char *pmu, char *buf, size_t len)
{
	int r = pmu_read(pmu, "cpus", buf, len);
	if (r == -ENOENT || r == -ENOTDIR)
		r = pmu_read(pmu, "cpumask", buf, len);
	return r == -ENOTDIR ? -ENOENT : r;
}
