/* metrics.c - derived metrics (IPC, miss rates, MPKI) from scaled counts (hwprof/metrics.h). */
#include "hwprof/metrics.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <ctype.h>

/* The event's bare name: "cpu/cache-misses/u" -> "cache-misses", "cycles:pp" -> "cycles". */
static void bare_name(const char *event, char *buf, size_t len)
{
	const char *s = event, *slash = strchr(event, '/');
	size_t n;

	if (slash && strchr(slash + 1, '/')) {
		s = slash + 1;
		n = (size_t)(strchr(s, '/') - s);
	} else {
		n = strcspn(s, ":");
	}
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

/* Index of the first input whose bare name is one of NAMES (NULL-terminated), counted ones
 * only when COUNTED; -1 when none. */
static long find_in(const struct hwprof_metric_input *in, size_t n, const char *const *names,
		    bool counted)
{
	char bare[128];

	for (size_t i = 0; i < n; i++) {
		if (!in[i].event || (counted && !in[i].counted))
			continue;
		bare_name(in[i].event, bare, sizeof(bare));
		for (const char *const *p = names; *p; p++)
			if (!strcasecmp(bare, *p))
				return (long)i;
	}
	return -1;
}

static long find(const struct hwprof_metric_input *in, size_t n, const char *const *names)
{
	return find_in(in, n, names, true);
}

struct ratio_def {
	const char *name;
	const char *num[3], *den[3]; /* aliases, NULL-terminated */
	bool percent;
};

/* The ratio metrics, in output order. The LLC rate is listed twice: the first definition whose
 * events are present wins (LLC-load-misses/LLC-loads is the closer measure when both exist). */
static const struct ratio_def ratios[] = {
    {"IPC", {"instructions", NULL}, {"cycles", "cpu-cycles", NULL}, false},
    {"L1-dcache miss rate", {"L1-dcache-load-misses", NULL}, {"L1-dcache-loads", NULL}, true},
    {"LLC miss rate", {"LLC-load-misses", NULL}, {"LLC-loads", NULL}, true},
    {"LLC miss rate", {"cache-misses", NULL}, {"cache-references", NULL}, true},
    {"branch miss rate", {"branch-misses", NULL}, {"branches", "branch-instructions", NULL}, true},
    {"dTLB miss rate", {"dTLB-load-misses", NULL}, {"dTLB-loads", NULL}, true},
    {"iTLB miss rate", {"iTLB-load-misses", NULL}, {"iTLB-loads", NULL}, true},
};

/* The metrics by name, for -M: the ratio's name with '-' for ' ', and its first definition
 * (ratios[] order). */
static const struct ratio_def *metric_def(const char *name)
{
	for (size_t r = 0; r < sizeof(ratios) / sizeof(ratios[0]); r++) {
		const char *a = ratios[r].name, *b = name;
		while (*a && *b &&
		       (tolower((unsigned char)*a) == tolower((unsigned char)*b) ||
			((*a == ' ' || *a == '-') && (*b == ' ' || *b == '-' || *b == '_')))) {
			a++;
			b++;
		}
		if (!*a && !*b)
			return &ratios[r];
	}
	return NULL;
}

int hwprof_metric_name_at(size_t i, const char **name)
{
	static const char *const names[] = {"IPC",
					    "L1-dcache-miss-rate",
					    "LLC-miss-rate",
					    "branch-miss-rate",
					    "dTLB-miss-rate",
					    "iTLB-miss-rate"};

	if (i >= sizeof(names) / sizeof(*names))
		return -ENOENT;
	*name = names[i];
	return 0;
}

int hwprof_metric_events(const char *name, char *buf, size_t len, const char **canon)
{
	const struct ratio_def *d = metric_def(name);

	if (!d)
		return -ENOENT;
	snprintf(buf, len, "{%s,%s}", d->num[0], d->den[0]);
	if (canon)
		*canon = d->name;
	return 0;
}

/* Why input NAMES is missing: NULL when it was counted. */
static const char *missing_why(const struct hwprof_metric_input *in, size_t n,
			       const char *const *why, const char *const *names)
{
	long i = find_in(in, n, names, false);

	if (i < 0)
		return "not in the event list";
	if (in[i].counted)
		return NULL;
	return why && why[i] ? why[i] : "not counted";
}

int hwprof_metric_why_not(const char *name, const struct hwprof_metric_input *in, size_t n,
			  const char *const *why, char *buf, size_t len)
{
	const struct ratio_def *d = metric_def(name);
	const char *wa, *wb;
	int r;

	if (len)
		buf[0] = '\0';
	if (!d)
		return -ENOENT;
	/* Denominator first, as people say it: "needs cycles and instructions". */
	wb = missing_why(in, n, why, d->den);
	wa = missing_why(in, n, why, d->num);
	if (!wa && !wb)
		return 0;
	r = find_in(in, n, d->den, false) < 0 && find_in(in, n, d->num, false) < 0 ? 2 : 1;
	if (wa && wb && !strcmp(wa, wb))
		snprintf(buf, len, "%s: needs %s and %s (%s)", d->name, d->den[0], d->num[0], wa);
	else if (wa && wb)
		snprintf(buf, len, "%s: needs %s (%s) and %s (%s)", d->name, d->den[0], wb,
			 d->num[0], wa);
	else
		snprintf(buf, len, "%s: needs %s (%s)", d->name, wa ? d->num[0] : d->den[0],
			 wa ? wa : wb);
	return r;
}

static bool have(const struct hwprof_metric *out, size_t k, const char *name)
{
	for (size_t i = 0; i < k; i++)
		if (!strcmp(out[i].name, name))
			return true;
	return false;
}

size_t hwprof_metrics_derive(const struct hwprof_metric_input *in, size_t n,
			     struct hwprof_metric *out, size_t max)
{
	static const char *const instructions[] = {"instructions", NULL};
	char bare[128];
	size_t k = 0;
	long ins;

	for (size_t r = 0; r < sizeof(ratios) / sizeof(ratios[0]) && k < max; r++) {
		const struct ratio_def *d = &ratios[r];
		long a = find(in, n, d->num), b = find(in, n, d->den);
		if (a < 0 || b < 0 || in[b].value <= 0 || have(out, k, d->name))
			continue;
		snprintf(out[k].name, sizeof(out[k].name), "%s", d->name);
		out[k].value = in[a].value / in[b].value;
		out[k].percent = d->percent;
		snprintf(out[k].formula, sizeof(out[k].formula), "%s / %s = %.0f / %.0f", d->num[0],
			 d->den[0], in[a].value, in[b].value);
		k++;
	}

	/* MPKI: misses per 1000 instructions, for every counted *-misses event. */
	ins = find(in, n, instructions);
	if (ins < 0 || in[ins].value <= 0)
		return k;
	for (size_t i = 0; i < n && k < max; i++) {
		size_t len;
		if (!in[i].event || !in[i].counted)
			continue;
		bare_name(in[i].event, bare, sizeof(bare));
		len = strlen(bare);
		if (len < 7 || strcasecmp(bare + len - 7, "-misses"))
			continue;
		snprintf(out[k].name, sizeof(out[k].name), "%.41s MPKI", bare);
		if (have(out, k, out[k].name))
			continue;
		out[k].value = in[i].value * 1000.0 / in[ins].value;
		out[k].percent = false;
		snprintf(out[k].formula, sizeof(out[k].formula),
			 "%s * 1000 / instructions = %.0f * 1000 / %.0f", bare, in[i].value,
			 in[ins].value);
		k++;
	}
	return k;
}
