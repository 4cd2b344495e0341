/* outfile.h - the sample file's life around the writer: created before the target runs,
 * kept when a write fails after the header, removed (and FILE.old put back) when the recording
 * fails before anything was written.
 */
#ifndef HWPROF_RECORD_OUTFILE_H
#define HWPROF_RECORD_OUTFILE_H

#include <stdbool.h>

struct outfile {
	const char *path; /* -o; not owned */
	int fd;		  /* opened and locked by outfile_create; -1 before, or once taken */
	bool created;	  /* a regular file of ours, removed by outfile_close on failure */
	bool renamed_old; /* an existing PATH was moved to PATH.old by outfile_create */
};

/* Sets O up for PATH (not copied: it must outlive O), nothing opened. */
void outfile_init(struct outfile *o, const char *path);

/* Moves an existing non-empty regular file PATH to PATH.old, as perf does, and creates PATH
 * (truncated), so that an unwritable path is reported before the target runs. A regular file
 * stays locked with flock(2) while O->fd is open: a second record into the same file is
 * refused. Refuses an ELF file, a directory, and what is neither a regular file nor a
 * character device (a FIFO would block). Returns 0 with O->fd open, or -1 after an error
 * message naming PATH and a way out (PATH.old is then back in place). */
int outfile_create(struct outfile *o);

/* Hands O->fd to its new owner (the writer): returns it and sets O->fd to -1. */
int outfile_take_fd(struct outfile *o);

/* Prints the error for PATH failing with the positive errno ERR when opened or created
 * (EMFILE: raise 'ulimit -n'; EWOULDBLOCK: another record writes it). Returns -1. */
int outfile_error(const char *path, int err);

/* A write to O failed with -ERR after the header: the blocks written before are whole and
 * report reads them as a file cut short, so the file is kept from now on (outfile_close does
 * not remove it). Prints the error with a way out that fits ERR (ENOSPC, EFBIG, EDQUOT).
 * Returns -1. */
int outfile_write_failed(struct outfile *o, int err);

/* Closes O->fd when it was not taken. FAILED: the recording failed, so a file O created (and
 * not kept by outfile_write_failed) is removed and PATH.old renamed back to PATH. */
void outfile_close(struct outfile *o, bool failed);

#endif
