/* fixture.h - fake sysfs and /proc trees of machines this host is not, for tests: PMUs with
 * their type, cpumask, format/ fields and events/ aliases (.scale, .unit), the memory
 * controllers of an Intel server or client and an AMD data fabric, SMBIOS type-17
 * memory-device records, and /proc/cpuinfo. The one set of such helpers; nothing in the
 * product uses it.
 *
 * The tree is a fresh directory under /tmp (fixture_new()); HWPROF_SYSFS_ROOT points at it
 * (hwprof_sysfs_root()), and fixture_cpuinfo() points HWPROF_PROC_ROOT at its proc/. The
 * helpers abort with a message on stderr when a file cannot be written (test code).
 *
 * What the kernel exports, as these helpers write it (Documentation/ABI/testing/
 * sysfs-bus-event_source-devices-*; drivers under arch/x86/events/):
 *   <sysfs>/bus/event_source/devices/PMU/{type,cpumask,format/F,events/E{,.scale,.unit}}
 *   <sysfs>/firmware/dmi/entries/17-N/raw  one SMBIOS structure (DMTF DSP0134)
 */
#ifndef HWPROF_FIXTURE_H
#define HWPROF_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

/* Makes a fresh empty tree and points HWPROF_SYSFS_ROOT at it (a previous one is removed
 * first), and HWPROF_DMIDECODE at <tree>/dmidecode, a program that is not there until
 * fixture_dmidecode() writes it (this host's dmidecode must not answer for the tree).
 * Returns its path (static storage). */
const char *fixture_new(void);

/* The current tree's path, "" before fixture_new(). */
const char *fixture_root(void);

/* Writes TEXT (printf FMT) to the file REL under the tree, making its directories. */
void fixture_put(const char *rel, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* PMU with `type` TYPE, a `cpumask` CPUMASK (NULL: none, as a core PMU), and format fields
 * event (config:0-7) and umask (config:8-15). */
void fixture_pmu(const char *pmu, unsigned type, const char *cpumask);

/* Alias events/NAME of PMU holding TERMS ("event=0x04,umask=0x03"), with NAME.scale SCALE and
 * NAME.unit UNIT when not NULL. */
void fixture_pmu_event(const char *pmu, const char *name, const char *terms, const char *scale,
		       const char *unit);

/* An Intel server's memory controllers (skx/icx uncore): N boxes uncore_imc_0..N-1 of types
 * FIRST_TYPE.., cpumask "0", each with cas_count_read (event=0x04,umask=0x03) and
 * cas_count_write (event=0x04,umask=0x0c), scale 6.103515625e-5 MiB (64 bytes per CAS). */
void fixture_intel_server_imc(int n, unsigned first_type);

/* An Intel client's memory controller (snb..cfl uncore_imc, free-running): uncore_imc of
 * TYPE, cpumask "0", data_reads (event=0x01) and data_writes (event=0x02), scale
 * 6.103515625e-5 MiB. */
void fixture_intel_client_imc(unsigned type);

/* An AMD data fabric: PMU amd_df of TYPE, cpumask "0", format event config:0-7,32-35 and
 * umask config:8-15 (arch/x86/events/amd/uncore.c: the kernel exports no events for it). */
void fixture_amd_df(unsigned type);

/* <tree>/proc/cpuinfo of one CPU: vendor_id VENDOR, cpu family FAMILY, model MODEL, model
 * name NAME; with the /proc files of fake_proc_write() (perf_event_paranoid -1, CapEff with
 * CAP_PERFMON). Points HWPROF_PROC_ROOT at <tree>/proc. */
void fixture_cpuinfo(const char *vendor, unsigned family, unsigned model, const char *name);

/* Builds an SMBIOS 3.x type-17 record of length 0x28 into R (room for 0x28 + the strings):
 * data width WIDTH bits (0x0A), size SIZE as the WORD at 0x0C (0: no module), rated speed
 * SPEED (0x15), configured speed CONF (0x20), device locator LOC (string 1, 0x10) and bank
 * locator BANK (string 2, 0x11; NULL: none). Returns its length. */
size_t fixture_dimm_record(uint8_t *r, unsigned width, unsigned size, unsigned speed, unsigned conf,
			   const char *loc, const char *bank);

/* Writes the LEN bytes of R as <tree>/firmware/dmi/entries/17-N/raw. */
void fixture_dmi_put(int n, const uint8_t *r, size_t len);

/* One populated DIMM as record 17-N: 64 bits wide, 32 GiB, rated 3200 MT/s, configured at
 * SPEED, at LOC in BANK (NULL: no bank locator). */
void fixture_dimm(int n, unsigned speed, const char *loc, const char *bank);

/* Writes <tree>/dmidecode, a program that prints the file TEXT_FILE (a dmidecode -t 17
 * output) whatever its arguments. */
void fixture_dmidecode(const char *text_file);

/* The text of the file PATH (up to 64 KiB), in a static buffer valid until the next call: an
 * output a test checks. */
char *fixture_slurp(const char *path);

/* Removes the tree (rm -rf) and unsets HWPROF_SYSFS_ROOT; HWPROF_PROC_ROOT too when it points
 * into the tree. */
void fixture_remove(void);

#endif
