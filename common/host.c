/* host.c - the host facts in a sample file's header, and freeing a header built by hand. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "hwprof/sampfile.h"
#include "host.h"
#include "grow.h"

/* PATH, or under $HWPROF_PROC_ROOT for a /proc path (ROOTED, LEN bytes, holds it then). */
static const char *proc_path(const char *path, char *rooted, size_t len)
{
	const char *root = getenv("HWPROF_PROC_ROOT");

	if (root && *root && !strncmp(path, "/proc/", 6)) {
		snprintf(rooted, len, "%s/%s", root, path + 6);
		return rooted;
	}
	return path;
}

/* The CPU model: x86's "model name"; other architectures name it differently. */
int hwprof_host_cpu_model(char *dst, size_t cap)
{
	static const char *const keys[] = {"model name", "Processor", "cpu model", "cpu", NULL};
	char line[512], rooted[4096];
	FILE *f = fopen(proc_path("/proc/cpuinfo", rooted, sizeof(rooted)), "re");

	snprintf(dst, cap, "unknown");
	if (!f)
		return -errno;
	for (int k = 0; keys[k]; k++) {
		rewind(f);
		while (fgets(line, sizeof(line), f)) {
			size_t kl = strlen(keys[k]);
			if (strncmp(line, keys[k], kl) ||
			    (line[kl] != ' ' && line[kl] != '\t' && line[kl] != ':'))
				continue;
			char *v = strchr(line + kl, ':');
			if (!v)
				continue;
			v++;
			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = 0;
			if (!*v)
				continue;
			snprintf(dst, cap, "%s", v);
			fclose(f);
			return 0;
		}
	}
	fclose(f);
	return -ENOENT;
}

int hwprof_header_init(struct hwprof_file_header *h)
{
	struct utsname u;
	struct timespec ts;
	long n;

	memset(h, 0, sizeof(*h));
	h->major = HWPROF_FILE_MAJOR;
	h->minor = HWPROF_FILE_MINOR;
	if (gethostname(h->hostname, sizeof(h->hostname) - 1) < 0)
		return -errno;
	if (uname(&u) < 0)
		return -errno;
	snprintf(h->kernel, sizeof(h->kernel), "%s", u.release);
	hwprof_host_cpu_model(h->cpu_model, sizeof(h->cpu_model));
	n = sysconf(_SC_NPROCESSORS_ONLN);
	h->ncpus = n > 0 ? (uint32_t)n : 0;
	if (clock_gettime(CLOCK_REALTIME, &ts) < 0)
		return -errno;
	h->start_time_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return 0;
}

void hwprof_header_release(struct hwprof_file_header *h)
{
	if (!h)
		return;
	for (uint32_t i = 0; h->argv && i < h->argc; i++)
		free(h->argv[i]);
	free(h->argv);
	free(h->events);
	h->argv = NULL;
	h->events = NULL;
	h->argc = 0;
	h->nevents = 0;
}

int hwprof_read_keyed_hex(const char *path, const char *key, unsigned long long *out)
{
	char rooted[4096], line[512];
	size_t klen = strlen(key);
	int ret = -ENOENT;
	FILE *f = fopen(proc_path(path, rooted, sizeof(rooted)), "re");

	if (!f)
		return -errno;
	while (ret == -ENOENT && fgets(line, sizeof(line), f)) {
		char *end;

		if (strncmp(line, key, klen) || line[klen] != ':')
			continue;
		errno = 0;
		*out = strtoull(line + klen + 1, &end, 16);
		ret = end == line + klen + 1 || errno ? -EINVAL : 0;
	}
	fclose(f);
	return ret;
}

int hwprof_read_number(const char *path, long long *out)
{
	char rooted[4096];
	long long v;
	FILE *f;
	int n;

	path = proc_path(path, rooted, sizeof(rooted));
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fscanf(f, "%lld", &v);
	fclose(f);
	if (n != 1)
		return -EINVAL;
	*out = v;
	return 0;
}

int hwprof_host_cpu_id(char *vendor, size_t len, unsigned *family, unsigned *model)
{
	char rooted[4096], line[512];
	unsigned found = 0;
	FILE *f = fopen(proc_path("/proc/cpuinfo", rooted, sizeof(rooted)), "re");

	if (!f)
		return -errno;
	/* The first CPU's block ends at its blank line. */
	while (found != 7 && fgets(line, sizeof(line), f) && line[0] != '\n') {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		v += 1 + strspn(v + 1, " \t");
		v[strcspn(v, "\n")] = '\0';
		if (!strncmp(line, "vendor_id", 9)) {
			snprintf(vendor, len, "%s", v);
			found |= 1;
		} else if (!strncmp(line, "cpu family", 10)) {
			*family = (unsigned)strtoul(v, NULL, 10);
			found |= 2;
		} else if (!strncmp(line, "model", 5) && line[5 + strspn(line + 5, " \t")] == ':') {
			*model = (unsigned)strtoul(v, NULL, 10);
			found |= 4;
		}
	}
	fclose(f);
	return found == 7 ? 0 : -ENOENT;
}

/* One CPU number of a cpulist at *P, moving *P past it. */
static int cpulist_cpu(const char **p)
{
	char *end;
	unsigned long v;

	if (**p < '0' || **p > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(*p, &end, 10);
	if (errno || v > 65535)
		return -EINVAL;
	*p = end;
	return (int)v;
}

int hwprof_cpulist_parse(const char *text, int **out)
{
	unsigned char seen[65536 / 8] = {0};
	int *cpus = NULL, n = 0, ret = -EINVAL;
	size_t cap = 0;
	const char *p = text;

	*out = NULL;
	for (;;) {
		int a = cpulist_cpu(&p), b;

		if (a < 0)
			goto fail;
		b = a;
		if (*p == '-') {
			p++;
			if ((b = cpulist_cpu(&p)) < a)
				goto fail;
		}
		for (int c = a; c <= b; c++) {
			if (seen[c / 8] & (1u << (c % 8)))
				goto fail;
			seen[c / 8] |= (unsigned char)(1u << (c % 8));
			if (hwprof_grow((void **)&cpus, &cap, (size_t)n + 1, sizeof(*cpus)) < 0) {
				ret = -ENOMEM;
				goto fail;
			}
			cpus[n++] = c;
		}
		if (*p != ',')
			break;
		p++;
	}
	if (*p == '\n')
		p++;
	if (*p)
		goto fail;
	*out = cpus;
	return n;
fail:
	free(cpus);
	return ret;
}
