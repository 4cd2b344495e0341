/* pmu.h - sysfs PMU discovery (internal to libhwprof and `hwprof list`).
 *
 * The kernel describes each PMU under <sysfs>/bus/event_source/devices/PMU/ (ABI:
 * Documentation/ABI/testing/sysfs-bus-event_source-devices-*):
 *   type                 the perf_event_attr.type to use, decimal
 *   format/FIELD         where FIELD's bits go: "config:0-7", "config1:0-15", "config:0-7,32-35"
 *                        (several ranges: the value's low bits fill the first range)
 *   events/NAME          an alias: "event=0xc0,umask=0x01" (terms over format/ fields)
 *   events/NAME.scale    multiply counts by this ("6.103515625e-5"); events/NAME.unit ("MiB")
 *   caps/max_precise     the highest precise_ip the PMU accepts (x86 core PMUs)
 *   cpus / cpumask       which CPUs a core (cpus) or uncore (cpumask) PMU covers
 * <sysfs> is hwprof_sysfs_root(). All functions return 0 or -errno and never print.
 */
#ifndef HWPROF_PMU_H
#define HWPROF_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where one format field lives: bit I of the value goes to bit bit[I] of config word `word`. */
struct pmu_format {
	int word;  /* 0 = config, 1 = config1, 2 = config2 */
	int nbits; /* 1..64 */
	uint8_t bit[64];
};

/* Writes "<root>/bus/event_source/devices/PMU/REL" (REL may be "") into BUF. -ENAMETOOLONG. */
int pmu_path(char *buf, size_t len, const char *pmu, const char *rel);

/* Reads the small file PMU/REL into BUF (NUL-terminated, trailing whitespace removed).
 * -ENOENT when it does not exist, -errno otherwise. */
int pmu_read(const char *pmu, const char *rel, char *buf, size_t len);

/* Whether <root>/bus/event_source/devices/PMU is a directory. */
bool pmu_exists(const char *pmu);

/* PMU's perf_event_attr.type from its `type` file. -ENOENT for an unknown PMU, -EINVAL when the
 * file does not hold a number. */
int pmu_type(const char *pmu, uint32_t *type);

/* Parses a format file's TEXT ("config1:0-15", "config:0-7,32-35"). -EINVAL when malformed. */
int pmu_format_parse(const char *text, struct pmu_format *f);

/* Reads and parses PMU/format/FIELD. -ENOENT when PMU has no such field. */
int pmu_format_read(const char *pmu, const char *field, struct pmu_format *f);

/* Puts VALUE into CONFIG[f->word] at the field's bits (clearing them first). -ERANGE when
 * VALUE has bits beyond f->nbits. */
int pmu_format_apply(const struct pmu_format *f, uint64_t value, uint64_t config[3]);

/* Describes F as "config:0-7,32-35" into BUF. */
void pmu_format_describe(const struct pmu_format *f, char *buf, size_t len);

/* The sorted names in <root>/bus/event_source/devices ("" entries never), or in PMU/DIR
 * (DIR "format" or "events"; for events the .scale/.unit/... companions are skipped).
 * *NAMES is a malloc'd array of malloc'd strings; free with pmu_names_free(). A missing
 * directory gives 0 names and returns 0. */
int pmu_list(char ***names, size_t *n);
int pmu_names(const char *pmu, const char *dir, char ***names, size_t *n);
void pmu_names_free(char **names, size_t n);

/* Whether PMU is a core (CPU) PMU: "cpu", or one with a `cpus` file (hybrid cpu_core /
 * cpu_atom, Arm). Uncore PMUs have `cpumask` instead. */
bool pmu_is_core(const char *pmu);

/* The CPUs PMU covers, as the kernel writes a CPU list ("0-15", "0,28"): its `cpus` file (core
 * PMUs of hybrid parts) or else `cpumask` (uncore PMUs: one CPU per socket to open on).
 * -ENOENT when it has neither (the classic "cpu" PMU covers every CPU). */
int pmu_cpus(const char *pmu, char *buf, size_t len);

/* PMU's caps/max_precise, or -ENOENT. */
int pmu_max_precise(const char *pmu);

#endif
