/* list.c - `hwprof list`: the events this host can count, found by opening each one. */
#include "builtin.h"
#include "cli.h"
#include "cli_options.h"
#include "format_opts.h"
#include "json.h"
#include "list_vendor.h"
#include "pmu.h"
#include "textfmt.h"
#include "tracefs.h"

#include "hwprof/event.h"
#include "hwprof/sampfile.h"
#include "hwprof/sys.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum list_what {
	LIST_HW = 1 << 0,
	LIST_CACHE = 1 << 1,
	LIST_SW = 1 << 2,
	LIST_PMU = 1 << 3,
	LIST_TP = 1 << 4,     /* tracepoints one by one; the default list counts them only */
	LIST_VENDOR = 1 << 5, /* libpfm4's vendor events one by one; the default counts them */
	LIST_PAPI = 1 << 6,   /* PAPI preset names and the generic events they stand for */
	LIST_ALL = LIST_HW | LIST_CACHE | LIST_SW | LIST_PMU | LIST_PAPI,
};

struct list_options {
	unsigned what;
	const char *tp_pattern;	    /* list tracepoint PATTERN; NULL: all */
	const char *vendor_pattern; /* list vendor PATTERN; NULL: all */
	struct format_opts out;	    /* -f: text or json */
	bool json;		    /* -f json */
	struct hwprof_jw jw;	    /* the JSON being written (json) */
};

enum { OPT_JSON = 256 };

static const struct cli_option options[] = {
    CLI_OPERAND("hw | cache | sw | pmu", "only generic hardware, hardware cache, software "
					 "events, or sysfs PMUs (default: all); several kinds "
					 "at once"),
    CLI_OPERAND("tracepoint [PATTERN]", "the kernel's tracepoints (sys:event, from tracefs), "
					"those matching PATTERN ('sched:*', or a word they "
					"contain)"),
    CLI_OPERAND("papi", "PAPI preset names and the generic events they stand for"),
    CLI_OPERAND("vendor [PATTERN]", "the CPU's own events (libpfm4) with their raw encodings, "
				    "those whose name contains PATTERN ('L3_MISS')"),
    CLI_OPT_GROUP(format_only_table),
    CLI_FLAG(OPT_JSON, "json", NULL), /* the spelling before -f, kept */
    CLI_OPT_HELP,
    CLI_OPT_END,
};

static const struct cli_command command = {
    .usage = "usage: hwprof list [hw|cache|sw|pmu|papi|tracepoint [PATTERN]|vendor "
	     "[PATTERN]]...\n"
	     "                   [-f text|json]\n"
	     "\n"
	     "The events this host can count, each tried with perf_event_open(2): available,\n"
	     "not supported, or no permission. Also the sysfs PMUs with their events and\n"
	     "encodings, the highest precise_ip the core PMU accepts, perf_event_paranoid and\n"
	     "the CPU model.\n"
	     "\n",
    .options = options,
    .formats = CLI_FMT(TEXT) | CLI_FMT(JSON),
    .footer = "\n"
	      "The sysfs root is /sys, or $HWPROF_SYSFS_ROOT. Event spelling: docs/events.md.\n",
};

/* What opening an event told us. */
struct probe {
	int err;	   /* 0 when it opened, else the positive errno */
	const char *state; /* "available", "not supported", "no permission", or "error" */
	const char *mode;  /* how it opened: "task", "task:ukh" or "cpu-wide"; "" if not */
};

static struct probe classify(int r, const char *mode)
{
	struct probe p = {.err = r < 0 ? -r : 0, .mode = r < 0 ? "" : mode};
	switch (p.err) {
	case 0:
		p.state = "available";
		break;
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
	case EINVAL:
		p.state = "not supported";
		break;
	case EACCES:
	case EPERM:
		p.state = "no permission";
		break;
	default:
		p.state = "error";
		break;
	}
	return p;
}

static int try_open(const struct hwprof_event *ev, bool all_levels, pid_t pid, int cpu)
{
	struct perf_event_attr attr;
	hwprof_event_to_attr(ev, &attr);
	attr.disabled = 1;
	if (all_levels)
		attr.exclude_user = attr.exclude_kernel = attr.exclude_hv = 0;
	int fd = hwprof_event_open(&attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC, NULL);
	if (fd >= 0)
		hwprof_sys()->close(fd);
	return fd < 0 ? fd : 0;
}

/* Opens EV counting, disabled, for this process as `hwprof stat` would. A non-core PMU that
 * refuses that may not tell user from kernel (msr): tried again counting every level, then
 * CPU-wide on the first CPU of its cpumask (uncore), as `hwprof stat -a` opens it. */
static struct probe probe_event(const struct hwprof_event *ev)
{
	int r = try_open(ev, false, 0, -1);
	if (r == 0 || !(r == -EINVAL || r == -EOPNOTSUPP) || ev->kind != HWPROF_EV_PMU ||
	    pmu_is_core(ev->pmu))
		return classify(r, "task");
	if (try_open(ev, true, 0, -1) == 0)
		return classify(0, "task:ukh");
	char buf[64];
	int cpu = 0;
	if (pmu_read(ev->pmu, "cpumask", buf, sizeof(buf)) == 0)
		cpu = atoi(buf);
	int r2 = try_open(ev, true, -1, cpu);
	return r2 == 0 || r2 == -EACCES || r2 == -EPERM ? classify(r2, "cpu-wide")
							: classify(r, "");
}

static struct probe probe_spec(const char *spec, struct hwprof_event *out)
{
	struct hwprof_event_list l;
	char err[256];
	int r = hwprof_events_parse(spec, &l, err, sizeof(err));
	if (r < 0 || l.n != 1) {
		hwprof_events_free(&l);
		return (struct probe){.err = r < 0 ? -r : EINVAL, .state = "error"};
	}
	*out = l.ev[0];
	hwprof_events_free(&l);
	return probe_event(out);
}

/* The highest precise_ip the core PMU accepts for sampling cycles: -1 without a PMU. */
static int probe_max_precise(void)
{
	if (!hwprof_host_has_pmu())
		return -1;
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.sample_period = 1000003;
	attr.sample_type = PERF_SAMPLE_IP;
	attr.disabled = 1;
	attr.exclude_kernel = attr.exclude_hv = 1;
	attr.precise_ip = 3;
	int level = -1;
	int fd = hwprof_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC, &level);
	if (fd < 0)
		return -1;
	hwprof_sys()->close(fd);
	return level;
}

/* ---- output ----------------------------------------------------------------------------- */

static const char *kind_name(enum hwprof_event_kind k)
{
	switch (k) {
	case HWPROF_EV_HARDWARE:
		return "hardware";
	case HWPROF_EV_CACHE:
		return "cache";
	case HWPROF_EV_SOFTWARE:
		return "software";
	case HWPROF_EV_RAW:
		return "raw";
	case HWPROF_EV_PMU:
		return "pmu";
	case HWPROF_EV_TRACEPOINT:
		return "tracepoint";
	}
	return "?";
}

static const char *state_text(const struct probe *p, char *buf, size_t len)
{
	if (!strcmp(p->state, "error"))
		hwprof_msgf(buf, len, p->err, "error: %m");
	else
		snprintf(buf, len, "%s", p->state);
	return buf;
}

/* V as KEY, or null when not VALID. */
static void json_int_or_null(struct hwprof_jw *j, const char *key, long long v, bool valid)
{
	if (valid)
		hwprof_jw_int(j, key, v);
	else
		hwprof_jw_null(j, key);
}

static void print_host(struct list_options *o, const struct hwprof_file_header *h, int paranoid,
		       int max_precise)
{
	bool root = geteuid() == 0;
	if (o->json) {
		struct hwprof_jw *j = &o->jw;

		hwprof_jw_str(j, "cpu", h->cpu_model);
		hwprof_jw_str(j, "kernel", h->kernel);
		hwprof_jw_uint(j, "ncpus", h->ncpus);
		hwprof_jw_object(j, "paranoid");
		json_int_or_null(j, "level", paranoid, paranoid != INT_MIN);
		hwprof_jw_str(j, "allows", hwprof_paranoid_allows(paranoid));
		hwprof_jw_bool(j, "root", root);
		hwprof_jw_end(j);
		hwprof_jw_bool(j, "hardware_pmu", max_precise >= 0);
		json_int_or_null(j, "max_precise", max_precise, max_precise >= 0);
		hwprof_jw_str(j, "sysfs_root", hwprof_sysfs_root());
		return;
	}
	printf("CPU:                  %s (%u CPUs), Linux %s\n", h->cpu_model, h->ncpus, h->kernel);
	if (paranoid == INT_MIN)
		printf("perf_event_paranoid:  unknown (cannot read it)\n");
	else
		printf("perf_event_paranoid:  %d: allows %s%s\n", paranoid,
		       hwprof_paranoid_allows(paranoid),
		       root ? " (you are root: not limited by it)" : "");
	if (max_precise >= 0)
		printf("highest precise_ip:   %d (cycles accepted it)\n", max_precise);
	else
		printf(
		    "highest precise_ip:   no hardware PMU (cycles does not open; software events "
		    "only)\n");
}

static void print_named(struct list_options *o)
{
	char name[128], st[128];
	enum hwprof_event_kind kind, last = (enum hwprof_event_kind) - 1;
	for (size_t i = 0; hwprof_event_name_at(i, name, sizeof(name), &kind) == 0; i++) {
		unsigned bit = kind == HWPROF_EV_HARDWARE ? LIST_HW
			       : kind == HWPROF_EV_CACHE  ? LIST_CACHE
							  : LIST_SW;
		if (!(o->what & bit))
			continue;
		struct hwprof_event ev;
		struct probe p = probe_spec(name, &ev);
		const char *alias[4];
		size_t nalias = hwprof_event_aliases(name, alias, 4);
		char shown[160];
		size_t at;

		if (o->json) {
			struct hwprof_jw *j = &o->jw;
			char config[32];

			snprintf(config, sizeof(config), "0x%llx", (unsigned long long)ev.config);
			hwprof_jw_object(j, NULL);
			hwprof_jw_str(j, "name", name);
			hwprof_jw_str(j, "kind", kind_name(kind));
			hwprof_jw_uint(j, "type", ev.type);
			hwprof_jw_str(j, "config", config);
			hwprof_jw_str(j, "availability", p.state);
			hwprof_jw_int(j, "errno", p.err);
			hwprof_jw_array(j, "aliases");
			for (size_t k = 0; k < nalias; k++)
				hwprof_jw_str(j, NULL, alias[k]);
			hwprof_jw_end(j);
			hwprof_jw_end(j);
			continue;
		}
		if (kind != last) {
			printf("\n%s events:\n", kind == HWPROF_EV_HARDWARE ? "Generic hardware"
						 : kind == HWPROF_EV_CACHE  ? "Hardware cache"
									    : "Software");
			last = kind;
		}
		/* perf's way of naming the other spellings: "context-switches OR cs". */
		at = (size_t)snprintf(shown, sizeof(shown), "%s", name);
		for (size_t k = 0; k < nalias && at < sizeof(shown); k++)
			at += (size_t)snprintf(shown + at, sizeof(shown) - at, " OR %s", alias[k]);
		printf("  %-32s %-14s type %u config 0x%llx\n", shown,
		       state_text(&p, st, sizeof(st)), ev.type, (unsigned long long)ev.config);
	}
}

/* What `list pmu` shows of one PMU, read once for both outputs. */
struct pmu_facts {
	const char *name;
	uint32_t type;
	bool has_type, core, has_cpus;
	int max_precise; /* caps/max_precise, or -1 */
	char cpus[256];
	char **fields, **events; /* its format/ and events/ names */
	size_t nfields, nevents;
};

/* One event of a PMU's events/ directory: its spec "PMU/NAME/" (SPEC, 256 bytes), its
 * encoding (ENC, 256 bytes), its parsed event *EV and how it opens. */
struct pmu_event_facts {
	char spec[256], enc[256];
	struct hwprof_event ev;
	struct probe probe;
};

static void pmu_event_facts(const char *pmu, const char *event, struct pmu_event_facts *e)
{
	char rel[300];

	snprintf(e->spec, sizeof(e->spec), "%s/%s/", pmu, event);
	snprintf(rel, sizeof(rel), "events/%s", event);
	e->enc[0] = '\0';
	pmu_read(pmu, rel, e->enc, sizeof(e->enc));
	e->ev = (struct hwprof_event){.scale = 1.0};
	e->probe = probe_spec(e->spec, &e->ev);
}

/* A format field's bits as text ("config:0-7"), "?" when unreadable, into D (LEN bytes). */
static void field_bits(const char *pmu, const char *field, char *d, size_t len)
{
	struct pmu_format f;

	snprintf(d, len, "?");
	if (pmu_format_read(pmu, field, &f) == 0)
		pmu_format_describe(&f, d, len);
}

static void print_pmu_json(struct hwprof_jw *j, const struct pmu_facts *f)
{
	hwprof_jw_object(j, NULL);
	hwprof_jw_str(j, "name", f->name);
	json_int_or_null(j, "type", f->type, f->has_type);
	hwprof_jw_bool(j, "core", f->core);
	hwprof_jw_str(j, "cpus", f->has_cpus ? f->cpus : NULL);
	json_int_or_null(j, "max_precise", f->max_precise, f->max_precise >= 0);
	hwprof_jw_array(j, "formats");
	for (size_t i = 0; i < f->nfields; i++) {
		char d[128];

		field_bits(f->name, f->fields[i], d, sizeof(d));
		hwprof_jw_object(j, NULL);
		hwprof_jw_str(j, "name", f->fields[i]);
		hwprof_jw_str(j, "bits", d);
		hwprof_jw_end(j);
	}
	hwprof_jw_end(j);
	hwprof_jw_array(j, "events");
	for (size_t i = 0; i < f->nevents; i++) {
		struct pmu_event_facts e;
		char config[32], config1[32];

		pmu_event_facts(f->name, f->events[i], &e);
		snprintf(config, sizeof(config), "0x%llx", (unsigned long long)e.ev.config);
		snprintf(config1, sizeof(config1), "0x%llx", (unsigned long long)e.ev.config1);
		hwprof_jw_object(j, NULL);
		hwprof_jw_str(j, "name", e.spec);
		hwprof_jw_str(j, "encoding", e.enc);
		hwprof_jw_str(j, "config", config);
		hwprof_jw_str(j, "config1", config1);
		hwprof_jw_double(j, "scale", e.ev.scale, 17);
		hwprof_jw_str(j, "unit", e.ev.unit);
		hwprof_jw_str(j, "availability", e.probe.state);
		hwprof_jw_str(j, "mode", e.probe.mode);
		hwprof_jw_int(j, "errno", e.probe.err);
		hwprof_jw_end(j);
	}
	hwprof_jw_end(j);
	hwprof_jw_end(j);
}

static void print_pmu_text(const struct pmu_facts *f)
{
	printf("  %s", f->name);
	if (f->has_type)
		printf(" (type %u%s)", f->type, f->core ? ", core" : "");
	if (f->has_cpus)
		printf(", CPUs %s", f->cpus);
	if (f->max_precise >= 0)
		printf(", caps/max_precise %d", f->max_precise);
	putchar('\n');
	if (f->nfields)
		printf("    fields:");
	for (size_t i = 0; i < f->nfields; i++) {
		char d[128];

		field_bits(f->name, f->fields[i], d, sizeof(d));
		printf(" %s=%s", f->fields[i], d);
	}
	if (f->nfields)
		putchar('\n');
	for (size_t i = 0; i < f->nevents; i++) {
		struct pmu_event_facts e;
		char st[128];

		pmu_event_facts(f->name, f->events[i], &e);
		if (!strcmp(e.probe.mode, "task:ukh"))
			snprintf(st, sizeof(st), "available with :ukh");
		else if (!strcmp(e.probe.mode, "cpu-wide"))
			snprintf(st, sizeof(st), "%s CPU-wide (-a)", e.probe.state);
		else
			state_text(&e.probe, st, sizeof(st));
		printf("    %-38s %-22s %s", e.spec, st, e.enc);
		if (e.ev.scale != 1.0 || e.ev.unit[0])
			printf(" (scale %g %s)", e.ev.scale, e.ev.unit);
		putchar('\n');
	}
}

/* One PMU: its type, format fields and events with their encodings. */
static void print_pmu(struct list_options *o, const char *pmu)
{
	struct pmu_facts f = {.name = pmu};

	f.has_type = pmu_type(pmu, &f.type) == 0;
	f.core = pmu_is_core(pmu);
	f.has_cpus = pmu_cpus(pmu, f.cpus, sizeof(f.cpus)) == 0;
	f.max_precise = pmu_max_precise(pmu);
	pmu_names(pmu, "format", &f.fields, &f.nfields);
	pmu_names(pmu, "events", &f.events, &f.nevents);
	if (o->json)
		print_pmu_json(&o->jw, &f);
	else
		print_pmu_text(&f);
	pmu_names_free(f.fields, f.nfields);
	pmu_names_free(f.events, f.nevents);
}

/* Tracepoints: with LIST_TP each one (matching the pattern) and its id, else one line that
 * counts them. Returns 0, or -1 after reporting (tracefs unreadable when asked for). */
static int print_tracepoints(struct list_options *o)
{
	char pat[256], **names;
	size_t n;
	const char *pattern = NULL;
	int r;

	if (o->tp_pattern && strpbrk(o->tp_pattern, "*?["))
		pattern = o->tp_pattern;
	else if (o->tp_pattern)
		pattern = (snprintf(pat, sizeof(pat), "*%s*", o->tp_pattern), pat);
	r = hwprof_tracefs_events(pattern, &names, &n);
	if (r == -ENOMEM)
		die("out of memory");
	if (r < 0 && !(o->what & LIST_TP))
		return 0; /* the default list: nothing to count, nothing asked */
	if (r < 0)
		return error("tracepoints: %s",
			     r == -EACCES
				 ? "tracefs may be read by root only (run as root)"
				 : "tracefs is not mounted (as root: mount -t tracefs nodev "
				   "/sys/kernel/tracing)");
	if (!(o->what & LIST_TP)) {
		if (!o->json)
			printf("\ntracepoints: %zu in %s/events, spelled sys:event (hwprof list "
			       "tracepoint [PATTERN])\n",
			       n, hwprof_tracefs_root());
		hwprof_tracefs_names_free(names, n);
		return 0;
	}
	if (o->json)
		hwprof_jw_array(&o->jw, "tracepoints");
	else
		printf("\ntracepoints (%s/events), spelled sys:event:\n", hwprof_tracefs_root());
	if (!o->json && !n)
		printf("  none%s%s\n", o->tp_pattern ? " matching " : "",
		       o->tp_pattern ? o->tp_pattern : "");
	for (size_t i = 0; i < n; i++) {
		const char *colon = strchr(names[i], ':');
		char sys[256];
		uint64_t id = 0;

		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - names[i]), names[i]);
		hwprof_tracefs_event_id(sys, colon + 1, &id);
		if (o->json) {
			hwprof_jw_object(&o->jw, NULL);
			hwprof_jw_str(&o->jw, "name", names[i]);
			hwprof_jw_int(&o->jw, "id", (long long)id);
			hwprof_jw_end(&o->jw);
		} else {
			printf("  %-50s id %llu\n", names[i], (unsigned long long)id);
		}
	}
	if (o->json)
		hwprof_jw_end(&o->jw);
	hwprof_tracefs_names_free(names, n);
	return 0;
}

/* PAPI's preset names hwprof takes in -e: the generic event each stands for, or why one is
 * refused. */
static void print_papi(struct list_options *o)
{
	const char *name, *event, *why;

	if (o->json)
		hwprof_jw_array(&o->jw, "papi");
	else
		printf("\nPAPI presets, accepted in -e and HWPROF_EVENTS as the generic event:\n");
	for (size_t i = 0; hwprof_papi_preset_at(i, &name, &event, &why) == 0; i++) {
		if (o->json) {
			hwprof_jw_object(&o->jw, NULL);
			hwprof_jw_str(&o->jw, "name", name);
			hwprof_jw_str(&o->jw, "event", event);
			hwprof_jw_str(&o->jw, "refused", why);
			hwprof_jw_end(&o->jw);
		} else if (event) {
			printf("  %-14s = %s\n", name, event);
		} else {
			printf("  %-14s refused: %s\n", name, why);
		}
	}
	if (o->json)
		hwprof_jw_end(&o->jw);
}

static int print_pmus(struct list_options *o)
{
	char **pmus;
	size_t n;
	int r = pmu_list(&pmus, &n);
	if (r < 0)
		return error_errno(r,
				   "%s/bus/event_source/devices: %m (set HWPROF_SYSFS_ROOT to a "
				   "sysfs tree)",
				   hwprof_sysfs_root());
	if (!o->json)
		printf("\nsysfs PMUs (%s/bus/event_source/devices), spelled pmu/event=..,umask=../ "
		       "or pmu/alias/:\n",
		       hwprof_sysfs_root());
	if (!o->json && n == 0)
		printf("  none\n");
	for (size_t i = 0; i < n; i++)
		print_pmu(o, pmus[i]);
	pmu_names_free(pmus, n);
	return 0;
}

/* The kinds of event the words ARGV[FIRST..ARGC) name, into O's what (and its tracepoint
 * and vendor patterns, the word after "tracepoint" or "vendor"); dies with a usage error on
 * a word that names none. */
static void parse_kinds(struct list_options *o, int first, int argc, char **argv)
{
	static const struct {
		const char *word;
		unsigned what;
	} words[] = {{"hw", LIST_HW},	      {"cache", LIST_CACHE},   {"sw", LIST_SW},
		     {"pmu", LIST_PMU},	      {"tracepoint", LIST_TP}, {"tp", LIST_TP},
		     {"vendor", LIST_VENDOR}, {"papi", LIST_PAPI}};

	o->what = 0;
	for (int a = first; a < argc; a++) {
		unsigned w = 0;

		for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
			if (!strcmp(argv[a], words[i].word))
				w = words[i].what;
		if (!w && (o->what & LIST_TP) && !o->tp_pattern &&
		    (!strcmp(argv[a - 1], "tracepoint") || !strcmp(argv[a - 1], "tp"))) {
			o->tp_pattern = argv[a];
			continue;
		}
		if (!w && (o->what & LIST_VENDOR) && !o->vendor_pattern &&
		    !strcmp(argv[a - 1], "vendor")) {
			o->vendor_pattern = argv[a];
			continue;
		}
		if (!w)
			die_usage("'%s': not a kind of event (hw, cache, sw, pmu, papi, "
				  "tracepoint or vendor)",
				  argv[a]);
		o->what |= w;
	}
}

/* The list's head: with JSON the object's opening, then the host's facts. */
static void print_head(struct list_options *o)
{
	struct hwprof_file_header h;

	memset(&h, 0, sizeof(h));
	if (hwprof_header_init(&h) < 0)
		snprintf(h.cpu_model, sizeof(h.cpu_model), "unknown");
	if (o->json) {
		hwprof_jw_init(&o->jw, stdout, true);
		hwprof_jw_object(&o->jw, NULL);
		hwprof_jw_version(&o->jw);
	}
	print_host(o, &h, hwprof_paranoid(), probe_max_precise());
	hwprof_header_release(&h);
}

int cmd_list(int argc, char **argv)
{
	struct list_options o = {.what = LIST_ALL, .out = FORMAT_OPTS_INIT};
	int c, r = 0;

	while ((c = cli_next_option(&command, argc, argv)) != -1) {
		if (format_opts_parse(&o.out, &command, c))
			continue;
		if (c == OPT_JSON) { /* the spelling before -f, kept */
			o.out.format = CLI_FORMAT_JSON;
			o.out.format_given = true;
		}
	}
	o.json = o.out.format == CLI_FORMAT_JSON;
	if (optind < argc)
		parse_kinds(&o, optind, argc, argv);
	print_head(&o);
	if (o.json)
		hwprof_jw_array(&o.jw, "events");
	print_named(&o);
	if (o.json) {
		hwprof_jw_end(&o.jw);
		hwprof_jw_array(&o.jw, "pmus");
	}
	if (o.what & LIST_PMU)
		r = print_pmus(&o);
	if (o.json)
		hwprof_jw_end(&o.jw);
	if (o.what & LIST_PAPI)
		print_papi(&o);
	if (r == 0 && ((o.what & LIST_TP) || o.what == LIST_ALL))
		r = print_tracepoints(&o);
	if (r == 0 && ((o.what & LIST_VENDOR) || o.what == LIST_ALL))
		list_vendor(o.json ? &o.jw : NULL, o.vendor_pattern, !(o.what & LIST_VENDOR));
	if (o.json) {
		hwprof_jw_end(&o.jw);
		putchar('\n');
	}
	if (fflush(stdout) != 0)
		return error_status(EXIT_FATAL, "writing the list: %m");
	return r < 0 ? EXIT_FATAL : EXIT_OK;
}
