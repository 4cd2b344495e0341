/* stat_host.c - the host's PMU facts `hwprof stat` goes by (see stat_host.h): the core PMU's
 * counters read from sysfs or CPUID, the CPUs a PMU covers, its cpumask.
 */
#include "stat_host.h"

#include "cli.h"
#include "host.h"
#include "pmu.h"
#include "hwprof/hwprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The number in PATH, -1 when it cannot be read. */
static long read_long_file(const char *path)
{
	long long v;

	return hwprof_read_number(path, &v) < 0 ? -1 : (long)v;
}

/* Counters of the core PMU: sysfs caps/ where the kernel has them (some PMU drivers export
 * the counter count there), else x86 CPUID (Intel leaf 0xA: general-purpose and fixed
 * counters; AMD: 0x80000022 or the core extension's 6). 0 when unknown. */
static int pmu_counters(void)
{
	static const char *const caps[] = {"num_counters", "num_gp_counters", "counters", NULL};
	static const char *const pmus[] = {"cpu", "cpu_core", "armv8_pmuv3_0", NULL};
	char path[4096];
	long n;

	for (const char *const *p = pmus; *p; p++)
		for (const char *const *c = caps; *c; c++) {
			snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/caps/%s",
				 hwprof_sysfs_root(), *p, *c);
			n = read_long_file(path);
			if (n > 0) {
				long fixed;
				snprintf(path, sizeof(path),
					 "%s/bus/event_source/devices/%s/caps/num_fixed_counters",
					 hwprof_sysfs_root(), *p);
				fixed = read_long_file(path);
				return (int)(n + (fixed > 0 ? fixed : 0));
			}
		}
	/* A fixture sysfs tree describes another machine: do not mix in this CPU's CPUID. */
	if (strcmp(hwprof_sysfs_root(), "/sys"))
		return 0;
#if defined(__x86_64__) || defined(__i386__)
	{
		unsigned a, b, c, d, max;
		char vendor[13];
		__asm__ volatile("cpuid" : "=a"(max), "=b"(b), "=c"(c), "=d"(d) : "a"(0), "c"(0));
		memcpy(vendor, &b, 4);
		memcpy(vendor + 4, &d, 4);
		memcpy(vendor + 8, &c, 4);
		vendor[12] = '\0';
		if (!strcmp(vendor, "GenuineIntel") && max >= 0xa) {
			__asm__ volatile("cpuid"
					 : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
					 : "a"(0xa), "c"(0));
			return (int)(((a >> 8) & 0xff) + (d & 0x1f));
		}
		if (!strcmp(vendor, "AuthenticAMD")) {
			__asm__ volatile("cpuid"
					 : "=a"(max), "=b"(b), "=c"(c), "=d"(d)
					 : "a"(0x80000000u), "c"(0));
			if (max >= 0x80000022u) {
				__asm__ volatile("cpuid"
						 : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
						 : "a"(0x80000022u), "c"(0));
				if (b & 0xf)
					return (int)(b & 0xf);
			}
			__asm__ volatile("cpuid"
					 : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
					 : "a"(0x80000001u), "c"(0));
			return c & (1u << 23) ? 6 : 4;
		}
	}
#endif
	return 0;
}

/* Whether EV is counted by the core PMU (competes for its counters). */
static bool uses_core_counter(const struct hwprof_event *ev)
{
	if (!hwprof_event_is_hw(ev))
		return false;
	if (ev->kind != HWPROF_EV_PMU)
		return true;
	return !strcmp(ev->pmu, "cpu") || !strncmp(ev->pmu, "cpu_", 4);
}

void stat_warn_multiplexing(const struct hwprof_event_list *list)
{
	size_t hw = 0;
	int counters, watchdog;

	for (size_t i = 0; i < list->n; i++)
		hw += uses_core_counter(&list->ev[i]);
	if (!hw)
		return;
	counters = pmu_counters();
	if (counters <= 0)
		return;
	watchdog = read_long_file("/proc/sys/kernel/nmi_watchdog") == 1;
	if ((long)hw > counters - watchdog)
		warning("%zu hardware events but the PMU has %d counters%s: the set will "
			"multiplex, each count is scaled from the share of time it ran (fewer "
			"events, or%s)",
			hw, counters - watchdog,
			watchdog ? " free (the NMI watchdog holds one)" : "",
			watchdog ? " echo 0 > /proc/sys/kernel/nmi_watchdog" : " split the runs");
}

/* One range of a sysfs CPU list ("0-3,6\n") at P into [*A, *B] (a lone CPU: A == B). Returns
 * where the next range starts, or NULL at the end of the list or at text that is not a CPU. */
static const char *next_cpu_range(const char *p, long *a, long *b)
{
	char *end;

	if (!*p || *p == '\n')
		return NULL;
	*a = *b = strtol(p, &end, 10);
	if (end == p)
		return NULL;
	if (*end == '-')
		*b = strtol(end + 1, &end, 10);
	return *end == ',' ? end + 1 : end;
}

/* pmu_cpus(): uncore PMUs count on one CPU per socket, opening them on every CPU would count
 * each socket many times; a hybrid core PMU covers its own cores. */
bool stat_pmu_covers(const struct hwprof_event *ev, int cpu)
{
	char buf[4096];
	long a, b;

	if (ev->kind != HWPROF_EV_PMU || !ev->pmu[0] || pmu_cpus(ev->pmu, buf, sizeof(buf)) < 0)
		return true;
	for (const char *p = buf; (p = next_cpu_range(p, &a, &b));)
		if (cpu >= a && cpu <= b)
			return true;
	return false;
}

bool stat_is_uncore(const struct hwprof_event *ev)
{
	char path[4096];

	if (ev->kind != HWPROF_EV_PMU || !ev->pmu[0])
		return false;
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/cpumask", hwprof_sysfs_root(),
		 ev->pmu);
	return access(path, F_OK) == 0;
}
