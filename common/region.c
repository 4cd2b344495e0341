/* region.c - named, nestable per-thread regions over a counting group, with a table at exit
 * (hwprof/hwprof.h; the contract for users is docs/library.md).
 *
 * Each thread opens its own group (pid 0, cpu -1, no inherit) at its first begin; begin and
 * end each read it (one read(2) per kernel group) and the difference goes to the region's
 * accumulator, keyed by (thread, name). Accumulators outlive their thread so the exit report
 * shows every thread that ever ran a region.
 */
#include "hwprof/hwprof.h"
#include "grow.h"
#include "hwprof/metrics.h"
#include "count_priv.h"
#include "json.h"
#include "textfmt.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct region_acc {
	char *name;
	uint64_t calls;
	uint64_t *value, *enabled, *running; /* per event, summed over calls */
};

struct frame {
	struct region_acc *acc;
	struct hwprof_count *start; /* nev counts read at begin */
};

struct thread_state {
	pthread_mutex_t lock; /* guards accs against the report of another thread */
	pid_t tid;
	struct hwprof_group *g; /* NULL when the open failed (see err) */
	int open_err;		/* -errno of the open, 0 when it worked */
	char err[512];
	size_t nev;
	struct region_acc **accs;
	size_t nacc, capacc;
	struct frame *stack;
	size_t depth, capstack;
	struct hwprof_count *now; /* scratch for end's read */
	struct thread_state *next;
};

static pthread_mutex_t states_lock = PTHREAD_MUTEX_INITIALIZER;
static struct thread_state *states; /* every thread that began a region, newest first */
static unsigned long generation;    /* bumped by every end; the exit report skips when the
				     * last explicit report saw the same */
static unsigned long reported_generation;
static bool reported;

static pthread_once_t setup_once = PTHREAD_ONCE_INIT;
static pthread_key_t state_key;
static struct hwprof_event_list events; /* parsed $HWPROF_EVENTS */
static int events_err;
static char events_msg[384];
static _Thread_local struct thread_state *self;

static void free_state(struct thread_state *t)
{
	hwprof_group_close(t->g);
	for (size_t i = 0; i < t->nacc; i++) {
		free(t->accs[i]->name);
		free(t->accs[i]->value);
		free(t->accs[i]->enabled);
		free(t->accs[i]->running);
		free(t->accs[i]);
	}
	for (size_t i = 0; i < t->capstack; i++)
		free(t->stack[i].start);
	free(t->accs);
	free(t->stack);
	free(t->now);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* A thread ends: its counters go, its accumulators stay for the exit report. */
static void thread_gone(void *p)
{
	struct thread_state *t = p;
	pthread_mutex_lock(&t->lock);
	hwprof_group_close(t->g);
	t->g = NULL;
	t->depth = 0;
	pthread_mutex_unlock(&t->lock);
}

static void atfork_prepare(void)
{
	pthread_mutex_lock(&states_lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&states_lock);
}

/* The child starts with no regions: the inherited fds count the parent's threads, and the
 * parent reports its own regions. */
static void atfork_child(void)
{
	struct thread_state *t = states;
	states = NULL;
	while (t) {
		struct thread_state *next = t->next;
		free_state(t);
		t = next;
	}
	self = NULL;
	pthread_setspecific(state_key, NULL);
	generation = reported_generation = 0;
	reported = false;
	pthread_mutex_unlock(&states_lock);
}

static int report_to(const char *path);

static void at_exit(void)
{
	/* The table at exit is this library's one output by design: when the file cannot be
	 * written the table goes to stderr rather than nowhere, and no caller is left to
	 * return the error to, so it goes to the log callback. */
	if ((!reported || generation != reported_generation) && hwprof_region_report() < 0) {
		count_log("%s (region table follows on stderr)", hwprof_strerror_last());
		report_to(NULL);
	}
	/* Nothing is freed: other threads may still be inside begin/end while the process
	 * exits, and everything stays reachable from `states`, so leak checkers stay quiet. */
}

static void setup(void)
{
	const char *spec = getenv("HWPROF_EVENTS");
	char err[256] = "";

	if (!spec || !*spec)
		spec = hwprof_count_default_spec(hwprof_host_has_pmu());
	events_err = hwprof_events_parse(spec, &events, err, sizeof(err));
	if (events_err < 0)
		snprintf(events_msg, sizeof(events_msg), "HWPROF_EVENTS '%.100s': %.250s", spec,
			 err[0] ? err : "malformed event spec");
	pthread_key_create(&state_key, thread_gone);
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	atexit(at_exit);
}

static struct thread_state *state_get(void)
{
	struct thread_state *t;

	if (self)
		return self;
	pthread_once(&setup_once, setup);
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	pthread_mutex_init(&t->lock, NULL);
	t->tid = gettid();
	if (events_err < 0) {
		t->open_err = events_err;
		snprintf(t->err, sizeof(t->err), "%s", events_msg);
	} else {
		t->open_err = hwprof_group_open_list(&t->g, &events, 0, -1, 0);
		if (t->open_err < 0)
			snprintf(t->err, sizeof(t->err), "%s", hwprof_strerror_last());
		else
			t->nev = hwprof_group_size(t->g);
	}
	t->now = calloc(t->nev ? t->nev : 1, sizeof(*t->now));
	if (!t->now) {
		free_state(t);
		return NULL;
	}
	pthread_mutex_lock(&states_lock);
	t->next = states;
	states = t;
	pthread_mutex_unlock(&states_lock);
	pthread_setspecific(state_key, t);
	self = t;
	return t;
}

static struct region_acc *acc_get(struct thread_state *t, const char *name)
{
	struct region_acc *a;

	for (size_t i = 0; i < t->nacc; i++)
		if (!strcmp(t->accs[i]->name, name))
			return t->accs[i];
	if (hwprof_grow((void **)&t->accs, &t->capacc, t->nacc + 1, sizeof(*t->accs)) < 0)
		return NULL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->name = strdup(name);
	a->value = calloc(t->nev + 1, sizeof(uint64_t));
	a->enabled = calloc(t->nev + 1, sizeof(uint64_t));
	a->running = calloc(t->nev + 1, sizeof(uint64_t));
	if (!a->name || !a->value || !a->enabled || !a->running) {
		free(a->name);
		free(a->value);
		free(a->enabled);
		free(a->running);
		free(a);
		return NULL;
	}
	t->accs[t->nacc++] = a;
	return a;
}

static struct frame *push(struct thread_state *t)
{
	if (t->depth == t->capstack) {
		size_t cap = t->capstack ? 2 * t->capstack : 8;
		struct frame *p = realloc(t->stack, cap * sizeof(*p));
		if (!p)
			return NULL;
		for (size_t i = t->capstack; i < cap; i++) {
			p[i].acc = NULL;
			p[i].start = calloc(t->nev ? t->nev : 1, sizeof(*p[i].start));
			if (!p[i].start) {
				t->stack = p;
				t->capstack = i;
				return NULL;
			}
		}
		t->stack = p;
		t->capstack = cap;
	}
	return &t->stack[t->depth++];
}

int hwprof_region_begin(const char *name)
{
	struct thread_state *t;
	struct region_acc *a;
	struct frame *f;
	int r = 0;

	count_clear_error();
	if (!name || !*name)
		return count_fail(-EINVAL, "hwprof_region_begin: empty region name");
	t = state_get();
	if (!t)
		return count_fail(-ENOMEM, "hwprof_region_begin: out of memory");
	pthread_mutex_lock(&t->lock);
	a = acc_get(t, name);
	f = a ? push(t) : NULL;
	if (!f) {
		r = count_fail(-ENOMEM, "hwprof_region_begin('%s'): out of memory", name);
		goto out;
	}
	f->acc = a;
	/* Without counters the region still counts calls; begin says why once per call. */
	if (!t->g) {
		r = count_fail(t->open_err, "%s", t->err);
		goto out;
	}
	r = hwprof_group_read(t->g, f->start, t->nev);
	if (r < 0)
		t->depth--;
out:
	pthread_mutex_unlock(&t->lock);
	return r;
}

int hwprof_region_end(const char *name)
{
	struct thread_state *t = self;
	struct frame *f;
	int r = 0;

	count_clear_error();
	if (!name)
		return count_fail(-EINVAL, "hwprof_region_end(NULL): no region name (pass the "
					   "name given to hwprof_region_begin)");
	if (!t || !t->depth || strcmp(t->stack[t->depth - 1].acc->name, name))
		return count_fail(-EINVAL,
				  "hwprof_region_end('%s'): not the innermost open region "
				  "of this thread (%s%s%s)",
				  name, t && t->depth ? "innermost is '" : "no region is open",
				  t && t->depth ? t->stack[t->depth - 1].acc->name : "",
				  t && t->depth ? "'" : "");
	pthread_mutex_lock(&t->lock);
	f = &t->stack[t->depth - 1];
	if (t->g) {
		r = hwprof_group_read(t->g, t->now, t->nev);
		if (r < 0)
			goto out;
		for (size_t i = 0; i < t->nev; i++) {
			f->acc->value[i] += t->now[i].value - f->start[i].value;
			f->acc->enabled[i] += t->now[i].enabled_ns - f->start[i].enabled_ns;
			f->acc->running[i] += t->now[i].running_ns - f->start[i].running_ns;
		}
	}
	f->acc->calls++;
out:
	t->depth--;
	pthread_mutex_unlock(&t->lock);
	__atomic_add_fetch(&generation, 1, __ATOMIC_RELAXED);
	return r;
}

/* ---- the report ------------------------------------------------------------------------ */

enum fmt { FMT_TEXT, FMT_JSON, FMT_CSV };

/* Column width of event EV in the text table. */
static int text_width(const struct hwprof_event *ev)
{
	int w = (int)strlen(ev->spec) + (ev->unit[0] ? (int)strlen(ev->unit) + 3 : 0);
	return w < 12 ? 12 : w;
}

/* Counts of accumulator A with scaling, and its metrics; returns the number of metrics. */
static size_t acc_counts(const struct region_acc *a, size_t nev, struct hwprof_count *c,
			 struct hwprof_metric *m, size_t maxm)
{
	struct hwprof_metric_input in[64];
	size_t n = nev < 64 ? nev : 64;

	for (size_t i = 0; i < nev; i++) {
		const struct hwprof_event *ev = &events.ev[i];
		c[i] = (struct hwprof_count){
		    .value = a->value[i], .enabled_ns = a->enabled[i], .running_ns = a->running[i]};
		hwprof_count_scale(&c[i], ev->scale > 0 ? ev->scale : 1.0);
		count_mark_kernel_work(ev, &c[i]);
	}
	for (size_t i = 0; i < n; i++)
		in[i] = (struct hwprof_metric_input){
		    .event = events.ev[i].name, .value = c[i].scaled, .counted = c[i].counted};
	return hwprof_metrics_derive(in, n, m, maxm);
}

/* The region column of the text table: the widest name, from 20 to 40 characters; a longer
 * name is cut with an ellipsis (a generated name of 100,000 characters must not be the
 * table). Called with states_lock held. */
#define NAME_MIN_WIDTH 20
#define NAME_MAX_WIDTH 40

static int name_width(void)
{
	size_t w = NAME_MIN_WIDTH;

	for (struct thread_state *t = states; t && w < NAME_MAX_WIDTH; t = t->next) {
		pthread_mutex_lock(&t->lock);
		for (size_t k = 0; k < t->nacc; k++) {
			size_t n = hwprof_text_width(t->accs[k]->name);
			w = n > w ? n : w;
		}
		pthread_mutex_unlock(&t->lock);
	}
	return (int)(w < NAME_MAX_WIDTH ? w : NAME_MAX_WIDTH);
}

/* Writes one region (JSON through J, text in a name column of WIDTH); sets *MARKED when a
 * text value carries the multiplexing '*'. */
static void write_region(FILE *f, struct hwprof_jw *j, enum fmt fmt, const struct thread_state *t,
			 const struct region_acc *a, int width, bool *marked)
{
	struct hwprof_count c[64];
	struct hwprof_metric m[32];
	size_t nev = t->nev < 64 ? t->nev : 64;
	size_t nm = acc_counts(a, nev, c, m, 32);

	if (fmt == FMT_JSON) {
		hwprof_jw_object(j, NULL);
		hwprof_jw_str(j, "name", a->name);
		hwprof_jw_int(j, "thread", (int)t->tid);
		hwprof_jw_uint(j, "calls", a->calls);
		if (t->open_err < 0)
			hwprof_jw_str(j, "error", t->err);
		hwprof_jw_array(j, "events");
		for (size_t i = 0; i < nev; i++) {
			hwprof_jw_object(j, NULL);
			hwprof_jw_str(j, "event", events.ev[i].spec);
			hwprof_jw_uint(j, "value", c[i].value);
			hwprof_jw_uint(j, "enabled_ns", c[i].enabled_ns);
			hwprof_jw_uint(j, "running_ns", c[i].running_ns);
			hwprof_jw_double(j, "scaled", c[i].scaled, 15);
			hwprof_jw_bool(j, "counted", c[i].counted);
			hwprof_jw_end(j);
		}
		hwprof_jw_end(j);
		hwprof_jw_array(j, "metrics");
		for (size_t i = 0; i < nm; i++)
			hwprof_jw_metric(j, &m[i], 15);
		hwprof_jw_end(j);
		hwprof_jw_end(j);
	} else if (fmt == FMT_CSV) {
		for (size_t i = 0; i < nev; i++) {
			hwprof_csv_str(f, a->name);
			fprintf(f, ",%d,%llu,", (int)t->tid, (unsigned long long)a->calls);
			hwprof_csv_str(f, events.ev[i].spec);
			fprintf(f, ",%llu,%llu,%llu,%.15g,%s\n", (unsigned long long)c[i].value,
				(unsigned long long)c[i].enabled_ns,
				(unsigned long long)c[i].running_ns, c[i].scaled,
				c[i].counted ? "true" : "false");
		}
	} else {
		char calls[32], num[64];
		snprintf(calls, sizeof(calls), "%llu", (unsigned long long)a->calls);
		fputs("  ", f);
		hwprof_text_column(f, a->name, (size_t)width);
		fprintf(f, " %8d %8s", (int)t->tid, calls);
		if (t->open_err < 0)
			fprintf(f, "  (no counts: %s)", t->err);
		for (size_t i = 0; i < nev; i++) {
			int w = text_width(&events.ev[i]);
			if (!c[i].counted)
				fprintf(f, " %*s", w, "not counted");
			else
				fprintf(f, " %*s%s", w - 1,
					hwprof_count_text(c[i].scaled, events.ev[i].unit, num,
							  sizeof(num)),
					hwprof_count_multiplexed(&c[i]) ? "*" : " ");
			*marked |= hwprof_count_multiplexed(&c[i]);
		}
		fputc('\n', f);
		for (size_t i = 0; i < nm; i++)
			fprintf(f, "  %-*s %17s  %s %s  (%s)\n", width, "", "", m[i].name,
				hwprof_metric_text(&m[i], num, sizeof(num)), m[i].formula);
	}
}

/* The text table's footnotes: the '*' legend when some value carries it, and why an event
 * that reads as "not counted" everywhere could not count. */
static void write_legend(FILE *f, bool marked)
{
	if (marked)
		fprintf(f, "  * multiplexed: counted under %.0f%% of the time, scaled\n",
			100 * HWPROF_MULTIPLEX_FLAG);
	for (size_t i = 0; i < events.n; i++) {
		const char *why = hwprof_count_why_not(&events.ev[i]);
		if (why)
			fprintf(f, "  %s: not counted (%s)\n", events.ev[i].spec, why);
	}
}

/* The report's head in FMT, to F or J: JSON's events and the opening of its regions, CSV's
 * column names, or the text table's title and column names. Returns the width of the text
 * table's name column. */
static int write_head(FILE *f, struct hwprof_jw *j, enum fmt fmt)
{
	int width = NAME_MIN_WIDTH;

	if (fmt == FMT_JSON) {
		hwprof_jw_object(j, NULL);
		hwprof_jw_array(j, "events");
		for (size_t i = 0; i < events.n; i++)
			hwprof_jw_str(j, NULL, events.ev[i].spec);
		hwprof_jw_end(j);
		hwprof_jw_array(j, "regions");
	} else if (fmt == FMT_CSV) {
		fprintf(f,
			"region,thread,calls,event,value,enabled_ns,running_ns,scaled,counted\n");
	} else {
		width = name_width();
		fprintf(f, "hwprof regions of pid %d\n  %-*s %8s %8s", (int)getpid(), width,
			"region", "thread", "calls");
		for (size_t i = 0; i < events.n; i++) {
			char h[256];
			snprintf(h, sizeof(h), "%s%s%s%s", events.ev[i].spec,
				 events.ev[i].unit[0] ? " (" : "", events.ev[i].unit,
				 events.ev[i].unit[0] ? ")" : "");
			fprintf(f, " %*s", text_width(&events.ev[i]), h);
		}
		fputc('\n', f);
	}
	return width;
}

/* Every thread's regions in FMT, oldest thread first, to F or J (WIDTH: the text table's
 * name column); sets *MARKED when a value is multiplexed. The caller holds states_lock.
 * Returns 0, or count_fail()'s -ENOMEM. */
static int write_threads(FILE *f, struct hwprof_jw *j, enum fmt fmt, int width, bool *marked)
{
	size_t n = 0, i = 0;
	struct thread_state **v;

	/* The list is newest first, so walk it into an array. */
	for (struct thread_state *t = states; t; t = t->next)
		n++;
	v = malloc(n * sizeof(*v));
	if (!v)
		return count_fail(-ENOMEM, "out of memory");
	for (struct thread_state *t = states; t; t = t->next)
		v[n - 1 - i++] = t;
	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&v[i]->lock);
		for (size_t k = 0; k < v[i]->nacc; k++)
			write_region(f, j, fmt, v[i], v[i]->accs[k], width, marked);
		pthread_mutex_unlock(&v[i]->lock);
	}
	free(v);
	return 0;
}

/* Writes the report to PATH (JSON or CSV by its name), or as text to stderr when PATH is
 * NULL or empty. */
static int report_to(const char *path)
{
	enum fmt fmt = FMT_TEXT;
	FILE *f = stderr;
	bool marked = false;
	struct hwprof_jw j;
	int r = 0, width;
	size_t len;
	unsigned long gen = __atomic_load_n(&generation, __ATOMIC_RELAXED);

	count_clear_error();
	pthread_mutex_lock(&states_lock);
	if (!states)
		goto out;
	if (path && *path) {
		len = strlen(path);
		fmt = len > 5 && !strcmp(path + len - 5, ".json") ? FMT_JSON : FMT_CSV;
		f = fopen(path, "w");
		if (!f) {
			r = count_fail(-errno, "HWPROF_OUTPUT '%s': %m", path);
			goto out;
		}
	}
	hwprof_jw_init(&j, f, false);
	width = write_head(f, &j, fmt);
	r = write_threads(f, &j, fmt, width, &marked);
	if (r)
		goto close;
	if (fmt == FMT_JSON) {
		hwprof_jw_end(&j);
		hwprof_jw_end(&j);
		fputc('\n', f);
	} else if (fmt == FMT_TEXT)
		write_legend(f, marked);
close:
	if (f != stderr && fclose(f) != 0 && !r)
		r = count_fail(-errno, "HWPROF_OUTPUT '%s': %m", path);
	else if (f == stderr)
		fflush(f);
	reported = true;
	reported_generation = gen;
out:
	pthread_mutex_unlock(&states_lock);
	return r;
}

int hwprof_region_report(void)
{
	return report_to(getenv("HWPROF_OUTPUT"));
}
