/* test_attach.c - a running process described from /proc, as `record -p` needs it. */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attach.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *sleeper(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

Test(attach, threads_main_first)
{
	pthread_t t;
	pid_t *tids = NULL;
	int n;

	pthread_mutex_lock(&lock);
	cr_assert_eq(pthread_create(&t, NULL, sleeper, NULL), 0);
	n = attach_threads(getpid(), &tids);
	pthread_mutex_unlock(&lock);
	pthread_join(t, NULL);
	cr_assert_geq(n, 2);
	cr_assert_eq(tids[0], getpid(), "the main thread comes first");
	free(tids);
	cr_assert_eq(attach_threads(INT_MAX - 1, &tids), -ESRCH);
}

Test(attach, cmdline_of_a_child)
{
	char **argv = NULL;
	pid_t pid = fork();
	int n = 0, status;

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		execlp("sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	/* Until the exec, the child's command line is ours. */
	for (int i = 0; i < 200; i++) {
		n = attach_cmdline(pid, &argv);
		if (n == 2 && !strcmp(argv[0], "sleep"))
			break;
		for (int j = 0; n > 0 && j < n; j++)
			free(argv[j]);
		if (n > 0)
			free(argv);
		n = 0;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(argv[0], "sleep");
	cr_assert_str_eq(argv[1], "30");
	cr_assert_null(argv[2]);
	for (int i = 0; i < n; i++)
		free(argv[i]);
	free(argv);
	cr_assert_eq(attach_cmdline(INT_MAX - 1, &argv), -ESRCH);
}

struct seen {
	int comms, mmaps, self, libc;
	uint64_t time;
};

static int collect(struct hwprof_record *rec, void *arg)
{
	struct seen *s = arg;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = '\0';
	if (rec->type == HWPROF_REC_COMM) {
		s->comms++;
		cr_assert_eq(rec->comm.pid, getpid());
		cr_assert_eq(rec->comm.time, s->time);
		cr_assert_not(rec->comm.exec);
		cr_assert_gt(strlen(rec->comm.comm), 0);
		return 0;
	}
	cr_assert_eq(rec->type, HWPROF_REC_MMAP);
	cr_assert(rec->mmap.prot & PROT_EXEC, "only executable mappings");
	cr_assert_gt(rec->mmap.len, 0);
	cr_assert_eq(rec->mmap.time, s->time);
	s->mmaps++;
	s->self += !strcmp(rec->mmap.filename, exe);
	s->libc += strstr(rec->mmap.filename, "libc.so") != NULL;
	return 0;
}

Test(attach, synthesize_self)
{
	struct seen s = {.time = 12345};
	pid_t self = getpid();

	cr_assert_eq(attach_synthesize(self, &self, 1, s.time, collect, &s), 0);
	cr_assert_eq(s.comms, 1);
	cr_assert_eq(s.self, 1, "our own executable's code mapping");
	cr_assert_geq(s.libc, 1);
}

/* M2/M3: what decides whether -p may profile a process. */
Test(attach, proc_stat_state_of_self_and_a_zombie)
{
	struct attach_target t;
	pid_t child;

	cr_assert_eq(attach_proc_stat(getpid(), &t), 0);
	cr_assert_eq(t.state, 'R');
	cr_assert_not(t.ids_known);
	cr_expect_not(attach_defunct(getpid(), &t));
	child = fork();
	if (child == 0)
		_exit(0);
	cr_assert_gt(child, 0);
	/* Not reaped: a zombie until waitpid. */
	for (int i = 0; i < 200 && attach_proc_stat(child, &t) == 0 && t.state != 'Z'; i++)
		usleep(5000);
	cr_assert_eq(t.state, 'Z');
	cr_expect(attach_defunct(child, &t));
	waitpid(child, NULL, 0);
	cr_assert_eq(attach_proc_stat(child, &t), -ESRCH);
}

Test(attach, inspect_self_and_a_kernel_thread)
{
	struct attach_target t;
	char buf[256];

	cr_assert_eq(attach_inspect(getpid(), &t), 0);
	cr_assert_not(t.kthread);
	cr_assert(t.ids_known);
	cr_assert_eq(t.uid[0], getuid());
	cr_assert_eq(t.gid[0], getgid());
	cr_assert_null(attach_denied(getpid(), &t, buf, sizeof(buf)), "own process: %s", buf);
	cr_assert_eq(attach_inspect(INT_MAX - 1, &t), -ESRCH);

	/* kthreadd is PID 2 outside of a PID namespace; skip where it is not. */
	if (attach_inspect(2, &t) == 0 && !strcmp(t.comm, "kthreadd"))
		cr_assert(t.kthread, "kthreadd has PF_KTHREAD");
	else
		cr_log_info("PID 2 is no kthreadd here: kernel-thread flag not checked");
}

Test(attach, denied_names_the_owner)
{
	struct attach_target t;
	char buf[256];
	const char *why;

	cr_assert_eq(attach_inspect(getpid(), &t), 0);
	t.uid[0] = t.uid[1] = t.uid[2] = getuid() == 0 ? 65534 : 0;
	why = attach_denied(1234, &t, buf, sizeof(buf));
	if (attach_privileged()) {
		cr_assert_null(why, "CAP_PERFMON/CAP_SYS_ADMIN/CAP_SYS_PTRACE may profile it");
		return;
	}
	cr_assert_not_null(why);
	cr_assert_not_null(strstr(why, "process 1234 belongs to root, not to you (profile your "
				       "own processes, or run as root / with CAP_PERFMON)"),
			   "%s", why);
	/* A set-user-ID program started by you: the effective id differs. */
	t.uid[0] = getuid();
	why = attach_denied(1234, &t, buf, sizeof(buf));
	cr_assert_not_null(why);
	cr_assert_not_null(strstr(why, "set-user-ID"), "%s", why);
}
