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
#include "cli_options.h"

#include <errno.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attach.h"
#include "buildid.h"
#include "decode.h"
#include "host.h"
#include "hwprof/event.h"
#include "hwprof/hwprof.h"
#include "hwprof/sampfile.h"
#include "merge.h"
#include "jitmaps.h"
#include "outfile.h"
#include "sampler.h"
#include "summary.h"
#include "syswide.h"
#include "target.h"
#include "unwind.h"
#include "write_thread.h"

struct record_options {
	const char *event;    /* -e; NULL: the best miss event the host has, else cpu-clock */
	long long period;     /* -c, events per sample; 0: frequency mode */
	long long freq;	      /* -F, Hz */
	long long pages;      /* -m, data pages per CPU ring; 0: not given */
	const char *output;   /* -o */
	const char *count;    /* --count; NULL: the default set of `hwprof stat` */
	bool no_count;	      /* --no-count */
	long long pid;	      /* -p: attach to this running process instead of a command */
	bool callchain;	      /* -g, --call-graph fp or dwarf: each sample's callers */
	long long max_stack;  /* --max-stack: callchain entries at most; 0: not given */
	uint32_t stack_user;  /* --call-graph dwarf[,SIZE]: bytes of user stack copied per
			       * sample, unwound here (unwind.h); 0: frame pointers */
	bool data;	      /* --data: each sample's data address and the data mappings; on by
			       * itself for events that carry one (hwprof_event_data()) */
	bool no_data;	      /* --no-data: not even for those */
	bool system_wide;     /* -a or -C: every task of the CPUs, while CMD runs or until ^C */
	const char *cpu_list; /* -C LIST; NULL: every online CPU */
};

/* Everything one recording owns; freed by record_cleanup(). */
struct recording {
	struct record_options opt;
	struct record_target target; /* the command or -p's process, and its pids */
	struct outfile out;
	struct hwprof_event_list events;
	struct hwprof_event_list counts;
	int *cpus; /* -a / -C: the CPUs recorded */
	size_t ncpus;
	struct sampler sampler;
	/* The counting groups: GROUPS[0] on pids[0] (inherited by what it starts), with -p one
	 * more per other thread of the process, summed when read; NGROUPS 0: no counting. */
	struct hwprof_group **groups;
	size_t ngroups;
	struct hwprof_file_header header;
	struct hwprof_writer *writer;
	struct merge merge;
	struct record_tally tally;
	int write_err;			 /* first -errno of the writer */
	struct unwind *unwind;		 /* --call-graph dwarf: the unwinder, fed in time order */
	struct callchain_stack *unwound; /* ... and its output for one sample */
	struct write_thread *writer_thread; /* with UNWIND: unwinds and writes what the merge
					     * gives, so that the rings stay drained */
	struct {
		char path[4096];
		uint8_t id[20];
		int size;
	} bid_cache[32];
	unsigned bid_next;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* -F above kernel.perf_event_max_sample_rate is refused by the kernel with a bare EINVAL:
 * that limit is the bound, named as such. Without it, 10 MHz is beyond any kernel's. */
static long long parse_freq(const char *arg)
{
	long long max = hwprof_max_sample_rate();

	if (max <= 0)
		return cli_parse_num("-F", arg, 1, 10000000);
	return cli_parse_num_why("-F", arg, 1, max,
				 "the kernel's limit in Hz, kernel.perf_event_max_sample_rate; "
				 "lower -F, use -c, or raise that limit");
}

/* --call-graph MODE: fp (0) or dwarf[,SIZE] (the stack copy's size in bytes). SIZE as perf
 * takes it, except that perf rounds it up to a multiple of 8 and we say so instead: the
 * kernel refuses attr.sample_stack_user values that are not (EINVAL), and a sample record's
 * u16 size leaves room for 65528 bytes at most (perf_event_open(2)). */
static uint32_t parse_call_graph(const char *arg)
{
	long long size = 8192;

	if (!strcmp(arg, "fp"))
		return 0;
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ','))
		die_usage("--call-graph '%s': unknown mode (fp, as -g, or dwarf[,SIZE])", arg);
	if (!unwind_supported())
		die_usage("--call-graph dwarf: this build unwinds x86_64 stacks only (use -g: "
			  "frame pointers; build with -fno-omit-frame-pointer)");
	if (arg[5])
		size = cli_parse_num_why("--call-graph dwarf,SIZE", arg + 6, 8, 65528,
					 "the most a sample record holds");
	if (size % 8)
		die_usage("--call-graph %s: the stack copy's size must be a multiple of 8 (try "
			  "dwarf,%lld)",
			  arg, (size + 7) / 8 * 8);
	return (uint32_t)size;
}

/* -e given again adds its events, as perf's does: "A" then "B" is "A,B". The joined list
 * lives until exit (a static, so no leak is reported). */
static const char *add_events(const char *have, const char *more)
{
	static char *joined;
	char *v;

	if (!have)
		return more;
	v = xmalloc(strlen(have) + strlen(more) + 2);
	sprintf(v, "%s,%s", have, more);
	free(joined);
	joined = v;
	return v;
}

enum {
	OPT_COUNT = 256,
	OPT_NO_COUNT,
	OPT_CALL_GRAPH,
	OPT_MAX_STACK,
	OPT_DATA,
	OPT_NO_DATA,
};

static const struct cli_option options[] = {
    CLI_VALUE('e', "event", "EVENT",
	      "sampling event(s), perf spelling (default: LLC-load-misses:P, else cache-misses:P, "
	      "else cpu-clock on hosts without a PMU)"),
    CLI_VALUE('c', "period", "PERIOD", "one sample every PERIOD events"),
    CLI_VALUE('c', "count-period", "PERIOD", NULL),
    CLI_VALUE('F', "freq", "HZ",
	      "about HZ samples per second (default 4000; the period varies; tracepoints alone: "
	      "-c 1, every hit)"),
    CLI_FLAG('g', NULL, "record each sample's callers (call graph by frame pointers)"),
    CLI_VALUE(OPT_CALL_GRAPH, "call-graph", "MODE",
	      "fp: the same as -g\n"
	      "dwarf[,SIZE]: callers unwound from a copy of SIZE bytes of each sample's user stack "
	      "(default 8192, a multiple of 8 up to 65528) with the files' CFI: for code built "
	      "without frame pointers"),
    CLI_VALUE(OPT_MAX_STACK, "max-stack", "N",
	      "callers kept at most, the sample's ip included (default 127, and at most "
	      "kernel.perf_event_max_stack); deeper ones are cut and marked truncated"),
    CLI_FLAG(OPT_DATA, "data",
	     "record each sample's data address and the data mappings (heap, stack, anonymous, "
	     "files), for report --sort data,cacheline; on by itself for events that carry one "
	     "(page-faults, mem-loads, mem-stores, ibs_op)"),
    CLI_FLAG(OPT_NO_DATA, "no-data", "no data addresses, not even for those events"),
    CLI_VALUE('m', "mmap-pages", "N",
	      "ring buffer data pages per CPU, a power of two (default 256; 2048 with "
	      "--call-graph dwarf, whose samples carry their stack)"),
    CLI_VALUE('o', "output", "FILE",
	      "sample file (default hwprof.data; an existing one becomes FILE.old)"),
    CLI_VALUE(OPT_COUNT, "count", "EVENTS",
	      "counting group recorded beside the samples (default as 'hwprof stat')"),
    CLI_FLAG(OPT_NO_COUNT, "no-count", "no counting group"),
    CLI_VALUE('p', "pid", "PID",
	      "sample a running process (its threads, and the threads and children it creates) "
	      "until it ends or ^C"),
    CLI_FLAG('a', "all-cpus",
	     "system-wide: every task on every CPU, while CMD runs or until ^C (root, "
	     "CAP_PERFMON or perf_event_paranoid <= 0)"),
    CLI_VALUE('C', "cpu", "CPUS", "system-wide on these CPUs only, e.g. 0-3,8 (implies -a)"),
    CLI_OPT_HELP,
    CLI_OPT_END,
};

static const struct cli_command command = {
    .usage =
	"usage: hwprof record [-e EVENT] [-c PERIOD | -F HZ] [-g | --call-graph dwarf[,SIZE]]\n"
	"                     [--max-stack N] [--data | --no-data] [-m PAGES]\n"
	"                     [-o FILE] [--count EVENTS | --no-count] [--] CMD [ARGS...]\n"
	"       hwprof record [OPTIONS] -p PID\n"
	"       hwprof record [OPTIONS] -a | -C CPUS [--] [CMD [ARGS...]]\n"
	"\n"
	"Runs CMD and samples it (threads and children included) into a sample file.\n"
	"\n",
    .options = options,
    .help_column = 23,
    .footer = "\n"
	      "Exit status: the command's own (128+N when it was killed by signal N; 127 when it\n"
	      "could not be executed; 0 with -p); 2 when recording failed, 64 for a usage error.\n",
    .stop_at_operand = true, /* the command's own options are not ours */
};

static void parse_options(struct record_options *o, int argc, char **argv)
{
	bool fp_asked = false;
	int c;

	while ((c = cli_next_option(&command, argc, argv)) != -1) {
		switch (c) {
		case 'e':
			o->event = add_events(o->event, optarg);
			break;
		case 'c':
			o->period = cli_parse_num("-c", optarg, 1, INT64_MAX);
			break;
		case 'F':
			o->freq = parse_freq(optarg);
			break;
		case 'm':
			o->pages = cli_parse_num("-m", optarg, 1, 1 << 20);
			if (o->pages & (o->pages - 1))
				die_usage(
				    "-m %s: not a power of two (try -m %lld)", optarg,
				    1ll << (63 - __builtin_clzll((unsigned long long)o->pages)));
			break;
		case 'o':
			if (!*optarg)
				die_usage("-o '': empty file name");
			o->output = optarg;
			break;
		case OPT_COUNT:
			o->count = optarg;
			break;
		case OPT_NO_COUNT:
			o->no_count = true;
			break;
		case 'p':
			o->pid = cli_parse_num("-p", optarg, 1, INT32_MAX);
			break;
		case 'g':
			o->callchain = true;
			fp_asked = true;
			break;
		case OPT_CALL_GRAPH:
			o->callchain = true;
			o->stack_user = parse_call_graph(optarg);
			break;
		case OPT_MAX_STACK:
			o->max_stack = cli_parse_num("--max-stack", optarg, 1, HWPROF_STACK_MAX);
			break;
		case OPT_DATA:
			o->data = true;
			break;
		case OPT_NO_DATA:
			o->no_data = true;
			break;
		case 'a':
			o->system_wide = true;
			break;
		case 'C':
			o->system_wide = true;
			o->cpu_list = optarg;
			break;
		}
	}
	if (o->period && o->freq)
		die_usage("-c %lld and -F %lld exclude each other: sample by period or by "
			  "frequency",
			  o->period, o->freq);
	if (o->count && o->no_count)
		die_usage("--count and --no-count exclude each other");
	if (fp_asked && o->stack_user)
		die_usage("-g (frame pointers) and --call-graph dwarf exclude each other: choose "
			  "one way to find the callers");
	if (o->max_stack && !o->callchain)
		die_usage("--max-stack %lld: no call graph to cut (add -g)", o->max_stack);
	if (o->data && o->no_data)
		die_usage("--data and --no-data exclude each other");
	if (o->system_wide && o->pid)
		die_usage("%s and -p %lld exclude each other: every task, or one process",
			  o->cpu_list ? "-C" : "-a", o->pid);
}

/* The HWPROF_DATA_* bits of the sampling events LIST (hwprof_event_data()), or'ed. */
static unsigned events_data(const struct hwprof_event_list *list)
{
	unsigned bits = 0;

	for (size_t i = 0; i < list->n; i++)
		bits |= hwprof_event_data(&list->ev[i]);
	return bits;
}

/* attr.sample_max_stack above kernel.perf_event_max_stack fails the open with EOVERFLOW
 * (perf_event_open(2)); perf's default is 127 entries. Returns the limit to ask for. */
static uint16_t max_stack(long long asked)
{
	long long max = 0;

	if (hwprof_read_number("/proc/sys/kernel/perf_event_max_stack", &max) < 0)
		max = 0;
	if (asked && max > 0 && asked > max)
		die_usage("--max-stack %lld: above the kernel's limit of %lld (lower it, or raise "
			  "kernel.perf_event_max_stack)",
			  asked, max);
	if (!asked)
		asked = max > 0 && max < 127 ? max : 127;
	return (uint16_t)asked;
}

/* Parses SPEC into LIST, or exits with a usage error naming it. */
static void parse_events(const char *spec, struct hwprof_event_list *list)
{
	char err[256] = "";
	int ret = hwprof_events_parse(spec, list, err, sizeof(err));

	if (ret < 0 && *err)
		die_usage("%s", cli_see(err));
	if (ret < 0) {
		errno = -ret;
		die_usage("%m");
	}
}

/* The option that asked for system-wide recording, to name in messages. */
static const char *syswide_opt(const struct recording *r)
{
	return r->opt.cpu_list ? "-C" : "-a";
}

/* Whether there is neither a command nor a process: `record -a` alone, until ^C. */
static bool no_target(const struct recording *r)
{
	return !r->target.npids;
}

/* The error of a sampling open that failed with -ERR and message ERR. */
static int sampling_failed(const struct recording *r, int ret, const char *err)
{
	char why[256];

	if (r->opt.system_wide && (ret == -EACCES || ret == -EPERM))
		return error("permission denied: system-wide recording (%s) %s", syswide_opt(r),
			     syswide_denied(syswide_opt(r), why, sizeof(why)));
	return error("%s", cli_see(err));
}

/* Opens the sampling events: the user's, or the first default that the host opens. */
static int open_sampling(struct recording *r, const struct sampler_config *cfg)
{
	static const char *const defaults[] = {"LLC-load-misses:P", "cache-misses:P"};
	char err[512] = "";
	int ret;

	if (r->opt.event) {
		ret = sampler_open(&r->sampler, &r->events, cfg, r->target.pids, r->target.npids,
				   err, sizeof(err));
		return ret < 0 ? sampling_failed(r, ret, err) : 0;
	}
	if (hwprof_host_has_pmu()) {
		for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
			parse_events(defaults[i], &r->events);
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
	parse_events("cpu-clock", &r->events);
	ret = sampler_open(&r->sampler, &r->events, cfg, r->target.pids, r->target.npids, err,
			   sizeof(err));
	return ret < 0 ? sampling_failed(r, ret, err) : 0;
}

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

/* A counting group of thread PIDS[I] of -p did not open (-ERR): closes every group opened, so
 * that no total short of some threads is written. Fatal for a --count the user gave. */
static int counting_threads_failed(struct recording *r, const char *spec, size_t i, int err)
{
	const char *way = err == -EMFILE ? " (raise 'ulimit -n': each thread needs a file "
					   "descriptor per counted event)"
					 : "";

	for (size_t g = 0; g < r->ngroups; g++)
		hwprof_group_close(r->groups[g]);
	r->ngroups = 0;
	if (r->opt.count)
		return error_errno(err, "--count %s: thread %d of -p %d: %m%s", spec,
				   (int)r->target.pids[i], (int)r->target.pids[0], way);
	warning_errno(err,
		      "counting group %s not opened for thread %d of -p %d: %m; recording "
		      "samples only%s",
		      spec, (int)r->target.pids[i], (int)r->target.pids[0], way);
	return 0;
}

/* -a / -C: one counting group per CPU, on every task (pid -1), summed when read as -p's
 * threads are. A CPU whose group does not open leaves no counted totals at all. */
static int open_counting_cpus(struct recording *r, const char *spec)
{
	r->groups = xcalloc(r->ncpus, sizeof(*r->groups));
	for (size_t i = 0; i < r->ncpus; i++) {
		int ret = hwprof_group_open_list(&r->groups[i], &r->counts, -1, r->cpus[i],
						 HWPROF_GROUP_START_DISABLED);
		if (ret == 0) {
			r->ngroups++;
			continue;
		}
		for (size_t g = 0; g < r->ngroups; g++)
			hwprof_group_close(r->groups[g]);
		r->ngroups = 0;
		if (r->opt.count)
			return error("--count %s: CPU %d: %s", spec, r->cpus[i],
				     cli_see(hwprof_strerror_last()));
		warning("counting group %s not opened on CPU %d: %s (recording samples only)", spec,
			r->cpus[i], cli_see(hwprof_strerror_last()));
		return 0;
	}
	return 0;
}

/* Opens the counting group beside the samples. The default set is best effort; a set the
 * user asked for must open. */
static int open_counting(struct recording *r)
{
	const char *spec = r->opt.count;
	int ret;

	if (r->opt.no_count)
		return 0;
	if (!spec) /* `hwprof stat`'s set: kernel work counted with :uk where allowed */
		spec = hwprof_count_default_spec(hwprof_host_has_pmu());
	if (!r->opt.count)
		parse_events(spec, &r->counts);
	if (r->opt.system_wide)
		return open_counting_cpus(r, spec);
	r->groups = xcalloc(r->target.npids, sizeof(*r->groups));
	ret = hwprof_group_open_list(
	    &r->groups[0], &r->counts, r->target.pids[0], -1,
	    HWPROF_GROUP_INHERIT |
		(!target_attached(&r->target) ? HWPROF_GROUP_ENABLE_ON_EXEC : 0));
	if (ret < 0) {
		const char *why = cli_see(hwprof_strerror_last());

		if (r->opt.count)
			return *why ? error("--count %s: %s", spec, why)
				    : error_errno(ret, "--count %s: %m", spec);
		if (*why)
			warning("counting group %s not opened: %s (recording samples only)", spec,
				why);
		else
			warning_errno(
			    ret, "counting group %s not opened: %m (recording samples only)", spec);
		return 0;
	}
	/* With -p, inherit reaches only the threads a counted thread creates from now on: the
	 * threads that already exist get a group each, summed when read. A thread that ended
	 * in between (ESRCH) has nothing to count; any other failure would leave totals short
	 * of some threads' work, so the file gets no counted totals at all. */
	r->ngroups = 1;
	for (size_t i = 1; target_attached(&r->target) && i < r->target.npids; i++) {
		ret = hwprof_group_open_list(&r->groups[r->ngroups], &r->counts, r->target.pids[i],
					     -1, HWPROF_GROUP_INHERIT);
		if (ret == 0)
			r->ngroups++;
		else if (ret != -ESRCH)
			return counting_threads_failed(r, spec, i, ret);
	}
	return 0;
}

static int fill_header(struct recording *r)
{
	size_t nc = r->ngroups ? r->counts.n : 0;
	int argc = 0, ret;

	ret = hwprof_header_init(&r->header);
	if (ret < 0)
		return error_errno(ret, "host facts for the file header: %m");
	while (r->target.argv && r->target.argv[argc])
		argc++;
	r->header.argc = (uint32_t)argc;
	r->header.system_wide = r->opt.system_wide;
	if (r->opt.cpu_list)
		syswide_cpus_text(r->cpus, (int)r->ncpus, r->header.cpus, sizeof(r->header.cpus));
	r->header.argv = xcalloc((size_t)argc + 1, sizeof(char *));
	for (int i = 0; i < argc; i++)
		r->header.argv[i] = xstrdup(r->target.argv[i]);
	r->header.nevents = (uint32_t)(r->sampler.nevents + nc);
	r->header.events = xcalloc(r->header.nevents, sizeof(*r->header.events));
	memcpy(r->header.events, r->sampler.fev, r->sampler.nevents * sizeof(*r->sampler.fev));
	for (size_t i = 0; i < nc; i++) {
		const struct hwprof_event *ev = hwprof_group_event(r->groups[0], i);
		struct hwprof_file_event *f = &r->header.events[r->sampler.nevents + i];

		snprintf(f->name, sizeof(f->name), "%s", ev->spec);
		f->type = ev->type;
		f->config = ev->config;
		f->config1 = ev->config1;
		f->config2 = ev->config2;
		f->exclude_user = ev->exclude_user;
		f->exclude_kernel = ev->exclude_kernel;
		f->exclude_hv = ev->exclude_hv;
	}
	return 0;
}

/* The kernel leaves the build-id out of MMAP2 when it could not read it without faulting. */
static void fill_build_id(struct recording *r, struct hwprof_rec_mmap *m)
{
	unsigned i, n = sizeof(r->bid_cache) / sizeof(r->bid_cache[0]);
	int size;

	if (m->build_id_size || m->filename[0] != '/')
		return;
	for (i = 0; i < n; i++) {
		if (!strcmp(r->bid_cache[i].path, m->filename)) {
			size = r->bid_cache[i].size;
			goto found;
		}
	}
	i = r->bid_next++ % n;
	snprintf(r->bid_cache[i].path, sizeof(r->bid_cache[i].path), "%s", m->filename);
	size = r->bid_cache[i].size = buildid_read(m->filename, r->bid_cache[i].id);
found:
	if (size > 0) {
		m->build_id_size = (uint8_t)size;
		memcpy(m->build_id, r->bid_cache[i].id, (size_t)size);
	}
}

/* The mapped file's size, mtime, device and inode from stat(2) now: report compares them with
 * the file it opens when no build-id can tell a rebuild. A file replaced since it was mapped
 * (another inode than MMAP2's) is not the one mapped: its facts stay MMAP2's. The device is
 * stat(2)'s, as report will see it: on overlayfs MMAP2 names the layer's device. */
static void fill_identity(struct hwprof_rec_mmap *m)
{
	struct stat st;

	if (m->filename[0] != '/' || stat(m->filename, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	if (m->ino_known && m->ino != st.st_ino)
		return;
	m->ino_known = true;
	m->dev_major = major(st.st_dev);
	m->dev_minor = minor(st.st_dev);
	m->ino = st.st_ino;
	m->stat_known = true;
	m->size = (uint64_t)st.st_size;
	m->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
}

/* --call-graph dwarf: a sample is unwound when it is written, in time order, so that the
 * unwinder has seen exactly the mappings its process had then (the records before it). Its
 * registers and stack copy wait beside it in the merge queue. */
static int queue_for_unwinding(struct recording *r, const struct hwprof_record *rec)
{
	void *blob;
	size_t len;
	int ret = unwind_pack(r->sampler.decode.stack, r->sampler.decode.ustack, &blob, &len);

	if (ret < 0)
		return ret;
	ret = merge_add_blob(&r->merge, rec, blob, len);
	return ret < 0 ? ret : 0;
}

/* The other half: REC to the unwinder; a sample's stack unwound from BLOB[LEN] and interned
 * into *STACK_ID. Returns 0 or -errno. */
static int unwind_record(struct recording *r, const struct hwprof_record *rec, const void *blob,
			 size_t len, uint32_t *stack_id)
{
	struct callchain_stack *st = r->unwound;
	int ret = unwind_track(r->unwind, rec);

	if (ret < 0 || rec->type != HWPROF_REC_SAMPLE || !blob)
		return ret;
	ret = unwind_sample(r->unwind, &rec->sample, blob, len, (uint32_t)r->opt.max_stack - 1, st);
	if (ret < 0)
		return ret;
	ret = hwprof_writer_add_stack(r->writer, st->ips, st->nr, st->nr_kernel, st->truncated,
				      stack_id);
	r->tally.stacks_truncated += ret == 0 && st->truncated;
	return ret;
}

/* One perf record from a ring: translated, tallied, queued for the time-ordered write. */
static int on_ring_record(const struct perf_event_header *h, size_t len, void *arg)
{
	struct recording *r = arg;
	struct hwprof_record rec;
	int ret = decode_record(&r->sampler.decode, h, len, &rec);

	if (ret < 0) {
		r->tally.bad++;
		return 0;
	}
	if (ret == 0)
		return 0;
	switch (rec.type) {
	case HWPROF_REC_SAMPLE: {
		const struct callchain_stack *st = r->sampler.decode.stack;
		if (r->unwind)
			return queue_for_unwinding(r, &rec);
		if (!st)
			break;
		/* Interned now, in ring order: the writer puts every stack before the blocks
		 * of the samples that use it, whatever order the merge gives them. */
		ret = hwprof_writer_add_stack(r->writer, st->ips, st->nr, st->nr_kernel,
					      st->truncated, &rec.sample.stack_id);
		if (ret < 0) {
			if (!r->write_err)
				r->write_err = ret;
			return ret;
		}
		r->tally.stacks_truncated += st->truncated;
		break;
	}
	case HWPROF_REC_LOST:
		r->tally.lost += rec.lost.lost;
		break;
	case HWPROF_REC_THROTTLE:
		r->tally.throttles++;
		break;
	case HWPROF_REC_MMAP:
		/* A build-id names code to symbolize; a data mapping needs none. */
		if ((rec.mmap.prot & PROT_EXEC) &&
		    (!r->sampler.kernel_build_id || !rec.mmap.build_id_size))
			fill_build_id(r, &rec.mmap);
		fill_identity(&rec.mmap);
		break;
	default:
		break;
	}
	ret = merge_add(&r->merge, &rec);
	return ret < 0 ? ret : 0;
}

/* Writes REC, a sample after unwinding its stack from *BLOB: on the writer thread when there
 * is one. Returns 0 or -errno. */
static int write_record(const struct hwprof_record *queued, void **blob, size_t len, void *arg)
{
	struct recording *r = arg;
	struct hwprof_record copy = *queued, *rec = &copy;
	int ret = r->unwind ? unwind_record(r, rec, *blob, len, &copy.sample.stack_id) : 0;

	if (ret == 0)
		ret = hwprof_writer_add(r->writer, rec);
	if (ret == 0 && rec->type == HWPROF_REC_SAMPLE)
		r->tally.samples++;
	return ret;
}

static void flush_writer(void *arg)
{
	struct recording *r = arg;

	hwprof_writer_flush(r->writer);
}

/* The writer thread's end: everything queued written. Returns 0 or -1 (WRITE_ERR set). */
static int stop_writer_thread(struct recording *r)
{
	int ret = write_thread_stop(r->writer_thread);

	r->writer_thread = NULL;
	if (ret < 0 && !r->write_err)
		r->write_err = ret;
	return ret < 0 ? -1 : 0;
}

static int emit(const struct hwprof_record *rec, void **blob, size_t len, void *arg)
{
	struct recording *r = arg;
	void *taken = *blob;
	int ret;

	if (r->writer_thread) {
		*blob = NULL;
		ret = write_thread_push(r->writer_thread, rec, taken, len);
	} else {
		ret = write_record(rec, blob, len, r);
	}
	if (ret < 0) {
		if (!r->write_err)
			r->write_err = ret;
		return ret;
	}
	/* In time order here, after the merge: a child's EXIT drained from its CPU's ring
	 * before its FORK from the parent's would leave the pid tracked for good. With -p,
	 * nothing of it is ours to end or to wait for. */
	if (rec->type != HWPROF_REC_SAMPLE && !target_attached(&r->target))
		target_track(&r->target, rec);
	return 0;
}

/* Drains every ring, then writes what is older than the start of this round. */
static int drain(struct recording *r, bool final)
{
	/* Stamped-to-published delay of a kernel record is far below this margin. */
	const uint64_t margin = 20 * 1000000ull;
	uint64_t start = now_ns(), upto;
	long ret;

	for (size_t c = 0; c < r->sampler.ncpus; c++) {
		ret = ring_drain(&r->sampler.cpus[c].ring, on_ring_record, r);
		if (ret < 0 && r->write_err)
			return outfile_write_failed(&r->out, r->write_err);
		if (ret < 0)
			return error_errno((int)ret, "reading the ring buffer of CPU %d: %m",
					   r->sampler.cpus[c].cpu);
	}
	upto = final ? UINT64_MAX : start > margin ? start - margin : 0;
	ret = merge_flush(&r->merge, upto, emit, r);
	if (ret < 0 && r->write_err)
		return outfile_write_failed(&r->out, r->write_err);
	if (ret < 0)
		return error_errno((int)ret, "ordering the records: %m");
	return 0;
}

/* Drains the rings until the target ends (reaped into *WSTATUS) or, with -p, until the
 * process ends or a stop signal. After a stop signal, also until the rest of the target's
 * process group has ended (target_ended). Returns 0 or -1 after an error message. */
static int record_loop(struct recording *r, const sigset_t *unblocked, int *wstatus)
{
	size_t n = r->sampler.ncpus;
	struct pollfd *pfd = xcalloc(n + 1, sizeof(*pfd));
	uint64_t last_flush = now_ns();
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		pfd[i].fd = r->sampler.cpus[i].fd;
		pfd[i].events = POLLIN;
	}
	pfd[n].fd = r->target.pidfd;
	pfd[n].events = POLLIN;
	for (;;) {
		struct timespec ts = {0, (target_stop_signal() ? 50 : 500) * 1000000L};
		bool attached_gone = false;

		if (ppoll(pfd, n + 1, &ts, unblocked) > 0) {
			for (size_t i = 0; i < n; i++)
				if (pfd[i].revents & (POLLHUP | POLLERR))
					pfd[i].fd = -1; /* the task is gone: no more wakeups */
			attached_gone = pfd[n].revents != 0;
		}
		if (drain(r, false) < 0) {
			ret = -1;
			break;
		}
		if (now_ns() - last_flush > 1000000000ull) {
			if (!r->writer_thread)
				hwprof_writer_flush(r->writer);
			last_flush = now_ns();
		}
		if (no_target(r) || target_attached(&r->target)
			? attached_gone || target_stop_signal()
			: target_ended(&r->target, now_ns(), wstatus))
			break;
	}
	free(pfd);
	return ret;
}

/* Adds the counts of a -p thread's group to SUM: value, time_enabled and time_running add up
 * over threads as they do over the children that inherit. */
static int add_thread_counts(struct hwprof_group *g, struct hwprof_count *sum, size_t n)
{
	struct hwprof_count *c = xcalloc(n, sizeof(*c));
	int ret = hwprof_group_read(g, c, n);

	for (size_t i = 0; ret == 0 && i < n; i++) {
		sum[i].value += c[i].value;
		sum[i].enabled_ns += c[i].enabled_ns;
		sum[i].running_ns += c[i].running_ns;
		sum[i].counted |= c[i].counted;
	}
	free(c);
	return ret;
}

static void read_counts(struct recording *r, struct hwprof_file_trailer *t)
{
	size_t n = r->ngroups ? hwprof_group_size(r->groups[0]) : 0;
	struct hwprof_count *c;
	int ret;

	if (!n)
		return;
	c = xcalloc(n, sizeof(*c));
	t->counts = xcalloc(n, sizeof(*t->counts));
	t->ncounts = (uint32_t)n;
	ret = hwprof_group_read(r->groups[0], c, n);
	for (size_t g = 1; ret == 0 && g < r->ngroups; g++)
		ret = add_thread_counts(r->groups[g], c, n);
	if (ret < 0)
		warning_errno(ret, "reading the counting group: %m (counts not recorded)");
	for (size_t i = 0; i < n; i++) {
		const struct hwprof_event *ev = hwprof_group_event(r->groups[0], i);
		struct hwprof_file_count *fc = &t->counts[i];

		snprintf(fc->event, sizeof(fc->event), "%s", ev->spec);
		fc->scale = ev->scale ? ev->scale : 1.0;
		snprintf(fc->unit, sizeof(fc->unit), "%s", hwprof_event_unit(ev));
		if (ret < 0)
			continue;
		fc->counted = c[i].counted;
		fc->value = c[i].value;
		fc->enabled_ns = c[i].enabled_ns;
		fc->running_ns = c[i].running_ns;
		/* Stored as not counted, never as a 0 that says nothing; the file has no room
		 * for the reason, so it is said here. */
		const char *why = c[i].counted ? NULL : hwprof_count_why_not(ev);
		if (why)
			note("%s: not counted (%s)", ev->spec, why);
	}
	free(c);
}

static void record_cleanup(struct recording *r, bool failed)
{
	/* The target first: nothing of it runs on while the rest is freed. */
	target_close(&r->target);
	stop_writer_thread(r);
	unwind_free(r->unwind);
	free(r->unwound);
	if (r->writer)
		hwprof_writer_close(r->writer, NULL);
	r->writer = NULL;
	for (size_t i = 0; i < r->ngroups; i++)
		hwprof_group_close(r->groups[i]);
	free(r->groups);
	sampler_close(&r->sampler);
	merge_free(&r->merge);
	hwprof_header_release(&r->header);
	hwprof_events_free(&r->events);
	hwprof_events_free(&r->counts);
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

static int synth_record(struct hwprof_record *rec, void *arg)
{
	struct recording *r = arg;

	if (rec->type == HWPROF_REC_MMAP) {
		fill_build_id(r, &rec->mmap);
		fill_identity(&rec->mmap);
	}
	return merge_add(&r->merge, rec);
}

/* Enables the sampling events and the counting groups opened disabled (-p, -a). */
static void enable_events(struct recording *r)
{
	sampler_enable(&r->sampler);
	for (size_t i = 0; i < r->ngroups; i++)
		hwprof_group_enable(r->groups[i]);
}

/* Starts the events: releases the launched target, or describes the attached process (or,
 * with -a, every process) and enables them; *T0 is when they started. Returns 0, or the exit
 * status after an error message. */
static int start(struct recording *r, uint64_t *t0)
{
	int ret;
	struct syswide_skipped skipped;

	if (r->opt.system_wide) {
		/* Enabled before /proc is read, as perf does: a process that starts or execs
		 * meanwhile is in the kernel's records, stamped after the /proc ones, which it
		 * overrides; and before the command runs, so that its exec is recorded. */
		*t0 = now_ns();
		enable_events(r);
		ret = syswide_synthesize(*t0, synth_record, r, &skipped);
		if (ret < 0)
			return error_errno_status(EXIT_FATAL, ret, "%s: reading /proc: %m",
						  syswide_opt(r));
		if (skipped.n)
			warning_errno(skipped.err,
				      "the mappings of %zu running process%s could not be read "
				      "(PID %d: %m): samples in code mapped before the recording "
				      "show as [unknown] there",
				      skipped.n, skipped.n == 1 ? "" : "es", (int)skipped.first);
		return no_target(r) ? 0 : target_go(&r->target);
	}
	if (target_attached(&r->target)) {
		ret = attach_synthesize(r->target.pids[0], r->target.pids, r->target.npids,
					now_ns(), synth_record, r);
		if (ret < 0)
			return error_errno_status(EXIT_FATAL, ret, "-p %d: reading /proc: %m",
						  (int)r->target.pids[0]);
		enable_events(r);
		return 0;
	}
	return target_go(&r->target);
}

/* The kernel writes a LOST record for a full ring only when a later record fits (kernel/
 * events/ring_buffer.c), so samples dropped near the end are announced by none: each event's
 * own lost count (PERF_FORMAT_LOST) says how many. Reads every sampling event's totals into
 * SAMPLED (header.nevents entries, the sampling events first) and writes the drops no LOST
 * record announced as one LOST record (cpu UINT32_MAX: of no one ring), so the file's LOST
 * records and its trailer say the same. Returns 0, or -1 when the write failed (WRITE_ERR). */
static int write_unannounced_lost(struct recording *r, struct hwprof_file_sampled *sampled)
{
	struct hwprof_record rec = {.type = HWPROF_REC_LOST};
	uint64_t lost = 0;
	int ret = sampler_read_totals(&r->sampler, sampled);

	if (ret < 0) {
		memset(sampled, 0, r->sampler.nevents * sizeof(*sampled));
		warning_errno(ret,
			      "reading the sampling events' own totals: %m (lost samples no LOST "
			      "record announced are not known)");
		return 0;
	}
	for (size_t e = 0; e < r->sampler.nevents; e++)
		lost += sampled[e].lost;
	if (lost <= r->tally.lost)
		return 0;
	rec.lost.time = now_ns();
	rec.lost.lost = lost - r->tally.lost;
	rec.lost.cpu = UINT32_MAX;
	ret = hwprof_writer_add(r->writer, &rec);
	if (ret < 0) {
		r->write_err = ret;
		return -1;
	}
	r->tally.lost = lost;
	return 0;
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

/* After the loop: the last records, the counts, the trailer. Returns 0 or -1. */
static int finish(struct recording *r, int wstatus, uint64_t t0)
{
	struct hwprof_file_trailer trailer = {.exit_status = INT32_MIN};
	int ret;

	sampler_disable(&r->sampler);
	trailer.duration_ns = now_ns() - t0;
	if (drain(r, true) < 0)
		return -1;
	if (r->writer_thread && stop_writer_thread(r) < 0)
		return outfile_write_failed(&r->out, r->write_err);
	trailer.sampled = xcalloc(r->header.nevents, sizeof(*trailer.sampled));
	if (write_unannounced_lost(r, trailer.sampled) < 0) {
		free(trailer.sampled);
		return outfile_write_failed(&r->out, r->write_err);
	}
	read_counts(r, &trailer);
	trailer.samples = r->tally.samples;
	trailer.lost = r->tally.lost;
	trailer.throttles = r->tally.throttles;
	if (!no_target(r) && !target_attached(&r->target))
		trailer.exit_status =
		    WIFSIGNALED(wstatus) ? -WTERMSIG(wstatus) : WEXITSTATUS(wstatus);
	if (target_stop_signal())
		snprintf(trailer.note, sizeof(trailer.note), "stopped by %s",
			 strsignal(target_stop_signal()));
	ret = hwprof_writer_close(r->writer, &trailer);
	r->writer = NULL;
	free(trailer.sampled);
	if (ret < 0) {
		free(trailer.counts);
		return outfile_write_failed(&r->out, ret);
	}
	summary_print(
	    &(struct record_summary){
		.output = r->opt.output,
		.event = &r->sampler.fev[0],
		.duration_ns = trailer.duration_ns,
		.cpu_ns = summary_cpu_ns(&trailer, r->ngroups ? r->groups[0] : NULL, &r->sampler),
		.callchain = r->opt.callchain,
		.max_stack = r->opt.max_stack,
		.unwind = r->unwind,
		.stack_user = r->opt.stack_user,
		.attached = target_attached(&r->target) ? (pid_t)r->opt.pid : 0,
		.system_wide = r->opt.system_wide,
	    },
	    &r->tally);
	free(trailer.counts);
	target_note_descendants(&r->target);
	keep_jit_maps(r);
	return 0;
}

/* Whether LIST has events and all are tracepoints (their default sample period is 1). */
static bool only_tracepoints(const struct hwprof_event_list *list)
{
	for (size_t i = 0; i < list->n; i++)
		if (list->ev[i].kind != HWPROF_EV_TRACEPOINT)
			return false;
	return list->n > 0;
}

int cmd_record(int argc, char **argv)
{
	static struct recording rec; /* large (build-id cache); one per process */
	struct recording *r = &rec;
	struct sampler_config cfg;
	sigset_t unblocked;
	uint64_t t0;
	int wstatus = 0, status = EXIT_FATAL;
	bool attached;

	memset(r, 0, sizeof(*r));
	r->opt = (struct record_options){
	    .output = "hwprof.data",
	};
	parse_options(&r->opt, argc, argv);
	/* Before anything is created: a ^C while the events are opened (seconds for -p of a
	 * process with thousands of threads) then waits for the check before start(), instead
	 * of killing hwprof with an empty file in place of the previous one. The writer thread
	 * inherits the mask, so that the signals arrive in ppoll() only. */
	target_block_signals(&unblocked);
	target_init(&r->target);
	outfile_init(&r->out, r->opt.output);
	if (!strcmp(r->opt.output, "-"))
		die_usage("-o -: the samples go to a file, not to standard output (name one with "
			  "-o, e.g. -o hwprof.data)");
	if (r->opt.pid && optind < argc)
		die_usage("-p %lld and a command exclude each other: attach, or launch",
			  r->opt.pid);
	if (!r->opt.pid && !r->opt.system_wide && optind >= argc)
		die_usage("no command to record (hwprof record [OPTIONS] -- CMD [ARGS...]; -a "
			  "records every CPU until ^C)");
	if (r->opt.callchain)
		r->opt.max_stack = max_stack(r->opt.max_stack);
	/* A dwarf sample is its stack copy, 8 KiB by default: 2048 pages hold about a quarter
	 * of a second of them at 4 kHz, time for the drain to come round on a busy host. */
	if (!r->opt.pages)
		r->opt.pages = r->opt.stack_user ? 2048 : 256;
	if (r->opt.event)
		parse_events(r->opt.event, &r->events);
	if (r->opt.count)
		parse_events(r->opt.count, &r->counts);
	if (!r->opt.period && !r->opt.freq && only_tracepoints(&r->events)) {
		r->opt.period = 1; /* as perf: every hit of a tracepoint is a sample */
	} else if (!r->opt.period && !r->opt.freq) {
		long long max = hwprof_max_sample_rate();
		r->opt.freq = max > 0 && max < 4000 ? max : 4000;
	}
	launch_adjust_limits();
	status = setup_target(r, argv + optind);
	if (status)
		goto out;
	status = EXIT_FATAL;
	cfg = (struct sampler_config){
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
	if (r->opt.stack_user) {
		int ret = unwind_new(&r->unwind);
		if (ret < 0) {
			error_errno(ret, "--call-graph dwarf: %m");
			goto out;
		}
		r->unwound = xmalloc(sizeof(*r->unwound));
	}
	if (open_sampling(r, &cfg) < 0 || open_counting(r) < 0)
		goto out;
	if (r->sampler.pages < (size_t)r->opt.pages)
		warning("ring buffer reduced to %zu pages per CPU (locked-memory limit, "
			"kernel.perf_event_mlock_kb)",
			r->sampler.pages);
	report_precision(r);
	note_clock_period(r);
	if (fill_header(r) < 0)
		goto out;
	r->header.stacks = r->opt.callchain;
	r->header.data = cfg.data;
	status = hwprof_writer_open_fd(&r->writer, outfile_take_fd(&r->out), &r->header);
	if (status < 0) {
		outfile_error(r->opt.output, -status);
		status = EXIT_FATAL;
		goto out;
	}
	/* The queue's bound: about 30000 samples of 8 KiB stacks. */
	if (r->unwind) {
		status = write_thread_start(&r->writer_thread, write_record, flush_writer, r,
					    256u << 20);
		if (status < 0) {
			error_errno(status, "starting the writer thread: %m");
			status = EXIT_FATAL;
			goto out;
		}
	}
	int sig = target_stop_pending();
	if (sig) {
		error("%s before the recording started: nothing recorded",
		      sig == SIGINT    ? "interrupted (SIGINT)"
		      : sig == SIGTERM ? "terminated (SIGTERM)"
				       : "hung up (SIGHUP)");
		status = 128 + sig;
		goto out;
	}
	t0 = now_ns();
	status = start(r, &t0);
	if (status || record_loop(r, &unblocked, &wstatus) < 0)
		goto out;
	r->target.launch.pid = -1;				/* reaped */
	attached = target_attached(&r->target) || no_target(r); /* no status of its own */
	if (!attached)
		launch_restore_tty(&r->target.launch, wstatus); /* before the summary is printed */
	if (finish(r, wstatus, t0) < 0) {
		status = EXIT_FATAL;
		goto out;
	}
	record_cleanup(r, false);
	if (attached)
		return EXIT_OK;
	/* Stopped by a signal: end as the target did, so that the shell sees the ^C. */
	if (target_stop_signal())
		launch_die_like(target_stop_signal(), wstatus);
	return launch_exit_status(wstatus);
out:
	if (!status)
		status = EXIT_FATAL;
	record_cleanup(r, true);
	return status;
}
