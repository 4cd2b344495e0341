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
#include <termios.h>

struct launch {
	pid_t pid;	 /* the child, or -1 */
	int go_fd;	 /* write end of the handshake pipe: one byte releases the child */
	int err_fd;	 /* read end of the exec-error pipe (the child's errno, 4 bytes) */
	pid_t pgid;	 /* the child's own process group (its pid) when hwprof has no controlling
			  * terminal; 0: the child shares hwprof's group (see launch_prepare) */
	bool have_modes; /* MODES holds the terminal's modes before the launch */
	struct termios modes; /* of stdin, when hwprof ran in its terminal's foreground */
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

/* Whether PATH names the very file (same device and inode) that FILE runs, FILE found as
 * execvp(3) would: -o must not write over the program it measures. False when either is
 * missing. */
bool launch_is_program(const char *file, const char *path);

/* A wait status as a shell's exit status: the exit code, 128+N for a death by signal N,
 * EXIT_FATAL (2) for anything else. */
int launch_exit_status(int wstatus);

/* One line for an exec failure of FILE with the positive errno ERR (from launch_check or
 * launch_go), for record and stat alike: the cause and what to do, e.g. "./run.sh: bad interpreter
 * '/no/such/sh' (check the #! line)" when ENOENT comes from a missing interpreter, or
 * "adir: Is a directory (name a program, not a directory)". Written to BUF, returned. */
const char *launch_strerror(const char *file, int err, char *buf, size_t len);

/* Adapts this process to the limits a recording meets, for record and stat:
 * - raises the soft RLIMIT_NOFILE to its hard limit: they hold one perf_event fd per event,
 *   CPU and thread (perf_event_open(2)), and the usual soft limit of 1024 runs out on a
 *   process of a few hundred threads;
 * - ignores SIGXFSZ (when it was not handled), so that an output past RLIMIT_FSIZE ('ulimit
 *   -f') fails a write with EFBIG, which is reported, instead of killing hwprof silently.
 * A target launched afterwards gets the limit and the disposition hwprof started with back
 * before its exec (launch_prepare): programs that use select(2) rely on 1024. Idempotent;
 * best effort (a failed getrlimit/setrlimit keeps the limit). */
void launch_adjust_limits(void);

/* Forks a child that waits for launch_go() and then runs execvp(ARGV[0], ARGV). The child
 * restores the signal mask it inherited to an empty one. On a terminal the child stays in
 * hwprof's process group, as perf's target does: the shell's job control (^C, ^Z, fg, a
 * pipeline whose commands all read the terminal) then works on hwprof and the target as one
 * job. Without a controlling terminal (a script, CI, a daemon) nobody else would end the
 * target's children, so the child gets a group of its own (setpgid, by both sides) for
 * launch_kill. Saves the terminal's modes when hwprof is in its foreground
 * (launch_restore_tty). Returns 0 with L filled, or -errno (pipe/fork failed). */
int launch_prepare(struct launch *l, char *const argv[]);

/* Releases the child and waits for its exec. Returns 0 when the exec succeeded, the positive errno
 * of execvp when it failed (the child then exits with 127; the caller still reaps it), or -errno
 * when the handshake itself failed. Closes both pipe ends. */
int launch_go(struct launch *l);

/* Sends SIG to the child's own process group, or to the child alone when it shares hwprof's
 * (the caller then signals the descendants it knows). Returns 0 or -errno of kill(2): -ESRCH
 * when nothing is left. SIG 0 probes. */
int launch_kill(const struct launch *l, int sig);

/* After the child ended with wait status WSTATUS: when a signal killed it, the terminal's
 * modes saved at launch_prepare are set again (a full-screen target killed in raw mode leaves
 * it so), as a job-control shell does for a job killed by a signal. */
void launch_restore_tty(const struct launch *l, int wstatus);

/* For hwprof stopped by signal SIG (SIGINT, SIGTERM, SIGHUP) whose child then died by a
 * signal (wait status WSTATUS): hwprof ends itself by SIG, as perf does, so that the shell
 * sees a job killed by a signal (a script's loop stops at ^C; the exit status is 128+SIG).
 * For after the caller's last output. Returns when it does not apply. */
void launch_die_like(int sig, int wstatus);

/* Ends a child that was never released (closing the handshake pipe makes it exit) and reaps
 * it. Accepts a launch whose pid is -1. */
void launch_abort(struct launch *l);

#endif
