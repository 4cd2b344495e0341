/* outfile.c - creating, keeping and removing record's sample file (see outfile.h). */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* Room for PATH.old, PATH being at most PATH_MAX (4096) bytes. */
#define OLD_MAX 4200

void outfile_init(struct outfile *o, const char *path)
{
	*o = (struct outfile){.path = path, .fd = -1};
}

/* Whether another process holds the lock of the existing regular file PATH: a record writing
 * it. Two records into one file would interleave their blocks into a corrupt file. */
static bool busy(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), busy;
	struct stat st;

	if (fd < 0)
		return false;
	busy = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) < 0 &&
	       errno == EWOULDBLOCK;
	close(fd); /* releases the lock it may have taken */
	return busy;
}

int outfile_error(const char *path, int err)
{
	if (err == EMFILE || err == ENFILE)
		return error_errno(err, "%s: %m (raise 'ulimit -n')", path);
	if (err == EWOULDBLOCK)
		return error("%s: another 'hwprof record' is writing it (choose another file with "
			     "-o)",
			     path);
	return error_errno(err, "%s: %m (choose a writable path with -o)", path);
}

int outfile_create(struct outfile *o)
{
	const char *path = o->path;
	struct stat st;
	char old[OLD_MAX];
	int fd, e;

	if (busy(path))
		return outfile_error(path, EWOULDBLOCK);
	/* `-o ./prog` would move a program aside to prog.old. */
	if (cli_is_elf(path))
		return error("%s: an ELF file (a program or library), not a sample file: not "
			     "replaced (choose another file with -o)",
			     path);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		snprintf(old, sizeof(old), "%s.old", path);
		if (rename(path, old) < 0)
			return error("%s: cannot rename to %s: %m (choose another file with -o)",
				     path, old);
		o->renamed_old = true;
	} else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		return error("%s: is a directory (name a file with -o)", path);
	} else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
		/* A FIFO would block until a reader comes; a socket cannot be opened. */
		return error("%s: not a regular file (name a file with -o)", path);
	}
	/* Truncated only once locked: a record that started meanwhile keeps its file. */
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || fstat(fd, &st) < 0) {
		e = errno;
		goto fail;
	}
	if (S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) < 0) {
		e = errno;
		goto fail;
	}
	if (S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0) {
		e = errno;
		goto fail;
	}
	/* Only a regular file of ours may be removed when recording fails: never a device
	 * such as /dev/null or /dev/full. */
	o->created = S_ISREG(st.st_mode);
	o->fd = fd;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	/* The previous file back, unless another record holds the name now. */
	if (o->renamed_old && e != EWOULDBLOCK) {
		rename(old, path);
		o->renamed_old = false;
	}
	return outfile_error(path, e);
}

int outfile_take_fd(struct outfile *o)
{
	int fd = o->fd;

	o->fd = -1;
	return fd;
}

int outfile_write_failed(struct outfile *o, int err)
{
	const char *way = err == -ENOSPC   ? "free some space or choose another -o"
			  : err == -EFBIG  ? "raise 'ulimit -f' or choose another -o"
			  : err == -EDQUOT ? "raise the disk quota or choose another -o"
					   : "choose another -o";

	o->created = false;
	return error_errno(err,
			   "%s: %m: recording stopped; the samples written before are kept, read "
			   "as cut short (%s)",
			   o->path, way);
}

void outfile_close(struct outfile *o, bool failed)
{
	char old[OLD_MAX];

	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (!failed || !o->created)
		return;
	unlink(o->path);
	if (o->renamed_old) {
		snprintf(old, sizeof(old), "%s.old", o->path);
		rename(old, o->path);
	}
}
