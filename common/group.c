/* group.c - counting groups: open a parsed event list as kernel groups, read each group in one
 * read(2), scale by each member's own time_enabled/time_running (see hwprof/hwprof.h).
 */
#include "hwprof/hwprof.h"
#include "hwprof/sys.h"
#include "count_priv.h"
#include "see.h"
#include "textfmt.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One kernel group: members [first, first + n) of the event array; fds[first] leads. */
struct kgroup {
	size_t first, n;
};

struct hwprof_group {
	struct hwprof_event *ev; /* copies of the parsed events */
	size_t n;
	int *fds;      /* -1 when not open */
	uint64_t *ids; /* PERF_EVENT_IOC_ID, 0 when the kernel did not say */
	struct kgroup *kg;
	size_t nkg;
	bool one_by_one; /* the kernel refused inherit + PERF_FORMAT_GROUP */
	uint64_t *buf;	 /* read buffer, room for the largest group */
	size_t buflen;	 /* bytes */
};

int count_fail(int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	hwprof_vmsgf(see_msg(), SEE_MSG_MAX, err, fmt, ap);
	va_end(ap);
	return err;
}

/* The default log: the library's one write to stderr, for a program that set no callback. */
static void log_stderr(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "hwprof: %s\n", msg);
}

static hwprof_log_fn *log_fn = log_stderr;
static void *log_arg;

void hwprof_set_log(hwprof_log_fn *fn, void *arg)
{
	log_fn = fn ? fn : log_stderr;
	log_arg = fn ? arg : NULL;
}

void count_log(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_fn(log_arg, msg);
}

void count_clear_error(void)
{
	see_msg()[0] = '\0';
	see_set(HWPROF_SEE_NONE);
}

/* Context switches and migrations are raised by the scheduler, inside the kernel (with the
 * kernel's registers): counted with exclude_kernel they always read 0, whatever happened. */
bool count_kernel_work_excluded(const struct hwprof_event *ev)
{
	/* A tracepoint fires in the kernel too: with :u it never counts. */
	if (ev->kind == HWPROF_EV_TRACEPOINT)
		return ev->exclude_kernel;
	return ev->kind == HWPROF_EV_SOFTWARE && ev->type == PERF_TYPE_SOFTWARE &&
	       ev->exclude_kernel &&
	       (ev->config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
		ev->config == PERF_COUNT_SW_CPU_MIGRATIONS);
}

bool hwprof_kernel_countable(void)
{
	/* A test open answers for root, CAP_PERFMON, CAP_SYS_ADMIN and every paranoid level
	 * alike (and for a test's fake kernel), where reading the level alone would not. */
	struct perf_event_attr attr = {
	    .type = PERF_TYPE_SOFTWARE,
	    .size = sizeof(attr),
	    .config = PERF_COUNT_SW_CONTEXT_SWITCHES,
	    .disabled = 1,
	    .exclude_hv = 1,
	};
	int fd = hwprof_sys()->perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return false;
	hwprof_sys()->close(fd);
	return true;
}

const char *hwprof_count_why_not(const struct hwprof_event *ev)
{
	if (!ev || !count_kernel_work_excluded(ev))
		return NULL;
	if (hwprof_kernel_countable())
		return "kernel work, counted user-only (count it with :uk)";
	return "kernel work; needs perf_event_paranoid <= 1 or CAP_PERFMON";
}

const char *hwprof_count_default_spec(bool host_has_pmu)
{
	/* Pairs share a group so that each ratio (IPC, miss rates) comes from one time window
	 * even when the set multiplexes; six events in one group could fail to schedule at all
	 * on a PMU with four general-purpose counters. Software events never multiplex: one
	 * group, one read(2). */
	if (host_has_pmu)
		return "{instructions,cycles},{cache-references,cache-misses},"
		       "{branches,branch-misses}";
	/* Context switches and migrations happen in the kernel: count them in both modes when
	 * the kernel may be measured. Otherwise they stay in the set (the table keeps its
	 * shape) and every reader shows them as not counted, with hwprof_count_why_not(). */
	if (hwprof_kernel_countable())
		return "{task-clock,context-switches:uk,cpu-migrations:uk,page-faults}";
	return "{task-clock,context-switches,cpu-migrations,page-faults}";
}

static void close_fds(struct hwprof_group *g)
{
	/* Close members before leaders: closing a leader first would detach (ungroup) its
	 * siblings for no gain. */
	for (size_t i = g->n; i-- > 0;) {
		if (g->fds[i] >= 0)
			hwprof_sys()->close(g->fds[i]);
		g->fds[i] = -1;
		g->ids[i] = 0;
	}
}

void hwprof_group_close(struct hwprof_group *g)
{
	if (!g)
		return;
	if (g->fds)
		close_fds(g);
	free(g->ev);
	free(g->fds);
	free(g->ids);
	free(g->kg);
	free(g->buf);
	free(g);
}

static uint64_t read_format(const struct hwprof_group *g)
{
	uint64_t f =
	    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
	return g->one_by_one ? f : f | PERF_FORMAT_GROUP;
}

/* Opens member I. Returns 0 or -errno with the last-error line set. */
static int open_member(struct hwprof_group *g, size_t i, int leader_fd, pid_t pid, int cpu,
		       unsigned flags)
{
	struct perf_event_attr attr;
	const struct hwprof_event *ev = &g->ev[i];
	char advice[512];
	uint64_t id = 0;
	int fd;

	hwprof_event_to_attr(ev, &attr);
	attr.read_format = read_format(g);
	attr.inherit = !!(flags & HWPROF_GROUP_INHERIT);
	/* The leader starts disabled so that every member starts at the same moment (enable
	 * after the last member is attached, or at exec); members follow their leader. */
	if (leader_fd < 0) {
		attr.disabled = 1;
		attr.enable_on_exec = !!(flags & HWPROF_GROUP_ENABLE_ON_EXEC);
		attr.pinned = !!(flags & HWPROF_GROUP_PINNED);
	}
	fd = hwprof_event_open(&attr, pid, cpu, leader_fd, PERF_FLAG_FD_CLOEXEC, NULL);
	if (fd < 0)
		return count_fail(fd, "%s: %s", ev->spec[0] ? ev->spec : ev->name,
				  hwprof_open_advice(ev, -fd, advice, sizeof(advice)));
	g->fds[i] = fd;
	/* The id lets the reader match values to members whatever the kernel's order; a kernel
	 * (or fake) that does not answer leaves 0 and the reader falls back to attach order. */
	if (hwprof_sys()->ioctl(fd, PERF_EVENT_IOC_ID, (unsigned long)&id) >= 0)
		g->ids[i] = id;
	return 0;
}

static int open_all(struct hwprof_group *g, pid_t pid, int cpu, unsigned flags)
{
	for (size_t k = 0; k < g->nkg; k++) {
		const struct kgroup *kg = &g->kg[k];
		for (size_t i = kg->first; i < kg->first + kg->n; i++) {
			int leader = i == kg->first ? -1 : g->fds[kg->first];
			int r = open_member(g, i, leader, pid, cpu, flags);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

int hwprof_group_open_list(struct hwprof_group **out, const struct hwprof_event_list *list,
			   pid_t pid, int cpu, unsigned flags)
{
	struct hwprof_group *g;
	size_t maxn = 0;
	int r;

	count_clear_error();
	if (!out)
		return count_fail(-EINVAL,
				  "hwprof_group_open_list: no place for the group (OUT is NULL)");
	*out = NULL;
	if (!list || !list->n) {
		see_set(HWPROF_SEE_EVENTS);
		return count_fail(-EINVAL, "empty event list (give at least one event)");
	}
	if (flags & ~(unsigned)(HWPROF_GROUP_INHERIT | HWPROF_GROUP_ENABLE_ON_EXEC |
				HWPROF_GROUP_START_DISABLED | HWPROF_GROUP_PINNED))
		return count_fail(-EINVAL, "unknown flags 0x%x (see HWPROF_GROUP_* in hwprof.h)",
				  flags);
	/* perf_event_open(2): pid -1 means every process, which only a CPU can bound. */
	if (pid == -1 && cpu < 0)
		return count_fail(-EINVAL, "pid -1 (every process) needs a CPU >= 0");
	if (cpu >= 0 && cpu >= sysconf(_SC_NPROCESSORS_CONF))
		return count_fail(-EINVAL, "CPU %d does not exist (this host has CPUs 0-%ld)", cpu,
				  sysconf(_SC_NPROCESSORS_CONF) - 1);
	g = calloc(1, sizeof(*g));
	if (!g)
		return count_fail(-ENOMEM, "out of memory");
	g->n = list->n;
	g->ev = calloc(g->n, sizeof(*g->ev));
	g->fds = malloc(g->n * sizeof(*g->fds));
	g->ids = calloc(g->n, sizeof(*g->ids));
	g->kg = calloc(g->n, sizeof(*g->kg));
	if (!g->ev || !g->fds || !g->ids || !g->kg) {
		r = count_fail(-ENOMEM, "out of memory");
		goto fail;
	}
	memcpy(g->ev, list->ev, g->n * sizeof(*g->ev));
	for (size_t i = 0; i < g->n; i++) {
		g->fds[i] = -1;
		/* A new kernel group at every leader, and wherever the group index changes (a
		 * parser that forgot a leader flag must not merge two groups). */
		if (i == 0 || g->ev[i].leader || g->ev[i].group != g->ev[i - 1].group)
			g->kg[g->nkg++].first = i;
		g->kg[g->nkg - 1].n++;
	}
	for (size_t k = 0; k < g->nkg; k++)
		if (g->kg[k].n > maxn)
			maxn = g->kg[k].n;
	/* PERF_FORMAT_GROUP|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID: nr, enabled, running,
	 * then {value, id} per member (perf_event_open(2), "Reading results"). */
	g->buflen = (3 + 2 * maxn) * sizeof(uint64_t);
	g->buf = malloc(g->buflen);
	if (!g->buf) {
		r = count_fail(-ENOMEM, "out of memory");
		goto fail;
	}

	r = open_all(g, pid, cpu, flags);
	if (r == -EINVAL && (flags & HWPROF_GROUP_INHERIT)) {
		/* Kernels before 6.x refuse inherit together with PERF_FORMAT_GROUP (EINVAL).
		 * The members stay grouped (scheduled together), but are read one by one. */
		close_fds(g);
		g->one_by_one = true;
		count_clear_error();
		r = open_all(g, pid, cpu, flags);
	}
	if (r < 0)
		goto fail;
	if (!(flags & (HWPROF_GROUP_START_DISABLED | HWPROF_GROUP_ENABLE_ON_EXEC))) {
		r = hwprof_group_enable(g);
		if (r < 0)
			goto fail;
	}
	*out = g;
	return 0;
fail:
	hwprof_group_close(g);
	return r;
}

int hwprof_group_open(struct hwprof_group **out, const char *spec, pid_t pid, int cpu,
		      unsigned flags)
{
	struct hwprof_event_list list = {0};
	char err[256] = "";
	int r;

	count_clear_error();
	if (!out)
		return count_fail(-EINVAL,
				  "hwprof_group_open: no place for the group (OUT is NULL)");
	*out = NULL;
	r = hwprof_events_parse(spec ? spec : "", &list, err, sizeof(err));
	if (r < 0) {
		r = count_fail(r, "%s", err[0] ? err : "malformed event spec");
		goto out;
	}
	r = hwprof_group_open_list(out, &list, pid, cpu, flags);
out:
	hwprof_events_free(&list);
	return r;
}

size_t hwprof_group_size(const struct hwprof_group *g)
{
	return g ? g->n : 0;
}

const struct hwprof_event *hwprof_group_event(const struct hwprof_group *g, size_t i)
{
	return g && i < g->n ? &g->ev[i] : NULL;
}

bool hwprof_group_read_one_by_one(const struct hwprof_group *g)
{
	return g && g->one_by_one;
}

static int ioctl_leaders(struct hwprof_group *g, unsigned long req, const char *what)
{
	count_clear_error();
	if (!g)
		return count_fail(-EINVAL, "%s: no group (G is NULL)", what);
	for (size_t k = 0; k < g->nkg; k++) {
		int fd = g->fds[g->kg[k].first];
		int r = hwprof_sys()->ioctl(fd, req, PERF_IOC_FLAG_GROUP);
		if (r < 0)
			return count_fail(r, "%s: %s: %m", g->ev[g->kg[k].first].spec, what);
	}
	return 0;
}

int hwprof_group_enable(struct hwprof_group *g)
{
	return ioctl_leaders(g, PERF_EVENT_IOC_ENABLE, "PERF_EVENT_IOC_ENABLE");
}

int hwprof_group_disable(struct hwprof_group *g)
{
	return ioctl_leaders(g, PERF_EVENT_IOC_DISABLE, "PERF_EVENT_IOC_DISABLE");
}

int hwprof_group_reset(struct hwprof_group *g)
{
	return ioctl_leaders(g, PERF_EVENT_IOC_RESET, "PERF_EVENT_IOC_RESET");
}

void hwprof_count_scale(struct hwprof_count *c, double scale)
{
	if (!c)
		return;
	c->counted = c->running_ns > 0;
	if (!c->counted) {
		c->scaled = 0;
		c->ratio = 0;
		return;
	}
	/* running can exceed enabled by a tick on some kernels: never scale down. */
	if (c->enabled_ns > c->running_ns) {
		c->ratio = (double)c->running_ns / (double)c->enabled_ns;
		c->scaled = (double)c->value * ((double)c->enabled_ns / (double)c->running_ns);
	} else {
		c->ratio = 1.0;
		c->scaled = (double)c->value;
	}
	c->scaled *= scale;
}

bool hwprof_count_multiplexed(const struct hwprof_count *c)
{
	return c && c->counted && c->ratio < HWPROF_MULTIPLEX_FLAG;
}

void count_mark_kernel_work(const struct hwprof_event *ev, struct hwprof_count *c)
{
	if (!count_kernel_work_excluded(ev))
		return;
	c->counted = false;
	c->scaled = 0;
	c->ratio = 0;
}

static double ev_scale(const struct hwprof_event *ev)
{
	return ev->scale > 0 ? ev->scale : 1.0;
}

/* Reads one member alone: {value, enabled, running, id}. */
static int read_single(struct hwprof_group *g, size_t i, struct hwprof_count *c)
{
	ssize_t r = hwprof_sys()->read(g->fds[i], g->buf, 4 * sizeof(uint64_t));
	if (r < 0)
		return count_fail((int)r, "%s: read: %m", g->ev[i].spec);
	if (r < (ssize_t)(3 * sizeof(uint64_t)))
		return count_fail(-EIO, "%s: read returned %zd bytes, expected %zu", g->ev[i].spec,
				  r, 4 * sizeof(uint64_t));
	c->value = g->buf[0];
	c->enabled_ns = g->buf[1];
	c->running_ns = g->buf[2];
	hwprof_count_scale(c, ev_scale(&g->ev[i]));
	count_mark_kernel_work(&g->ev[i], c);
	return 0;
}

/* Reads kernel group K in one read(2). */
static int read_kgroup(struct hwprof_group *g, const struct kgroup *kg, struct hwprof_count *out)
{
	const struct hwprof_event *lead = &g->ev[kg->first];
	size_t want = (3 + 2 * kg->n) * sizeof(uint64_t);
	ssize_t r = hwprof_sys()->read(g->fds[kg->first], g->buf, g->buflen);
	uint64_t nr;

	if (r < 0)
		return count_fail((int)r, "%s: read: %m", lead->spec);
	if ((size_t)r < 3 * sizeof(uint64_t))
		return count_fail(-EIO, "%s: group read returned %zd bytes", lead->spec, r);
	nr = g->buf[0];
	if (nr != kg->n || (size_t)r < want)
		return count_fail(-EIO,
				  "%s: group read has %llu members in %zd bytes, expected %zu "
				  "in %zu",
				  lead->spec, (unsigned long long)nr, r, kg->n, want);
	for (size_t j = 0; j < kg->n; j++) {
		uint64_t value = g->buf[3 + 2 * j], id = g->buf[4 + 2 * j];
		size_t m = kg->first + j;
		for (size_t i = kg->first; id && i < kg->first + kg->n; i++)
			if (g->ids[i] == id) {
				m = i;
				break;
			}
		/* With PERF_FORMAT_GROUP the times are the group's: store them per member. */
		out[m].value = value;
		out[m].enabled_ns = g->buf[1];
		out[m].running_ns = g->buf[2];
		hwprof_count_scale(&out[m], ev_scale(&g->ev[m]));
		count_mark_kernel_work(&g->ev[m], &out[m]);
	}
	return 0;
}

int hwprof_group_read(struct hwprof_group *g, struct hwprof_count *out, size_t n)
{
	count_clear_error();
	if (!g || !out)
		return count_fail(-EINVAL, "hwprof_group_read: no group or no output");
	if (n < g->n)
		return count_fail(-ENOSPC,
				  "hwprof_group_read: room for %zu counts, the group has "
				  "%zu",
				  n, g->n);
	for (size_t k = 0; k < g->nkg; k++) {
		const struct kgroup *kg = &g->kg[k];
		int r = 0;
		if (g->one_by_one)
			for (size_t i = kg->first; !r && i < kg->first + kg->n; i++)
				r = read_single(g, i, &out[i]);
		else
			r = read_kgroup(g, kg, out);
		if (r < 0)
			return r;
	}
	return 0;
}
