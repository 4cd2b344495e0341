/* summary.c - record's closing lines (see summary.h). */
#include "summary.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <sys/stat.h>

#include "cli.h"

uint64_t summary_cpu_ns(const struct hwprof_file_trailer *t, const struct hwprof_group *counting,
			const struct sampler *s)
{
	uint64_t ns = 0;

	for (uint32_t i = 0; counting && i < t->ncounts; i++) {
		const struct hwprof_event *ev = hwprof_group_event(counting, i);
		const struct hwprof_file_count *fc = &t->counts[i];
		struct hwprof_count c = {
		    .value = fc->value, .enabled_ns = fc->enabled_ns, .running_ns = fc->running_ns};

		if (ev->type != PERF_TYPE_SOFTWARE || ev->config != PERF_COUNT_SW_TASK_CLOCK)
			continue;
		if (!fc->counted || !fc->value)
			break;
		/* Scaled as hwprof stat does when the event was multiplexed. */
		hwprof_count_scale(&c, 1.0);
		return c.counted ? (uint64_t)c.scaled : 0;
	}
	return sampler_running_ns(s, &ns) < 0 ? 0 : ns;
}

/* -F asks the kernel for HZ samples per second the event runs, i.e. per CPU-second of the
 * target: a wall-clock rate is compared to it only when the CPU time is unknown. */
static void print_rate(const struct record_summary *s, uint64_t samples, char *rate, size_t len)
{
	double secs = (double)s->duration_ns / 1e9, cpu_secs = (double)s->cpu_ns / 1e9;

	if (cpu_secs > 0 && s->event->freq)
		snprintf(rate, len,
			 "%.0f samples per CPU-s (asked %llu Hz) over %.2f s (%.2f CPU-s)",
			 (double)samples / cpu_secs, (unsigned long long)s->event->period_or_freq,
			 secs, cpu_secs);
	else if (cpu_secs > 0)
		snprintf(rate, len, "%.0f samples per CPU-s over %.2f s (%.2f CPU-s)",
			 (double)samples / cpu_secs, secs, cpu_secs);
	else
		snprintf(rate, len, "%.0f samples/s over %.2f s",
			 secs > 0 ? (double)samples / secs : 0.0, secs);
}

/* No samples: the likeliest cause, from what was recorded. */
static void warn_no_samples(const struct record_summary *s)
{
	const struct hwprof_file_event *f = s->event;
	double secs = (double)s->duration_ns / 1e9, cpu_secs = (double)s->cpu_ns / 1e9;

	if (s->system_wide)
		warning("no samples (every task of the CPUs was recorded for %.2f s; lower -c or "
			"raise -F)",
			secs);
	else if (s->attached)
		warning("no samples (PID %d was recorded for %.2f s; it may have been idle then, "
			"else lower -c or raise -F)",
			(int)s->attached, secs);
	else if (f->type == PERF_TYPE_SOFTWARE &&
		 (f->config == PERF_COUNT_SW_CPU_CLOCK || f->config == PERF_COUNT_SW_TASK_CLOCK) &&
		 cpu_secs < 0.01)
		/* A clock event samples running code only: a higher rate cannot help a command
		 * that sleeps. */
		warning(
		    "no samples (the command ran %.2f s but used %.3f CPU-s: %s samples running "
		    "code only; record a run that computes, or count it with 'hwprof stat')",
		    secs, cpu_secs, f->name);
	else
		warning("no samples (the command ran %.2f s; lower -c or raise -F)", secs);
}

void summary_print(const struct record_summary *s, const struct record_tally *tally)
{
	struct stat st;
	double bytes = 0;
	char rate[128], per_sample[32];

	if (stat(s->output, &st) == 0)
		bytes = (double)st.st_size;
	print_rate(s, tally->samples, rate, sizeof(rate));
	/* Undefined without samples: "0.0" would read as a measured size. */
	if (tally->samples)
		snprintf(per_sample, sizeof(per_sample), "%.1f", bytes / (double)tally->samples);
	else
		snprintf(per_sample, sizeof(per_sample), "-");
	fprintf(stderr,
		"hwprof record: %llu samples, %llu lost, %llu throttles, %s bytes/sample, %s, "
		"%s (%.0f KiB)\n",
		(unsigned long long)tally->samples, (unsigned long long)tally->lost,
		(unsigned long long)tally->throttles, per_sample, rate, s->output, bytes / 1024);
	if (s->unwind)
		unwind_summary(s->unwind, s->stack_user, s->max_stack);
	else if (s->callchain)
		fprintf(
		    stderr,
		    "hwprof record: call graph (frame pointers, --max-stack %lld): %llu samples "
		    "with a truncated stack\n",
		    s->max_stack, (unsigned long long)tally->stacks_truncated);
	/* Code built without frame pointers (gcc's default at -O1 and up) leaves the walk no
	 * chain: the sampled function alone, in most samples. Not said of every task of the
	 * CPUs (-a), whose programs the user did not build, nor with --max-stack 1. */
	if (s->callchain && !s->unwind && !s->system_wide && s->max_stack > 1 &&
	    tally->user_chains >= 20 && tally->user_no_caller * 2 > tally->user_chains)
		warning("%llu of %llu samples in user space have no caller: the sampled code (the "
			"program, or libraries it spends its time in) has no frame pointers (build "
			"with -fno-omit-frame-pointer, or record --call-graph dwarf)",
			(unsigned long long)tally->user_no_caller,
			(unsigned long long)tally->user_chains);
	if (!tally->samples)
		warn_no_samples(s);
	if (tally->lost)
		warning("%llu samples lost: the ring buffer filled up (try a larger -m, a larger "
			"-c or a lower -F)",
			(unsigned long long)tally->lost);
	if (tally->throttles == 1)
		warning("sampling was throttled once: the kernel capped the sample rate "
			"(kernel.perf_event_max_sample_rate; try a lower -F or a larger -c)");
	else if (tally->throttles)
		warning("sampling was throttled %llu times: the kernel capped the sample rate "
			"(kernel.perf_event_max_sample_rate; try a lower -F or a larger -c)",
			(unsigned long long)tally->throttles);
	if (tally->bad)
		warning("%llu malformed records from the kernel were skipped",
			(unsigned long long)tally->bad);
}
