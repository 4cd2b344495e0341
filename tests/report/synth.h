/* synth.h - the start and end of a synthetic recording of a real binary, for the generators
 * of tests/report (gen_case: small cases; gen_synth: report's speed).
 */
#ifndef HWPROF_TESTS_SYNTH_H
#define HWPROF_TESTS_SYNTH_H

#include "hwprof/sampfile.h"

#include <libelf.h>
#include <stdint.h>

struct synth {
	struct hwprof_writer *w;
	struct hwprof_file_header h;
	uint64_t base;	 /* where the binary's file offset 0 is "mapped" */
	uint64_t off;	 /* file offset of its first executable PT_LOAD */
	uint64_t filesz; /* that segment's size in bytes */
	Elf *elf;
	int fd;
};

/* Opens OUT for a recording of one process (pid 1000, comm COMM) that ran CMD with the NEV
 * events EV, and writes its COMM record and the MMAP of BINARY's executable segment, with the
 * binary's build-id. Samples at S->base + S->off + [0, S->filesz) then fall in it. Returns 0,
 * or 2 after a message on stderr naming TOOL. */
int synth_begin(struct synth *s, const char *tool, const char *out, const char *binary,
		const char *cmd, const char *comm, const struct hwprof_file_event *ev,
		uint32_t nev);

/* Writes the trailer T and closes everything S holds. Returns 0, or 2 when the file could not
 * be completed. */
int synth_end(struct synth *s, struct hwprof_file_trailer *t);

#endif
