/* stat.c - `hwprof stat`: count events for a command, a PID or the whole system; scaled counts,
 * multiplexing, spread over runs, derived metrics (see docs/stat.md).
 *
 * The counting itself is libhwprof's (hwprof_group_*): one kernel group per {group}, one
 * read(2) per group, each member scaled by its own time_enabled/time_running.
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

static void parse_args(int argc, char **argv, struct stat_opts *o)
{
	int c;

	while ((c = cli_next_option(&command, argc, argv)) != -1) {
		if (format_opts_parse(&o->out, &command, c))
			continue;
		switch (c) {
		case 'e':
			o->events = optarg;
			break;
		case 'M':
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
			o->out.format = CLI_FORMAT_CSV;
			o->out.format_given = true; /* perf's -x is -f csv */
			break;
		}
	}
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

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = {
	    .events = NULL,
	    .runs = 1,
	    .pid = -1,
	    .system_wide = false,
	    .out = FORMAT_OPTS_INIT,
	};
	struct hwprof_event_list list = {0};
	struct ev_stat *st = NULL;
	struct metric_out metrics[64];
	struct stat_stops stops = {.caught = false};
	struct runs_done rd = {0};
	char err[256] = "", cpu[256], msg[PATH_MAX + 256], *cmd = NULL;
	char *metric_spec = NULL, *bw_spec = NULL;
	struct stat_bw *bw = NULL;
	size_t *boxes = NULL;
	double elapsed;
	struct run_times times = {.have_cpu = false};
	bool one_by_one = false;
	int status = 0, rc = EXIT_FATAL, r, out_fd = -1;
	size_t nm;
	struct stat_result res;

	parse_args(argc, argv, &o);
	/* JSON carries the run's notes and warnings, so that on stderr it stays one document. */
	if (o.out.format == CLI_FORMAT_JSON)
		cli_hold_messages();
	launch_adjust_limits();
	rd.asked = o.runs;
	if ((r = check_target(&o)) != 0)
		return r;
	if (o.metrics) {
		metric_spec = stat_with_metric_events(o.events, o.metrics);
		o.events = metric_spec;
	}
	/* The host's memory controllers first: on a host without them, that is the news. */
	if (o.bandwidth) {
		bw = xcalloc(1, sizeof(*bw));
		bw_spec = stat_bw_events(bw, o.events);
		if (!bw_spec) {
			free(bw);
			free(metric_spec);
			return EXIT_FATAL;
		}
		if (!o.system_wide)
			die_usage("--bandwidth counts the memory controllers of the whole machine, "
				  "not a process: add -a");
		o.events = bw_spec;
	}
	if (!o.events) {
		bool pmu = hwprof_host_has_pmu();
		o.events = hwprof_count_default_spec(pmu);
		if (!pmu)
			note(
			    "no hardware PMU on this host (virtualized?): counting software events "
			    "(task-clock, context-switches, cpu-migrations, page-faults); choose "
			    "others with -e, see 'hwprof list'; %s",
			    cli_no_pmu_alternatives());
	}
	r = hwprof_events_parse(o.events, &list, err, sizeof(err));
	if (r < 0) /* a PMU that does not exist is a spelling to fix too: 64, as in record */
		die_usage("-e '%s': %s", o.events, err[0] ? cli_see(err) : "malformed event spec");
	stat_warn_multiplexing(&list);
	out_fd = stat_output_open(&o);
	if (out_fd < 0) {
		hwprof_events_free(&list);
		cli_release_messages();
		return EXIT_FATAL;
	}
	boxes = stat_box_sums(&list);
	hwprof_host_cpu_model(cpu, sizeof(cpu));
	cmd = command_line(&o);
	st = xcalloc(list.n, sizeof(*st));
	if (stat_probe_events(&o, &list, st) == 0) {
		stat_unsupported_text(&list, st, msg, sizeof(msg));
		/* -M: the metrics are the question, so each says why it cannot be answered. */
		if (o.metrics && stat_metrics_why_not(&o, &list, st, NULL, 0, true)) {
			if (!hwprof_host_has_pmu())
				note("no hardware PMU on this host: %s", cli_no_pmu_alternatives());
			goto out;
		}
		error("no event of the list can be counted here: %s", cli_see(msg));
		goto out;
	}
	if (list.n > 1 || st[0].unsupported) {
		stat_unsupported_text(&list, st, msg, sizeof(msg));
		if (msg[0])
			note("%s; the other events are counted", msg);
	}

	stat_catch_stops(&stops);
	status = stat_run_all(&o, &list, st, boxes, cmd, &rd, &times, &one_by_one);
	if (status == MEASURE_EXEC_FAILED)
		rc = EXIT_NOT_EXECUTED;
	if (status < 0)
		goto out;
	elapsed = times.elapsed;
	if (one_by_one)
		note("the kernel refused inherit with PERF_FORMAT_GROUP (an older kernel): group "
		     "members were read one by one");
	stat_drop_summed_boxes(&list, st, boxes);
	if (bw)
		stat_bw_locate(bw, &list);
	nm = stat_derive_metrics(&list, st, elapsed, bw ? bw->first : list.n, metrics, 64);
	stat_metrics_why_not(&o, &list, st, metrics, nm, false);
	if (bw)
		stat_finish_bandwidth(bw, &list, st, elapsed);

	res = (struct stat_result){.o = &o,
				   .list = &list,
				   .st = st,
				   .rd = &rd,
				   .times = &times,
				   .metrics = metrics,
				   .nmetrics = nm,
				   .cpu = cpu,
				   .cmd = cmd,
				   .bw = bw};
	r = stat_output_write(&res, out_fd);
	out_fd = -1;
	if (r < 0)
		goto out;
	/* Interrupted repeats end as the signal would have ended hwprof (130 for ^C); a single
	 * run keeps the command's own status. */
	rc = rd.interrupted && o.runs > 1 ? 128 + stat_stop_signal() : status;
out:
	cli_release_messages(); /* held and not yet printed: a run that failed */
	stat_release_stops(&stops);
	if (out_fd > STDERR_FILENO)
		close(out_fd);
	for (size_t i = 0; st && i < list.n; i++)
		free(st[i].unsupported);
	free(st);
	free(cmd);
	free(metric_spec);
	free(bw_spec);
	free(bw);
	free(boxes);
	hwprof_events_free(&list);
	return rc;
}
