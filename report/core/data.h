/* data.h - the data side of a profile: each sample's data address (record --data) to the
 * object it touched.
 *
 * While the inputs are read, the data mappings (MMAP records without PROT_EXEC: heap, stack,
 * anonymous memory, files; attr.mmap_data) are replayed per process as the code mappings are
 * (maps.h), and every shown sample with an address keeps (region, offset, instruction, data
 * source, weight). A file mapped from its first byte is an image (an ELF file's loaders map
 * the span of all its segments first): its later segments and the private writable anonymous
 * memory inside that span or right after it (.bss) are the image's. Anonymous
 * memory within 1 GiB after the program's .bss is its brk heap (the kernel puts the heap
 * there, arch_randomize_brk(), and names its growth "//anon"), and an address below the main
 * stack's mapping, within 256 MiB, is the stack grown down by a fault (no MMAP record tells
 * that growth); a stack's offsets count down from its top. At the end
 * (data_finish) each file that is also mapped as code (an ELF image, struct dso) resolves its
 * offsets to its variables (datavars.h); the rest keep region names. The samples are then
 * folded into profile.data.
 */
#ifndef HWPROF_REPORT_CORE_DATA_H
#define HWPROF_REPORT_CORE_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/sampfile.h"
#include "profile.h"

struct dso;
struct dso_table;
struct maps;
struct strpool;

struct data_region {
	enum profile_data_kind kind; /* HEAP, STACK, ANON or FILE */
	const char *name;	     /* interned: "[heap]", "[stack]", "[anon]", the path */
	bool image;		     /* FILE: an ELF image's mappings, its offsets from the image's
				      * start (its lowest segment's page), .bss included; else file
				      * offsets */
};

/* A file mapped from offset 0 in a process, and the span its mappings cover so far. */
struct data_image {
	uint32_t region;
	uint64_t base, end; /* run-time addresses */
};
#define DATA_IMAGES_MAX 64 /* per process; more: their data shows as [anon] and file+0xOFF */

struct data_raw {
	uint32_t region; /* index in regions, UINT32_MAX: no mapping */
	uint32_t loc;	 /* location id of the instruction */
	uint64_t offset; /* FILE: the file offset; else the address */
	uint64_t start;	 /* the mapping's run-time start (FILE: start - pgoff) */
	uint64_t data_src;
	uint32_t weight;
	double period;
};

/* Per process: where its program's .bss ends (the brk heap starts within 32 MiB after it) and
 * its main stack (which grows down on faults without an MMAP record). */
struct data_proc {
	uint32_t pid;
	struct data_image images[DATA_IMAGES_MAX];
	size_t nimages;
	uint64_t bss_end;		 /* 0: not seen */
	uint64_t stack_start, stack_end; /* 0, 0: not seen */
	uint32_t stack_region;
};

struct data_collect {
	struct maps *maps; /* of the current input: map.dso is a region index */
	struct data_proc *procs;
	size_t nprocs, cap_procs;
	struct data_region *regions;
	size_t nregions, cap_regions;
	struct data_raw *raw; /* mmap(2)ed, grown by mremap(2): data.c frees it */
	size_t nraw, cap_raw;
	bool weighted, has_src;
};

/* Empties D for a new profile. Returns 0 or -ENOMEM. */
int data_init(struct data_collect *d);

/* A new input: its processes are its own. Returns 0 or -ENOMEM. */
int data_begin_input(struct data_collect *d);

/* Mapping M: a data mapping (no PROT_EXEC), or a code mapping, for the span of its image
 * only. Returns 0 or -ENOMEM. */
int data_mmap(struct data_collect *d, struct strpool *pool, const struct hwprof_rec_mmap *m);

/* FORK and exec, as maps_fork() and maps_exec() take them. Return 0 or -ENOMEM. */
int data_fork(struct data_collect *d, uint32_t pid, uint32_t ppid, uint64_t time);
void data_exec(struct data_collect *d, uint32_t pid, uint64_t time);

/* Sample S (its addr non-zero) of the shown event, whose instruction is location LOC. Returns 0
 * or -ENOMEM. */
int data_sample(struct data_collect *d, const struct hwprof_rec_sample *s, uint32_t loc);

/* What data_finish() asks of the builder: the DSO that is the ELF image at PATH (a code
 * mapping of the same path), opened for symbolization, or NULL when there is none or it cannot
 * be read. */
typedef struct dso *(*data_dso_fn)(void *ctx, const char *path);

/* Resolves and folds the samples into P->data (the locations KEEP says, given by id) and
 * frees the samples. Returns 0 or -ENOMEM. */
int data_finish(struct data_collect *d, struct profile *p, data_dso_fn dso_of, void *ctx,
		bool (*keep)(void *ctx, uint32_t loc));

/* Frees D. */
void data_release(struct data_collect *d);

#endif
