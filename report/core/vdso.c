/* vdso.c - this process's vDSO as a file for libelf and libdwfl (vdso.h). */
#include "vdso.h"

#include <elf.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

static pthread_once_t id_once = PTHREAD_ONCE_INIT, file_once = PTHREAD_ONCE_INIT;
static const Elf64_Ehdr *image;
static size_t image_bytes;
static char image_path[64];
static uint8_t image_id[20];
static size_t image_id_len;

/* Bytes of the image: the ELF file ends with whichever comes last of the section headers and
 * the loaded segments (the kernel maps the whole file, gABI layout). */
static size_t image_size(const Elf64_Ehdr *eh)
{
	const Elf64_Phdr *ph = (const Elf64_Phdr *)((const char *)eh + eh->e_phoff);
	size_t end = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;

	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > end)
			end = ph[i].p_offset + ph[i].p_filesz;
	return end;
}

/* Finds the image and its build-id in memory: every report asks, few need the file. */
static void find_image(void)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	const void *id = NULL;
	ssize_t len;
	Elf *elf;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return;
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)eh, image_size(eh));
	len = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
	if (len > 0 && (size_t)len <= sizeof(image_id)) {
		memcpy(image_id, id, (size_t)len);
		image_id_len = (size_t)len;
		image = eh;
		image_bytes = image_size(eh);
	}
	if (elf)
		elf_end(elf);
}

/* Copies the image into a memfd, kept open for the process's life: libdwfl opens the path
 * whenever it needs. */
static void make_file(void)
{
	int fd;

	pthread_once(&id_once, find_image);
	if (!image || (fd = memfd_create("hwprof-vdso", MFD_CLOEXEC)) < 0)
		return;
	if (write(fd, image, image_bytes) != (ssize_t)image_bytes) {
		close(fd);
		return;
	}
	snprintf(image_path, sizeof(image_path), "/proc/self/fd/%d", fd);
}

size_t vdso_build_id(const char *host, const char *kernel, uint8_t *out)
{
	struct utsname u;

	/* Another host may run a kernel of the same release built otherwise. */
	if (!host || !kernel || uname(&u) < 0 || strcmp(u.nodename, host) ||
	    strcmp(u.release, kernel))
		return 0;
	pthread_once(&id_once, find_image);
	memcpy(out, image_id, image_id_len);
	return image_id_len;
}

const char *vdso_image_path(void)
{
	pthread_once(&file_once, make_file);
	return image_path[0] ? image_path : NULL;
}
