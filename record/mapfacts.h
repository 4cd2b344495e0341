/* mapfacts.h - what record adds to a mapping's MMAP record from the mapped file itself: its
 * build-id when the kernel left it out, and its stat(2) identity, so that report can tell the
 * file it opens from the one that was mapped.
 */
#ifndef HWPROF_RECORD_MAPFACTS_H
#define HWPROF_RECORD_MAPFACTS_H

#include <stdint.h>

#include "hwprof/sampfile.h"

/* The build-ids of the files read last, by path (a library is mapped by every process). */
struct mapfacts {
	struct {
		char path[4096];
		uint8_t id[20];
		int size; /* buildid_read()'s return: bytes of ID, or -errno */
	} cache[32];
	unsigned next; /* the entry replaced next */
};

/* When M (a mapping of a file, by absolute path) has no build-id, reads the file's
 * (buildid_read(), once per path while F remembers it) into M. A file without one leaves M
 * as it was. */
void mapfacts_build_id(struct mapfacts *f, struct hwprof_rec_mmap *m);

/* Sets M's size, mtime, device and inode from stat(2) of its file now (ino_known,
 * stat_known), unless the file is not a regular one or was replaced since it was mapped
 * (another inode than M's). */
void mapfacts_identity(struct hwprof_rec_mmap *m);

#endif
