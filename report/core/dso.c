/* dso.c - DSO identity, the build-id check against the file as it is now, PT_LOAD segments. */
#include "dso.h"
#include "jitmap.h"
#include "textfmt.h"
#include "vdso.h"

#include "grow.h"
#include "strpool.h"
#include "symbolize.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

static int push(struct dso_table *t, struct strpool *pool, const char *path,
		const uint8_t *build_id, size_t build_id_size)
{
	struct dso *d;

	if (hwprof_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)) < 0)
		return -ENOMEM;
	d = &t->v[t->n];
	memset(d, 0, sizeof(*d));
	d->path = strpool_intern(pool, path);
	if (!d->path)
		return -ENOMEM;
	if (build_id_size > sizeof(d->build_id))
		build_id_size = sizeof(d->build_id);
	if (build_id_size)
		memcpy(d->build_id, build_id, build_id_size);
	d->build_id_size = (uint8_t)build_id_size;
	/* Kernel-made mappings and anonymous memory have no file to read. */
	if ((path[0] == '[' || !strncmp(path, "//anon", 6) || !strncmp(path, "/memfd:", 7) ||
	     path[0] != '/') &&
	    !(build_id_size && !strcmp(path, "[vdso]")))
		d->state = DSO_PSEUDO;
	return (int)t->n++;
}

int dso_table_init(struct dso_table *t, struct strpool *pool)
{
	memset(t, 0, sizeof(*t));
	if (push(t, pool, "[unknown]", NULL, 0) < 0 || push(t, pool, "[kernel]", NULL, 0) < 0)
		return -ENOMEM;
	return 0;
}

int dso_table_get(struct dso_table *t, struct strpool *pool, const char *path,
		  const uint8_t *build_id, size_t build_id_size, bool *same_path_other_id)
{
	const char *ipath = strpool_intern(pool, path);

	if (!ipath)
		return -ENOMEM;
	if (build_id_size > 20)
		build_id_size = 20;
	if (same_path_other_id)
		*same_path_other_id = false;
	/* Few DSOs per recording (tens), and MMAP records are rare next to samples. */
	for (size_t i = 2; i < t->n; i++) {
		struct dso *d = &t->v[i];
		if (d->path != ipath)
			continue;
		/* BUILD_ID may be NULL with a size of 0 (anonymous and JIT code). */
		if (d->build_id_size == build_id_size &&
		    (!build_id_size || !memcmp(d->build_id, build_id, build_id_size)))
			return (int)i;
		if (d->build_id_size && build_id_size && same_path_other_id)
			*same_path_other_id = true;
	}
	return push(t, pool, path, build_id, build_id_size);
}

void dso_table_release(struct dso_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		dso_sym_free(t->v[i].sym);
		jitmap_free(t->v[i].jit);
		free(t->v[i].loads);
		free(t->v[i].file);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}

void dso_build_id_hex(const uint8_t *id, size_t n, char *buf)
{
	static const char hex[] = "0123456789abcdef";

	if (n > 20)
		n = 20;
	for (size_t i = 0; i < n; i++) {
		buf[2 * i] = hex[id[i] >> 4];
		buf[2 * i + 1] = hex[id[i] & 15];
	}
	buf[2 * n] = '\0';
}

static int read_loads(struct dso *d, Elf *elf)
{
	size_t nph;

	if (elf_getphdrnum(elf, &nph) < 0)
		return -1;
	free(d->loads);
	d->nloads = 0;
	d->loads = calloc(nph ? nph : 1, sizeof(*d->loads));
	if (!d->loads)
		return -1;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		d->loads[d->nloads++] =
		    (struct dso_load){ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_memsz};
	}
	return d->nloads ? 0 : -1;
}

const char *dso_file(const struct dso *d)
{
	const char *image;

	if (d->file)
		return d->file;
	if (strcmp(d->path, "[vdso]"))
		return d->path;
	image = vdso_image_path();
	return image ? image : d->path;
}

void dso_set_identity(struct dso *d, const struct hwprof_rec_mmap *m)
{
	if (d->ino_known || d->stat_known)
		return;
	d->ino_known = m->ino_known;
	d->dev_major = m->dev_major;
	d->dev_minor = m->dev_minor;
	d->ino = m->ino;
	d->stat_known = m->stat_known;
	d->size = m->size;
	d->mtime_ns = m->mtime_ns;
}

/* NS (since the epoch) as "2026-12-01 19:56:08.149371964 UTC" into BUF. */
static const char *utc_time(uint64_t ns, char *buf, size_t len)
{
	time_t secs = (time_t)(ns / 1000000000u);
	struct tm tm;
	size_t n = 0;

	if (gmtime_r(&secs, &tm))
		n = strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%09u UTC", (unsigned)(ns % 1000000000u));
	return buf;
}

/* Whether file FD is not the one D recorded, by size and mtime (a rebuild writes both; a copy
 * made with cp -p or rsync -a keeps them, its inode does not), else by device and inode.
 * Writes to WHY what differs. */
static bool identity_changed(const struct dso *d, int fd, char *why, size_t whylen)
{
	struct stat st;
	uint64_t mtime;

	if ((!d->stat_known && !d->ino_known) || fstat(fd, &st) < 0)
		return false;
	mtime = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
	if (d->stat_known) {
		char then[48], now[48];

		if (d->size == (uint64_t)st.st_size && d->mtime_ns == mtime)
			return false;
		snprintf(why, whylen,
			 "%s: changed since the recording (%" PRIu64 " bytes modified %s then, "
			 "%" PRIu64 " bytes modified %s now) and no build-id tells whether it is "
			 "the build that ran",
			 d->path, d->size, utc_time(d->mtime_ns, then, sizeof(then)),
			 (uint64_t)st.st_size, utc_time(mtime, now, sizeof(now)));
		return true;
	}
	if (d->ino == (uint64_t)st.st_ino && d->dev_major == major(st.st_dev) &&
	    d->dev_minor == minor(st.st_dev))
		return false;
	snprintf(why, whylen,
		 "%s: another file since the recording (inode %" PRIu64 " then, %" PRIu64
		 " now) and no build-id tells whether it is the build that ran",
		 d->path, d->ino, (uint64_t)st.st_ino);
	return true;
}

/* Whether ELF, a file of SIZE bytes, holds the code its program headers name: a file with
 * the build's debug info only (objcopy --only-keep-debug: executable segments of no file
 * bytes) or cut short has the headers but not the code. */
static bool code_in_file(Elf *elf, uint64_t size)
{
	size_t nph;

	if (elf_getphdrnum(elf, &nph) < 0)
		return false;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		/* A segment of no file bytes (bss only) may carry any offset. */
		if ((ph.p_filesz && (ph.p_offset > size || ph.p_filesz > size - ph.p_offset)) ||
		    ((ph.p_flags & PF_X) && !ph.p_filesz))
			return false;
	}
	return true;
}

/* The state FILE (the path D ran from, or a copy of the build that ran) is in for D, and
 * D->loads its segments when DSO_OK (else none). On any other state writes one line to WHY naming
 * D->path and the reason. */
static enum dso_state check_file(struct dso *d, const char *file, char *why, size_t whylen)
{
	char want[41], have[41];
	enum dso_state state = DSO_OK;
	const void *bid = NULL;
	ssize_t bidlen;
	Elf *elf = NULL;
	struct stat st;
	/* Non-blocking, then checked: the path is the recording's, and a FIFO or a device
	 * there now would block open(2) or read(2) forever. */
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		if (errno == ENOENT)
			snprintf(why, whylen, "%s: deleted or moved since the recording", d->path);
		else
			hwprof_msgf(why, whylen, errno, "%s: %m since the recording", d->path);
		return DSO_MISSING;
	}
	/* A FIFO, directory or socket cannot be mapped: what is there now is not the file that
	 * ran. A device can (/dev/zero): one with no recorded build-id may be what ran. */
	if (fstat(fd, &st) < 0)
		st.st_mode = 0;
	if (!S_ISREG(st.st_mode)) {
		state = (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) && !d->build_id_size
			    ? DSO_NOT_ELF
			    : DSO_MISSING;
		snprintf(why, whylen, "%s: not a regular file now", d->path);
		goto out;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || read_loads(d, elf) < 0) {
		/* With a recorded build-id the file that ran was ELF; without one it may have
		 * been a mapped data file all along. */
		state = d->build_id_size ? DSO_MISMATCH : DSO_NOT_ELF;
		snprintf(why, whylen, "%s: not an ELF file with loadable segments now", d->path);
		goto out;
	}
	bidlen = dwelf_elf_gnu_build_id(elf, &bid);
	if (d->build_id_size &&
	    (bidlen != d->build_id_size || memcmp(bid, d->build_id, d->build_id_size))) {
		state = DSO_MISMATCH;
		dso_build_id_hex(d->build_id, d->build_id_size, want);
		if (bidlen > 0)
			dso_build_id_hex(bid, (size_t)bidlen, have);
		else
			strcpy(have, "none");
		snprintf(why, whylen,
			 "%s: rebuilt since the recording (build-id %s recorded, %s now)", d->path,
			 want, have);
		goto out;
	}
	if (!code_in_file(elf, (uint64_t)st.st_size)) {
		state = DSO_MISMATCH;
		snprintf(why, whylen,
			 "%s: without the code its program headers name now (cut short, or debug "
			 "info only)",
			 d->path);
		goto out;
	}
	if (!d->build_id_size && identity_changed(d, fd, why, whylen))
		state = DSO_MISMATCH;
out:
	if (state != DSO_OK) { /* the segments are only ever those of a file that passed */
		free(d->loads);
		d->loads = NULL;
		d->nloads = 0;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return state;
}

/* perf record keeps a copy of each sampled binary under its build-id (perf-buildid-cache(1));
 * perf sets PERF_BUILDID_DIR from its buildid.dir setting for the commands it runs. A copy is
 * taken only when its own build-id is the recorded one. Sets D->file; returns whether found. */
static bool from_buildid_cache(struct dso *d)
{
	const char *dir = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	char hex[41], path[PATH_MAX], why[768];

	if (!d->build_id_size || d->build_id_size > 20)
		return false;
	if (!dir || !*dir) {
		if (!home || !*home)
			return false;
		dir = NULL;
	}
	dso_build_id_hex(d->build_id, d->build_id_size, hex);
	/* perf names the copy elf (a vDSO's: vdso); older perfs made the entry the file. */
	for (int k = 0; k < 3; k++) {
		const char *name = k == 0 ? "/elf" : k == 1 ? "/vdso" : "";
		int n;

		if (k == 1 && strcmp(d->path, "[vdso]"))
			continue;
		n = snprintf(path, sizeof(path), "%s%s/.build-id/%.2s/%s%s", dir ? dir : home,
			     dir ? "" : "/.debug", hex, hex + 2, name);
		if (n > 0 && (size_t)n < sizeof(path) &&
		    check_file(d, path, why, sizeof(why)) == DSO_OK)
			return (d->file = strdup(path)) != NULL;
	}
	return false;
}

int dso_check(struct dso *d, char *why, size_t whylen)
{
	size_t plen = strlen(d->path);

	if (d->state != DSO_UNCHECKED)
		return d->state == DSO_OK ? 0 : -1;
	why[0] = '\0';
	elf_version(EV_CURRENT);
	/* The kernel marks a mapping whose file was unlinked; a new file at that path is not
	 * the one that ran. */
	if (plen > 10 && !strcmp(d->path + plen - 10, " (deleted)")) {
		d->state = DSO_MISSING;
		snprintf(why, whylen, "%s: deleted before the recording ended", d->path);
	} else {
		d->state = check_file(d, dso_file(d), why, whylen);
	}
	if ((d->state == DSO_MISSING || d->state == DSO_MISMATCH) && from_buildid_cache(d)) {
		d->state = DSO_OK;
		why[0] = '\0';
	}
	return d->state == DSO_OK ? 0 : -1;
}

bool dso_offset_to_vaddr(const struct dso *d, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < d->nloads; i++) {
		const struct dso_load *l = &d->loads[i];
		if (off >= l->offset && off - l->offset < l->filesz) {
			*vaddr = off - l->offset + l->vaddr;
			return true;
		}
	}
	return false;
}

bool dso_offset_to_vaddr_mem(const struct dso *d, uint64_t off, uint64_t *vaddr)
{
	const struct dso_load *in_mem = NULL;

	if (dso_offset_to_vaddr(d, off, vaddr))
		return true;
	for (size_t i = 0; i < d->nloads; i++) {
		const struct dso_load *l = &d->loads[i];
		if (off >= l->offset && off - l->offset < l->memsz &&
		    (!in_mem || l->offset > in_mem->offset))
			in_mem = l;
	}
	if (in_mem)
		*vaddr = off - in_mem->offset + in_mem->vaddr;
	return in_mem != NULL;
}
