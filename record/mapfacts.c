/* mapfacts.c - a mapped file's build-id and identity for its MMAP record (see mapfacts.h). */
#include "mapfacts.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "buildid.h"

/* The kernel leaves the build-id out of MMAP2 when it could not read it without faulting. */
void mapfacts_build_id(struct mapfacts *f, struct hwprof_rec_mmap *m)
{
	unsigned i, n = sizeof(f->cache) / sizeof(f->cache[0]);
	int size;

	if (m->build_id_size || m->filename[0] != '/')
		return;
	for (i = 0; i < n; i++) {
		if (!strcmp(f->cache[i].path, m->filename)) {
			size = f->cache[i].size;
			goto found;
		}
	}
	i = f->next++ % n;
	snprintf(f->cache[i].path, sizeof(f->cache[i].path), "%s", m->filename);
	size = f->cache[i].size = buildid_read(m->filename, f->cache[i].id);
found:
	if (size > 0) {
		m->build_id_size = (uint8_t)size;
		memcpy(m->build_id, f->cache[i].id, (size_t)size);
	}
}

/* Report compares these with the file it opens when no build-id can tell a rebuild. A file
 * replaced since it was mapped (another inode than MMAP2's) is not the one mapped: its facts
 * stay MMAP2's. The device is stat(2)'s, as report will see it: on overlayfs MMAP2 names the
 * layer's device. */
void mapfacts_identity(struct hwprof_rec_mmap *m)
{
	struct stat st;

	if (m->filename[0] != '/' || stat(m->filename, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	if (m->ino_known && m->ino != st.st_ino)
		return;
	m->ino_known = true;
	m->dev_major = major(st.st_dev);
	m->dev_minor = minor(st.st_dev);
	m->ino = st.st_ino;
	m->stat_known = true;
	m->size = (uint64_t)st.st_size;
	m->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
}
