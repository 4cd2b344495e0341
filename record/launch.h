/* launch.h - starting the target behind a handshake.
 *
 * The child is forked first and waits on a pipe, so that record can open its events on the
 * child's pid (with enable_on_exec: counting starts at the exec, nothing of hwprof is counted)
 * before the target runs. Releasing it execs the command; an exec failure comes back to the
 * parent through a close-on-exec pipe: an empty read means the exec succeeded.
 */
#ifndef HWPROF_RECORD_LAUNCH_H
#define HWPROF_RECORD_LAUNCH_H

#include <stddef.h>
#include <sys/types.h>

struct launch {
	pid_t pid;  /* the child, or -1 */
	int go_fd;  /* write end of the handshake pipe: one byte releases the child */
	int err_fd; /* read end of the exec-error pipe (the child's errno, 4 bytes) */
};

/* Whether FILE can be executed as execvp(3) would find it: searched in $PATH when it has no
 * '/'. Returns 0, or the errno execvp would most likely report (ENOENT, EACCES for a file
 * without execute permission, EISDIR for a directory). A check before forking only: the exec itself
 * has the last word (launch_go). */
int launch_check(const char *file);

/* One line for an exec failure of FILE with errno ERR (from launch_check or launch_go), for
 * record and stat alike: the cause and what to do, e.g. "./run.sh: bad interpreter
 * '/no/such/sh' (check the #! line)" when ENOENT comes from a missing interpreter, or
 * "adir: Is a directory (name a program, not a directory)". Written to BUF, returned. */
const char *launch_strerror(const char *file, int err, char *buf, size_t len);

/* Forks a child that waits for launch_go() and then runs execvp(ARGV[0], ARGV). The child
 * restores the signal mask it inherited to an empty one. Returns 0 with L filled, or -errno
 * (pipe/fork failed). */
int launch_prepare(struct launch *l, char *const argv[]);

/* Releases the child and waits for its exec. Returns 0 when the exec succeeded, the positive
 * errno of execvp when it failed (the child then exits with 127; the caller still reaps it),
 * or -errno when the handshake itself failed. Closes both pipe ends. */
int launch_go(struct launch *l);

/* Ends a child that was never released (closing the handshake pipe makes it exit) and reaps
 * it. Accepts a launch whose pid is -1. */
void launch_abort(struct launch *l);

#endif
