/* vdso.h - the kernel's vDSO image, so that samples in [vdso] get function names.
 *
 * A recording names the vDSO mapping "[vdso]": there is no file behind it. The image is the
 * same for every process of one kernel build, so on the host that recorded (the same kernel
 * release) report reads the one mapped into its own process (getauxval(AT_SYSINFO_EHDR),
 * getauxval(3)) and identifies it by its build-id, as it does a file.
 */
#ifndef HWPROF_REPORT_VDSO_H
#define HWPROF_REPORT_VDSO_H

#include <stddef.h>
#include <stdint.h>

/* The build-id of this process's vDSO into OUT (20 bytes of room), when HOST and KERNEL (the
 * host name and release a recording names, "uname -n" and "uname -r") are this host's and the
 * running kernel's. (A 32-bit process's vDSO is another image; hwprof records 64-bit
 * processes' mappings as theirs.) Returns its length, or 0 when the
 * kernel differs or the image has no build-id (then report leaves "[vdso]" unnamed: an
 * image without a build-id could not be told from another kernel build's). Thread-safe. */
size_t vdso_build_id(const char *host, const char *kernel, uint8_t *out);

/* A path that opens a copy of this process's vDSO image as an ELF file ("/proc/self/fd/N",
 * a memfd made on the first call and kept open; thread-safe), or NULL when there is none or
 * the memfd failed (then dso_check() reports "[vdso]" as unreadable). */
const char *vdso_image_path(void);

#endif
