/* record_opts.c - `hwprof record`'s options, their checks and defaults (see record_opts.h). */
#include "record_opts.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"
#include "host.h"
#include "hwprof/sampfile.h"
#include "sampler.h"
#include "unwind.h"

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

/* -m N: a ring's data pages, a power of two (a ring is mapped as 1 + 2^n pages,
 * perf_event_open(2)); the power of two below N is offered instead. */
static long long parse_pages(const char *arg)
{
	long long pages = cli_parse_num("-m", arg, 1, 1 << 20);

	if (pages & (pages - 1))
		die_usage("-m %s: not a power of two (try -m %lld)", arg,
			  1ll << (63 - __builtin_clzll((unsigned long long)pages)));
	return pages;
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
	v = xasprintf("%s,%s", have, more);
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

/* The options of O that exclude each other; FP_ASKED: -g was given. */
static void check_exclusions(const struct record_options *o, bool fp_asked)
{
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
			  record_syswide_opt(o), o->pid);
}

void record_options_parse(struct record_options *o, int argc, char **argv)
{
	bool fp_asked = false;
	int c;

	*o = (struct record_options){
	    .output = "hwprof.data",
	};
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
			o->pages = parse_pages(optarg);
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
	check_exclusions(o, fp_asked);
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

/* A ring below sampler_min_pages() with stack copies loses nearly all its samples. */
static void check_ring_holds_stacks(const struct record_options *o)
{
	size_t need = sampler_min_pages(o->stack_user);

	if (!o->stack_user || (size_t)o->pages >= need)
		return;
	die_usage("-m %lld: a ring of %lld pages cannot hold two samples with %u-byte stack "
		  "copies (--call-graph dwarf): every sample would be lost; give -m %zu or more, "
		  "or a smaller dwarf size",
		  o->pages, o->pages, (unsigned)o->stack_user, need);
}

void record_options_check(struct record_options *o, int noperands)
{
	if (!strcmp(o->output, "-"))
		die_usage("-o -: the samples go to a file, not to standard output (name one with "
			  "-o, e.g. -o hwprof.data)");
	if (o->pid && noperands > 0)
		die_usage("-p %lld and a command exclude each other: attach, or launch", o->pid);
	if (!o->pid && !o->system_wide && noperands <= 0)
		die_usage("no command to record (hwprof record [OPTIONS] -- CMD [ARGS...]; -a "
			  "records every CPU until ^C)");
	if (o->callchain)
		o->max_stack = max_stack(o->max_stack);
	/* A dwarf sample is its stack copy, 8 KiB by default: 2048 pages hold about a quarter
	 * of a second of them at 4 kHz, time for the drain to come round on a busy host. */
	if (!o->pages)
		o->pages = o->stack_user ? 2048 : 256;
	check_ring_holds_stacks(o);
}

void record_parse_events(const char *spec, struct hwprof_event_list *list)
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

/* The report tells sampling events by the name they were given (hwprof_event.spec): two of
 * one name could not be told apart. */
static void refuse_twice(const struct hwprof_event_list *list)
{
	for (size_t i = 0; i < list->n; i++)
		for (size_t j = i + 1; j < list->n; j++)
			if (!strcmp(list->ev[i].spec, list->ev[j].spec))
				die_usage("-e: '%s' given twice, or also matched by a pattern "
					  "(the report tells events by name); give it once",
					  list->ev[i].spec);
}

/* Whether LIST has events and all are tracepoints (their default sample period is 1). */
static bool only_tracepoints(const struct hwprof_event_list *list)
{
	for (size_t i = 0; i < list->n; i++)
		if (list->ev[i].kind != HWPROF_EV_TRACEPOINT)
			return false;
	return list->n > 0;
}

void record_options_events(struct record_options *o, struct hwprof_event_list *events,
			   struct hwprof_event_list *counts)
{
	if (o->event) {
		record_parse_events(o->event, events);
		refuse_twice(events);
	}
	if (o->count)
		record_parse_events(o->count, counts);
	if (!o->period && !o->freq && only_tracepoints(events)) {
		o->period = 1; /* as perf: every hit of a tracepoint is a sample */
	} else if (!o->period && !o->freq) {
		long long max = hwprof_max_sample_rate();
		o->freq = max > 0 && max < 4000 ? max : 4000;
	}
}

const char *record_syswide_opt(const struct record_options *o)
{
	return o->cpu_list ? "-C" : "-a";
}
