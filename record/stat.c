/* stat.c - `hwprof stat`: count events for a command, a PID or the whole system; scaled counts,
 * multiplexing, spread over runs, derived metrics (see docs/stat.md).
 *
 * The counting itself is libhwprof's (hwprof_group_*): one kernel group per {group}, one
 * read(2) per group, each member scaled by its own time_enabled/time_running.
 *
 * This file is the command: its options and its steps. The steps' work is in stat_host.c (the
 * PMUs' facts), stat_open.c (the events opened and read), stat_counts.c (the counts over the
 * runs), stat_run.c (the runs), stat_metrics.c, stat_bandwidth.c and stat_output.c.
 */
#include "builtin.h"
#include "cli.h"
#include "cli_options.h"
#include "format_opts.h"
#include "attach.h"
#include "launch.h"
#include "stat.h"
#include "stat_bandwidth.h"
#include "stat_counts.h"
#include "stat_host.h"
#include "stat_metrics.h"
#include "stat_open.h"
#include "stat_output.h"
#include "stat_run.h"
#include "host.h"
#include "textfmt.h"
#include "hwprof/hwprof.h"

#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OPT_BANDWIDTH = 256 };

static const struct cli_option options[] = {
    CLI_VALUE('e', "event", "EVENTS",
	      "event list, e.g. 'cycles,{instructions,branches}:u' (see 'hwprof list'); default: "
	      "the host's default set"),
    CLI_VALUE('M', "metrics", "LIST",
	      "metrics by name, e.g. 'IPC,branch-miss-rate' (the events they need are added); one "
	      "that cannot be derived says why"),
    CLI_VALUE('r', "repeat", "N", "run CMD N times; print mean, stddev %, min and max"),
    CLI_VALUE('p', "pid", "PID",
	      "count an existing process (and its threads); a kernel thread has kernel work only "
	      "(task-clock, :k events as root)"),
    CLI_FLAG('a', "all-cpus", "count every CPU (perf_event_paranoid <= 0 or CAP_PERFMON)"),
    CLI_FLAG(OPT_BANDWIDTH, "bandwidth",
	     "with -a: the memory controllers' read and write bandwidth against the platform's "
	     "peak (SMBIOS memory devices)"),
    CLI_VALUE('x', "field-separator", "SEP", "perf's CSV flag: -x , is -f csv"),
    CLI_OPT_GROUP(format_only_table),
    CLI_VALUE(FORMAT_OPT_FILE, "output", "FILE",
	      "write the counts to FILE instead of stderr (- stdout)"),
    CLI_OPT_HELP,
    CLI_OPT_END,
};

static const struct cli_command command = {
    .usage =
	"usage: hwprof stat [-e EVENTS] [-M METRICS] [-r N] [-p PID | -a [--bandwidth]]\n"
	"                   [-f text|csv|json] [-o FILE]\n"
	"                   [--] [CMD [ARGS...]]\n"
	"\n"
	"Counts events while CMD runs (or PID, or the whole system with -a, until CMD ends or\n"
	"Ctrl-C), and prints each count scaled for multiplexing, the share of time it was\n"
	"counted, the spread over runs and the derived metrics (IPC, miss rates, MPKI).\n"
	"\n",
    .options = options,
    .formats = CLI_FMT(TEXT) | CLI_FMT(CSV) | CLI_FMT(JSON),
    .help_column = 23,
    .footer = "\n"
	      "The exit status is CMD's (128+N when a signal N ended it; 127 when it could not be\n"
	      "executed). A signal N that interrupts -r N stops the runs: the counts are of the\n"
	      "completed runs, and the exit status is 128+N.\n",
    .stop_at_operand = true,
};

/* -x , is -f csv: another -f with it, before or after, is a usage error. */
static void csv_flag_fits(const struct stat_opts *o)
{
	if (o->out.format != CLI_FORMAT_CSV)
		die_usage("-x , (CSV) and -f %s exclude each other: choose one",
			  cli_format_name(o->out.format));
}

static void parse_args(int argc, char **argv, struct stat_opts *o)
{
	bool csv_flag = false; /* -x , given */
	int c;

	while ((c = cli_next_option(&command, argc, argv)) != -1) {
		if (format_opts_parse(&o->out, &command, c))
			continue;
		switch (c) {
		case 'e':
			o->events = optarg;
			break;
		case 'M':
			if (!*optarg)
				die_usage("-M '': no metric named (e.g. -M IPC,branch-miss-rate; "
					  "see 'hwprof stat --help')");
			o->metrics = optarg;
			break;
		case 'r':
			o->runs = cli_parse_num("-r", optarg, 1, 100000);
			break;
		case 'p':
			o->pid = (pid_t)cli_parse_num("-p", optarg, 1, 0x7fffffff);
			break;
		case 'a':
			o->system_wide = true;
			break;
		case OPT_BANDWIDTH:
			o->bandwidth = true;
			break;
		case 'x':
			if (strcmp(optarg, ","))
				die_usage("-x '%s': only ',' separates fields (hwprof's CSV is "
					  "RFC 4180, quoted where needed: -f csv)",
					  optarg);
			if (o->out.format_given)
				csv_flag_fits(o);
			o->out.format = CLI_FORMAT_CSV;
			o->out.format_given = true; /* perf's -x is -f csv */
			csv_flag = true;
			break;
		}
	}
	if (csv_flag)
		csv_flag_fits(o);
	if (optind < argc) {
		o->argv = argv + optind;
		o->argc = argc - optind;
	}
	if (o->pid > 0 && o->system_wide)
		die_usage("-p and -a: choose one target (a process, or every CPU)");
	if (!o->argv && o->pid < 0 && !o->system_wide)
		die_usage("no command to count (give CMD, -p PID or -a)");
	if (o->runs > 1 && !o->argv)
		die_usage("-r %lld: repeating needs a command to run", o->runs);
}

/* CMD as one line (arguments with blanks or quotes quoted), or NULL without a command. */
static char *command_line(const struct stat_opts *o)
{
	char *s;

	if (!o->argv)
		return NULL;
	s = hwprof_argv_line(o->argv, (size_t)o->argc);
	if (!s)
		die("out of memory");
	return s;
}

/* -p: a process of another user is refused by the kernel with a bare EACCES that reads like
 * perf_event_paranoid; say whose it is. A kernel thread is counted (its CPU time and kernel
 * work), with a note that it has no user space to count. Returns 0, or -1 after reporting. */
static int check_pid(pid_t pid)
{
	struct attach_target t;
	char why[256];

	if (attach_inspect(pid, &t) < 0)
		return 0; /* /proc unreadable: the open has the last word */
	if (attach_denied(pid, &t, why, sizeof(why)))
		return error("-p %d: %s", (int)pid, why);
	if (attach_defunct(pid, &t))
		return error(
		    "-p %d (%s): a zombie (defunct): it has exited and waits for its "
		    "parent to reap it, so it cannot be counted (choose a running process)",
		    (int)pid, t.comm);
	if (t.kthread)
		note("PID %d (%s) is a kernel thread: it runs no user space, so user-space counts "
		     "read 0 (task-clock counts its CPU time; %s)",
		     (int)pid, t.comm,
		     hwprof_kernel_countable() ? "count its kernel work with :k"
					       : "kernel work with :k needs root or CAP_PERFMON");
	return 0;
}

/* The process of -p, or the command to run and -o, checked before anything is opened: the
 * command first, as record does, since a typo is the likelier news than the host. Returns 0
 * or the exit status after the error. */
static int check_target(const struct stat_opts *o)
{
	char msg[PATH_MAX + 256];
	int r;

	if (o->pid > 0 && kill(o->pid, 0) < 0 && errno == ESRCH)
		return error_status(EXIT_FATAL, "-p %d: no such process (check the PID with 'ps')",
				    (int)o->pid);
	if (o->pid > 0 && check_pid(o->pid) < 0)
		return EXIT_FATAL;
	if (o->argv && o->out.file && launch_is_program(o->argv[0], o->out.file))
		return error_status(
		    EXIT_USAGE, "-o %s is the program being counted (choose another file with -o)",
		    o->out.file);
	if (o->argv && (r = launch_check(o->argv[0])) != 0)
		return error_status(EXIT_NOT_EXECUTED, "%s",
				    launch_strerror(o->argv[0], r, msg, sizeof(msg)));
	return 0;
}

/* What one `hwprof stat` makes, step by step; end_session() frees it. */
struct stat_session {
	char *metric_spec, *bw_spec; /* -e with -M's, then --bandwidth's events added */
	struct stat_bw *bw;	     /* --bandwidth's plan and result; NULL without it */
	struct hwprof_event_list list;
	int out_fd;	    /* stat_output_open(); -1 before, and once handed to the writer */
	struct ev_stat *st; /* per entry of LIST */
	size_t *boxes;	    /* stat_box_sums() of LIST */
	char *cmd;	    /* command_line() */
	struct stat_stops stops;
	struct runs_done rd;
	struct run_times times;
	int status; /* the last run's: the command's exit status */
	struct metric_out metrics[64];
	size_t nmetrics;
};

/* --bandwidth: the host's memory controllers before -a is asked for, since on a host without
 * them that is the news. Returns 0, or EXIT_FATAL after the error. */
static int plan_bandwidth(struct stat_opts *o, struct stat_session *s)
{
	s->bw = xcalloc(1, sizeof(*s->bw));
	s->bw_spec = stat_bw_events(s->bw, o->events);
	if (!s->bw_spec)
		return EXIT_FATAL;
	if (!o->system_wide)
		die_usage("--bandwidth counts the memory controllers of the whole machine, "
			  "not a process: add -a");
	o->events = s->bw_spec;
	return 0;
}

/* The events without -e: the host's default set, software events alone (with a note that
 * says so) on a host without a hardware PMU. */
static const char *default_events(void)
{
	bool pmu = hwprof_host_has_pmu();
	const char *spec = hwprof_count_default_spec(pmu);

	if (!pmu)
		note("no hardware PMU on this host (virtualized?): counting software events "
		     "(task-clock, context-switches, cpu-migrations, page-faults); choose "
		     "others with -e, see 'hwprof list'; %s",
		     cli_no_pmu_alternatives());
	return spec;
}

/* The event list: -e, the events -M and --bandwidth need, or the default set; parsed, with a
 * warning when it will multiplex. Returns 0, or EXIT_FATAL after the error. */
static int event_list(struct stat_opts *o, struct stat_session *s)
{
	char err[256] = "";

	if (o->metrics)
		o->events = s->metric_spec = stat_with_metric_events(o->events, o->metrics);
	if (o->bandwidth && plan_bandwidth(o, s) != 0)
		return EXIT_FATAL;
	if (!o->events)
		o->events = default_events();
	/* A PMU that does not exist is a spelling to fix too: 64, as in record. */
	if (hwprof_events_parse(o->events, &s->list, err, sizeof(err)) < 0)
		die_usage("-e '%s': %s", o->events, err[0] ? cli_see(err) : "malformed event spec");
	stat_warn_multiplexing(&s->list);
	return 0;
}

/* The counts' descriptor, opened before anything runs (stat_output_open()). Returns 0, or
 * EXIT_FATAL after the error. */
static int open_output(const struct stat_opts *o, struct stat_session *s)
{
	s->out_fd = stat_output_open(o);
	return s->out_fd < 0 ? EXIT_FATAL : 0;
}

/* The events the host cannot count, probed before any run: when none is left, why (for -M,
 * why each metric cannot be answered, since the metrics are the question), else a note that
 * names them. Returns 0, or EXIT_FATAL after the error. */
static int probe(const struct stat_opts *o, struct stat_session *s)
{
	char msg[PATH_MAX + 256];

	s->st = xcalloc(s->list.n, sizeof(*s->st));
	if (stat_probe_events(o, &s->list, s->st) == 0) {
		stat_unsupported_text(&s->list, s->st, msg, sizeof(msg));
		if (o->metrics && stat_metrics_why_not(o, &s->list, s->st, NULL, 0, true)) {
			if (!hwprof_host_has_pmu())
				note("no hardware PMU on this host: %s", cli_no_pmu_alternatives());
			return EXIT_FATAL;
		}
		error("no event of the list can be counted here: %s", cli_see(msg));
		return EXIT_FATAL;
	}
	if (s->list.n > 1 || s->st[0].unsupported) {
		stat_unsupported_text(&s->list, s->st, msg, sizeof(msg));
		if (msg[0])
			note("%s; the other events are counted", msg);
	}
	return 0;
}

/* The runs, with ^C and SIGTERM caught (stat_run.h). Returns 0 with the last run's status in
 * S->status, or after the error EXIT_NOT_EXECUTED (the command could not be executed) or
 * EXIT_FATAL. */
static int count(const struct stat_opts *o, struct stat_session *s)
{
	bool one_by_one = false;

	s->boxes = stat_box_sums(&s->list);
	s->cmd = command_line(o);
	s->rd.asked = o->runs;
	stat_catch_stops(&s->stops);
	s->status =
	    stat_run_all(o, &s->list, s->st, s->boxes, s->cmd, &s->rd, &s->times, &one_by_one);
	if (s->status == MEASURE_EXEC_FAILED)
		return EXIT_NOT_EXECUTED;
	if (s->status < 0)
		return EXIT_FATAL;
	if (one_by_one)
		note("the kernel refused inherit with PERF_FORMAT_GROUP (an older kernel): group "
		     "members were read one by one");
	return 0;
}

/* The rows to print (the boxes summed into their first dropped) and what derives from them:
 * the metrics, a note for each that cannot be derived, --bandwidth's sums. */
static void derive(const struct stat_opts *o, struct stat_session *s)
{
	double elapsed = s->times.elapsed;

	stat_drop_summed_boxes(&s->list, s->st, s->boxes);
	if (s->bw)
		stat_bw_locate(s->bw, &s->list);
	s->nmetrics = stat_derive_metrics(&s->list, s->st, elapsed,
					  s->bw ? s->bw->first : s->list.n, s->metrics, 64);
	stat_metrics_why_not(o, &s->list, s->st, s->metrics, s->nmetrics, false);
	if (s->bw)
		stat_finish_bandwidth(s->bw, &s->list, s->st, elapsed);
}

/* Writes the counts. Returns the exit status: EXIT_FATAL after the error when they could not
 * be written; 128+N when a signal N interrupted the repeats, as it would have ended hwprof
 * (130 for ^C); else the command's own. */
static int write_result(const struct stat_opts *o, struct stat_session *s)
{
	char cpu[256];
	struct stat_result r = {.o = o,
				.list = &s->list,
				.st = s->st,
				.rd = &s->rd,
				.times = &s->times,
				.metrics = s->metrics,
				.nmetrics = s->nmetrics,
				.cpu = cpu,
				.cmd = s->cmd,
				.bw = s->bw};
	int fd = s->out_fd;

	hwprof_host_cpu_model(cpu, sizeof(cpu));
	s->out_fd = -1; /* stat_output_write() closes it */
	if (stat_output_write(&r, fd) < 0)
		return EXIT_FATAL;
	return s->rd.interrupted && o->runs > 1 ? 128 + stat_stop_signal() : s->status;
}

/* Prints what is still held (a run that failed), puts back the stop signals' handlers, closes
 * and frees what S holds. */
static void end_session(struct stat_session *s)
{
	cli_release_messages();
	stat_release_stops(&s->stops);
	if (s->out_fd > STDERR_FILENO)
		close(s->out_fd);
	stat_counts_free(s->st, s->list.n);
	free(s->cmd);
	free(s->metric_spec);
	free(s->bw_spec);
	free(s->bw);
	free(s->boxes);
	hwprof_events_free(&s->list);
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = {
	    .events = NULL,
	    .runs = 1,
	    .pid = -1,
	    .system_wide = false,
	    .out = FORMAT_OPTS_INIT,
	};
	struct stat_session s = {.out_fd = -1};
	int rc;

	parse_args(argc, argv, &o);
	/* JSON carries the run's notes and warnings, so that on stderr it stays one document. */
	if (o.out.format == CLI_FORMAT_JSON)
		cli_hold_messages();
	launch_adjust_limits();
	rc = check_target(&o);
	if (!rc)
		rc = event_list(&o, &s);
	if (!rc)
		rc = open_output(&o, &s);
	if (!rc)
		rc = probe(&o, &s);
	if (!rc)
		rc = count(&o, &s);
	if (!rc) {
		derive(&o, &s);
		rc = write_result(&o, &s);
	}
	end_session(&s);
	return rc;
}
