/* event.c - the event-spec parser (spelling in hwprof/event.h and docs/events.md). */
#include "hwprof/event.h"

#include "closest.h"
#include "pmu.h"
#include "see.h"
#include "textfmt.h"
#include "tracefs.h"
#include "vendor.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>

/* ---- named events (values from linux/perf_event.h) -------------------------------------- */

struct named {
	const char *name;
	uint64_t config;
};

static const struct named hw_events[] = {
    {"cycles", PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_COUNT_HW_INSTRUCTIONS},
    {"cache-references", PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", PERF_COUNT_HW_CACHE_MISSES},
    {"branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", PERF_COUNT_HW_BRANCH_MISSES},
    {"bus-cycles", PERF_COUNT_HW_BUS_CYCLES},
    {"stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
    {"stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
    {"ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES},
    /* Other spellings perf accepts; listed after the canonical names. */
    {"cpu-cycles", PERF_COUNT_HW_CPU_CYCLES},
    {"branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
    {"idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
};
enum { HW_CANONICAL = 10 };

static const struct named sw_events[] = {
    {"cpu-clock", PERF_COUNT_SW_CPU_CLOCK},
    {"task-clock", PERF_COUNT_SW_TASK_CLOCK},
    {"page-faults", PERF_COUNT_SW_PAGE_FAULTS},
    {"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
    {"alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS},
    {"emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS},
    {"dummy", PERF_COUNT_SW_DUMMY},
    {"cgroup-switches", PERF_COUNT_SW_CGROUP_SWITCHES},
    {"faults", PERF_COUNT_SW_PAGE_FAULTS},
    {"cs", PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
};
enum { SW_CANONICAL = 11 };

/* PAPI's preset names (papi_avail; PAPI's papi_events.csv maps them per CPU), as aliases of
 * the generic event that counts the same thing, so PAPI users keep their names. A preset no
 * generic event counts has the reason instead. */
struct papi_preset {
	const char *name, *event, *why;
};

static const struct papi_preset papi_presets[] = {
    {"PAPI_TOT_INS", "instructions", NULL},
    {"PAPI_TOT_CYC", "cycles", NULL},
    {"PAPI_REF_CYC", "ref-cycles", NULL},
    {"PAPI_BR_INS", "branches", NULL},
    {"PAPI_BR_MSP", "branch-misses", NULL},
    {"PAPI_L1_DCM", "L1-dcache-load-misses", NULL},
    {"PAPI_L1_DCR", "L1-dcache-loads", NULL},
    {"PAPI_L1_DCW", "L1-dcache-stores", NULL},
    {"PAPI_L1_ICM", "L1-icache-load-misses", NULL},
    {"PAPI_L3_TCM", "cache-misses", NULL},
    {"PAPI_L3_TCA", "cache-references", NULL},
    {"PAPI_TLB_DM", "dTLB-load-misses", NULL},
    {"PAPI_TLB_IM", "iTLB-load-misses", NULL},
    {"PAPI_LD_INS", "L1-dcache-loads", NULL},
    {"PAPI_SR_INS", "L1-dcache-stores", NULL},
    {"PAPI_STL_ICY", "stalled-cycles-frontend", NULL},
    {"PAPI_RES_STL", "stalled-cycles-backend", NULL},
    {"PAPI_L2_TCM", NULL,
     "no generic event counts L2 misses (perf's caches are L1-dcache, L1-icache and LLC); "
     "name the CPU's own L2 event, e.g. L2_RQSTS.MISS"},
    {"PAPI_L2_DCM", NULL, "no generic event counts L2 data misses; name the CPU's own L2 event"},
    {"PAPI_L2_TCA", NULL, "no generic event counts L2 accesses; name the CPU's own L2 event"},
    {"PAPI_FP_OPS", NULL,
     "no generic event counts floating-point operations; name the CPU's own, e.g. "
     "FP_ARITH_INST_RETIRED.*"},
    {"PAPI_FP_INS", NULL,
     "no generic event counts floating-point instructions; name the CPU's own FP event"},
    {"PAPI_VEC_INS", NULL, "no generic event counts vector instructions; name the CPU's own"},
    {"PAPI_BR_CN", NULL,
     "no generic event counts conditional branches alone (branches counts all); name the "
     "CPU's own BR event"},
};

int hwprof_papi_preset_at(size_t i, const char **name, const char **event, const char **why)
{
	if (i >= sizeof(papi_presets) / sizeof(*papi_presets))
		return -ENOENT;
	*name = papi_presets[i].name;
	*event = papi_presets[i].event;
	*why = papi_presets[i].why;
	return 0;
}

/* Hardware cache events: CACHE-OP[-RESULT], config = cache | op << 8 | result << 16. The first
 * spelling of each is the canonical one; `ops` says which operations the cache has. */
struct cache_name {
	const char *names[4];
	unsigned ops; /* bit per PERF_COUNT_HW_CACHE_OP_* */
};

#define OP(x) (1u << PERF_COUNT_HW_CACHE_OP_##x)
static const struct cache_name caches[PERF_COUNT_HW_CACHE_MAX] = {
    [PERF_COUNT_HW_CACHE_L1D] = {{"L1-dcache", "l1-d", "l1d", "L1-data"},
				 OP(READ) | OP(WRITE) | OP(PREFETCH)},
    [PERF_COUNT_HW_CACHE_L1I] = {{"L1-icache", "l1-i", "l1i", "L1-instruction"},
				 OP(READ) | OP(PREFETCH)},
    [PERF_COUNT_HW_CACHE_LL] = {{"LLC", "L2"}, OP(READ) | OP(WRITE) | OP(PREFETCH)},
    [PERF_COUNT_HW_CACHE_DTLB] = {{"dTLB", "d-tlb", "Data-TLB"},
				  OP(READ) | OP(WRITE) | OP(PREFETCH)},
    [PERF_COUNT_HW_CACHE_ITLB] = {{"iTLB", "i-tlb", "Instruction-TLB"}, OP(READ)},
    [PERF_COUNT_HW_CACHE_BPU] = {{"branch", "bpu", "btb", "bpc"}, OP(READ)},
    [PERF_COUNT_HW_CACHE_NODE] = {{"node"}, OP(READ) | OP(WRITE) | OP(PREFETCH)},
};
#undef OP

/* Per op: the plural access form (canonical), then other spellings of the op. */
static const char *const cache_ops[PERF_COUNT_HW_CACHE_OP_MAX][4] = {
    [PERF_COUNT_HW_CACHE_OP_READ] = {"loads", "load", "read"},
    [PERF_COUNT_HW_CACHE_OP_WRITE] = {"stores", "store", "write"},
    [PERF_COUNT_HW_CACHE_OP_PREFETCH] = {"prefetches", "prefetch", "speculative-read",
					 "speculative-load"},
};
/* The singular form used before "-misses". */
static const char *const cache_op_singular[PERF_COUNT_HW_CACHE_OP_MAX] = {"load", "store",
									  "prefetch"};

static const char *const cache_results[PERF_COUNT_HW_CACHE_RESULT_MAX][5] = {
    [PERF_COUNT_HW_CACHE_RESULT_ACCESS] = {"refs", "references", "access", "accesses", "ops"},
    [PERF_COUNT_HW_CACHE_RESULT_MISS] = {"misses", "miss"},
};

/* Matches WORD (case-insensitively) at the start of *P, followed by '-' or the end. */
static bool eat_word(const char **p, const char *word)
{
	size_t n = strlen(word);
	if (strncasecmp(*p, word, n) || ((*p)[n] && (*p)[n] != '-'))
		return false;
	*p += n;
	return true;
}

static bool parse_cache(const char *name, uint64_t *config)
{
	for (int c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++) {
		for (int a = 0; a < 4 && caches[c].names[a]; a++) {
			const char *p = name;
			if (!eat_word(&p, caches[c].names[a]) || *p != '-')
				continue;
			p++;
			for (int op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++) {
				if (!(caches[c].ops >> op & 1))
					continue;
				for (int o = 0; o < 4 && cache_ops[op][o]; o++) {
					const char *q = p;
					if (!eat_word(&q, cache_ops[op][o]))
						continue;
					int res = -1;
					if (!*q) {
						res = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
					} else {
						q++;
						for (int r = 0;
						     r < PERF_COUNT_HW_CACHE_RESULT_MAX && res < 0;
						     r++)
							for (int s = 0;
							     s < 5 && cache_results[r][s]; s++)
								if (!strcasecmp(
									q, cache_results[r][s]))
									res = r;
					}
					if (res < 0)
						continue;
					*config =
					    (uint64_t)c | (uint64_t)op << 8 | (uint64_t)res << 16;
					return true;
				}
			}
		}
	}
	return false;
}

int hwprof_event_name_at(size_t i, char *buf, size_t len, enum hwprof_event_kind *kind)
{
	if (i < HW_CANONICAL) {
		*kind = HWPROF_EV_HARDWARE;
		snprintf(buf, len, "%s", hw_events[i].name);
		return 0;
	}
	i -= HW_CANONICAL;
	for (int c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++) {
		for (int op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++) {
			if (!(caches[c].ops >> op & 1))
				continue;
			if (i < 2) {
				*kind = HWPROF_EV_CACHE;
				if (i == 0)
					snprintf(buf, len, "%s-%s", caches[c].names[0],
						 cache_ops[op][0]);
				else
					snprintf(buf, len, "%s-%s-misses", caches[c].names[0],
						 cache_op_singular[op]);
				return 0;
			}
			i -= 2;
		}
	}
	if (i < SW_CANONICAL) {
		*kind = HWPROF_EV_SOFTWARE;
		snprintf(buf, len, "%s", sw_events[i].name);
		return 0;
	}
	return -ENOENT;
}

int hwprof_event_name_of(uint32_t type, uint64_t config, char *buf, size_t len)
{
	unsigned c = (unsigned)(config & 0xff), op = (unsigned)(config >> 8 & 0xff),
		 res = (unsigned)(config >> 16 & 0xff);

	for (size_t i = 0; type == PERF_TYPE_HARDWARE && i < HW_CANONICAL; i++)
		if (hw_events[i].config == config)
			return snprintf(buf, len, "%s", hw_events[i].name), 0;
	for (size_t i = 0; type == PERF_TYPE_SOFTWARE && i < SW_CANONICAL; i++)
		if (sw_events[i].config == config)
			return snprintf(buf, len, "%s", sw_events[i].name), 0;
	if (type == PERF_TYPE_HW_CACHE && !(config >> 24) && c < PERF_COUNT_HW_CACHE_MAX &&
	    op < PERF_COUNT_HW_CACHE_OP_MAX && res < PERF_COUNT_HW_CACHE_RESULT_MAX &&
	    caches[c].names[0] && (caches[c].ops >> op & 1)) {
		if (res == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
			snprintf(buf, len, "%s-%s", caches[c].names[0], cache_ops[op][0]);
		else
			snprintf(buf, len, "%s-%s-misses", caches[c].names[0],
				 cache_op_singular[op]);
		return 0;
	}
	if (type == PERF_TYPE_RAW)
		return snprintf(buf, len, "r%" PRIx64, config), 0;
	return -ENOENT;
}

int hwprof_event_code(uint32_t type, uint64_t config, uint64_t config1, uint64_t config2, char *buf,
		      size_t len)
{
	int n = 0;

	if (len)
		buf[0] = '\0';
	if (type < PERF_TYPE_MAX && type != PERF_TYPE_RAW)
		return -ENOENT;
	if (type == PERF_TYPE_RAW)
		n = snprintf(buf, len, "raw 0x%" PRIx64, config);
	else
		n = snprintf(buf, len, "type %" PRIu32 ", config 0x%" PRIx64, type, config);
	if (config1 && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ", config1 0x%" PRIx64, config1);
	if (config2 && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ", config2 0x%" PRIx64, config2);
	return 0;
}

/* Other spellings of the canonical NAME in TABLE (N entries, the first CANON canonical). */
static size_t aliases_in(const struct named *table, size_t n, size_t canon, const char *name,
			 const char **out, size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < canon; i++) {
		if (strcmp(table[i].name, name))
			continue;
		for (size_t j = canon; j < n; j++)
			if (table[j].config == table[i].config && k < max)
				out[k++] = table[j].name;
	}
	return k;
}

size_t hwprof_event_aliases(const char *name, const char **out, size_t max)
{
	size_t k = aliases_in(hw_events, sizeof(hw_events) / sizeof(*hw_events), HW_CANONICAL, name,
			      out, max);

	return k + aliases_in(sw_events, sizeof(sw_events) / sizeof(*sw_events), SW_CANONICAL, name,
			      out + k, max - k);
}

/* ---- errors and suggestions --------------------------------------------------------------- */

struct parser {
	const char *s;
	size_t pos;
	struct hwprof_event_list *out;
	size_t cap;
	char *err;
	size_t errlen;
	bool in_group; /* inside braces: a tracepoint pattern may not expand there */
};

static int fail(struct parser *p, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_see(struct parser *p, enum hwprof_see see, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* %m in FMT stands for strerror(RC). */
static void vfail(struct parser *p, int rc, const char *fmt, va_list ap)
{
	hwprof_vmsgf(p->err, p->errlen, rc, fmt, ap);
}

static int fail(struct parser *p, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(p, rc, fmt, ap);
	va_end(ap);
	return rc;
}

/* fail() for a message whose way out is a list of names: where, SEE says (hwprof_see_last). */
static int fail_see(struct parser *p, enum hwprof_see see, int rc, const char *fmt, ...)
{
	va_list ap;

	see_set(see);
	va_start(ap, fmt);
	vfail(p, rc, fmt, ap);
	va_end(ap);
	return rc;
}

/* Closest known event name to WORD, or "" when none is close. */
static void suggest_event(const char *word, char *out, size_t len)
{
	struct hwprof_suggest s;
	char name[128];
	enum hwprof_event_kind kind;

	hwprof_suggest_init(&s, word);
	for (size_t i = 0; hwprof_event_name_at(i, name, sizeof(name), &kind) == 0; i++)
		hwprof_suggest_consider(&s, name);
	for (size_t i = HW_CANONICAL; i < sizeof(hw_events) / sizeof(*hw_events); i++)
		hwprof_suggest_consider(&s, hw_events[i].name);
	for (size_t i = SW_CANONICAL; i < sizeof(sw_events) / sizeof(*sw_events); i++)
		hwprof_suggest_consider(&s, sw_events[i].name);
	snprintf(out, len, "%s", hwprof_suggest_result(&s));
}

static void suggest_from(const char *word, char **names, size_t n, char *out, size_t len)
{
	struct hwprof_suggest s;

	hwprof_suggest_init(&s, word);
	for (size_t i = 0; i < n; i++)
		hwprof_suggest_consider(&s, names[i]);
	snprintf(out, len, "%s", hwprof_suggest_result(&s));
}

/* ---- resolving one event ------------------------------------------------------------------ */

static bool lookup(const struct named *t, size_t n, const char *name, uint64_t *config)
{
	for (size_t i = 0; i < n; i++) {
		if (!strcasecmp(t[i].name, name)) {
			*config = t[i].config;
			return true;
		}
	}
	return false;
}

/* Parses a term value: decimal or 0x hex, the whole string. */
static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;
	if (!*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return false;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

/* Removes leading and trailing white space of T in place. */
static char *trim(char *t)
{
	while (isspace((unsigned char)*t))
		t++;
	size_t n = strlen(t);
	while (n && isspace((unsigned char)t[n - 1]))
		t[--n] = '\0';
	return t;
}

/* Whether T is the term "config", "config1" or "config2": then V is stored in that word of
 * CONFIG. */
static bool config_term(const char *t, uint64_t v, uint64_t config[3])
{
	if (strcmp(t, "config") && strcmp(t, "config1") && strcmp(t, "config2"))
		return false;
	config[t[6] ? t[6] - '0' : 0] = v;
	return true;
}

/* EV's config, config1 and config2 from CONFIG. */
static void set_config(struct hwprof_event *ev, const uint64_t config[3])
{
	ev->config = config[0];
	ev->config1 = config[1];
	ev->config2 = config[2];
}

/* Applies alias PMU/events/NAME (its terms, .scale, .unit) to EV. 1 when applied, 0 when PMU
 * has no such alias, <0 on error (message written). */
static int apply_alias(struct parser *p, struct hwprof_event *ev, const char *pmu, const char *name,
		       uint64_t config[3])
{
	char rel[320], text[1024], buf[64];
	if (!*name || strchr(name, '/') || name[0] == '.' ||
	    snprintf(rel, sizeof(rel), "events/%s", name) >= (int)sizeof(rel))
		return 0;
	int r = pmu_read(pmu, rel, text, sizeof(text));
	if (r == -ENOENT || r == -ENOTDIR || r == -EISDIR)
		return 0;
	if (r < 0)
		return fail(p, r, "cannot read alias '%s' of PMU '%s': %m", name, pmu);
	char *save = NULL;
	for (char *t = strtok_r(text, ",\n", &save); t; t = strtok_r(NULL, ",\n", &save)) {
		while (isspace((unsigned char)*t))
			t++;
		char *eq = strchr(t, '=');
		const char *val = eq ? trim(eq + 1) : "1";
		if (eq)
			*eq = '\0';
		t = trim(t);
		uint64_t v;
		if (!*t)
			continue;
		if (!strcmp(val, "?"))
			continue; /* a parameter the user supplies as a term */
		if (!parse_u64(val, &v))
			return fail(p, -EINVAL,
				    "alias '%s/%s/' in sysfs has a bad value '%s' for '%s'", pmu,
				    name, val, t);
		if (config_term(t, v, config))
			continue;
		struct pmu_format f;
		if (pmu_format_read(pmu, t, &f) < 0 || pmu_format_apply(&f, v, config) < 0)
			return fail(
			    p, -EINVAL,
			    "alias '%s/%s/' in sysfs uses field '%s' that PMU '%s' does not "
			    "describe in format/",
			    pmu, name, t, pmu);
	}
	snprintf(rel, sizeof(rel), "events/%s.scale", name);
	if (pmu_read(pmu, rel, buf, sizeof(buf)) == 0) {
		char *end;
		double sc = strtod(buf, &end);
		if (end == buf || *end || !(sc > 0))
			return fail(p, -EINVAL, "alias '%s/%s/' has a bad scale '%s' in sysfs", pmu,
				    name, buf);
		ev->scale = sc;
	}
	snprintf(rel, sizeof(rel), "events/%s.unit", name);
	if (pmu_read(pmu, rel, buf, sizeof(ev->unit)) == 0)
		memcpy(ev->unit, buf, sizeof(ev->unit));
	return 1;
}

static int unknown_pmu(struct parser *p, const char *pmu, const char *what)
{
	char **names;
	size_t n;
	char best[128] = "";
	if (pmu_list(&names, &n) == 0) {
		suggest_from(pmu, names, n, best, sizeof(best));
		pmu_names_free(names, n);
	}
	if (*best)
		return fail_see(p, HWPROF_SEE_PMU_EVENTS, -ENOENT,
				"unknown PMU '%s' in '%s' (did you mean '%s'?)", pmu, what, best);
	return fail_see(p, HWPROF_SEE_PMU_EVENTS, -ENOENT,
			"unknown PMU '%s' in '%s' (no %s/bus/event_source/devices/%s)", pmu, what,
			hwprof_sysfs_root(), pmu);
}

/* EV's PMU type from sysfs into EV (its kind and type) and *TYPE. */
static int pmu_set_type(struct parser *p, struct hwprof_event *ev, uint32_t *type)
{
	int r = pmu_type(ev->pmu, type);

	if (r == -ENOENT)
		return unknown_pmu(p, ev->pmu, ev->name);
	if (r < 0)
		return fail(p, r, "PMU '%s': cannot read its type from sysfs: %m", ev->pmu);
	/* The software PMU spelled by its sysfs name is a software event. */
	ev->kind = *type == PERF_TYPE_SOFTWARE ? HWPROF_EV_SOFTWARE : HWPROF_EV_PMU;
	ev->type = *type;
	return 0;
}

/* Splits term T ("name=value" or "name", white space around either) of EV in place: its name
 * into *NAME, its value into *V (1 when it has none, *HAS_VALUE false). */
static int split_term(struct parser *p, const struct hwprof_event *ev, char *t, char **name,
		      uint64_t *v, bool *has_value)
{
	char *eq;

	t = trim(t);
	eq = strchr(t, '=');
	*v = 1;
	*has_value = eq != NULL;
	if (eq) {
		*eq = '\0';
		trim(t);
		char *val = trim(eq + 1);
		if (!parse_u64(val, v))
			return fail(p, -EINVAL,
				    "bad value '%s' for '%s' in '%s' (expected a number: "
				    "decimal or 0x hex)",
				    val, t, ev->name);
	}
	if (!*t)
		return fail(p, -EINVAL, "empty term in '%s'", ev->name);
	*name = t;
	return 0;
}

/* Field T of EV's PMU (its format/T) set to V in CONFIG. 1 when set, 0 when the PMU has no
 * such field, <0 on error (message written). */
static int format_term(struct parser *p, const struct hwprof_event *ev, const char *t, uint64_t v,
		       uint64_t config[3])
{
	struct pmu_format f;
	int r = pmu_format_read(ev->pmu, t, &f);

	if (r == -ENOENT)
		return 0;
	if (r != 0)
		return fail(p, -EINVAL,
			    "PMU '%s' describes field '%s' in a way hwprof "
			    "cannot read (format/%s)",
			    ev->pmu, t, t);
	if (pmu_format_apply(&f, v, config) < 0) {
		char d[96];
		pmu_format_describe(&f, d, sizeof(d));
		return fail(p, -EINVAL,
			    "value 0x%llx does not fit field '%s' of '%s' (%d bits: "
			    "%s)",
			    (unsigned long long)v, t, ev->name, f.nbits, d);
	}
	return 1;
}

/* A term without a value that names an event: an alias of EV's PMU (its events/T), or on a
 * core PMU a generic hardware or cache event. 1 when applied to EV and CONFIG, 0 when T is
 * neither, <0 on error (message written). */
static int event_term(struct parser *p, struct hwprof_event *ev, const char *t, uint32_t type,
		      uint64_t config[3])
{
	uint64_t c;
	int kind = -1;
	int r = apply_alias(p, ev, ev->pmu, t, config);

	if (r != 0)
		return r;
	/* Generic events on one core PMU of a hybrid machine: the extended type puts the PMU's
	 * TYPE in config bits 32-63 (linux/perf_event.h, PERF_PMU_TYPE_SHIFT). */
	if (lookup(hw_events, sizeof(hw_events) / sizeof(*hw_events), t, &c))
		kind = HWPROF_EV_HARDWARE;
	else if (parse_cache(t, &c))
		kind = HWPROF_EV_CACHE;
	if (kind < 0 || !pmu_is_core(ev->pmu))
		return 0;
	ev->kind = (enum hwprof_event_kind)kind;
	ev->type = kind == HWPROF_EV_CACHE ? PERF_TYPE_HW_CACHE : PERF_TYPE_HARDWARE;
	config[0] = c | (uint64_t)type << 32;
	return 1;
}

/* The names in PMU's sysfs folder DIR ("format" or "events") closest to WORD into OUT (LEN
 * bytes), or "" when none is close or DIR cannot be read. */
static void suggest_pmu_name(const char *word, const char *pmu, const char *dir, char *out,
			     size_t len)
{
	char **names;
	size_t n;

	out[0] = '\0';
	if (pmu_names(pmu, dir, &names, &n) == 0) {
		suggest_from(word, names, n, out, len);
		pmu_names_free(names, n);
	}
}

/* The error for term T that EV's PMU has neither as a field nor as an event. */
static int unknown_term(struct parser *p, const struct hwprof_event *ev, const char *t)
{
	char best[128];

	suggest_pmu_name(t, ev->pmu, "format", best, sizeof(best));
	if (!*best)
		suggest_pmu_name(t, ev->pmu, "events", best, sizeof(best));
	if (*best)
		return fail_see(p, HWPROF_SEE_PMU_EVENTS, -EINVAL,
				"unknown term '%s' in '%s' (did you mean '%s'?)", t, ev->name,
				best);
	return fail_see(p, HWPROF_SEE_PMU_EVENTS, -EINVAL,
			"unknown term '%s' in '%s': PMU '%s' has no such field or event", t,
			ev->name, ev->pmu);
}

/* Applies term T of "PMU/terms/" to EV and CONFIG (TYPE: the PMU's): config, config1 or
 * config2, a field of the PMU's format/, or an event. Returns 0 or the fail() code. */
static int apply_term(struct parser *p, struct hwprof_event *ev, char *t, uint32_t type,
		      uint64_t config[3])
{
	char *name = NULL;
	uint64_t v;
	bool has_value;
	int r = split_term(p, ev, t, &name, &v, &has_value);

	if (r < 0)
		return r;
	if (config_term(name, v, config))
		return 0;
	r = format_term(p, ev, name, v, config);
	if (r == 0 && !has_value)
		r = event_term(p, ev, name, type, config);
	if (r != 0)
		return r < 0 ? r : 0;
	return unknown_term(p, ev, name);
}

/* pmu/term,term,.../ */
static int resolve_pmu(struct parser *p, struct hwprof_event *ev, const char *terms)
{
	uint64_t config[3] = {0, 0, 0};
	uint32_t type;
	char buf[256], *save = NULL;
	int r = pmu_set_type(p, ev, &type);

	if (r < 0)
		return r;
	snprintf(buf, sizeof(buf), "%s", terms);
	if (!*buf)
		return fail_see(p, HWPROF_SEE_PMU_EVENTS, -EINVAL,
				"no event terms in '%s' (e.g. '%s/event=0x3c/')", ev->name,
				ev->pmu);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		r = apply_term(p, ev, t, type, config);
		if (r < 0)
			return r;
	}
	set_config(ev, config);
	return 0;
}

/* The box number of NAME as one of PMU's numbered boxes ("uncore_imc_3" of "uncore_imc"),
 * or -1. */
static long box_number(const char *name, const char *pmu)
{
	size_t n = strlen(pmu);
	char *end;
	long v;

	if (strncmp(name, pmu, n) || name[n] != '_' || !isdigit((unsigned char)name[n + 1]))
		return -1;
	v = strtol(name + n + 1, &end, 10);
	return *end ? -1 : v;
}

/* The PMUs PMU_0..PMU_N that a PMU spelled without its box number stands for, as perf
 * expands "uncore_imc/.../" to every uncore_imc_N (a server's memory controllers), into
 * BOXES sorted by number (room for MAX). Returns how many; 0 when PMU itself exists or has
 * no boxes. */
static size_t pmu_boxes(const char *pmu, char (*boxes)[64], size_t max)
{
	char **names;
	size_t n, k = 0;

	if (pmu_exists(pmu) || pmu_list(&names, &n) < 0)
		return 0;
	for (size_t i = 0; i < n && k < max; i++) {
		long b = box_number(names[i], pmu);
		size_t at = k;

		if (b < 0)
			continue;
		while (at > 0 && box_number(boxes[at - 1], pmu) > b) {
			memcpy(boxes[at], boxes[at - 1], sizeof(boxes[0]));
			at--;
		}
		snprintf(boxes[at], sizeof(boxes[0]), "%s", names[i]);
		k++;
	}
	pmu_names_free(names, n);
	return k;
}

/* The sysfs name of the PMU whose type is TYPE into BUF, or "" when none has it. */
static void pmu_of_type(uint32_t type, char *buf, size_t len)
{
	char **pmus;
	size_t n;
	uint32_t t;

	buf[0] = '\0';
	if (pmu_list(&pmus, &n) < 0)
		return;
	for (size_t i = 0; i < n && !buf[0]; i++)
		if (pmu_type(pmus[i], &t) == 0 && t == type)
			snprintf(buf, len, "%s", pmus[i]);
	pmu_names_free(pmus, n);
}

/* A name of the CPU's own events through libpfm4 (vendor.h), with libpfm4's attributes
 * VATTRS ("c=1:e" or ""). 1 when resolved, 0 when libpfm4 has no such event, <0 on error
 * (message written). */
static int resolve_vendor(struct parser *p, struct hwprof_event *ev, const char *vattrs)
{
	struct vendor_event v;
	char msg[512];
	int r = vendor_encode(ev->name, vattrs, &v, msg, sizeof(msg));

	if (r == -ENOENT || r == -ENODEV)
		return 0;
	if (r < 0)
		return fail_see(p, HWPROF_SEE_VENDOR_EVENTS, -EINVAL, "%s", msg);
	ev->type = v.type;
	ev->config = v.config;
	ev->config1 = v.config1;
	ev->config2 = v.config2;
	ev->precise_limit = v.precise ? 3 : 0;
	snprintf(ev->vendor, sizeof(ev->vendor), "%s", v.pmu);
	if (v.core) {
		ev->kind = HWPROF_EV_RAW;
	} else {
		/* Uncore: the sysfs PMU of that type, for its cpumask (one CPU per socket). */
		ev->kind = HWPROF_EV_PMU;
		pmu_of_type(v.type, ev->pmu, sizeof(ev->pmu));
	}
	return 1;
}

/* A PAPI preset's name (PAPI_*) as the generic event it stands for into *OUT; any other
 * NAME as it is. Returns 0, or a fail() code for a preset no generic event counts. */
static int papi_event(struct parser *p, const char *name, const char **out)
{
	*out = name;
	if (strncasecmp(name, "PAPI_", 5))
		return 0;
	for (size_t i = 0; i < sizeof(papi_presets) / sizeof(*papi_presets); i++) {
		if (strcasecmp(name, papi_presets[i].name))
			continue;
		if (!papi_presets[i].event)
			return fail_see(p, HWPROF_SEE_VENDOR_EVENTS, -EINVAL,
					"PAPI preset '%s': %s", name, papi_presets[i].why);
		*out = papi_presets[i].event;
		return 0;
	}
	return fail_see(p, HWPROF_SEE_EVENTS, -EINVAL,
			"unknown PAPI preset '%s' (hwprof takes the presets that "
			"a generic event counts)",
			name);
}

/* Whether the N bytes at NAME are a raw event's name: 'r' and hex digits ("r1a2"). */
static bool raw_name(const char *name, size_t n)
{
	return name[0] == 'r' && n > 1 && strspn(name + 1, "0123456789abcdefABCDEF") == n - 1;
}

/* NAME as a generic hardware, software or cache event, or a raw one, into EV. 1 when it is
 * one, 0 when not, <0 on error (message written). */
static int resolve_generic(struct parser *p, struct hwprof_event *ev, const char *name)
{
	enum hwprof_event_kind kind;
	uint32_t type;
	uint64_t c;

	if (lookup(hw_events, sizeof(hw_events) / sizeof(*hw_events), name, &c)) {
		kind = HWPROF_EV_HARDWARE;
		type = PERF_TYPE_HARDWARE;
	} else if (lookup(sw_events, sizeof(sw_events) / sizeof(*sw_events), name, &c)) {
		kind = HWPROF_EV_SOFTWARE;
		type = PERF_TYPE_SOFTWARE;
	} else if (parse_cache(name, &c)) {
		kind = HWPROF_EV_CACHE;
		type = PERF_TYPE_HW_CACHE;
	} else if (raw_name(name, strlen(name))) {
		if (strlen(name + 1) > 16)
			return fail(p, -EINVAL, "raw event '%s' has more than 64 bits", name);
		kind = HWPROF_EV_RAW;
		type = PERF_TYPE_RAW;
		c = strtoull(name + 1, NULL, 16);
	} else {
		return 0;
	}
	ev->kind = kind;
	ev->type = type;
	ev->config = c;
	return 1;
}

/* A sysfs alias given without its PMU, like perf: the first PMU (core ones first) that has
 * events/NAME, into EV. 1 when one has it, 0 when none, <0 on error (message written). */
static int resolve_any_alias(struct parser *p, struct hwprof_event *ev, const char *name)
{
	char **pmus;
	size_t n;
	int r = 0;

	if (pmu_list(&pmus, &n) != 0)
		return 0;
	for (int pass = 0; pass < 2 && r == 0; pass++) {
		for (size_t i = 0; i < n && r == 0; i++) {
			uint64_t config[3] = {0, 0, 0};
			uint32_t type;

			if (pmu_is_core(pmus[i]) != (pass == 0) || pmu_type(pmus[i], &type) < 0)
				continue;
			r = apply_alias(p, ev, pmus[i], name, config);
			if (r > 0) {
				ev->kind = HWPROF_EV_PMU;
				ev->type = type;
				snprintf(ev->pmu, sizeof(ev->pmu), "%s", pmus[i]);
				set_config(ev, config);
			}
		}
	}
	pmu_names_free(pmus, n);
	return r;
}

/* The error for NAME that is no event of any kind: the closest known name, or why vendor
 * names could not be looked up when NAME looks like one ('.' or '_'). */
static int unknown_event(struct parser *p, const char *name)
{
	bool vendor_like = strchr(name, '.') || strchr(name, '_');
	char best[128], why[512];

	suggest_event(name, best, sizeof(best));
	if (*best)
		return fail_see(p, HWPROF_SEE_EVENTS, -EINVAL,
				"unknown event '%s' (did you mean '%s'?)", name, best);
	if (vendor_status(why, sizeof(why)) < 0 && vendor_like)
		return fail_see(p, HWPROF_SEE_EVENTS, -EINVAL,
				"unknown event '%s' (not a generic name, and vendor names cannot "
				"be looked up: %s)",
				name, why);
	if (vendor_like) {
		/* libpfm4 tells its PMUs by CPUID, not by the kernel's: a VM can have one. */
		char pmus[256];

		if (vendor_active_pmus(pmus, sizeof(pmus)) <= 0)
			return fail_see(p, HWPROF_SEE_EVENTS, -EINVAL,
					"unknown event '%s' (not a generic name, and libpfm4 finds "
					"no CPU PMU on this host to look vendor names up in)",
					name);
		return fail_see(p, HWPROF_SEE_VENDOR_EVENTS, -EINVAL,
				"unknown event '%s' (not a generic name, nor an event of this "
				"CPU's PMU as libpfm4 knows it: %s)",
				name, pmus);
	}
	return fail_see(p, HWPROF_SEE_EVENTS, -EINVAL, "unknown event '%s'", name);
}

/* A bare name: generic hardware, cache, software, raw, a sysfs alias of some PMU, or a
 * vendor name libpfm4 knows (VATTRS: libpfm4's attributes written after it, or ""). */
static int resolve_named(struct parser *p, struct hwprof_event *ev, const char *vattrs)
{
	const char *name;
	int r = papi_event(p, ev->name, &name);

	if (r == 0)
		r = resolve_generic(p, ev, name);
	if (r == 0)
		r = resolve_any_alias(p, ev, name);
	if (r == 0)
		r = resolve_vendor(p, ev, vattrs);
	if (r == 0)
		return unknown_event(p, name);
	return r < 0 ? r : 0;
}

/* ---- modifiers ---------------------------------------------------------------------------- */

struct mods {
	bool u, k, h, any_priv;
	int p;
	bool P;
};

static int parse_mods(struct parser *p, const char *m, size_t len, const char *where,
		      struct mods *out)
{
	for (size_t i = 0; i < len; i++) {
		switch (m[i]) {
		case 'u':
			out->u = out->any_priv = true;
			break;
		case 'k':
			out->k = out->any_priv = true;
			break;
		case 'h':
			out->h = out->any_priv = true;
			break;
		case 'p':
			out->p++;
			break;
		case 'P':
			out->P = true;
			break;
		default:
			return fail(p, -EINVAL,
				    "unknown modifier '%c' in '%s' (modifiers: u k h p pp ppp P)",
				    m[i], where);
		}
	}
	if (out->p > 3)
		return fail(p, -EINVAL, "too many 'p' in '%s' (precise_ip goes up to 3: ppp)",
			    where);
	return 0;
}

/* A member of "{a,b}:u" is spelled "a:u" wherever it is named: its counts are user-only. The
 * spec's modifiers are rewritten to the ones in effect, M ("{cycles:p,b}:u" -> "cycles:pu";
 * an own privilege modifier wins over the group's: "{a:u}:k" stays "a:u"). */
/* Whether the N bytes at T are hwprof modifiers only ("upp", "k"). */
static bool hwprof_mods_token(const char *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr("ukhpP", t[i]))
			return false;
	return n > 0;
}

static void spec_set_mods(struct hwprof_event *ev, const struct mods *m)
{
	char *slash = strrchr(ev->spec, '/'), *colon;
	char kept[192] = "";
	size_t n, k = 0;

	/* After libpfm4's "PMU::", the first ':' starts the modifiers. */
	colon = strstr(slash ? slash : ev->spec, "::");
	colon = strchr(colon ? colon + 2 : slash ? slash : ev->spec, ':');
	/* A vendor event's libpfm4 attributes (":c=2") stay; hwprof's are rewritten. */
	for (char *t = colon; t && *t == ':';) {
		size_t len = strcspn(t + 1, ":");
		if (!hwprof_mods_token(t + 1, len) && k + len + 1 < sizeof(kept))
			k += (size_t)snprintf(kept + k, sizeof(kept) - k, ":%.*s", (int)len, t + 1);
		t += len + 1;
	}
	if (colon)
		*colon = '\0';
	/* "cpu/.../pp": the modifiers written right after the closing '/' go too, and the
	 * ones in effect are written there again ("cpu/.../upp"). */
	bool after_slash = slash && hwprof_mods_token(slash + 1, strlen(slash + 1));
	if (after_slash)
		slash[1] = '\0';
	after_slash = after_slash || (slash && !slash[1] && !kept[0]);
	n = strlen(ev->spec);
	snprintf(ev->spec + n, sizeof(ev->spec) - n, "%s", kept);
	n = strlen(ev->spec);
	snprintf(ev->spec + n, sizeof(ev->spec) - n, "%s%s%s%s%.*s%s", after_slash ? "" : ":",
		 m->any_priv && m->u ? "u" : "", m->any_priv && m->k ? "k" : "",
		 m->any_priv && m->h ? "h" : "", m->p, "ppp", m->P ? "P" : "");
	n = strlen(ev->spec);
	if (ev->spec[n - 1] == ':')
		ev->spec[n - 1] = '\0';
}

/* Sets EV's exclude_* and precise_ip from its own modifiers and its group's; returns the
 * modifiers in effect. */
static struct mods apply_mods(struct hwprof_event *ev, const struct mods *own,
			      const struct mods *grp)
{
	struct mods m = *own;
	if (!m.any_priv && grp->any_priv) {
		m.u = grp->u;
		m.k = grp->k;
		m.h = grp->h;
		m.any_priv = true;
	}
	if (grp->p > m.p)
		m.p = grp->p;
	m.P = m.P || grp->P;
	if (m.any_priv) {
		ev->exclude_user = !m.u;
		ev->exclude_kernel = !m.k;
		ev->exclude_hv = !m.h;
	} else if (ev->kind == HWPROF_EV_TRACEPOINT) {
		/* A tracepoint fires in the kernel, where exclude_kernel would drop every hit
		 * (the kernel tests the interrupted mode): it counts whichever process hit it. */
		ev->exclude_user = ev->exclude_kernel = ev->exclude_hv = false;
	} else if (ev->kind == HWPROF_EV_PMU && !pmu_is_core(ev->pmu)) {
		/* Uncore, free-running and IBS PMUs cannot tell user from kernel: the kernel
		 * refuses any exclude_* bit for them (EINVAL), so they count everything. */
		ev->exclude_user = ev->exclude_kernel = ev->exclude_hv = false;
	} else {
		/* perf's default: the kernel too when this process may count it, user space
		 * only otherwise, and then spelled "name:u" wherever it is named, as perf
		 * does: a count of user space alone must not read as the whole. */
		ev->exclude_user = false;
		ev->exclude_kernel = ev->exclude_hv = !hwprof_may_profile_kernel();
		if (ev->exclude_kernel) {
			m.u = m.any_priv = true;
			m.k = m.h = false;
			spec_set_mods(ev, &m);
		}
	}
	ev->precise_ip = m.p;
	ev->precise_max = m.P;
	return m;
}

/* ---- the list grammar --------------------------------------------------------------------- */

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.';
}

static void skip_ws(struct parser *p)
{
	while (isspace((unsigned char)p->s[p->pos]))
		p->pos++;
}

/* Room for one more event at the end of P's list, zeroed, of GROUP; NULL after fail()
 * (-ENOMEM). The caller counts it in (p->out->n++) once it is whole. */
static struct hwprof_event *new_event(struct parser *p, int group, bool leader)
{
	struct hwprof_event *ev;

	if (p->out->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 8;
		struct hwprof_event *v = realloc(p->out->ev, cap * sizeof(*v));
		if (!v) {
			fail(p, -ENOMEM, "out of memory");
			return NULL;
		}
		p->out->ev = v;
		p->cap = cap;
	}
	ev = &p->out->ev[p->out->n];
	memset(ev, 0, sizeof(*ev));
	ev->scale = 1.0;
	ev->precise_limit = 3;
	ev->group = group;
	ev->leader = leader;
	return ev;
}

/* The characters of a tracepoint's event name after "SYS:", and of a pattern of them. */
static const char tp_chars[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.*?";

/* Whether T, the text after "NAME:", names a tracepoint event rather than modifiers: a
 * word with a letter no modifier has ("sched:sched_switch", not "cycles:upp"). */
static bool tracepoint_follows(const char *t)
{
	size_t n = strspn(t, tp_chars);

	for (size_t i = 0; i < n; i++)
		if (!strchr("ukhpP", t[i]))
			return true;
	return false;
}

/* Whether the N bytes at NAME are a generic, software, cache or raw event's name: "cycles:q"
 * is a bad modifier, not a tracepoint of a system "cycles". */
static bool generic_name(const char *name, size_t n)
{
	char buf[128];
	uint64_t c;

	snprintf(buf, sizeof(buf), "%.*s", (int)n, name);
	return lookup(hw_events, sizeof(hw_events) / sizeof(*hw_events), buf, &c) ||
	       lookup(sw_events, sizeof(sw_events) / sizeof(*sw_events), buf, &c) ||
	       parse_cache(buf, &c) || raw_name(buf, n);
}

/* Whether "SYS:EVENT" (SYS the N bytes at SYS) is meant as a tracepoint: tracefs has the
 * system; or else EVENT looks like a tracepoint's name (a '_' or a pattern: "sched_switch",
 * "sys_enter_*") and libpfm4 does not take "SYS:EVENT" for its own EVENT:UMASK spelling
 * ("INST_RETIRED:ANY_P"). So "cyclez:q" stays an unknown event and "nosys:foo_bar" is an
 * unknown tracepoint. */
static bool tracepoint_system(const char *sys, size_t n, const char *event)
{
	const char *root = hwprof_tracefs_root();
	size_t len = strspn(event, tp_chars);
	char path[PATH_MAX], name[256], msg[256];
	struct vendor_event v;
	struct stat st;
	int r;

	if (root) {
		snprintf(path, sizeof(path), "%s/events/%.*s", root, (int)n, sys);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return true;
	}
	if (!memchr(event, '_', len) && !memchr(event, '*', len) && !memchr(event, '?', len))
		return false;
	/* libpfm4 knows the event SYS when it encodes it, or refuses only its umask. */
	snprintf(name, sizeof(name), "%.*s", (int)n, sys);
	r = vendor_encode(name, "", &v, msg, sizeof(msg));
	return r != 0 && r != -EINVAL;
}

/* Appends tracepoint NAME ("sys:event") of GROUP with modifiers text MODS (may be "") to P's
 * list. Returns 0, or a fail() code naming what tracefs said. */
static int add_tracepoint(struct parser *p, const char *name, const char *mods, int group,
			  bool leader)
{
	char sys[128], best[128];
	const char *event = strchr(name, ':') + 1;
	struct hwprof_event *ev;
	uint64_t id;
	int r;

	snprintf(sys, sizeof(sys), "%.*s", (int)(event - 1 - name), name);
	r = hwprof_tracefs_event_id(sys, event, &id);
	if (r == -ENODEV)
		return fail(p, -EINVAL,
			    "'%s': tracefs is not mounted (as root: mount -t tracefs nodev "
			    "/sys/kernel/tracing)",
			    name);
	if (r == -EACCES)
		return fail(p, -EACCES,
			    "'%s': %s/events may be read by root only (run as root, or let "
			    "your group read tracefs; see docs/events.md)",
			    name, hwprof_tracefs_root());
	if (r < 0) {
		char **names;
		size_t n;

		best[0] = '\0';
		if (hwprof_tracefs_events(NULL, &names, &n) == 0) {
			suggest_from(name, names, n, best, sizeof(best));
			hwprof_tracefs_names_free(names, n);
		}
		if (*best)
			return fail_see(p, HWPROF_SEE_EVENTS, -EINVAL,
					"unknown tracepoint '%s' (did you mean '%s'?)", name, best);
		return fail_see(p, HWPROF_SEE_EVENTS, -EINVAL, "unknown tracepoint '%s'", name);
	}
	ev = new_event(p, group, leader);
	if (!ev)
		return -ENOMEM;
	ev->kind = HWPROF_EV_TRACEPOINT;
	ev->type = PERF_TYPE_TRACEPOINT;
	ev->config = id;
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	snprintf(ev->spec, sizeof(ev->spec), "%s%s%s", name, *mods ? ":" : "", mods);
	p->out->n++;
	return 0;
}

/* "SYS:EVENT[:MODS]" at START (the system's name ends at SYS_END, where ':' is): one
 * tracepoint, or every one that a pattern ("syscalls:sys_enter_*") matches, each a group of
 * its own (outside braces only). *OWN gets the modifiers. */
static int parse_tracepoint(struct parser *p, size_t start, size_t sys_end, int group, bool leader,
			    struct mods *own)
{
	const char *s = p->s;
	size_t ev_start = sys_end + 1, ev_end = ev_start + strspn(s + ev_start, tp_chars);
	size_t mods_start = ev_end, mods_end = ev_end;
	char name[256], mods[16];
	int r;

	if (ev_end - start >= 128)
		return fail(p, -EINVAL, "tracepoint too long at offset %zu ('%.32s...')", start,
			    s + start);
	snprintf(name, sizeof(name), "%.*s", (int)(ev_end - start), s + start);
	p->pos = ev_end;
	if (s[p->pos] == ':') {
		mods_start = ++p->pos;
		while (isalnum((unsigned char)s[p->pos]))
			p->pos++;
		mods_end = p->pos;
		if (mods_end == mods_start || mods_end - mods_start >= sizeof(mods))
			return fail(p, -EINVAL, "bad modifier after '%s' (modifiers: u k h)", name);
	}
	snprintf(mods, sizeof(mods), "%.*s", (int)(mods_end - mods_start), s + mods_start);
	memset(own, 0, sizeof(*own));
	r = parse_mods(p, mods, strlen(mods), name, own);
	if (r < 0)
		return r;
	if (!strpbrk(name, "*?"))
		return add_tracepoint(p, name, mods, group, leader);
	if (p->in_group)
		return fail(p, -EINVAL,
			    "'%s': a tracepoint pattern cannot be in a group (name its events)",
			    name);

	char **names;
	size_t n;

	r = hwprof_tracefs_events(name, &names, &n);
	if (r == -ENOMEM)
		return fail(p, r, "out of memory");
	if (r == -EACCES)
		return fail(p, -EACCES,
			    "'%s': %s/events may be read by root only (run as root, or let "
			    "your group read tracefs; see docs/events.md)",
			    name, hwprof_tracefs_root());
	if (r < 0)
		return fail(p, -EINVAL,
			    "'%s': tracefs is not mounted (as root: mount -t tracefs nodev "
			    "/sys/kernel/tracing)",
			    name);
	if (!n)
		return fail_see(p, HWPROF_SEE_EVENTS, -EINVAL, "no tracepoint matches '%s'", name);
	for (size_t i = 0; i < n && r == 0; i++)
		r = add_tracepoint(p, names[i], mods, group, leader);
	hwprof_tracefs_names_free(names, n);
	return r;
}

/* The modifier text of a possible vendor event at S + START (after its first ':'):
 * colon-separated tokens, libpfm4's attributes ("c=1", "e", "ldlat=32") into VATTRS joined
 * by ':', hwprof's ("u", "pp") into VMODS run together. Returns where the text ends. */
static size_t vendor_mods(const char *s, size_t start, char *vattrs, size_t alen, char *vmods,
			  size_t mlen)
{
	size_t q = start, at = 0, mt = 0;

	vattrs[0] = vmods[0] = '\0';
	for (;;) {
		size_t t = q;
		while (isalnum((unsigned char)s[q]) || s[q] == '=' || s[q] == '_' || s[q] == '.')
			q++;
		if (hwprof_mods_token(s + t, q - t)) {
			if (mt + (q - t) < mlen)
				mt += (size_t)snprintf(vmods + mt, mlen - mt, "%.*s", (int)(q - t),
						       s + t);
		} else if (q > t && at < alen) {
			at += (size_t)snprintf(vattrs + at, alen - at, "%s%.*s", at ? ":" : "",
					       (int)(q - t), s + t);
		}
		if (s[q] != ':' || !(isalnum((unsigned char)s[q + 1]) || s[q + 1] == '_'))
			return q;
		q++;
	}
}

/* Where the parts of one event's text are in the spec: its name from START to NAME_END; the
 * terms of "PMU/terms/" (TERMS, TERMS_LEN bytes; NULL for a bare name); the text before the
 * modifiers to BODY_END; hwprof's modifiers from MODS_START to MODS_END; with libpfm4's
 * attributes to EXT_END, split into VATTRS and VMODS (vendor_mods()). */
struct event_text {
	size_t start, name_end, body_end, mods_start, mods_end, ext_end;
	const char *terms;
	size_t terms_len;
	char vattrs[128], vmods[32];
};

/* The event's name at E->start, to E->name_end (P's position). */
static int scan_name(struct parser *p, struct event_text *e)
{
	const char *s = p->s;
	size_t start = e->start;

	/* libpfm4's "PMU::EVENT" keeps its "::" in the name. */
	while (name_char(s[p->pos]) || (p->pos > start && s[p->pos] == ':' &&
					s[p->pos + 1] == ':' && name_char(s[p->pos + 2])))
		p->pos += s[p->pos] == ':' ? 2 : 1;
	e->name_end = p->pos;
	if (e->name_end == start) {
		if (!s[p->pos])
			return fail(p, -EINVAL, "missing event at the end of '%s'", s);
		return fail(p, -EINVAL,
			    "unexpected '%c' at offset %zu of '%s' (expected an event "
			    "name)",
			    s[p->pos], p->pos, s);
	}
	return 0;
}

/* Whether the name E scanned is a tracepoint's system, "SYS:EVENT". */
static bool names_tracepoint(const struct parser *p, const struct event_text *e)
{
	const char *s = p->s, *after = s + e->name_end;
	size_t n = e->name_end - e->start;

	return *after == ':' && tracepoint_follows(after + 1) && !generic_name(s + e->start, n) &&
	       tracepoint_system(s + e->start, n, after + 1);
}

/* "PMU/terms/": the PMU's name into EV->pmu, the terms into E, P's position after the closing
 * '/'. Nothing for a bare name. */
static int scan_terms(struct parser *p, struct hwprof_event *ev, struct event_text *e)
{
	const char *s = p->s;
	size_t start = e->start;

	if (s[p->pos] != '/')
		return 0;
	if (e->name_end - start >= sizeof(ev->pmu))
		return fail(p, -EINVAL, "PMU name too long at offset %zu ('%.32s...')", start,
			    s + start);
	memcpy(ev->pmu, s + start, e->name_end - start);
	if (ev->pmu[0] == '.' || ev->pmu[0] == '-')
		return fail_see(p, HWPROF_SEE_PMU_EVENTS, -EINVAL, "bad PMU name '%s' in '%s'",
				ev->pmu, s);
	p->pos++;
	e->terms = s + p->pos;
	while (s[p->pos] && s[p->pos] != '/')
		p->pos++;
	if (!s[p->pos])
		return fail(p, -EINVAL, "unterminated '%.*s' (close the terms with '/')",
			    (int)(p->pos - start), s + start);
	e->terms_len = (size_t)(s + p->pos - e->terms);
	p->pos++;
	return 0;
}

/* The modifiers after the name (":upp", or right after "PMU/terms/": "/upp"), and for a bare
 * name libpfm4's attributes among them, into E; P's position after them. */
static int scan_mods(struct parser *p, struct event_text *e)
{
	const char *s = p->s;

	e->body_end = e->mods_start = e->mods_end = e->ext_end = p->pos;
	if (s[p->pos] == ':') {
		p->pos++;
		e->mods_start = p->pos;
		while (isalnum((unsigned char)s[p->pos]))
			p->pos++;
		e->mods_end = e->ext_end = p->pos;
		if (!e->terms)
			e->ext_end = vendor_mods(s, e->mods_start, e->vattrs, sizeof(e->vattrs),
						 e->vmods, sizeof(e->vmods));
		if (e->mods_end == e->mods_start && e->ext_end == e->mods_start)
			return fail(p, -EINVAL,
				    "empty modifier after ':' in '%.*s' (modifiers: u k h "
				    "p pp ppp P)",
				    (int)(p->pos - e->start), s + e->start);
	} else if (e->terms) {
		while (isalnum((unsigned char)s[p->pos]))
			p->pos++;
		e->mods_end = p->pos;
	}
	return 0;
}

/* EV's name (the text before the modifiers) and spec (the text up to P's position) from E. */
static int copy_text(struct parser *p, struct hwprof_event *ev, const struct event_text *e)
{
	const char *s = p->s;
	size_t start = e->start;

	if (e->body_end - start >= sizeof(ev->name) || p->pos - start >= sizeof(ev->spec))
		return fail(p, -EINVAL,
			    "event too long at offset %zu ('%.32s...'; names have up to "
			    "%zu characters)",
			    start, s + start, sizeof(ev->name) - 1);
	memcpy(ev->name, s + start, e->body_end - start);
	memcpy(ev->spec, s + start, p->pos - start);
	return 0;
}

/* The terms of one "PMU/terms/" and the boxes its PMU stands for (pmu_boxes()). */
struct pmu_terms {
	char terms[256];
	char boxes[256][64];
	size_t nboxes;
};

/* "PMU/terms/" resolved into EV, the terms copied into T. A PMU spelled without its box
 * number stands for each of its boxes: their names go into T, and EV is the first. */
static int resolve_terms(struct parser *p, struct hwprof_event *ev, const struct event_text *e,
			 struct pmu_terms *t)
{
	if (e->terms_len >= sizeof(t->terms))
		return fail(p, -EINVAL, "terms too long in '%s'", ev->name);
	memcpy(t->terms, e->terms, e->terms_len);
	t->terms[e->terms_len] = '\0';
	t->nboxes = pmu_boxes(ev->pmu, t->boxes, sizeof(t->boxes) / sizeof(*t->boxes));
	if (t->nboxes && p->in_group)
		return fail(p, -EINVAL,
			    "'%s' stands for %zu PMUs (%s .. %s), which cannot share one "
			    "group (name one box, e.g. '%s/%s/', or leave out the braces)",
			    ev->name, t->nboxes, t->boxes[0], t->boxes[t->nboxes - 1], t->boxes[0],
			    t->terms);
	if (t->nboxes)
		snprintf(ev->pmu, sizeof(ev->pmu), "%s", t->boxes[0]);
	return resolve_pmu(p, ev, t->terms);
}

/* Counts in the vendor event EV: libpfm4's attributes were taken by the encoding; hwprof's
 * modifiers are the rest (E->vmods, into *OWN), and the spec runs to E->ext_end. */
static int add_vendor_event(struct parser *p, struct hwprof_event *ev, const struct event_text *e,
			    struct mods *own)
{
	const char *s = p->s;
	size_t start = e->start;
	int r;

	if (e->ext_end - start >= sizeof(ev->spec))
		return fail(p, -EINVAL, "event too long at offset %zu ('%.32s...')", start,
			    s + start);
	p->pos = e->ext_end;
	memcpy(ev->spec, s + start, e->ext_end - start);
	r = parse_mods(p, e->vmods, strlen(e->vmods), ev->spec, own);
	if (r < 0)
		return r;
	p->out->n++;
	return 0;
}

/* EV's own modifiers (E->mods_start to E->mods_end) into *OWN. */
static int own_mods(struct parser *p, const struct hwprof_event *ev, const struct event_text *e,
		    struct mods *own)
{
	const char *s = p->s;

	if (e->mods_end == e->mods_start && s[e->mods_end - 1] == ':')
		return fail(p, -EINVAL,
			    "empty modifier after ':' in '%.*s' (modifiers: u k h p pp ppp P)",
			    (int)(e->mods_end - e->start), s + e->start);
	return parse_mods(p, s + e->mods_start, e->mods_end - e->mods_start, ev->spec, own);
}

/* The boxes of T after the first, of the event just counted in: the same event, spelled the
 * same, on each box's own PMU type (T's terms resolved again). */
static int add_boxes(struct parser *p, int group, bool leader, const struct pmu_terms *t)
{
	for (size_t i = 1; i < t->nboxes; i++) {
		struct hwprof_event first = p->out->ev[p->out->n - 1], *box;
		int r;

		if (!(box = new_event(p, group, leader)))
			return -ENOMEM;
		*box = first;
		snprintf(box->pmu, sizeof(box->pmu), "%s", t->boxes[i]);
		r = resolve_pmu(p, box, t->terms);
		if (r < 0)
			return r;
		p->out->n++;
	}
	return 0;
}

/* One event at P's position, of GROUP, into P's list (a tracepoint pattern: every one it
 * matches; an uncore PMU without its box number: every box); its own modifiers into *OWN. */
static int parse_event(struct parser *p, int group, bool leader, struct mods *own)
{
	struct event_text e = {.start = p->pos};
	struct pmu_terms t = {.nboxes = 0};
	struct hwprof_event *ev;
	int r = scan_name(p, &e);

	if (r < 0)
		return r;
	if (names_tracepoint(p, &e))
		return parse_tracepoint(p, e.start, e.name_end, group, leader, own);
	ev = new_event(p, group, leader);
	if (!ev)
		return -ENOMEM;
	r = scan_terms(p, ev, &e);
	if (r == 0)
		r = scan_mods(p, &e);
	if (r == 0)
		r = copy_text(p, ev, &e);
	/* The event first: in "cyclez:q" the unknown name is the news, not the modifier. */
	if (r == 0 && e.terms)
		r = resolve_terms(p, ev, &e, &t);
	else if (r == 0)
		r = resolve_named(p, ev, e.vattrs);
	if (r < 0)
		return r;
	memset(own, 0, sizeof(*own));
	if (ev->vendor[0])
		return add_vendor_event(p, ev, &e, own);
	r = own_mods(p, ev, &e, own);
	if (r < 0)
		return r;
	p->out->n++;
	return add_boxes(p, group, leader, &t);
}

static int parse_group(struct parser *p)
{
	const char *s = p->s;
	size_t open = p->pos++;
	size_t first = p->out->n;
	int group = (int)p->out->ngroups;
	struct mods own[64];
	/* Before its events: in "{a,b" the missing '}' is the news, not an unknown 'a'. */
	if (!s[open + 1 + strcspn(s + open + 1, "{}")])
		return fail(p, -EINVAL, "unclosed '{' at offset %zu of '%s' (add '}')", open, s);
	p->in_group = true;
	for (;;) {
		skip_ws(p);
		if (s[p->pos] == '{')
			return fail(p, -EINVAL, "nested '{' in '%s' (groups do not nest)", s);
		if (s[p->pos] == '}' && p->out->n == first)
			return fail(p, -EINVAL, "empty group '{}' in '%s'", s);
		if (p->out->n - first >= sizeof(own) / sizeof(*own))
			return fail(p, -EINVAL, "group at offset %zu has more than %zu events",
				    open, sizeof(own) / sizeof(*own));
		int r = parse_event(p, group, p->out->n == first, &own[p->out->n - first]);
		if (r < 0)
			return r;
		skip_ws(p);
		if (s[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (s[p->pos] == '}')
			break;
		if (!s[p->pos])
			return fail(p, -EINVAL, "unclosed '{' at offset %zu of '%s' (add '}')",
				    open, s);
		return fail(p, -EINVAL, "unexpected '%c' at offset %zu of '%s'", s[p->pos], p->pos,
			    s);
	}
	p->pos++;
	p->in_group = false;
	struct mods grp = {0};
	bool grp_set = false;
	if (s[p->pos] == ':') {
		size_t ms = ++p->pos;
		while (isalnum((unsigned char)s[p->pos]))
			p->pos++;
		char where[64];
		snprintf(where, sizeof(where), "group modifier ':%.*s'", (int)(p->pos - ms),
			 s + ms);
		if (p->pos == ms)
			return fail(p, -EINVAL, "empty modifier after '}:' in '%s'", s);
		int r = parse_mods(p, s + ms, p->pos - ms, where, &grp);
		if (r < 0)
			return r;
		grp_set = true;
	}
	for (size_t i = first; i < p->out->n; i++) {
		struct mods m = apply_mods(&p->out->ev[i], &own[i - first], &grp);
		if (grp_set)
			spec_set_mods(&p->out->ev[i], &m);
	}
	p->out->ngroups++;
	return 0;
}

static int events_parse(const char *spec, struct hwprof_event_list *out, char *err, size_t errlen)
{
	struct parser p = {.s = spec ? spec : "", .out = out, .err = err, .errlen = errlen};
	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	see_set(HWPROF_SEE_NONE);
	skip_ws(&p);
	int r = 0;
	if (!p.s[p.pos]) {
		r = fail_see(&p, HWPROF_SEE_EVENTS, -EINVAL,
			     "empty event list (name an event, e.g. 'cpu-clock')");
		goto out;
	}
	for (;;) {
		skip_ws(&p);
		if (p.s[p.pos] == '{') {
			r = parse_group(&p);
		} else {
			struct mods own, none = {0};
			size_t first = out->n;
			r = parse_event(&p, (int)out->ngroups, true, &own);
			/* One event, or the tracepoints a pattern matched: a group each. */
			for (size_t i = first; r == 0 && i < out->n; i++) {
				out->ev[i].group = (int)out->ngroups++;
				apply_mods(&out->ev[i], &own, &none);
			}
		}
		if (r < 0)
			goto out;
		skip_ws(&p);
		if (!p.s[p.pos])
			break;
		if (p.s[p.pos] == '}') {
			r = fail(&p, -EINVAL, "unmatched '}' at offset %zu of '%s'", p.pos, p.s);
			goto out;
		}
		if (p.s[p.pos] != ',') {
			r = fail(&p, -EINVAL,
				 "unexpected '%c' at offset %zu of '%s' (separate "
				 "events with ',')",
				 p.s[p.pos], p.pos, p.s);
			goto out;
		}
		p.pos++;
		skip_ws(&p);
		if (!p.s[p.pos]) {
			r = fail(&p, -EINVAL, "trailing ',' in '%s' (remove it or add an event)",
				 p.s);
			goto out;
		}
	}
	for (size_t i = 0; i < out->n; i++) {
		const struct hwprof_event *ev = &out->ev[i];
		if (ev->precise_ip > ev->precise_limit || (ev->precise_max && !ev->precise_limit)) {
			r = fail_see(&p, HWPROF_SEE_VENDOR_EVENTS, -EINVAL,
				     "'%s': libpfm4 says this %s event cannot be sampled "
				     "precisely (no PEBS for it): drop the 'p'/'P' modifier, or "
				     "choose an event marked precise",
				     ev->spec, ev->vendor);
			goto out;
		}
	}
out:
	if (r < 0)
		hwprof_events_free(out);
	return r;
}

int hwprof_events_parse(const char *spec, struct hwprof_event_list *out, char *err, size_t errlen)
{
	/* The parser writes its one line into the thread's message (hwprof_strerror_last()),
	 * and ERR gets a copy. */
	return see_finish(events_parse(spec, out, see_msg(), SEE_MSG_MAX), err, errlen);
}

void hwprof_events_free(struct hwprof_event_list *list)
{
	if (!list)
		return;
	free(list->ev);
	list->ev = NULL;
	list->n = list->ngroups = 0;
}

void hwprof_event_to_attr(const struct hwprof_event *ev, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = ev->type;
	attr->config = ev->config;
	attr->config1 = ev->config1;
	attr->config2 = ev->config2;
	attr->exclude_user = ev->exclude_user;
	attr->exclude_kernel = ev->exclude_kernel;
	attr->exclude_hv = ev->exclude_hv;
	attr->precise_ip =
	    ev->precise_max ? (unsigned)hwprof_max_precise() : (unsigned)ev->precise_ip;
}

bool hwprof_event_is_hw(const struct hwprof_event *ev)
{
	return ev->kind != HWPROF_EV_SOFTWARE && ev->kind != HWPROF_EV_TRACEPOINT;
}

unsigned hwprof_event_data(const struct hwprof_event *ev)
{
	if (ev->type == PERF_TYPE_SOFTWARE)
		return ev->config == PERF_COUNT_SW_PAGE_FAULTS ||
			       ev->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
			       ev->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ ||
			       ev->config == PERF_COUNT_SW_ALIGNMENT_FAULTS ||
			       ev->config == PERF_COUNT_SW_EMULATION_FAULTS
			   ? HWPROF_DATA_ADDR
			   : 0;
	/* The PMU's own name for its memory sampling (sysfs events/mem-loads, mem-stores;
	 * AMD's IBS op sampler is a PMU of its own). */
	if (!strcmp(ev->pmu, "ibs_op") || strstr(ev->name, "mem-loads") ||
	    strstr(ev->name, "mem-stores"))
		return HWPROF_DATA_ADDR | HWPROF_DATA_MEM;
	return 0;
}

const char *hwprof_event_unit(const struct hwprof_event *ev)
{
	if (ev->unit[0])
		return ev->unit;
	/* By what the event counts, not how it was spelled ("TASK-CLOCK" parses too). */
	if (ev->type == PERF_TYPE_SOFTWARE &&
	    (ev->config == PERF_COUNT_SW_TASK_CLOCK || ev->config == PERF_COUNT_SW_CPU_CLOCK))
		return "ns";
	return "";
}

int hwprof_max_precise(void)
{
	static const char *const core[] = {"cpu", "cpu_core", "cpu_atom"};
	for (size_t i = 0; i < sizeof(core) / sizeof(*core); i++) {
		int r = pmu_max_precise(core[i]);
		if (r >= 0)
			return r;
	}
	return 3;
}
