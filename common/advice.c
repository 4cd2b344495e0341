/* advice.c - what to tell a user whose perf_event_open(2) failed; see hwprof/event.h. */
#include "hwprof/event.h"
#include "host.h"
#include "see.h"
#include "textfmt.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hwprof_paranoid(void)
{
	long long v;

	if (hwprof_read_number("/proc/sys/kernel/perf_event_paranoid", &v) < 0 || v < INT_MIN ||
	    v > INT_MAX)
		return INT_MIN;
	return (int)v;
}

bool hwprof_may_profile_kernel(void)
{
	/* capability(7): CAP_SYS_ADMIN is bit 21, CAP_PERFMON (Linux 5.8) bit 38 of CapEff. */
	unsigned long long caps = 0;
	int level = hwprof_paranoid();

	if (hwprof_read_keyed_hex("/proc/self/status", "CapEff", &caps) == 0 &&
	    (caps & (1ull << 21 | 1ull << 38)))
		return true;
	return level != INT_MIN && level <= 1;
}

long long hwprof_max_sample_rate(void)
{
	long long v;

	if (hwprof_read_number("/proc/sys/kernel/perf_event_max_sample_rate", &v) < 0 || v <= 0)
		return -1;
	return v;
}

/* Levels: perf_event_open(2) "perf_event_paranoid"; 3 and 4 are Debian/Ubuntu patches. */
const char *hwprof_paranoid_allows(int level)
{
	if (level == INT_MIN)
		return "unknown (cannot read /proc/sys/kernel/perf_event_paranoid)";
	if (level <= -1)
		return "everything: kernel, CPU-wide and raw tracepoint events for every user";
	if (level == 0)
		return "user and kernel profiling and CPU-wide events, no raw tracepoints";
	if (level == 1)
		return "user and kernel profiling of your own processes, no CPU-wide events";
	if (level == 2)
		return "user-space profiling of your own processes only";
	return "no perf events at all for unprivileged users (distribution patch)";
}

static const char *advice_paranoid(const struct hwprof_event *ev, char *buf, size_t len)
{
	int level = hwprof_paranoid();
	char lv[16];
	if (level == INT_MIN)
		snprintf(lv, sizeof(lv), "unknown");
	else
		snprintf(lv, sizeof(lv), "%d", level);
	const char *fix;
	if (level >= 3)
		fix = "sysctl kernel.perf_event_paranoid=2 allows user-space profiling";
	else if (level == 2 && ev && !ev->exclude_kernel)
		fix = "count user space only with ':u', or sysctl kernel.perf_event_paranoid=1";
	else
		/* Refused although the level allows the event: a process that is not the
		 * caller's (another user's, set-user-ID), or a CPU-wide open. No option names
		 * here: record has no -a, and stat adds its own clause for -a. */
		fix = "profile a process of your own; counting every CPU needs sysctl "
		      "kernel.perf_event_paranoid=0";
	snprintf(buf, len,
		 "permission denied: perf_event_paranoid is %s, which allows %s (run as root, "
		 "grant CAP_PERFMON with 'setcap cap_perfmon+ep', or: %s)",
		 lv, hwprof_paranoid_allows(level), fix);
	return buf;
}

const char *hwprof_open_advice(const struct hwprof_event *ev, int err, char *buf, size_t len)
{
	if (err < 0)
		err = -err;
	see_set(HWPROF_SEE_NONE);
	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		see_set(HWPROF_SEE_EVENTS);
		if (ev && !hwprof_event_is_hw(ev))
			hwprof_msgf(buf, len, err, "not supported by this kernel (%m)");
		else if (err == EOPNOTSUPP)
			snprintf(buf, len,
				 "not supported on this host: the PMU refused this event or mode "
				 "(sampling, precise_ip or a counting-only PMU; virtualized?)");
		else
			snprintf(buf, len,
				 "not supported on this host (no hardware PMU exposed, "
				 "virtualized? software events such as cpu-clock, task-clock, "
				 "page-faults work)");
		return buf;
	case EACCES:
	case EPERM:
		return advice_paranoid(ev, buf, len);
	case EMFILE:
	case ENFILE:
		snprintf(buf, len,
			 "too many events or open files (raise 'ulimit -n' or count "
			 "fewer events)");
		return buf;
	case ESRCH:
		snprintf(buf, len, "no such process (did it exit?)");
		return buf;
	case EBUSY:
		snprintf(buf, len,
			 "the PMU is busy (another profiler or the NMI watchdog holds "
			 "its counters)");
		return buf;
	case EINVAL:
		if (ev && ev->kind == HWPROF_EV_RAW)
			snprintf(buf, len,
				 "the kernel refused raw config 0x%llx (check the encoding "
				 "for this CPU)",
				 (unsigned long long)ev->config);
		else if (ev && ev->kind == HWPROF_EV_PMU &&
			 (ev->exclude_kernel || ev->exclude_hv || ev->exclude_user)) {
			/* Free-running and uncore PMUs (msr, uncore_*) cannot tell user from
			 * kernel and refuse the exclude_* bits of the user-space default. */
			see_set(HWPROF_SEE_PMU_EVENTS);
			snprintf(
			    buf, len,
			    "PMU '%s' refused config=0x%llx with counting limited to %s (it may "
			    "not tell user from kernel: write '%sukh'; or it counts CPU-wide "
			    "only, -a)",
			    ev->pmu, (unsigned long long)ev->config,
			    ev->exclude_kernel ? "user space" : "some privilege levels", ev->name);
		} else if (ev && ev->kind == HWPROF_EV_PMU) {
			see_set(HWPROF_SEE_PMU_EVENTS);
			snprintf(
			    buf, len,
			    "PMU '%s' refused config=0x%llx config1=0x%llx (an uncore PMU counts "
			    "CPU-wide only (-a) and cannot sample)",
			    ev->pmu, (unsigned long long)ev->config,
			    (unsigned long long)ev->config1);
		} else {
			snprintf(
			    buf, len,
			    "the kernel refused an attribute (inherit with "
			    "PERF_FORMAT_GROUP before Linux 6.2, too many events in one group, "
			    "or a sample type it lacks)");
		}
		return buf;
	}
	return hwprof_msgf(buf, len, err, "%m");
}
