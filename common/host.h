/* host.h - facts about the machine, shared by the sample file header (host.c) and
 * 'hwprof stat'. Internal: not installed. */
#ifndef HWPROF_HOST_H
#define HWPROF_HOST_H

#include <stddef.h>

/* Writes the CPU model from /proc/cpuinfo (under $HWPROF_PROC_ROOT as for
 * hwprof_read_number()) into BUF (LEN bytes, cut to fit, NUL-terminated): x86's "model
 * name", or the field other architectures use ("Processor", "cpu model", "cpu"). Returns 0;
 * -errno when the file does not open, -ENOENT when it names no model; in both cases BUF
 * holds "unknown". */
int hwprof_host_cpu_model(char *buf, size_t len);

/* Reads the number a /proc or /sys file holds (its first integer, as scanf's %lld reads it)
 * into *OUT. A PATH that starts with "/proc/" is read under $HWPROF_PROC_ROOT instead of /proc
 * when that is set (tests give fixture values); any other PATH as given (a sysfs path is
 * already under hwprof_sysfs_root()). Returns 0, the -errno of fopen(3), or -EINVAL when the
 * file starts with no number; *OUT is then unchanged. */
int hwprof_read_number(const char *path, long long *out);

/* Reads the hexadecimal value of the "KEY:" line of PATH (as /proc/PID/status holds
 * "CapEff:\t000001ffffffffff", proc(5)) into *OUT; /proc paths under $HWPROF_PROC_ROOT as for
 * hwprof_read_number(). Returns 0, the -errno of fopen(3), -ENOENT when no line has KEY, or
 * -EINVAL when its value is no hexadecimal number; *OUT is then unchanged. */
int hwprof_read_keyed_hex(const char *path, const char *key, unsigned long long *out);

/* The x86 identity of the first CPU in /proc/cpuinfo (under $HWPROF_PROC_ROOT as for
 * hwprof_read_number()): its vendor_id ("AuthenticAMD", "GenuineIntel") into VENDOR (LEN
 * bytes), its "cpu family" and "model" (decimal, as the kernel prints them) into *FAMILY and
 * *MODEL. Returns 0, the -errno of fopen(3), or -ENOENT when a field is missing (another
 * architecture). */
int hwprof_host_cpu_id(char *vendor, size_t len, unsigned *family, unsigned *model);

/* Parses a CPU list in the kernel's "cpulist" format (ranges and single CPUs separated by
 * commas, "0-3,8,10-11", as /sys/devices/system/cpu/online and a PMU's cpumask hold it; a
 * trailing newline is allowed) into a malloc'd array *OUT in the order written, which the
 * caller frees. CPUs are 0..65535. Returns the count (>= 1); -EINVAL for an empty or
 * malformed list, a range whose end is below its start, or a CPU listed twice (*OUT is then
 * NULL); -ENOMEM. */
int hwprof_cpulist_parse(const char *text, int **out);

#endif
