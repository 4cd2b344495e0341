/* dso.h - the mapped files of a profile (DSOs): identity, build-id check, load segments.
 *
 * A DSO is identified by its recorded path and build-id, so that two builds of one path
 * (rebuilt between two merged recordings) stay apart. Before symbolizing, dso_check() opens
 * the file as it is now, compares its build-id with the recorded one and reads the PT_LOAD
 * program headers that turn a file offset into a link-time address.
 */
#ifndef HWPROF_REPORT_DSO_H
#define HWPROF_REPORT_DSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/sampfile.h"

struct strpool;
struct dso_sym;

enum dso_state {
	DSO_UNCHECKED, /* dso_check() not called yet */
	DSO_OK,	       /* file present, build-id matches (or none was recorded) */
	DSO_MISSING,   /* file deleted or unreadable, or now what cannot be mapped (a FIFO) */
	DSO_MISMATCH,  /* build-id differs, not ELF now where one was recorded, or no code */
	DSO_NOT_ELF,   /* not an ELF file, or no PT_LOAD covers the mapping */
	DSO_PSEUDO,    /* [unknown], [kernel], [vdso], anonymous memory: no file */
};

/* One PT_LOAD program header (ELF gABI): file bytes [offset, offset+filesz) are at link-time
 * address vaddr. */
struct dso_load {
	uint64_t offset, vaddr, filesz, memsz;
};

struct dso {
	const char *path;     /* as recorded (interned); "[unknown]", "[kernel]", ... */
	uint8_t build_id[20]; /* recorded; build_id_size 0 = none recorded */
	uint8_t build_id_size;
	enum dso_state state;
	bool warned; /* the state's warning was given */
	struct dso_load *loads;
	size_t nloads;
	char *file;	     /* the build that ran, found in perf's build-id cache when PATH is no
			      * longer it (dso_check()); NULL: PATH (dso_file()). Owned */
	struct dso_sym *sym; /* symbolize.c's state (Dwfl), NULL until opened */
	struct jitmap *jit;  /* a JIT's map of a process's anonymous code (jitmap.h): the
			      * DSO's path is the map file's, its offsets are the process's
			      * addresses; NULL for any other DSO */
	/* The file as it was when recording (format 1.1 MMAP records; dso_set_identity()), for
	 * telling a rebuild when no build-id was recorded. */
	bool ino_known;		       /* DEV_MAJOR, DEV_MINOR, INO known */
	bool stat_known;	       /* SIZE, MTIME_NS known */
	uint32_t dev_major, dev_minor; /* stat(2) st_dev */
	uint64_t ino, size, mtime_ns;  /* st_ino, st_size (bytes), st_mtim (ns since the epoch) */
};

/* Reserved indices of every table. */
enum { DSO_ID_UNKNOWN = 0, DSO_ID_KERNEL = 1 };

struct dso_table {
	struct dso *v;
	size_t n, cap;
};

/* Initialises T with the two reserved entries. Returns 0 or -ENOMEM. */
int dso_table_init(struct dso_table *t, struct strpool *pool);

/* The index of (PATH, BUILD_ID) in T, added when new. SAME_PATH_OTHER_ID (may be NULL) is
 * set when T already has PATH with a different recorded build-id. Returns the index (>= 0)
 * or -ENOMEM. */
int dso_table_get(struct dso_table *t, struct strpool *pool, const char *path,
		  const uint8_t *build_id, size_t build_id_size, bool *same_path_other_id);

/* Frees T's arrays (and through symbolize.c each DSO's Dwfl). */
void dso_table_release(struct dso_table *t);

/* The file to read for D: the build-id cache's copy when dso_check() took one, else its
 * recorded path, or for a "[vdso]" with a build-id the image of the running vDSO (vdso.h). */
const char *dso_file(const struct dso *d);

/* Keeps M's file identity in D when D has none yet (the first MMAP of the DSO decides). */
void dso_set_identity(struct dso *d, const struct hwprof_rec_mmap *m);

/* Opens D's file and sets D->state and D->loads (none unless DSO_OK). Without a recorded
 * build-id, a file whose size or mtime (else device and inode) differ from the recorded ones
 * is DSO_MISMATCH: no build-id can tell whether it is the build that ran, so none of its
 * lines is claimed. A file without the code its program headers name (cut short, debug info
 * only) is DSO_MISMATCH too. A file deleted or rebuilt whose recorded build-id is in perf's
 * build-id cache (perf-buildid-cache(1): DIR/.build-id/xx/rest/elf, a [vdso]'s
 * .../rest/vdso, or older perfs' DIR/.build-id/xx/rest; DIR is $PERF_BUILDID_DIR, else
 * $HOME/.debug) is read from there: DSO_OK with D->file set. On any state but DSO_OK writes
 * one line to WHY (WHYLEN bytes) naming the file and the reason. Returns 0 when the DSO can
 * be symbolized, else -1. */
int dso_check(struct dso *d, char *why, size_t whylen);

/* Link-time address of file offset OFF of D through its PT_LOAD headers: the segment with
 * p_offset <= OFF < p_offset + p_filesz gives OFF - p_offset + p_vaddr. Returns false when no
 * segment covers OFF. This is what makes lld binaries (p_vaddr != p_offset) right, where
 * "ip - map start + pgoff" alone is not an address. */
bool dso_offset_to_vaddr(const struct dso *d, uint64_t off, uint64_t *vaddr);

/* dso_offset_to_vaddr() for data: OFF may lie past a segment's file bytes, in its p_memsz
 * (.bss: the loader maps it as anonymous memory after the file's pages, and data.h counts
 * that memory's offsets on from the file's). A segment holding OFF in its file bytes wins. */
bool dso_offset_to_vaddr_mem(const struct dso *d, uint64_t off, uint64_t *vaddr);

/* Formats a build-id as lowercase hex into BUF (room for 41 bytes). */
void dso_build_id_hex(const uint8_t *id, size_t n, char *buf);

#endif
