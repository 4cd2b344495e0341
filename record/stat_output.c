/* stat_output.c - the counts of `hwprof stat` as text (perf stat's layout), CSV or JSON, and
 * where they go (see stat_output.h).
 */
#include "stat_output.h"

#include "cli.h"
#include "json.h"
#include "textfmt.h"
#include "hwprof/hwprof.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* perf's wording; a command beside -p or -a only sets how long they are counted. Then how many
 * runs, and the CPU. */
static void text_title(FILE *f, const struct stat_result *r)
{
	const struct stat_opts *o = r->o;
	const struct runs_done *rd = r->rd;

	if (o->pid > 0)
		fprintf(f, "\n Performance counter stats for process id '%d'", (int)o->pid);
	else if (o->system_wide)
		fprintf(f, "\n Performance counter stats for 'system wide'");
	/* The command line as typed, its control bytes tamed (textfmt.h). */
	if (r->cmd) {
		fputs(o->pid > 0 || o->system_wide ? " while '"
						   : "\n Performance counter stats for '",
		      f);
		hwprof_text_put(f, r->cmd);
		fputs(o->pid > 0 || o->system_wide ? "' ran" : "'", f);
	}
	if (rd->asked > 1 && rd->interrupted && !rd->completed)
		fprintf(f, " (run %lld of %lld, interrupted: partial counts)", rd->interrupted,
			rd->asked);
	else if (rd->asked > 1 && rd->interrupted)
		fprintf(f, " (%lld of %lld runs, interrupted)", rd->completed, rd->asked);
	else if (rd->asked > 1)
		fprintf(f, " (%lld runs)", rd->asked);
	fprintf(f, ":\n CPU: %s\n", r->cpu);
}

/* The row of event I: its mean, or why it has none. */
static void text_event(FILE *f, const struct stat_result *r, size_t i)
{
	const struct hwprof_event *ev = &r->list->ev[i];
	const struct ev_stat *s = &r->st[i];
	const char *unit = hwprof_event_unit(ev);
	struct hwprof_count run;
	char a[64];

	if (s->unsupported) {
		fprintf(f, " %20s  %s\n", "<not supported>", ev->spec);
		return;
	}
	if (!s->counted_runs) {
		const char *why = hwprof_count_why_not(ev);
		fprintf(f, " %20s  %-24s%s%s%s\n", "<not counted>", ev->spec, why ? " (" : "",
			why ? why : "", why ? ")" : "");
		return;
	}
	fprintf(f, " %20s  %-24s %-5s", hwprof_count_text(stat_mean(s), unit, a, sizeof(a)),
		ev->spec, unit);
	/* 78 columns with the spread: min and max get a table of their own below. */
	if (r->rd->kept > 1)
		fprintf(f, " ( +- %5.2f%% )", stat_stddev_pct(s));
	run = stat_running(s);
	fprintf(f, "  [%5.1f%%]", 100 * run.ratio);
	if (hwprof_count_multiplexed(&run))
		fprintf(f, "  multiplexed: counted %.1f%% of the time (< %.0f%%), scaled",
			100 * run.ratio, 100 * HWPROF_MULTIPLEX_FLAG);
	if (s->counted_runs < r->rd->kept)
		fprintf(f, "  (counted in %u of %lld runs)", s->counted_runs, r->rd->kept);
	fputc('\n', f);
}

static void text_min_max(FILE *f, const struct stat_result *r)
{
	char b[64], c[64];

	fprintf(f, "\n min and max over the %lld runs:\n", r->rd->kept);
	for (size_t i = 0; i < r->list->n; i++) {
		const struct ev_stat *s = &r->st[i];
		const char *unit = hwprof_event_unit(&r->list->ev[i]);
		if (!s->counted_runs)
			continue;
		fprintf(f, " %20s  %20s  %s%s%s\n", hwprof_count_text(s->min, unit, b, sizeof(b)),
			hwprof_count_text(s->max, unit, c, sizeof(c)), r->list->ev[i].spec,
			*unit ? " " : "", unit);
	}
}

static void text_metrics(FILE *f, const struct stat_result *r)
{
	char a[64];

	fprintf(f, "\n");
	for (size_t i = 0; i < r->nmetrics; i++) {
		const struct hwprof_metric *x = &r->metrics[i].m;
		fprintf(f, " %20s%-5s %-24s %s\n", hwprof_metric_text(x, a, sizeof(a)),
			r->metrics[i].unit, x->name, x->formula);
	}
}

static void text_times(FILE *f, const struct stat_result *r)
{
	const struct run_times *t = r->times;

	fprintf(f, "\n %20.6f seconds time elapsed", t->elapsed);
	if (r->rd->kept > 1)
		fprintf(f, " ( +- %5.2f%% )", t->elapsed_sd);
	fputc('\n', f);
	if (t->have_cpu)
		fprintf(f, "\n %20.6f seconds user\n %20.6f seconds sys\n", t->user, t->sys);
	fputc('\n', f);
}

static void print_text(FILE *f, const struct stat_result *r)
{
	text_title(f, r);
	print_groups(f, r->list, r->st);
	fputc('\n', f);
	for (size_t i = 0; i < r->list->n; i++)
		text_event(f, r, i);
	if (r->rd->kept > 1)
		text_min_max(f, r);
	if (r->nmetrics)
		text_metrics(f, r);
	if (r->bw)
		stat_bw_text(f, r->bw);
	text_times(f, r);
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

static void print_json(FILE *f, const struct stat_result *r)
{
	const struct stat_opts *o = r->o;
	const struct runs_done *rd = r->rd;
	const struct run_times *t = r->times;
	const struct hwprof_event_list *list = r->list;
	struct hwprof_jw j;

	hwprof_jw_init(&j, f, false);
	hwprof_jw_object(&j, NULL);
	hwprof_jw_version(&j);
	hwprof_jw_str_array(&j, "command", o->argv, o->argv ? (size_t)o->argc : 0);
	if (o->pid > 0)
		hwprof_jw_int(&j, "pid", o->pid);
	hwprof_jw_bool(&j, "system_wide", o->system_wide);
	hwprof_jw_str(&j, "cpu", r->cpu);
	hwprof_jw_int(&j, "runs", rd->completed);
	hwprof_jw_bool(&j, "interrupted", rd->interrupted);
	hwprof_jw_double(&j, "elapsed_s", t->elapsed, 9);
	hwprof_jw_measured(&j, "user_s", t->user, t->have_cpu);
	hwprof_jw_measured(&j, "sys_s", t->sys, t->have_cpu);
	hwprof_jw_array(&j, "events");
	for (size_t i = 0; i < list->n; i++) {
		const struct ev_stat *s = &r->st[i];
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
	for (size_t i = 0; i < r->nmetrics; i++)
		hwprof_jw_metric(&j, &r->metrics[i].m, 15);
	hwprof_jw_end(&j);
	if (r->bw)
		stat_bw_json(&j, r->bw);
	json_messages(&j);
	hwprof_jw_end(&j);
	fputc('\n', f);
}

static void print_csv(FILE *f, const struct stat_result *r)
{
	const struct hwprof_event_list *list = r->list;

	fputs("event,mean,stddev_pct,min,max,running_pct,unit,counted,supported\n", f);
	for (size_t i = 0; i < list->n; i++) {
		const struct ev_stat *s = &r->st[i];
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
	if (r->bw)
		stat_bw_csv(f, r->bw);
}

/* Whether the counts go to stderr: no -o, as perf stat does, so that stdout stays the
 * counted program's own. */
static bool counts_on_stderr(const struct stat_opts *o)
{
	return !o->out.file;
}

/* -o FILE is opened before anything is run, so that a path that cannot be written costs no
 * run; "-" is standard output, as for most tools: never a file named "-". */
int stat_output_open(const struct stat_opts *o)
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

/* Writes the counts, made in memory first, to FD (stat_output_open(); closed here when a
 * file): a failed write(2) then has its own errno (stdio would leave it to whichever later call
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

int stat_output_write(const struct stat_result *r, int fd)
{
	const struct stat_opts *o = r->o;
	char *text = NULL;
	size_t text_len = 0;
	FILE *out;
	int rc;

	out = open_memstream(&text, &text_len);
	if (!out)
		die("out of memory");
	if (o->out.format == CLI_FORMAT_JSON)
		print_json(out, r);
	else if (o->out.format == CLI_FORMAT_CSV)
		print_csv(out, r);
	else
		print_text(out, r);
	if (fclose(out) != 0)
		die("out of memory");
	if (o->out.format == CLI_FORMAT_JSON && counts_on_stderr(o))
		cli_drop_messages(); /* the JSON carries them */
	else
		cli_release_messages();
	rc = write_counts(o, fd, text, text_len);
	free(text);
	return rc;
}
