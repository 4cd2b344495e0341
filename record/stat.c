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
#include "stat_run.h"
#include "host.h"
#include "json.h"
#include "textfmt.h"
#include "hwprof/hwprof.h"
#include "hwprof/metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* ---- output ---------------------------------------------------------------------------- */

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

/* The groups of more than one event, each counted in one time window (one kernel group:
 * their ratios are exact even when multiplexed): " groups: {a,b}, {c,d}". */
static void print_groups(FILE *f, const struct hwprof_event_list *list, const struct ev_stat *st)
{
	bool any = false;

	/* Counted together are the members opened: an unsupported one was left out. */
	for (size_t g = 0; g < list->ngroups; g++) {
		size_t members = 0, k = 0;

		for (size_t i = 0; i < list->n; i++)
			members += list->ev[i].group == (int)g && !st[i].unsupported;
		if (members < 2)
			continue;
		fputs(any ? ", {" : " groups: {", f);
		any = true;
		for (size_t i = 0; i < list->n; i++) {
			if (list->ev[i].group != (int)g || st[i].unsupported)
				continue;
			if (k++)
				fputc(',', f);
			hwprof_text_put(f, list->ev[i].spec);
		}
		fputc('}', f);
	}
	if (any)
		fputc('\n', f);
}

static void print_text(FILE *f, const struct runs_done *rd, const struct hwprof_event_list *list,
		       const struct ev_stat *st, const struct metric_out *m, size_t nm,
		       const struct run_times *t, const char *cpu, const char *cmd,
		       const struct stat_opts *o, const struct stat_bw *bw)
{
	char a[64], b[64], c[64];

	/* perf's wording; a command beside -p or -a only sets how long they are counted. */
	if (o->pid > 0)
		fprintf(f, "\n Performance counter stats for process id '%d'", (int)o->pid);
	else if (o->system_wide)
		fprintf(f, "\n Performance counter stats for 'system wide'");
	/* The command line as typed, its control bytes tamed (textfmt.h). */
	if (cmd) {
		fputs(o->pid > 0 || o->system_wide ? " while '"
						   : "\n Performance counter stats for '",
		      f);
		hwprof_text_put(f, cmd);
		fputs(o->pid > 0 || o->system_wide ? "' ran" : "'", f);
	}
	if (rd->asked > 1 && rd->interrupted && !rd->completed)
		fprintf(f, " (run %lld of %lld, interrupted: partial counts)", rd->interrupted,
			rd->asked);
	else if (rd->asked > 1 && rd->interrupted)
		fprintf(f, " (%lld of %lld runs, interrupted)", rd->completed, rd->asked);
	else if (rd->asked > 1)
		fprintf(f, " (%lld runs)", rd->asked);
	fprintf(f, ":\n CPU: %s\n", cpu);
	print_groups(f, list, st);
	fputc('\n', f);
	for (size_t i = 0; i < list->n; i++) {
		const struct ev_stat *s = &st[i];
		const char *unit = hwprof_event_unit(&list->ev[i]);
		if (s->unsupported) {
			fprintf(f, " %20s  %s\n", "<not supported>", list->ev[i].spec);
			continue;
		}
		if (!s->counted_runs) {
			const char *why = hwprof_count_why_not(&list->ev[i]);
			fprintf(f, " %20s  %-24s%s%s%s\n", "<not counted>", list->ev[i].spec,
				why ? " (" : "", why ? why : "", why ? ")" : "");
			continue;
		}
		fprintf(f, " %20s  %-24s %-5s", hwprof_count_text(stat_mean(s), unit, a, sizeof(a)),
			list->ev[i].spec, unit);
		/* 78 columns with the spread: min and max get a table of their own below. */
		if (rd->kept > 1)
			fprintf(f, " ( +- %5.2f%% )", stat_stddev_pct(s));
		struct hwprof_count run = stat_running(s);

		fprintf(f, "  [%5.1f%%]", 100 * run.ratio);
		if (hwprof_count_multiplexed(&run))
			fprintf(f, "  multiplexed: counted %.1f%% of the time (< %.0f%%), scaled",
				100 * run.ratio, 100 * HWPROF_MULTIPLEX_FLAG);
		if (s->counted_runs < rd->kept)
			fprintf(f, "  (counted in %u of %lld runs)", s->counted_runs, rd->kept);
		fputc('\n', f);
	}
	if (rd->kept > 1) {
		fprintf(f, "\n min and max over the %lld runs:\n", rd->kept);
		for (size_t i = 0; i < list->n; i++) {
			const struct ev_stat *s = &st[i];
			const char *unit = hwprof_event_unit(&list->ev[i]);
			if (!s->counted_runs)
				continue;
			fprintf(f, " %20s  %20s  %s%s%s\n",
				hwprof_count_text(s->min, unit, b, sizeof(b)),
				hwprof_count_text(s->max, unit, c, sizeof(c)), list->ev[i].spec,
				*unit ? " " : "", unit);
		}
	}
	if (nm) {
		fprintf(f, "\n");
		for (size_t i = 0; i < nm; i++) {
			const struct hwprof_metric *x = &m[i].m;
			fprintf(f, " %20s%-5s %-24s %s\n", hwprof_metric_text(x, a, sizeof(a)),
				m[i].unit, x->name, x->formula);
		}
	}
	if (bw)
		stat_bw_text(f, bw);
	fprintf(f, "\n %20.6f seconds time elapsed", t->elapsed);
	if (rd->kept > 1)
		fprintf(f, " ( +- %5.2f%% )", t->elapsed_sd);
	fputc('\n', f);
	if (t->have_cpu)
		fprintf(f, "\n %20.6f seconds user\n %20.6f seconds sys\n", t->user, t->sys);
	fputc('\n', f);
}

/* The notes and warnings of the run (held since cmd_stat() began, see cli_hold_messages()),
 * so that JSON sharing stderr with them stays one document. */
static void json_messages(struct hwprof_jw *j)
{
	const char *kinds[64], *texts[64];
	size_t n = cli_held_messages(kinds, texts, 64);

	hwprof_jw_array(j, "messages");
	for (size_t i = 0; i < n && i < 64; i++) {
		hwprof_jw_object(j, NULL);
		hwprof_jw_str(j, "kind", kinds[i]);
		hwprof_jw_str(j, "text", texts[i]);
		hwprof_jw_end(j);
	}
	hwprof_jw_end(j);
}

static void print_json(FILE *f, const struct runs_done *rd, const struct hwprof_event_list *list,
		       const struct ev_stat *st, const struct metric_out *m, size_t nm,
		       const struct run_times *t, const char *cpu, const struct stat_opts *o,
		       const struct stat_bw *bw)
{
	struct hwprof_jw j;

	hwprof_jw_init(&j, f, false);
	hwprof_jw_object(&j, NULL);
	hwprof_jw_version(&j);
	hwprof_jw_str_array(&j, "command", o->argv, o->argv ? (size_t)o->argc : 0);
	if (o->pid > 0)
		hwprof_jw_int(&j, "pid", o->pid);
	hwprof_jw_bool(&j, "system_wide", o->system_wide);
	hwprof_jw_str(&j, "cpu", cpu);
	hwprof_jw_int(&j, "runs", rd->completed);
	hwprof_jw_bool(&j, "interrupted", rd->interrupted);
	hwprof_jw_double(&j, "elapsed_s", t->elapsed, 9);
	hwprof_jw_measured(&j, "user_s", t->user, t->have_cpu);
	hwprof_jw_measured(&j, "sys_s", t->sys, t->have_cpu);
	hwprof_jw_array(&j, "events");
	for (size_t i = 0; i < list->n; i++) {
		const struct ev_stat *s = &st[i];
		bool ok = s->counted_runs > 0;

		hwprof_jw_object(&j, NULL);
		hwprof_jw_str(&j, "event", list->ev[i].spec);
		hwprof_jw_measured(&j, "mean", stat_mean(s), ok);
		hwprof_jw_measured(&j, "stddev_pct", stat_stddev_pct(s), ok);
		hwprof_jw_measured(&j, "min", s->min, ok);
		hwprof_jw_measured(&j, "max", s->max, ok);
		hwprof_jw_measured(&j, "running_pct", stat_running_pct(s), true);
		hwprof_jw_str(&j, "unit", hwprof_event_unit(&list->ev[i]));
		hwprof_jw_bool(&j, "counted", ok);
		hwprof_jw_bool(&j, "supported", !s->unsupported);
		hwprof_jw_int(&j, "group", list->ev[i].group);
		hwprof_jw_end(&j);
	}
	hwprof_jw_end(&j);
	hwprof_jw_array(&j, "metrics");
	for (size_t i = 0; i < nm; i++)
		hwprof_jw_metric(&j, &m[i].m, 15);
	hwprof_jw_end(&j);
	if (bw)
		stat_bw_json(&j, bw);
	json_messages(&j);
	hwprof_jw_end(&j);
	fputc('\n', f);
}

static void print_csv(FILE *f, const struct hwprof_event_list *list, const struct ev_stat *st,
		      const struct stat_bw *bw)
{
	fputs("event,mean,stddev_pct,min,max,running_pct,unit,counted,supported\n", f);
	for (size_t i = 0; i < list->n; i++) {
		const struct ev_stat *s = &st[i];
		hwprof_csv_str(f, list->ev[i].spec);
		if (s->counted_runs)
			fprintf(f, ",%.15g,%.6f,%.15g,%.15g,%.3f,", stat_mean(s),
				stat_stddev_pct(s), s->min, s->max, stat_running_pct(s));
		else if (s->unsupported)
			fputs(",,,,,,", f); /* never opened: no running share either */
		else
			fprintf(f, ",,,,,%.3f,", stat_running_pct(s));
		hwprof_csv_str(f, hwprof_event_unit(&list->ev[i]));
		fprintf(f, ",%s,%s\n", s->counted_runs ? "true" : "false",
			s->unsupported ? "false" : "true");
	}
	if (bw)
		stat_bw_csv(f, bw);
}

/* ---- the command ----------------------------------------------------------------------- */

/* Whether the counts go to stderr: no -o, as perf stat does, so that stdout stays the
 * counted program's own. */
static bool counts_on_stderr(const struct stat_opts *o)
{
	return !o->out.file;
}

/* The descriptor the counts go to: -o FILE opened (created, truncated) before anything is
 * run, so that a path that cannot be written costs no run; stderr without -o; stdout for
 * "-o -" (standard output, as "-" is for most tools: never a file named "-"). Returns it, or
 * -1 after reporting. */
static int open_counts(const struct stat_opts *o)
{
	int fd;

	if (counts_on_stderr(o))
		return STDERR_FILENO;
	if (!strcmp(o->out.file, "-"))
		return STDOUT_FILENO;
	fd = open(o->out.file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		return error("-o '%s': %m (check the directory and its permissions)", o->out.file);
	return fd;
}

/* Writes the counts, made in memory first, to FD (open_counts(); closed here when a file):
 * a failed write(2) then has its own errno (stdio would leave it to whichever later call
 * noticed), and a full disk loses nothing silently. Returns 0, or -1 after reporting. */
static int write_counts(const struct stat_opts *o, int fd, const char *text, size_t len)
{
	int e = 0;

	fflush(stdout);
	fflush(stderr);
	e = cli_write_all(fd, text, len);
	if (fd > STDERR_FILENO && close(fd) < 0 && !e)
		e = errno;
	if (!e)
		return 0;
	if (fd > STDERR_FILENO)
		return error_errno(e, "-o '%s': %m (%s)", o->out.file,
				   e == EFBIG ? "raise 'ulimit -f'"
					      : "choose a writable path with -o");
	return error_errno(e,
			   "writing the counts: %m (check the output's disk or pipe, or write to "
			   "a file with -o)");
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
	char err[256] = "", cpu[256], msg[PATH_MAX + 256], *cmd = NULL, *text = NULL;
	char *metric_spec = NULL, *bw_spec = NULL;
	struct stat_bw *bw = NULL;
	size_t *boxes = NULL;
	double elapsed;
	struct run_times times = {.have_cpu = false};
	bool one_by_one = false;
	int status = 0, rc = EXIT_FATAL, r, out_fd = -1;
	size_t nm, text_len = 0;
	FILE *out;

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
	out_fd = open_counts(&o);
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

	out = open_memstream(&text, &text_len);
	if (!out)
		die("out of memory");
	if (o.out.format == CLI_FORMAT_JSON)
		print_json(out, &rd, &list, st, metrics, nm, &times, cpu, &o, bw);
	else if (o.out.format == CLI_FORMAT_CSV)
		print_csv(out, &list, st, bw);
	else
		print_text(out, &rd, &list, st, metrics, nm, &times, cpu, cmd, &o, bw);
	if (fclose(out) != 0)
		die("out of memory");
	if (o.out.format == CLI_FORMAT_JSON && counts_on_stderr(&o))
		cli_drop_messages(); /* the JSON carries them */
	else
		cli_release_messages();
	r = write_counts(&o, out_fd, text, text_len);
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
	free(text);
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
