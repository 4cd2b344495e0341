/* record.c - `hwprof record`: sample a command into a sample file.
 *
 * Order of work, so that bad input fails before the target runs:
 *   options -> events parsed -> command found -> output file creatable -> target forked
 *   (waiting) -> sampling events opened per CPU on its pid, counting group beside them ->
 *   writer opened with the header -> target released (enable_on_exec starts the events at
 *   its exec) -> rings drained until it exits or a signal stops us -> trailer.
 */
#include "builtin.h"
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "attach.h"
#include "drain.h"
#include "file_ends.h"
#include "hwprof/event.h"
#include "hwprof/sampfile.h"
#include "jitmaps.h"
#include "recording.h"
#include "syswide.h"
#include "unwind.h"

/* The HWPROF_DATA_* bits of the sampling events LIST (hwprof_event_data()), or'ed. */
static unsigned events_data(const struct hwprof_event_list *list)
{
	unsigned bits = 0;

	for (size_t i = 0; i < list->n; i++)
		bits |= hwprof_event_data(&list->ev[i]);
	return bits;
}

/* The error of a sampling open that failed with -ERR and message ERR. */
static int sampling_failed(const struct recording *r, int ret, const char *err)
{
	char why[256];

	if (r->opt.system_wide && (ret == -EACCES || ret == -EPERM))
		return error("permission denied: system-wide recording (%s) %s",
			     record_syswide_opt(&r->opt),
			     syswide_denied(record_syswide_opt(&r->opt), why, sizeof(why)));
	return error("%s", cli_see(err));
}

/* Opens the sampling events: the user's, or the first default that the host opens. */
static int open_sampling(struct recording *r)
{
	static const char *const defaults[] = {"LLC-load-misses:P", "cache-misses:P"};
	const struct sampler_config *cfg = &r->cfg;
	char err[512] = "";
	int ret;

	if (r->opt.event) {
		ret = sampler_open(&r->sampler, &r->events, cfg, r->target.pids, r->target.npids,
				   err, sizeof(err));
		return ret < 0 ? sampling_failed(r, ret, err) : 0;
	}
	if (hwprof_host_has_pmu()) {
		for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
			record_parse_events(defaults[i], &r->events);
			if (!sampler_open(&r->sampler, &r->events, cfg, r->target.pids,
					  r->target.npids, err, sizeof(err)))
				return 0;
			hwprof_events_free(&r->events);
		}
		note("no miss event opens on this host (%s); sampling cpu-clock", cli_see(err));
	} else {
		note("the host exposes no hardware PMU (virtualized?): sampling cpu-clock instead "
		     "of LLC-load-misses");
	}
	record_parse_events("cpu-clock", &r->events);
	ret = sampler_open(&r->sampler, &r->events, cfg, r->target.pids, r->target.npids, err,
			   sizeof(err));
	return ret < 0 ? sampling_failed(r, ret, err) : 0;
}

/* What the kernel granted of the precise_ip asked, and the skid of a hardware event without. */
static void report_precision(const struct recording *r)
{
	for (size_t i = 0; i < r->sampler.nevents; i++) {
		const struct hwprof_file_event *f = &r->sampler.fev[i];
		const struct hwprof_event *ev = &r->events.ev[i];

		if (f->precise_obtained < f->precise_requested)
			note("%s: precise_ip %u refused, sampling with precise_ip %u", f->name,
			     f->precise_requested, f->precise_obtained);
		if (hwprof_event_is_hw(ev) && f->precise_obtained == 0)
			warning("%s samples with precise_ip 0: expect skid (the sampled IP lands "
				"some instructions after the one that caused the event; %s)",
				f->name,
				f->precise_requested ? "this host takes no precise level for it"
						     : "try a :P modifier");
	}
}

/* cpu-clock and task-clock count nanoseconds, and the kernel raises a sample period below
 * 10000 ns to 10000 (perf_swevent_init_hrtimer): -c 1 is not one sample per event. */
static void note_clock_period(const struct recording *r)
{
	if (!r->opt.period || r->opt.period >= 10000)
		return;
	for (size_t i = 0; i < r->sampler.nevents; i++) {
		const struct hwprof_file_event *f = &r->sampler.fev[i];

		if (f->type == PERF_TYPE_SOFTWARE && (f->config == PERF_COUNT_SW_CPU_CLOCK ||
						      f->config == PERF_COUNT_SW_TASK_CLOCK)) {
			note(
			    "-c %lld: %s periods are in ns; the kernel's minimum is about 10000 ns "
			    "(10 µs): give -c 10000 or more, or a rate with -F",
			    r->opt.period, f->name);
			return;
		}
	}
}

/* What the sampling events are opened with, from the options and the target. */
static struct sampler_config sampling_config(const struct recording *r)
{
	return (struct sampler_config){
	    .period = (uint64_t)r->opt.period,
	    .freq = (uint64_t)r->opt.freq,
	    .pages = (size_t)r->opt.pages,
	    .enable_on_exec = !target_attached(&r->target) && !r->opt.system_wide,
	    .callchain = r->opt.callchain,
	    .max_stack = (uint16_t)r->opt.max_stack,
	    .callchain_kernel_only = r->opt.stack_user > 0,
	    .stack_user = r->opt.stack_user,
	    .regs_user = unwind_regs_mask(),
	    .data =
		!r->opt.no_data && (r->opt.data || (events_data(&r->events) & HWPROF_DATA_ADDR)),
	    .data_mem = (events_data(&r->events) & HWPROF_DATA_MEM) != 0,
	    .system_wide = r->opt.system_wide,
	    .cpus = r->cpus,
	    .ncpus = r->ncpus,
	};
}

/* Opens, on the target set up, the unwinder of --call-graph dwarf, the sampling events and the
 * counting group, and says where the kernel granted less than was asked. Returns 0, or
 * EXIT_FATAL after an error message. */
static int open_events(struct recording *r)
{
	r->cfg = sampling_config(r);
	if (r->opt.stack_user) {
		int ret = unwind_new(&r->unwind);
		if (ret < 0)
			return error_errno_status(EXIT_FATAL, ret, "--call-graph dwarf: %m");
		r->unwound = xmalloc(sizeof(*r->unwound));
	}
	if (open_sampling(r) < 0 ||
	    counting_open(&r->counting, &r->opt, &r->target, r->cpus, r->ncpus) < 0)
		return EXIT_FATAL;
	if (r->sampler.pages < (size_t)r->opt.pages)
		warning("ring buffer reduced to %zu pages per CPU (locked-memory limit, "
			"kernel.perf_event_mlock_kb)",
			r->sampler.pages);
	report_precision(r);
	note_clock_period(r);
	return 0;
}

static void record_cleanup(struct recording *r, bool failed)
{
	/* The target first: nothing of it runs on while the rest is freed. */
	target_close(&r->target);
	drain_stop_writer(r);
	unwind_free(r->unwind);
	free(r->unwound);
	if (r->writer)
		hwprof_writer_close(r->writer, NULL);
	r->writer = NULL;
	counting_close(&r->counting);
	sampler_close(&r->sampler);
	merge_free(&r->merge);
	hwprof_header_release(&r->header);
	hwprof_events_free(&r->events);
	free(r->cpus);
	outfile_close(&r->out, failed);
}

/* Without -p: checks the command and the output, then forks the target (waiting). With -p:
 * inspects the process, then creates the output. Returns 0 or the exit status. */
static int setup_target(struct recording *r, char **argv)
{
	int status;

	if (r->opt.pid) {
		status = target_attach(&r->target, (pid_t)r->opt.pid);
		if (status)
			return status;
		return outfile_create(&r->out) < 0 ? EXIT_FATAL : 0;
	}
	if (r->opt.system_wide) {
		char err[256] = "";
		int n = syswide_cpus(r->opt.cpu_list, &r->cpus, err, sizeof(err));

		if (n == -ENOMEM)
			return error_status(EXIT_FATAL, "out of memory");
		if (n < 0)
			die_usage("%s", err);
		r->ncpus = (size_t)n;
		if (!argv[0]) /* no command: until ^C */
			return outfile_create(&r->out) < 0 ? EXIT_FATAL : 0;
	}
	status = target_check_command(argv, r->opt.output);
	if (status)
		return status;
	if (outfile_create(&r->out) < 0)
		return EXIT_FATAL;
	return target_launch(&r->target, argv);
}

/* A stop signal that came during the set-up, while blocked, ends the recording before the
 * target runs. Returns the exit status 128+N after an error message, or 0 when none came. */
static int stopped_before_start(void)
{
	int sig = target_stop_pending();

	if (!sig)
		return 0;
	error("%s before the recording started: nothing recorded",
	      sig == SIGINT    ? "interrupted (SIGINT)"
	      : sig == SIGTERM ? "terminated (SIGTERM)"
			       : "hung up (SIGHUP)");
	return 128 + sig;
}

/* Enables the sampling events and the counting groups opened disabled (-p, -a). */
static void enable_events(struct recording *r)
{
	sampler_enable(&r->sampler);
	counting_enable(&r->counting);
}

/* Starts the events: releases the launched target, or describes the attached process (or,
 * with -a, every process) and enables them; *T0 is when they started. Returns 0, or the exit
 * status after an error message. */
static int start(struct recording *r, uint64_t *t0)
{
	int ret;
	struct syswide_skipped skipped;

	*t0 = record_now_ns();
	if (r->opt.system_wide) {
		/* Enabled before /proc is read, as perf does: a process that starts or execs
		 * meanwhile is in the kernel's records, stamped after the /proc ones, which it
		 * overrides; and before the command runs, so that its exec is recorded. */
		enable_events(r);
		ret = syswide_synthesize(*t0, drain_synth_record, r, &skipped);
		if (ret < 0)
			return error_errno_status(EXIT_FATAL, ret, "%s: reading /proc: %m",
						  record_syswide_opt(&r->opt));
		if (skipped.n)
			warning_errno(skipped.err,
				      "the mappings of %zu running process%s could not be read "
				      "(PID %d: %m): samples in code mapped before the recording "
				      "show as [unknown] there",
				      skipped.n, skipped.n == 1 ? "" : "es", (int)skipped.first);
		return record_no_target(r) ? 0 : target_go(&r->target);
	}
	if (target_attached(&r->target)) {
		ret = attach_synthesize(r->target.pids[0], r->target.pids, r->target.npids,
					record_now_ns(), drain_synth_record, r);
		if (ret < 0)
			return error_errno_status(EXIT_FATAL, ret, "-p %d: reading /proc: %m",
						  (int)r->target.pids[0]);
		enable_events(r);
		return 0;
	}
	return target_go(&r->target);
}

/* The JIT symbol maps of the target's processes, copied beside the output (jitmaps.h). */
static void keep_jit_maps(struct recording *r)
{
	size_t n;

	if (target_attached(&r->target))
		target_seen(&r->target, (pid_t)r->opt.pid);
	else if (r->target.npids)
		target_seen(&r->target, r->target.pids[0]);
	n = jitmaps_keep(r->opt.output, r->target.seen, r->target.nseen);
	if (n)
		note("kept the JIT symbols of %zu process%s (/tmp/perf-PID.map) as %s.perf-PID.map",
		     n, n == 1 ? "" : "es", r->opt.output);
}

/* The closing lines of a recording whose trailer T was written (summary.h). */
static void print_summary(const struct recording *r, const struct hwprof_file_trailer *t)
{
	summary_print(
	    &(struct record_summary){
		.output = r->opt.output,
		.event = &r->sampler.fev[0],
		.duration_ns = t->duration_ns,
		.cpu_ns = summary_cpu_ns(t, counting_group(&r->counting), &r->sampler),
		.callchain = r->opt.callchain,
		.max_stack = r->opt.max_stack,
		.unwind = r->unwind,
		.stack_user = r->opt.stack_user,
		.attached = target_attached(&r->target) ? (pid_t)r->opt.pid : 0,
		.system_wide = r->opt.system_wide,
	    },
	    &r->tally);
}

/* After the loop, the target reaped into WSTATUS (a launched one): the terminal's modes back,
 * the last records, the trailer, the summary, the JIT maps. Returns 0 or -1 after an error
 * message. */
static int finish(struct recording *r, int wstatus, uint64_t t0)
{
	struct hwprof_file_trailer trailer = {0};

	r->target.launch.pid = -1; /* reaped */
	if (record_launched(r))
		launch_restore_tty(&r->target.launch, wstatus); /* before the summary is printed */
	sampler_disable(&r->sampler);
	trailer.duration_ns = record_now_ns() - t0;
	if (drain_finish(r) < 0 || file_trailer_write(r, &trailer, wstatus) < 0)
		return -1;
	print_summary(r, &trailer);
	free(trailer.counts);
	target_note_descendants(&r->target);
	keep_jit_maps(r);
	return 0;
}

/* The exit status of a recording that succeeded: the launched command's (in WSTATUS), and
 * with a stop signal hwprof ends as the command did, so that the shell sees the ^C; EXIT_OK
 * for a target with no status of its own (-p, `-a` alone). */
static int exit_status(bool launched, int wstatus)
{
	if (!launched)
		return EXIT_OK;
	if (target_stop_signal())
		launch_die_like(target_stop_signal(), wstatus);
	return launch_exit_status(wstatus);
}

int cmd_record(int argc, char **argv)
{
	static struct recording rec; /* large (build-id cache); one per process */
	struct recording *r = &rec;
	sigset_t unblocked;
	uint64_t t0 = 0;
	int wstatus = 0, status;
	bool launched;

	memset(r, 0, sizeof(*r));
	record_options_parse(&r->opt, argc, argv);
	/* Before anything is created: a ^C while the events are opened (seconds for -p of a
	 * process with thousands of threads) then waits for the check before start(), instead
	 * of killing hwprof with an empty file in place of the previous one. The writer thread
	 * inherits the mask, so that the signals arrive in ppoll() only. */
	target_block_signals(&unblocked);
	target_init(&r->target);
	outfile_init(&r->out, r->opt.output);
	record_options_check(&r->opt, argc - optind);
	record_options_events(&r->opt, &r->events, &r->counting.events);
	launch_adjust_limits();
	status = setup_target(r, argv + optind);
	if (!status)
		status = open_events(r);
	if (!status && (file_header_write(r) < 0 || drain_start_writer(r) < 0))
		status = EXIT_FATAL;
	if (!status)
		status = stopped_before_start();
	if (!status)
		status = start(r, &t0);
	if (!status && (drain_loop(r, &unblocked, &wstatus) < 0 || finish(r, wstatus, t0) < 0))
		status = EXIT_FATAL;
	launched = record_launched(r);
	record_cleanup(r, status != 0);
	return status ? status : exit_status(launched, wstatus);
}
