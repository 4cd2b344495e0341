/* fixture.c - fake sysfs and /proc trees; see fixture.h. */
#include "fixture.h"

#include "fake_kernel.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char root[PATH_MAX];

static _Noreturn void fail(const char *what, const char *path)
{
	fprintf(stderr, "fixture: %s %s: %s\n", what, path, strerror(errno));
	abort();
}

const char *fixture_root(void)
{
	return root;
}

const char *fixture_new(void)
{
	char prog[PATH_MAX + 16];

	fixture_remove();
	snprintf(root, sizeof(root), "/tmp/hwprof-fixture-XXXXXX");
	if (!mkdtemp(root))
		fail("mkdtemp", root);
	setenv("HWPROF_SYSFS_ROOT", root, 1);
	snprintf(prog, sizeof(prog), "%s/dmidecode", root);
	setenv("HWPROF_DMIDECODE", prog, 1);
	return root;
}

/* Makes every directory of PATH's parent. */
static void make_parents(char *path)
{
	for (char *p = path + strlen(root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			fail("mkdir", path);
		*p = '/';
	}
}

static void put_bytes(const char *rel, const void *data, size_t len)
{
	char path[2 * PATH_MAX];
	FILE *f;

	if (!root[0])
		fixture_new();
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	make_parents(path);
	f = fopen(path, "wb");
	if (!f)
		fail("fopen", path);
	if (fwrite(data, 1, len, f) != len || fclose(f) != 0)
		fail("write", path);
}

void fixture_put(const char *rel, const char *fmt, ...)
{
	char text[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	put_bytes(rel, text, strlen(text));
}

void fixture_pmu(const char *pmu, unsigned type, const char *cpumask)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "bus/event_source/devices/%s/type", pmu);
	fixture_put(rel, "%u\n", type);
	if (cpumask) {
		snprintf(rel, sizeof(rel), "bus/event_source/devices/%s/cpumask", pmu);
		fixture_put(rel, "%s\n", cpumask);
	}
	snprintf(rel, sizeof(rel), "bus/event_source/devices/%s/format/event", pmu);
	fixture_put(rel, "config:0-7\n");
	snprintf(rel, sizeof(rel), "bus/event_source/devices/%s/format/umask", pmu);
	fixture_put(rel, "config:8-15\n");
}

void fixture_pmu_event(const char *pmu, const char *name, const char *terms, const char *scale,
		       const char *unit)
{
	char rel[384];

	snprintf(rel, sizeof(rel), "bus/event_source/devices/%s/events/%s", pmu, name);
	fixture_put(rel, "%s\n", terms);
	if (scale) {
		snprintf(rel, sizeof(rel), "bus/event_source/devices/%s/events/%s.scale", pmu,
			 name);
		fixture_put(rel, "%s\n", scale);
	}
	if (unit) {
		snprintf(rel, sizeof(rel), "bus/event_source/devices/%s/events/%s.unit", pmu, name);
		fixture_put(rel, "%s\n", unit);
	}
}

void fixture_intel_server_imc(int n, unsigned first_type)
{
	char pmu[64];

	for (int i = 0; i < n; i++) {
		snprintf(pmu, sizeof(pmu), "uncore_imc_%d", i);
		fixture_pmu(pmu, first_type + (unsigned)i, "0");
		fixture_pmu_event(pmu, "cas_count_read", "event=0x04,umask=0x03", "6.103515625e-5",
				  "MiB");
		fixture_pmu_event(pmu, "cas_count_write", "event=0x04,umask=0x0c", "6.103515625e-5",
				  "MiB");
	}
}

void fixture_intel_client_imc(unsigned type)
{
	fixture_pmu("uncore_imc", type, "0");
	fixture_pmu_event("uncore_imc", "data_reads", "event=0x01", "6.103515625e-5", "MiB");
	fixture_pmu_event("uncore_imc", "data_writes", "event=0x02", "6.103515625e-5", "MiB");
}

void fixture_amd_df(unsigned type)
{
	fixture_pmu("amd_df", type, "0");
	fixture_put("bus/event_source/devices/amd_df/format/event", "config:0-7,32-35\n");
}

void fixture_cpuinfo(const char *vendor, unsigned family, unsigned model, const char *name)
{
	char dir[PATH_MAX + 16];

	fixture_put("proc/cpuinfo",
		    "processor\t: 0\nvendor_id\t: %s\ncpu family\t: %u\nmodel\t\t: %u\n"
		    "model name\t: %s\n\n",
		    vendor, family, model, name);
	snprintf(dir, sizeof(dir), "%s/proc", root);
	errno = 0;
	if (fake_proc_write(dir, -1, 1ull << 38) < 0)
		fail("fake_proc_write", dir);
	setenv("HWPROF_PROC_ROOT", dir, 1);
}

size_t fixture_dimm_record(uint8_t *r, unsigned width, unsigned size, unsigned speed, unsigned conf,
			   const char *loc, const char *bank)
{
	size_t at = 0x28;

	memset(r, 0, 0x28);
	r[0] = 17;
	r[1] = 0x28;
	r[0x0A] = width & 0xff;
	r[0x0B] = width >> 8;
	r[0x0C] = size & 0xff;
	r[0x0D] = size >> 8;
	r[0x10] = 1;
	r[0x11] = bank ? 2 : 0;
	r[0x15] = speed & 0xff;
	r[0x16] = speed >> 8;
	r[0x20] = conf & 0xff;
	r[0x21] = conf >> 8;
	strcpy((char *)r + at, loc);
	at += strlen(loc) + 1;
	if (bank) {
		strcpy((char *)r + at, bank);
		at += strlen(bank) + 1;
	}
	r[at] = '\0'; /* the string set ends with an empty string */
	return at + 1;
}

void fixture_dmi_put(int n, const uint8_t *r, size_t len)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "firmware/dmi/entries/17-%d/raw", n);
	put_bytes(rel, r, len);
}

void fixture_dimm(int n, unsigned speed, const char *loc, const char *bank)
{
	uint8_t r[256];

	fixture_dmi_put(n, r, fixture_dimm_record(r, 64, 32768, 3200, speed, loc, bank));
}

void fixture_dmidecode(const char *text_file)
{
	char path[PATH_MAX + 16];

	fixture_put("dmidecode", "#!/bin/sh\ncat '%s'\n", text_file);
	snprintf(path, sizeof(path), "%s/dmidecode", root);
	if (chmod(path, 0755) < 0)
		fail("chmod", path);
}

char *fixture_slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		fail("fopen", path);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

void fixture_remove(void)
{
	char cmd[PATH_MAX + 32];
	const char *proc = getenv("HWPROF_PROC_ROOT");

	if (!root[0])
		return;
	if (proc && !strncmp(proc, root, strlen(root)))
		unsetenv("HWPROF_PROC_ROOT");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "fixture: could not remove %s\n", root);
	unsetenv("HWPROF_SYSFS_ROOT");
	unsetenv("HWPROF_DMIDECODE");
	root[0] = '\0';
}
