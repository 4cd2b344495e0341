/* buildid.h - the GNU build-id of an ELF file, for kernels that do not put it in MMAP2.
 *
 * Linux 5.12+ fills PERF_RECORD_MMAP2 with the build-id when attr.build_id is set
 * (PERF_RECORD_MISC_MMAP_BUILD_ID, linux/perf_event.h), but leaves the size 0 when the note's
 * page was not in memory; record then reads the NT_GNU_BUILD_ID note from the file itself.
 */
#ifndef HWPROF_BUILDID_H
#define HWPROF_BUILDID_H

#include <stdint.h>

/* Reads the NT_GNU_BUILD_ID note of the ELF file PATH into ID (at most 20 bytes are kept),
 * as report reads it (dwelf_elf_gnu_build_id()). Returns the number of bytes stored, or
 * -errno: from open(2), -ENODATA when there is no such note, -EBADMSG when PATH is not ELF. */
int buildid_read(const char *path, uint8_t id[20]);

#endif
