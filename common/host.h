/* host.h - facts about the machine, shared by the sample file header (host.c) and
 * 'hwprof stat'. Internal: not installed. */
#ifndef HWPROF_HOST_H
#define HWPROF_HOST_H

#include <stddef.h>

/* Writes the CPU model from /proc/cpuinfo into BUF (LEN bytes, cut to fit, NUL-terminated):
 * x86's "model name", or the field other architectures use ("Processor", "cpu model", "cpu").
 * Returns 0; -errno when /proc/cpuinfo does not open, -ENOENT when it names no model; in both
 * cases BUF holds "unknown". */
int hwprof_host_cpu_model(char *buf, size_t len);

#endif
