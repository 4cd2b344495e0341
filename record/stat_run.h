/* stat_run.h - the runs of `hwprof stat`: the command launched and waited for (or -p / -a
 * counted until ^C or the process ends), -r N times, each run's counts read into the event
 * statistics (stat_counts.h); a ^C or SIGTERM passed on to the command ends the runs.
 *
 * Call order: stat_catch_stops; stat_run_all; stat_stop_signal for the exit status;
 * stat_release_stops.
 */
#ifndef HWPROF_STAT_RUN_H
#define HWPROF_STAT_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "stat.h"
#include "stat_counts.h"

/* How many runs the printed values are over. */
struct runs_done {
	long long asked;       /* -r */
	long long kept;	       /* runs the values are over: the completed ones, or the one
				* interrupted run when none completed */
	long long completed;   /* runs that ended without a stop request */
	long long interrupted; /* 1-based run a signal interrupted; 0 when none */
};

/* The times of the runs kept: means over them. */
struct run_times {
	double elapsed;	   /* wall-clock seconds from the enable to the end */
	double elapsed_sd; /* standard deviation of ELAPSED over the runs, % of it */
	double user, sys;  /* CPU seconds of the command and the children it waited for
			    * (wait4(2)'s rusage); only with HAVE_CPU */
	bool have_cpu;	   /* a launched command (not -p, not -a) */
};

/* stat_run_all() failed after the error message; EXEC: the command could not be executed
 * (exit EXIT_NOT_EXECUTED, as record). */
enum { MEASURE_FAILED = -1, MEASURE_EXEC_FAILED = -2 };

/* The handlers of SIGINT and SIGTERM before stat_catch_stops(). Zero it first. */
struct stat_stops {
	struct sigaction old_int, old_term;
	bool caught; /* stat_catch_stops() installed its handler */
};

/* Installs the handler of SIGINT and SIGTERM, keeping the old ones in S: a stop request ends
 * the measurement and the runs, and is passed on to a running command. */
void stat_catch_stops(struct stat_stops *s);

/* Puts back the handlers S kept (nothing when none were installed) and forgets a stop
 * request. */
void stat_release_stops(struct stat_stops *s);

/* The signal of the last stop request; 0 when none came. */
int stat_stop_signal(void);

/* Runs O's measurement O->runs times, or until a stop request, each kept run's counts summed
 * into ST (LIST->n entries; BOXES: stat_run_sum_boxes()) and counted in RD (RD->asked set by
 * the caller); the mean elapsed time (and its spread) and CPU times into *TIMES; *ONE_BY_ONE
 * set when a group was read one member at a time. A run a stop request cut short is left out
 * unless no run completed. CMD names the command in a run's warning. Returns the last run's
 * status (the command's exit status, 128+N for a signal N), or MEASURE_FAILED /
 * MEASURE_EXEC_FAILED after the error. */
int stat_run_all(const struct stat_opts *o, const struct hwprof_event_list *list,
		 struct ev_stat *st, const size_t *boxes, const char *cmd, struct runs_done *rd,
		 struct run_times *times, bool *one_by_one);

#endif
