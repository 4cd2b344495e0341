/* stat_run.c - the runs of `hwprof stat` (see stat_run.h): the target launched, or -p / -a
 * counted until ^C, -r N times, each run's counts read and kept; the stop signals that cut
 * them short.
 */
#include "stat_run.h"

#include "cli.h"
#include "launch.h"
#include "stat_open.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

static volatile sig_atomic_t stop_requested, stop_signal;
/* Where the handler forwards a stop request: -PGID of a launched target in a group of its own,
 * or its PID (then only a signal that did not come from the terminal, which reached the
 * target's group too); 0 when no target runs. */
static volatile sig_atomic_t stop_target;

/* Forwarding from the handler itself leaves no window between a check and a wait: a stop
 * requested while the target runs always reaches it, so a launched command ends as under the
 * terminal's ^C, even when the signal was sent to hwprof alone (kill, a script's timeout). */
static void on_stop(int sig, siginfo_t *info, void *uc)
{
	pid_t to = stop_target;
	int saved = errno; /* the interrupted code may be reading errno */

	(void)uc;
	stop_requested = 1;
	stop_signal = sig;
	if (to < 0 || (to > 0 && info->si_code != SI_KERNEL))
		kill(to, sig);
	errno = saved;
}

/* Ctrl-C / SIGTERM end the measurement (for -p/-a) or the running command (forwarded to it, see
 * on_stop) and the repeats; hwprof itself keeps running to print what was counted. */
void stat_catch_stops(struct stat_stops *s)
{
	struct sigaction sa = {.sa_sigaction = on_stop, .sa_flags = SA_SIGINFO};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &s->old_int);
	sigaction(SIGTERM, &sa, &s->old_term);
	s->caught = true;
}

void stat_release_stops(struct stat_stops *s)
{
	if (!s->caught)
		return;
	sigaction(SIGINT, &s->old_int, NULL);
	sigaction(SIGTERM, &s->old_term, NULL);
	s->caught = false;
	stop_requested = 0;
	stop_signal = 0;
}

int stat_stop_signal(void)
{
	return stop_signal;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits for the launched target to end (stops are the shell's business: on a terminal the
 * target shares hwprof's group, and the terminal's ^C reaches on_stop too). Returns its exit
 * status (128+N when signal N ended it). A target that ends itself by SIGINT is no ^C: the
 * repeats go on. */
static int wait_target(struct launch *l, struct rusage *ru)
{
	int status, ret = EXIT_FATAL;
	pid_t w;

	stop_target = l->pgid > 0 ? -l->pgid : l->pid;
	if (stop_requested)
		launch_kill(l, stop_signal);
	while ((w = wait4(l->pid, &status, 0, ru)) < 0 && errno == EINTR)
		;
	/* Reaped: the handler must not signal a pid that may be reused. */
	stop_target = 0;
	if (w == l->pid) {
		ret = launch_exit_status(status);
		launch_restore_tty(l, status);
	}
	l->pid = -1;
	return ret;
}

/* Waits for Ctrl-C / SIGTERM, or for PID (when > 0) to end. */
static void wait_stop(pid_t pid)
{
	struct timespec tick = {0, 50 * 1000 * 1000};

	while (!stop_requested) {
		if (pid > 0 && kill(pid, 0) < 0 && errno == ESRCH)
			break;
		nanosleep(&tick, NULL);
	}
}

/* One measurement, read into the run fields of ST. Returns the target's exit status (>= 0), or
 * MEASURE_FAILED / MEASURE_EXEC_FAILED after reporting. *SIGINT_END: see wait_target. */
static int measure(const struct stat_opts *o, const struct hwprof_event_list *list,
		   struct ev_stat *st, double *elapsed, struct rusage *ru, bool *one_by_one)
{
	struct stat_groups r = {.list = list, .st = st};
	struct launch l = {.pid = -1, .go_fd = -1, .err_fd = -1};
	int status = 0, e;
	double t0;
	char msg[PATH_MAX + 256];

	if (o->argv) {
		e = launch_check(o->argv[0]);
		if (e) {
			error("%s", launch_strerror(o->argv[0], e, msg, sizeof(msg)));
			return MEASURE_EXEC_FAILED;
		}
		e = launch_prepare(&l, o->argv);
		if (e < 0)
			return error_errno_status(MEASURE_FAILED, e,
						  "cannot start '%s': %m (too many processes or "
						  "open files? check ulimit -u and -n)",
						  o->argv[0]);
	}
	if (stat_groups_open(&r, o, o->pid > 0 ? o->pid : l.pid) < 0)
		goto fail;
	if ((o->system_wide || o->pid > 0) && stat_groups_enable(&r) < 0)
		goto fail;
	t0 = now_s();
	if (o->argv) {
		e = launch_go(&l);
		if (e) {
			error("%s", launch_strerror(o->argv[0], e < 0 ? -e : e, msg, sizeof(msg)));
			stat_groups_close(&r);
			launch_abort(&l);
			return e > 0 ? MEASURE_EXEC_FAILED : MEASURE_FAILED;
		}
		status = wait_target(&l, ru);
	} else {
		wait_stop(o->pid);
	}
	*elapsed = now_s() - t0;
	if (stat_groups_read(&r, st) < 0)
		goto fail;
	*one_by_one |= r.one_by_one;
	stat_groups_close(&r);
	return status;
fail:
	launch_abort(&l);
	stat_groups_close(&r);
	return MEASURE_FAILED;
}

/* The line that says which runs the values are over after a signal interrupted run
 * RD->interrupted. */
static void note_interrupted(const struct runs_done *rd)
{
	if (rd->completed)
		note("interrupted in run %lld of %lld; the counts are of the %lld completed run%s",
		     rd->interrupted, rd->asked, rd->completed, rd->completed == 1 ? "" : "s");
	else
		note("interrupted in run %lld of %lld before any run completed; the counts are "
		     "the partial counts of that run",
		     rd->interrupted, rd->asked);
}

int stat_run_all(const struct stat_opts *o, const struct hwprof_event_list *list,
		 struct ev_stat *st, const size_t *boxes, const char *cmd, struct runs_done *rd,
		 struct run_times *times, bool *one_by_one)
{
	double el_sum = 0, el_sumsq = 0, user_sum = 0, sys_sum = 0, elapsed;
	int status = 0;

	for (long long i = 0; i < o->runs && !stop_requested; i++) {
		double el = 0;
		struct rusage ru = {0};

		status = measure(o, list, st, &el, &ru, one_by_one);
		if (status < 0)
			return status;
		if (o->argv && stop_requested) {
			/* An interrupted run is cut short: its counts would pull every mean
			 * down. Only when no run completed are they all there is to show. */
			rd->interrupted = i + 1;
			if (rd->completed)
				break;
		}
		stat_run_sum_boxes(st, boxes, list->n);
		stat_run_keep(st, list->n);
		rd->kept++;
		el_sum += el;
		el_sumsq += el * el;
		user_sum += (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
		sys_sum += (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
		if (rd->interrupted)
			break;
		rd->completed++;
		if (o->runs > 1 && status != 0)
			warning("run %lld of %lld: '%s' exited with status %d", i + 1, o->runs, cmd,
				status);
	}
	if (stop_requested && o->argv && !rd->interrupted && rd->completed < o->runs)
		rd->interrupted = rd->completed + 1; /* between two runs: the next never started */
	if (rd->interrupted && o->runs > 1)
		note_interrupted(rd);
	elapsed = rd->kept ? el_sum / (double)rd->kept : 0;
	if (rd->kept > 1 && elapsed > 0) {
		double var =
		    (el_sumsq - (double)rd->kept * elapsed * elapsed) / (double)(rd->kept - 1);
		times->elapsed_sd = var > 0 ? 100.0 * sqrt(var) / elapsed : 0;
	}
	times->elapsed = elapsed;
	times->have_cpu = o->argv && o->pid <= 0 && !o->system_wide && rd->kept;
	if (times->have_cpu) {
		times->user = user_sum / (double)rd->kept;
		times->sys = sys_sum / (double)rd->kept;
	}
	return status;
}
