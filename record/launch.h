/* launch.h - starting the target behind a handshake.
 *
 * The child is forked first and waits on a pipe, so that record can open its events on the
 * child's pid (with enable_on_exec: counting starts at the exec, nothing of hwprof is counted)
 * before the target runs. Releasing it execs the command; an exec failure comes back to the
 * parent through a close-on-exec pipe: an empty read means the exec succeeded.
 */
#ifndef HWPROF_RECORD_LAUNCH_H
#define HWPROF_RECORD_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct launch {
	pid_t pid;  /* the child, or -1 */
	int go_fd;  /* write end of the handshake pipe: one byte releases the child */
	int err_fd; /* read end of the exec-error pipe (the child's errno, 4 bytes) */
	pid_t pgid; /* the child's own process group (its pid), or 0 when setpgid failed */
	bool tty;   /* the terminal was handed to the child's group (tcsetpgrp) */
};

/* Whether FILE can be executed as execvp(3) would find it: searched in $PATH when it has no
 * '/'. Returns 0, or the errno execvp would most likely report (ENOENT, EACCES for a file
 * without execute permission, EISDIR for a directory). A check before forking only: the exec itself
 * has the last word (launch_go). */
int launch_check(const char *file);

/* launch_check() that also writes the path execvp(3) would run to OUT (OUTLEN bytes; FILE
 * itself when it has a '/'), so that a caller can tell whether another file is the program.
 * OUT may be NULL. Returns 0, an errno as launch_check, or ENAMETOOLONG when OUT is short. */
int launch_resolve(const char *file, char *out, size_t outlen);

/* One line for an exec failure of FILE with errno ERR (from launch_check or launch_go), for
 * record and stat alike: the cause and what to do, e.g. "./run.sh: bad interpreter
 * '/no/such/sh' (check the #! line)" when ENOENT comes from a missing interpreter, or
 * "adir: Is a directory (name a program, not a directory)". Written to BUF, returned. */
const char *launch_strerror(const char *file, int err, char *buf, size_t len);

/* Forks a child that waits for launch_go() and then runs execvp(ARGV[0], ARGV). The child
 * restores the signal mask it inherited to an empty one and is put in a process group of its
 * own (setpgid, by both sides: whichever runs first), so that stopping the target reaches its
 * children too (launch_kill), as a shell does for a job. Returns 0 with L filled, or -errno
 * (pipe/fork failed). */
int launch_prepare(struct launch *l, char *const argv[]);

/* Releases the child and waits for its exec. When hwprof is in the foreground of its
 * terminal (the first of stdin, stdout, stderr that is one), the terminal is first handed to
 * the child's group (tcsetpgrp(3)), so that ^C, ^Z and a full-screen target work as without
 * hwprof; launch_reclaim_tty() takes it back (launch_go itself when the exec failed).
 * Returns 0 when the exec succeeded, the positive errno of execvp when it failed (the child
 * then exits with 127; the caller still reaps it), or -errno when the handshake itself
 * failed. Closes both pipe ends. */
int launch_go(struct launch *l);

/* Sends SIG to the child's process group (to the child alone when it has none). Returns 0
 * or -errno of kill(2): -ESRCH when no process of the group is left. SIG 0 probes. */
int launch_kill(const struct launch *l, int sig);

/* Takes the terminal back from the child's group when launch_go() handed it over and the
 * group still has it (a shell that took it meanwhile keeps it). SIGTTOU is blocked around
 * tcsetpgrp(3): hwprof is then a background group of the terminal. */
void launch_reclaim_tty(struct launch *l);

/* For a child found stopped by signal SIG (waitpid WUNTRACED): a job-control stop (SIGTSTP,
 * SIGTTIN, SIGTTOU) stops hwprof too, with the terminal given back, so the shell sees its job
 * stopped; when hwprof is continued (fg, bg) the terminal goes to the child's group again if
 * hwprof is in the foreground, and the group gets SIGCONT. Other stops (SIGSTOP from a
 * debugger, say) are left alone. */
void launch_suspend(struct launch *l, int sig);

/* Ends a child that was never released (closing the handshake pipe makes it exit) and reaps
 * it. Accepts a launch whose pid is -1. */
void launch_abort(struct launch *l);

#endif
