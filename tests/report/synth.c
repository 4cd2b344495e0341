/* synth.c - header, COMM and MMAP of a synthetic recording (synth.h). */
#include "synth.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int synth_begin(struct synth *s, const char *tool, const char *out, const char *binary,
		const char *cmd, const char *comm, const struct hwprof_file_event *ev, uint32_t nev)
{
	struct hwprof_record r;
	const void *id = NULL;
	ssize_t idlen;
	size_t nph;
	int ret;

	memset(s, 0, sizeof(*s));
	s->base = 0x555555554000ull;
	elf_version(EV_CURRENT);
	s->fd = open(binary, O_RDONLY);
	s->elf = s->fd >= 0 ? elf_begin(s->fd, ELF_C_READ, NULL) : NULL;
	if (!s->elf || elf_getphdrnum(s->elf, &nph) < 0) {
		fprintf(stderr, "%s: %s: not an ELF file\n", tool, binary);
		return 2;
	}
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(s->elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X)) {
			s->off = ph.p_offset;
			s->filesz = ph.p_filesz;
			break;
		}
	}
	idlen = dwelf_elf_gnu_build_id(s->elf, &id);
	if (!s->filesz || hwprof_header_init(&s->h) < 0)
		return 2;
	s->h.argc = 1;
	s->h.argv = calloc(1, sizeof(char *));
	s->h.argv[0] = strdup(cmd);
	s->h.nevents = nev;
	s->h.events = calloc(nev, sizeof(*ev));
	memcpy(s->h.events, ev, nev * sizeof(*ev));
	ret = hwprof_writer_open(&s->w, out, &s->h);
	if (ret < 0) {
		fprintf(stderr, "%s: %s: %s\n", tool, out, strerror(-ret));
		return 2;
	}
	memset(&r, 0, sizeof(r));
	r.type = HWPROF_REC_COMM;
	r.comm = (struct hwprof_rec_comm){
	    .pid = 1000, .tid = 1000, .time = 1, .exec = true, .comm = comm};
	hwprof_writer_add(s->w, &r);
	r.type = HWPROF_REC_MMAP;
	r.mmap = (struct hwprof_rec_mmap){.pid = 1000,
					  .tid = 1000,
					  .time = 2,
					  .start = s->base + (s->off & ~0xfffull),
					  .len = s->filesz + (s->off & 0xfff),
					  .pgoff = s->off & ~0xfffull,
					  .prot = 5,
					  .flags = 2,
					  .filename = binary};
	if (idlen > 0 && idlen <= 20) {
		r.mmap.build_id_size = (uint8_t)idlen;
		memcpy(r.mmap.build_id, id, (size_t)idlen);
	}
	hwprof_writer_add(s->w, &r);
	return 0;
}

int synth_end(struct synth *s, struct hwprof_file_trailer *t)
{
	int ret = hwprof_writer_close(s->w, t);

	hwprof_header_release(&s->h);
	elf_end(s->elf);
	close(s->fd);
	return ret < 0 ? 2 : 0;
}
