/* record_opts.h - `hwprof record`'s command line: its options, the checks between them, and
 * the defaults that depend on the host or on the events asked for.
 *
 * Call order: record_options_parse; record_options_check; record_options_events. Each exits
 * with EXIT_USAGE after one error line (die_usage) on bad input, so nothing is created.
 */
#ifndef HWPROF_RECORD_RECORD_OPTS_H
#define HWPROF_RECORD_RECORD_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "hwprof/event.h"

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

/* Reads the options of ARGV (ARGC entries, ARGV[0] the subcommand) into O, which starts from
 * the defaults (-o hwprof.data, everything else 0), and checks the options that exclude each
 * other. -h prints the help and exits 0. On return optind is the index of the command's first
 * word (ARGC: none). Strings in O point into ARGV, or to a joined -e list that lives until
 * exit. */
void record_options_parse(struct record_options *o, int argc, char **argv);

/* The checks that need the operands (NOPERANDS words after the options: the command) and the
 * defaults of O that need the host: -o -, -p or -a without a command, --max-stack against
 * kernel.perf_event_max_stack (and its default), -m's default. */
void record_options_check(struct record_options *o, int noperands);

/* Parses -e into EVENTS and --count into COUNTS (left empty when not given), then sets the
 * default rate: -c 1 for tracepoints alone, else -F 4000 (or the kernel's lower limit). */
void record_options_events(struct record_options *o, struct hwprof_event_list *events,
			   struct hwprof_event_list *counts);

/* Parses the event spec SPEC into LIST (hwprof_events_parse()), or exits with a usage error
 * that says why. */
void record_parse_events(const char *spec, struct hwprof_event_list *list);

/* The option that asked for system-wide recording, "-C" or "-a", to name in messages. */
const char *record_syswide_opt(const struct record_options *o);

#endif
