/* gen_synth.c - writes a synthetic recording for measuring `hwprof report`'s speed:
 *   gen_synth OUT BINARY SAMPLES [DISTINCT]
 * BINARY (with debug info) is "mapped" at a PIE-like address in 4 threads of one process;
 * SAMPLES samples fall on DISTINCT addresses of its executable segment (default 20000), with
 * a skewed (Zipf-like) spread as real profiles have. Not a test: docs/report.md has numbers. */
#include "hwprof/sampfile.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct hwprof_file_event ev = {.name = "cpu-clock",
				       .type = 1,
				       .config = 0,
				       .sampling = true,
				       .freq = true,
				       .period_or_freq = 4000};
	struct hwprof_file_header h;
	struct hwprof_file_trailer t = {.exit_status = 0};
	struct hwprof_writer *w;
	struct hwprof_record r;
	const void *id = NULL;
	uint64_t n, distinct, off = 0, filesz = 0, base = 0x555555554000ull, *ips;
	int fd, ret;
	Elf *e;
	size_t nph;
	ssize_t idlen;

	if (argc < 4) {
		fprintf(stderr, "usage: gen_synth OUT BINARY SAMPLES [DISTINCT]\n");
		return 64;
	}
	n = strtoull(argv[3], NULL, 0);
	distinct = argc > 4 ? strtoull(argv[4], NULL, 0) : 20000;
	elf_version(EV_CURRENT);
	fd = open(argv[2], O_RDONLY);
	e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (!e || elf_getphdrnum(e, &nph) < 0) {
		fprintf(stderr, "gen_synth: %s: not an ELF file\n", argv[2]);
		return 2;
	}
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			off = ph.p_offset;
			filesz = ph.p_filesz;
			break;
		}
	}
	idlen = dwelf_elf_gnu_build_id(e, &id);
	if (!filesz || hwprof_header_init(&h) < 0)
		return 2;
	h.argc = 1;
	h.argv = calloc(1, sizeof(char *));
	h.argv[0] = strdup(argv[2]);
	h.nevents = 1;
	h.events = calloc(1, sizeof(ev));
	h.events[0] = ev;
	ret = hwprof_writer_open(&w, argv[1], &h);
	if (ret < 0) {
		fprintf(stderr, "gen_synth: %s: %s\n", argv[1], strerror(-ret));
		return 2;
	}
	memset(&r, 0, sizeof(r));
	r.type = HWPROF_REC_COMM;
	r.comm = (struct hwprof_rec_comm){
	    .pid = 1000, .tid = 1000, .time = 1, .exec = true, .comm = "synth"};
	hwprof_writer_add(w, &r);
	r.type = HWPROF_REC_MMAP;
	r.mmap = (struct hwprof_rec_mmap){.pid = 1000,
					  .tid = 1000,
					  .time = 2,
					  .start = base + (off & ~0xfffull),
					  .len = filesz + (off & 0xfff),
					  .pgoff = off & ~0xfffull,
					  .prot = 5,
					  .flags = 2,
					  .filename = argv[2]};
	if (idlen > 0 && idlen <= 20) {
		r.mmap.build_id_size = (uint8_t)idlen;
		memcpy(r.mmap.build_id, id, (size_t)idlen);
	}
	hwprof_writer_add(w, &r);
	ips = malloc(distinct * sizeof(*ips));
	srand(1);
	for (uint64_t i = 0; i < distinct; i++)
		ips[i] = base + off + (uint64_t)rand() % filesz;
	for (uint64_t i = 0; i < n; i++) {
		/* Zipf-like: index = distinct^u - 1 for uniform u. */
		double u = (double)rand() / RAND_MAX;
		uint64_t k = (uint64_t)pow((double)distinct, u) - 1;
		r.type = HWPROF_REC_SAMPLE;
		r.sample = (struct hwprof_rec_sample){.pid = 1000,
						      .tid = 1000 + (uint32_t)(i % 4),
						      .cpu = (uint32_t)(i % 2),
						      .time = 10 + i * 250000,
						      .ip = ips[k < distinct ? k : distinct - 1],
						      .period = 250000};
		if ((ret = hwprof_writer_add(w, &r)) < 0) {
			fprintf(stderr, "gen_synth: %s\n", strerror(-ret));
			return 2;
		}
	}
	t.samples = n;
	t.duration_ns = n * 250000 / 4;
	ret = hwprof_writer_close(w, &t);
	printf("gen_synth: %llu samples, %llu distinct addresses, %s\n", (unsigned long long)n,
	       (unsigned long long)distinct, argv[1]);
	free(ips);
	hwprof_header_release(&h);
	elf_end(e);
	close(fd);
	return ret < 0 ? 2 : 0;
}
