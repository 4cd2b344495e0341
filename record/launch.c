/* launch.c - fork, wait for the go byte, execvp; exec errors reported through a pipe. */
#include "launch.h"
#include "textfmt.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

static int check_path(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno;
	if (S_ISDIR(st.st_mode))
		return EISDIR;
	return access(path, X_OK) < 0 ? errno : 0;
}

/* The interpreter named by FILE's "#!" line into BUF, or "" when it has none. */
static void shebang(const char *file, char *buf, size_t len)
{
	char line[PATH_MAX + 2] = "";
	FILE *f = fopen(file, "re");

	buf[0] = 0;
	if (!f)
		return;
	if (fgets(line, sizeof(line), f) && line[0] == '#' && line[1] == '!') {
		char *p = line + 2;
		p += strspn(p, " \t");
		p[strcspn(p, " \t\r\n")] = 0;
		snprintf(buf, len, "%s", p);
	}
	fclose(f);
}

const char *launch_strerror(const char *file, int err, char *buf, size_t len)
{
	char interp[PATH_MAX];

	if (!*file) {
		snprintf(buf, len, "'': empty command name (name a program after --)");
		return buf;
	}
	/* execve answers ENOENT for a script whose interpreter is missing: the file is there. */
	if (err == ENOENT && strchr(file, '/') && access(file, F_OK) == 0) {
		shebang(file, interp, sizeof(interp));
		if (interp[0]) {
			snprintf(buf, len, "%s: bad interpreter '%s' (check the #! line)", file,
				 interp);
			return buf;
		}
	}
	const char *advice = err == ENOENT    ? "check the path, or the name in $PATH"
			     : err == EACCES  ? "is it an executable file? try chmod +x"
			     : err == EISDIR  ? "name a program, not a directory"
			     : err == ENOEXEC ? "not a program this machine can run"
					      : "check the command";
	hwprof_msgf(buf, len, err, "%s: %m (%s)", file, advice);
	return buf;
}

int launch_check(const char *file)
{
	return launch_resolve(file, NULL, 0);
}

int launch_resolve(const char *file, char *out, size_t outlen)
{
	const char *path, *p;
	char buf[PATH_MAX];
	int err = ENOENT;

	if (!*file)
		return ENOENT;
	if (strchr(file, '/')) {
		err = check_path(file);
		if (!err && out && snprintf(out, outlen, "%s", file) >= (int)outlen)
			return ENAMETOOLONG;
		return err;
	}
	path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p++) {
		const char *end = strchrnul(p, ':');
		int len = (int)(end - p), e;

		/* An empty PATH element means the current directory, as in execvp(3). */
		if (snprintf(buf, sizeof(buf), "%.*s%s%s", len, p, len ? "/" : "", file) <
		    (int)sizeof(buf)) {
			e = check_path(buf);
			if (!e) {
				if (out && snprintf(out, outlen, "%s", buf) >= (int)outlen)
					return ENAMETOOLONG;
				return 0;
			}
			/* A file found but not executable explains more than "not found". */
			if (e != ENOENT && e != ENOTDIR)
				err = e;
		}
		if (!*end)
			break;
		p = end;
	}
	return err;
}

bool launch_is_program(const char *file, const char *path)
{
	char prog[PATH_MAX];
	struct stat a, b;

	return launch_resolve(file, prog, sizeof(prog)) == 0 && stat(prog, &a) == 0 &&
	       stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int launch_exit_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 2; /* EXIT_FATAL of cli.h; the launcher does not depend on the CLI */
}

/* What hwprof started with, once launch_adjust_limits changed it. */
static struct rlimit fd_limit_at_start;
static bool fd_limit_raised, sigxfsz_ignored;

void launch_adjust_limits(void)
{
	struct sigaction sa;
	struct rlimit lim;

	if (!sigxfsz_ignored && sigaction(SIGXFSZ, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL)
		sigxfsz_ignored = signal(SIGXFSZ, SIG_IGN) != SIG_ERR;
	if (fd_limit_raised || getrlimit(RLIMIT_NOFILE, &lim) < 0 || lim.rlim_cur >= lim.rlim_max)
		return;
	fd_limit_at_start = lim;
	lim.rlim_cur = lim.rlim_max;
	fd_limit_raised = setrlimit(RLIMIT_NOFILE, &lim) == 0;
}

static _Noreturn void child(pid_t parent, int go_rd, int err_wr, bool own_group, char *const argv[])
{
	sigset_t none;
	char c = 0;
	int e;

	/* If hwprof dies (kill -9), end the target instead of leaving it running unprofiled.
	 * The parent may already be gone before prctl: then stop here. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(EXIT_NOT_EXECUTED);
	if (own_group)
		setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (fd_limit_raised)
		setrlimit(RLIMIT_NOFILE, &fd_limit_at_start);
	if (sigxfsz_ignored)
		signal(SIGXFSZ, SIG_DFL);
	while (read(go_rd, &c, 1) < 0 && errno == EINTR)
		;
	close(go_rd);
	/* EOF instead of the go byte: the parent gave up (launch_abort). */
	if (c != 'g')
		_exit(EXIT_NOT_EXECUTED);
	execvp(argv[0], argv);
	e = errno;
	while (write(err_wr, &e, sizeof(e)) < 0 && errno == EINTR)
		;
	_exit(EXIT_NOT_EXECUTED);
}

/* Whether hwprof has a controlling terminal: then a shell's job control owns the group. */
static bool has_controlling_tty(void)
{
	int fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int launch_prepare(struct launch *l, char *const argv[])
{
	int go[2], err[2];
	pid_t pid, parent = getpid();
	bool own_group = !has_controlling_tty();

	l->pid = -1;
	l->go_fd = l->err_fd = -1;
	l->pgid = 0;
	l->have_modes = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp() &&
			tcgetattr(STDIN_FILENO, &l->modes) == 0;
	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		return -e;
	}
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		close(err[0]);
		child(parent, go[0], err[1], own_group, argv);
	}
	close(go[0]);
	close(err[1]);
	if (pid < 0) {
		int e = errno;
		close(go[1]);
		close(err[0]);
		return -e;
	}
	l->pid = pid;
	l->go_fd = go[1];
	l->err_fd = err[0];
	/* Also here, so the group exists whichever side runs first. */
	if (own_group)
		l->pgid = setpgid(pid, pid) == 0 ? pid : 0;
	return 0;
}

int launch_kill(const struct launch *l, int sig)
{
	int ret = l->pgid > 0 ? kill(-l->pgid, sig) : l->pid > 0 ? kill(l->pid, sig) : -1;

	if (ret < 0 && l->pgid <= 0 && l->pid <= 0)
		return -ESRCH;

	return ret < 0 ? -errno : 0;
}

void launch_restore_tty(const struct launch *l, int wstatus)
{
	sigset_t ttou, old;

	if (!l->have_modes || !WIFSIGNALED(wstatus))
		return;
	/* Blocked: should hwprof have been put in the background meanwhile, the modes are still
	 * set rather than hwprof stopped. */
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	tcsetattr(STDIN_FILENO, TCSADRAIN, &l->modes);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

void launch_die_like(int sig, int wstatus)
{
	sigset_t one;

	if (!WIFSIGNALED(wstatus) || (sig != SIGINT && sig != SIGTERM && sig != SIGHUP))
		return;
	fflush(stdout);
	fflush(stderr);
	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
}

int launch_go(struct launch *l)
{
	ssize_t n;
	int e = 0;

	do
		n = write(l->go_fd, "g", 1);
	while (n < 0 && errno == EINTR);
	close(l->go_fd);
	l->go_fd = -1;
	if (n != 1) {
		e = -errno;
		goto out;
	}
	do
		n = read(l->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	if (n == 0)
		e = 0;
	else if (n != (ssize_t)sizeof(e))
		e = n < 0 ? -errno : -EPROTO;
out:
	close(l->err_fd);
	l->err_fd = -1;
	return e;
}

void launch_abort(struct launch *l)
{
	if (l->go_fd >= 0)
		close(l->go_fd);
	if (l->err_fd >= 0)
		close(l->err_fd);
	l->go_fd = l->err_fd = -1;
	if (l->pid > 0) {
		while (waitpid(l->pid, NULL, 0) < 0 && errno == EINTR)
			;
		l->pid = -1;
	}
}
