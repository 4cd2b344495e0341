/* stat_open.c - the perf events of `hwprof stat` opened and read (see stat_open.h): each event
 * alone first, to find the ones the host cannot count, then a run's counting groups on the
 * target, the CPUs (-a) or the threads of -p.
 */
#include "stat_open.h"

#include "attach.h"
#include "cli.h"
#include "sampler.h"
#include "stat_host.h"
#include "syswide.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One opened group and where its members go in the event list. */
struct cpu_group {
	struct hwprof_group *g;
	size_t *idx; /* member i -> index in the full list */
	struct hwprof_count *c;
};

void stat_groups_close(struct stat_groups *r)
{
	for (size_t i = 0; i < r->ngroups; i++) {
		hwprof_group_close(r->groups[i].g);
		free(r->groups[i].idx);
		free(r->groups[i].c);
	}
	free(r->groups);
	r->groups = NULL;
	r->ngroups = 0;
	r->capgroups = 0;
}

static int open_error(const struct stat_opts *o, int err)
{
	/* A CPU-wide open refused: -a is the cause to name, whatever the library's advice for
	 * a task would be (one line, one fix). */
	char why[256];

	if (o->system_wide && (err == -EACCES || err == -EPERM))
		return error("permission denied: system-wide counting (-a) %s",
			     syswide_denied("-a", why, sizeof(why)));
	if (err == -ESRCH)
		return error("-p %d: no such process (check the PID with 'ps')", (int)o->pid);
	return error("%s", cli_see(hwprof_strerror_last()));
}

/* Opens the run's list on PID / CPU as one hwprof group, keeping on a CPU only the events whose
 * PMU covers it (uncore cpumask). Returns 0; 1 when no event is kept, or when SKIP_GONE and the
 * thread no longer exists (ESRCH); or -1 after reporting. */
static int open_one(struct stat_groups *r, const struct stat_opts *o, pid_t pid, int cpu,
		    unsigned flags, bool skip_gone)
{
	struct hwprof_event_list sub = {.ev = xcalloc(r->list->n, sizeof(*sub.ev))};
	struct cpu_group *cg;
	size_t *idx = xcalloc(r->list->n, sizeof(*idx));
	int err;

	for (size_t i = 0; i < r->list->n; i++) {
		if (r->st[i].unsupported || (cpu >= 0 && !stat_pmu_covers(&r->list->ev[i], cpu)))
			continue;
		idx[sub.n] = i;
		sub.ev[sub.n++] = r->list->ev[i];
	}
	if (!sub.n) {
		free(sub.ev);
		free(idx);
		return 1;
	}
	sub.ngroups = r->list->ngroups;
	xgrow(&r->groups, &r->capgroups, r->ngroups + 1, sizeof(*r->groups));
	cg = &r->groups[r->ngroups];
	*cg = (struct cpu_group){.idx = idx, .c = xcalloc(sub.n, sizeof(*cg->c))};
	err = hwprof_group_open_list(&cg->g, &sub, pid, cpu, flags);
	free(sub.ev);
	if (err < 0) {
		free(cg->idx);
		free(cg->c);
		if (err == -ESRCH && skip_gone)
			return 1;
		return open_error(o, err);
	}
	r->one_by_one |= hwprof_group_read_one_by_one(cg->g);
	r->ngroups++;
	return 0;
}

/* -p: a task event follows one thread (and threads created later, with inherit), so open one
 * group per thread that exists now (/proc/PID/task). A thread that ends in between is
 * skipped. */
static int open_threads(struct stat_groups *r, const struct stat_opts *o)
{
	pid_t *tids = NULL;
	int n = attach_threads(o->pid, &tids), rc = 0;

	if (n == -ENOMEM)
		die("out of memory");
	if (n < 0)
		return open_error(o, n);
	for (int i = 0; i < n && rc >= 0; i++)
		rc = open_one(r, o, tids[i], -1, HWPROF_GROUP_INHERIT | HWPROF_GROUP_START_DISABLED,
			      true);
	free(tids);
	if (rc >= 0 && !r->ngroups)
		rc = open_error(o, -ESRCH);
	return rc < 0 ? -1 : 0;
}

int stat_groups_open(struct stat_groups *r, const struct stat_opts *o, pid_t target)
{
	if (o->system_wide) {
		int *cpus, rc = 0, n = sampler_online_cpus(&cpus);
		if (n < 0)
			die("out of memory");
		for (int i = 0; i < n && rc >= 0; i++)
			rc = open_one(r, o, -1, cpus[i], HWPROF_GROUP_START_DISABLED, false);
		free(cpus);
		return rc < 0 ? -1 : 0;
	}
	for (size_t i = 0; i < r->list->n; i++)
		if (stat_is_uncore(&r->list->ev[i]))
			return error(
			    "%s: an uncore event counts a whole socket, not a process (use "
			    "-a)",
			    r->list->ev[i].spec);
	/* A launched command starts counting at its exec; an existing PID right away. */
	if (o->pid > 0)
		return open_threads(r, o);
	return open_one(r, o, target, -1, HWPROF_GROUP_INHERIT | HWPROF_GROUP_ENABLE_ON_EXEC,
			false) < 0
		   ? -1
		   : 0;
}

int stat_groups_enable(struct stat_groups *r)
{
	for (size_t i = 0; i < r->ngroups; i++)
		if (hwprof_group_enable(r->groups[i].g) < 0)
			return error("%s", hwprof_strerror_last());
	return 0;
}

int stat_groups_read(struct stat_groups *r, struct ev_stat *st)
{
	for (size_t i = 0; i < r->list->n; i++) {
		st[i].run_scaled = 0;
		st[i].run_enabled_ns = st[i].run_running_ns = 0;
		st[i].run_counted = false;
	}
	for (size_t k = 0; k < r->ngroups; k++) {
		struct cpu_group *cg = &r->groups[k];
		size_t n = hwprof_group_size(cg->g);
		if (hwprof_group_read(cg->g, cg->c, n) < 0)
			return error("%s", hwprof_strerror_last());
		for (size_t i = 0; i < n; i++) {
			struct ev_stat *s = &st[cg->idx[i]];
			s->run_enabled_ns += cg->c[i].enabled_ns;
			s->run_running_ns += cg->c[i].running_ns;
			if (cg->c[i].counted) {
				s->run_scaled += cg->c[i].scaled;
				s->run_counted = true;
			}
		}
	}
	return 0;
}

/* Whether the open error ERR of an event alone says the host cannot count it at all, rather
 * than that this user may not (EACCES, EPERM) or the target is gone: perf_event_open(2)
 * returns ENOENT for an event type or config the kernel does not know, EOPNOTSUPP for a
 * feature the PMU lacks, ENODEV for a PMU not on this CPU, EINVAL for an attribute it
 * refuses (precise_ip beyond the PMU's). */
static bool open_unsupported(int err)
{
	return err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV || err == -EINVAL;
}

/* As perf stat does: an event the host cannot count is printed as <not supported> and the
 * others are counted. Uncore events without -a are left to stat_groups_open(), whose message
 * says to use -a. */
size_t stat_probe_events(const struct stat_opts *o, const struct hwprof_event_list *list,
			 struct ev_stat *st)
{
	int *cpus = NULL, ncpus = o->system_wide ? sampler_online_cpus(&cpus) : 0;
	int cpu = ncpus > 0 ? cpus[0] : -1;
	size_t ok = 0;

	free(cpus);
	for (size_t i = 0; i < list->n; i++) {
		struct hwprof_event ev = list->ev[i];
		struct hwprof_event_list one = {.ev = &ev, .n = 1, .ngroups = 1};
		struct hwprof_group *g = NULL;
		int err;

		if (!o->system_wide && stat_is_uncore(&ev)) {
			ok++;
			continue;
		}
		ev.group = 0;
		ev.leader = true;
		err = hwprof_group_open_list(&g, &one, o->system_wide ? -1 : 0, cpu,
					     HWPROF_GROUP_START_DISABLED);
		hwprof_group_close(g);
		if (err < 0 && open_unsupported(err))
			st[i].unsupported = xstrdup(hwprof_strerror_last());
		else
			ok++;
	}
	return ok;
}

/* The library's messages name the event first; without it, events with one reason share one
 * line. */
const char *stat_unsupported_why(const struct hwprof_event_list *list, const struct ev_stat *st,
				 size_t i)
{
	size_t k = strlen(list->ev[i].spec);

	if (!strncmp(st[i].unsupported, list->ev[i].spec, k) &&
	    !strncmp(st[i].unsupported + k, ": ", 2))
		return st[i].unsupported + k + 2;
	return st[i].unsupported;
}

void stat_unsupported_text(const struct hwprof_event_list *list, const struct ev_stat *st,
			   char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (size_t i = 0; i < list->n; i++) {
		bool first = true;
		const char *why;

		if (!st[i].unsupported)
			continue;
		why = stat_unsupported_why(list, st, i);
		for (size_t k = 0; k < i && first; k++)
			if (st[k].unsupported && !strcmp(stat_unsupported_why(list, st, k), why))
				first = false;
		if (!first)
			continue;
		for (size_t k = i, n = 0; k < list->n; k++) {
			const struct hwprof_event *e = &list->ev[k];
			char code[192] = "", enc[96];

			if (!st[k].unsupported || strcmp(stat_unsupported_why(list, st, k), why))
				continue;
			/* A vendor name with what libpfm4 made of it: "NAME (skl raw 0x20d1)". */
			if (e->vendor[0] && hwprof_event_code(e->type, e->config, e->config1,
							      e->config2, enc, sizeof(enc)) == 0)
				snprintf(code, sizeof(code), " (%s %s)", e->vendor, enc);
			at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%s%s",
					       n++  ? ", "
					       : at ? "; "
						    : "",
					       e->spec, code);
		}
		at += (size_t)snprintf(buf + at, at < len ? len - at : 0, ": %s", why);
	}
}
