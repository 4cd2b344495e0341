/* buildid.c - NT_GNU_BUILD_ID of a file, read by libdw's dwelf_elf_gnu_build_id() as report
 * reads it (PT_NOTE segments, which survive strip, or note sections). */
#include "buildid.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

int buildid_read(const char *path, uint8_t id[20])
{
	const void *bid;
	Elf *elf;
	ssize_t n;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		ret = -EBADMSG;
	} else {
		n = dwelf_elf_gnu_build_id(elf, &bid);
		if (n > 0) {
			ret = n < 20 ? (int)n : 20;
			memcpy(id, bid, (size_t)ret);
		} else {
			/* -1: damaged notes; 0: none. Either way there is no id to give. */
			ret = -ENODATA;
		}
	}
	elf_end(elf);
	close(fd);
	return ret;
}
