/* counting.c - record's counting group beside the samples (see counting.h). */
#include "counting.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

/* Closes every group opened, so that no total short of some threads or CPUs is written. */
static void close_groups(struct counting *c)
{
	for (size_t g = 0; g < c->ngroups; g++)
		hwprof_group_close(c->groups[g]);
	c->ngroups = 0;
}

/* A counting group of thread PIDS[I] of -p did not open (-ERR): no counted totals at all.
 * Fatal for a --count the user gave. */
static int counting_threads_failed(struct counting *c, const struct record_options *o,
				   const struct record_target *t, const char *spec, size_t i,
				   int err)
{
	const char *way = err == -EMFILE ? " (raise 'ulimit -n': each thread needs a file "
					   "descriptor per counted event)"
					 : "";

	close_groups(c);
	if (o->count)
		return error_errno(err, "--count %s: thread %d of -p %d: %m%s", spec,
				   (int)t->pids[i], (int)t->pids[0], way);
	warning_errno(err,
		      "counting group %s not opened for thread %d of -p %d: %m; recording "
		      "samples only%s",
		      spec, (int)t->pids[i], (int)t->pids[0], way);
	return 0;
}

/* -a / -C: one counting group per CPU, on every task (pid -1), summed when read as -p's
 * threads are. A CPU whose group does not open leaves no counted totals at all. */
static int open_counting_cpus(struct counting *c, const struct record_options *o, const char *spec,
			      const int *cpus, size_t ncpus)
{
	c->groups = xcalloc(ncpus, sizeof(*c->groups));
	for (size_t i = 0; i < ncpus; i++) {
		int ret = hwprof_group_open_list(&c->groups[i], &c->events, -1, cpus[i],
						 HWPROF_GROUP_START_DISABLED);
		if (ret == 0) {
			c->ngroups++;
			continue;
		}
		close_groups(c);
		if (o->count)
			return error("--count %s: CPU %d: %s", spec, cpus[i],
				     cli_see(hwprof_strerror_last()));
		warning("counting group %s not opened on CPU %d: %s (recording samples only)", spec,
			cpus[i], cli_see(hwprof_strerror_last()));
		return 0;
	}
	return 0;
}

int counting_open(struct counting *c, const struct record_options *o, const struct record_target *t,
		  const int *cpus, size_t ncpus)
{
	const char *spec = o->count;
	int ret;

	if (o->no_count)
		return 0;
	if (!spec) /* `hwprof stat`'s set: kernel work counted with :uk where allowed */
		spec = hwprof_count_default_spec(hwprof_host_has_pmu());
	if (!o->count)
		record_parse_events(spec, &c->events);
	if (o->system_wide)
		return open_counting_cpus(c, o, spec, cpus, ncpus);
	c->groups = xcalloc(t->npids, sizeof(*c->groups));
	ret = hwprof_group_open_list(&c->groups[0], &c->events, t->pids[0], -1,
				     HWPROF_GROUP_INHERIT |
					 (!target_attached(t) ? HWPROF_GROUP_ENABLE_ON_EXEC : 0));
	if (ret < 0) {
		const char *why = cli_see(hwprof_strerror_last());

		if (o->count)
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
	c->ngroups = 1;
	for (size_t i = 1; target_attached(t) && i < t->npids; i++) {
		ret = hwprof_group_open_list(&c->groups[c->ngroups], &c->events, t->pids[i], -1,
					     HWPROF_GROUP_INHERIT);
		if (ret == 0)
			c->ngroups++;
		else if (ret != -ESRCH)
			return counting_threads_failed(c, o, t, spec, i, ret);
	}
	return 0;
}

void counting_enable(struct counting *c)
{
	for (size_t i = 0; i < c->ngroups; i++)
		hwprof_group_enable(c->groups[i]);
}

const struct hwprof_group *counting_group(const struct counting *c)
{
	return c->ngroups ? c->groups[0] : NULL;
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

void counting_read(const struct counting *cg, struct hwprof_file_trailer *t)
{
	size_t n = cg->ngroups ? hwprof_group_size(cg->groups[0]) : 0;
	struct hwprof_count *c;
	int ret;

	if (!n)
		return;
	c = xcalloc(n, sizeof(*c));
	t->counts = xcalloc(n, sizeof(*t->counts));
	t->ncounts = (uint32_t)n;
	ret = hwprof_group_read(cg->groups[0], c, n);
	for (size_t g = 1; ret == 0 && g < cg->ngroups; g++)
		ret = add_thread_counts(cg->groups[g], c, n);
	if (ret < 0)
		warning_errno(ret, "reading the counting group: %m (counts not recorded)");
	for (size_t i = 0; i < n; i++) {
		const struct hwprof_event *ev = hwprof_group_event(cg->groups[0], i);
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

void counting_close(struct counting *c)
{
	close_groups(c);
	free(c->groups);
	c->groups = NULL;
	hwprof_events_free(&c->events);
}
