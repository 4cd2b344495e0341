/* buildid.c - NT_GNU_BUILD_ID from a file's PT_NOTE segments, with libelf. */
#include "buildid.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

static int note_in(Elf_Data *d, uint8_t id[20])
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off, next;

	while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((const char *)d->d_buf + name_off, "GNU", 4) && nh.n_descsz) {
			size_t n = nh.n_descsz < 20 ? nh.n_descsz : 20;
			memcpy(id, (const char *)d->d_buf + desc_off, n);
			return (int)n;
		}
		off = next;
	}
	return -ENODATA;
}

int buildid_read(const char *path, uint8_t id[20])
{
	Elf *elf = NULL;
	size_t nph;
	int fd, ret = -ENODATA;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nph) < 0) {
		ret = -EBADMSG;
		goto out;
	}
	for (size_t i = 0; i < nph && ret < 0; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
					 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (d)
			ret = note_in(d, id);
	}
out:
	elf_end(elf);
	close(fd);
	return ret;
}
