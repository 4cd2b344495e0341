/* test_events.c - the event-spec parser, sysfs PMUs (fixture trees written here), the
 * precise_ip step-down through the fake kernel, errno advice. */
#include "fake_kernel.h"
#include "pmu.h"
#include "task.h"

#include "hwprof/event.h"
#include "hwprof/hwprof.h"
#include "hwprof/sys.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- fixture trees ----------------------------------------------------------------------- */

static char root[PATH_MAX];

/* Writes TEXT to ROOT/bus/event_source/devices/REL, creating directories. */
static void put(const char *rel, const char *text)
{
	char path[2 * PATH_MAX];
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s", root, rel);
	for (char *p = path + strlen(root) + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	}
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "fixture %s", path);
	fprintf(f, "%s\n", text);
	fclose(f);
}

/* A fresh empty sysfs tree (once per test process: criterion runs the suite's init and then
 * the test's). */
/* A fake /proc under ROOT (fake_proc_write()) with perf_event_paranoid LEVEL and effective
 * capabilities CAPEFF; HWPROF_PROC_ROOT points at it. */
static void fake_proc(int level, unsigned long long capeff)
{
	char dir[PATH_MAX + 64];

	snprintf(dir, sizeof(dir), "%s/proc", root);
	cr_assert_eq(fake_proc_write(dir, level, capeff), 0);
	setenv("HWPROF_PROC_ROOT", dir, 1);
}

static void new_root(void)
{
	if (root[0])
		return;
	snprintf(root, sizeof(root), "/tmp/hwprof-events-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	setenv("HWPROF_SYSFS_ROOT", root, 1);
	put("software/type", "1");
	/* An unprivileged process at perf_event_paranoid 2 (what stock kernels give a user):
	 * events without a privilege modifier count user space only. */
	fake_proc(2, 0);
}

static void intel_tree(void)
{
	new_root();
	put("cpu/type", "4");
	put("cpu/format/event", "config:0-7");
	put("cpu/format/umask", "config:8-15");
	put("cpu/format/edge", "config:18");
	put("cpu/format/pc", "config:19");
	put("cpu/format/any", "config:21");
	put("cpu/format/inv", "config:23");
	put("cpu/format/cmask", "config:24-31");
	put("cpu/format/ldlat", "config1:0-15");
	put("cpu/format/frontend", "config2:0-23");
	put("cpu/events/cpu-cycles", "event=0x3c");
	put("cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3");
	put("cpu/events/topdown-total-slots", "event=0x00,umask=0x4");
	put("cpu/caps/max_precise", "3");
	put("uncore_imc/type", "18");
	put("uncore_imc/cpumask", "0");
	put("uncore_imc/format/event", "config:0-7");
	put("uncore_imc/format/umask", "config:8-15");
	put("uncore_imc/events/cas_count_read", "event=0x04,umask=0x03");
	put("uncore_imc/events/cas_count_read.scale", "6.103515625e-5");
	put("uncore_imc/events/cas_count_read.unit", "MiB");
	put("uncore_imc/events/clockticks", "event=0x00,umask=0x00");
}

static void amd_tree(void)
{
	new_root();
	put("cpu/type", "4");
	put("cpu/format/event", "config:0-7,32-35");
	put("cpu/format/umask", "config:8-15");
	put("cpu/format/edge", "config:18");
	put("cpu/format/inv", "config:23");
	put("cpu/format/cmask", "config:24-31");
	put("ibs_op/type", "11");
	put("ibs_op/format/cnt_ctl", "config:19");
	put("ibs_op/caps/zen4_ibs_extensions", "1");
}

static void hybrid_tree(void)
{
	new_root();
	put("cpu_core/type", "4");
	put("cpu_core/cpus", "0-15");
	put("cpu_core/format/event", "config:0-7");
	put("cpu_core/format/umask", "config:8-15");
	put("cpu_core/events/cpu-cycles", "event=0x3c");
	put("cpu_core/caps/max_precise", "3");
	put("cpu_atom/type", "10");
	put("cpu_atom/cpus", "16-23");
	put("cpu_atom/format/event", "config:0-7");
	put("cpu_atom/format/umask", "config:8-15");
	put("cpu_atom/caps/max_precise", "2");
}

static void cleanup(void)
{
	fake_kernel_uninstall();
	if (root[0]) {
		char cmd[PATH_MAX + 16];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		cr_assert_eq(system(cmd), 0);
		root[0] = '\0';
	}
}

/* Parses SPEC expecting success and exactly one event. */
static struct hwprof_event one(const char *spec)
{
	struct hwprof_event_list l;
	char err[256];
	int r = hwprof_events_parse(spec, &l, err, sizeof(err));
	cr_assert_eq(r, 0, "'%s': %d %s", spec, r, err);
	cr_assert_eq(l.n, 1, "'%s'", spec);
	struct hwprof_event ev = l.ev[0];
	hwprof_events_free(&l);
	return ev;
}

/* Parses SPEC expecting error RC with a message containing WANT. */
static void bad(const char *spec, int rc, const char *want)
{
	struct hwprof_event_list l;
	char err[256] = "untouched";
	int r = hwprof_events_parse(spec, &l, err, sizeof(err));
	cr_assert_eq(r, rc, "'%s' gave %d (%s), want %d", spec, r, err, rc);
	cr_assert_not_null(strstr(err, want), "'%s': message '%s' lacks '%s'", spec, err, want);
	cr_assert_null(strchr(err, '\n'), "one line");
	cr_assert_null(strstr(err, "hwprof "), "'%s': the library names a command: %s", spec, err);
	cr_assert_eq(l.n, 0);
	cr_assert_null(l.ev);
}

TestSuite(events, .init = new_root, .fini = cleanup);

/* ---- named events ------------------------------------------------------------------------ */

Test(events, generic_hardware)
{
	static const struct {
		const char *name;
		uint64_t config;
	} t[] = {
	    {"cycles", PERF_COUNT_HW_CPU_CYCLES},
	    {"cpu-cycles", PERF_COUNT_HW_CPU_CYCLES},
	    {"instructions", PERF_COUNT_HW_INSTRUCTIONS},
	    {"cache-references", PERF_COUNT_HW_CACHE_REFERENCES},
	    {"cache-misses", PERF_COUNT_HW_CACHE_MISSES},
	    {"branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	    {"branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	    {"branch-misses", PERF_COUNT_HW_BRANCH_MISSES},
	    {"bus-cycles", PERF_COUNT_HW_BUS_CYCLES},
	    {"stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
	    {"stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
	    {"ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++) {
		struct hwprof_event ev = one(t[i].name);
		cr_assert_eq(ev.kind, HWPROF_EV_HARDWARE, "%s", t[i].name);
		cr_assert_eq(ev.type, PERF_TYPE_HARDWARE);
		cr_assert_eq(ev.config, t[i].config, "%s", t[i].name);
		cr_assert_str_eq(ev.name, t[i].name);
		cr_assert(hwprof_event_is_hw(&ev));
		cr_assert_eq(ev.scale, 1.0);
	}
}

Test(events, software)
{
	static const struct {
		const char *name;
		uint64_t config;
	} t[] = {
	    {"cpu-clock", PERF_COUNT_SW_CPU_CLOCK},
	    {"task-clock", PERF_COUNT_SW_TASK_CLOCK},
	    {"page-faults", PERF_COUNT_SW_PAGE_FAULTS},
	    {"faults", PERF_COUNT_SW_PAGE_FAULTS},
	    {"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN},
	    {"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ},
	    {"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES},
	    {"cs", PERF_COUNT_SW_CONTEXT_SWITCHES},
	    {"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
	    {"migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
	    {"alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS},
	    {"emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS},
	    {"dummy", PERF_COUNT_SW_DUMMY},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++) {
		struct hwprof_event ev = one(t[i].name);
		cr_assert_eq(ev.kind, HWPROF_EV_SOFTWARE, "%s", t[i].name);
		cr_assert_eq(ev.type, PERF_TYPE_SOFTWARE);
		cr_assert_eq(ev.config, t[i].config, "%s", t[i].name);
		cr_assert_not(hwprof_event_is_hw(&ev));
	}
}

#define CACHE(c, op, res)                                                                          \
	(PERF_COUNT_HW_CACHE_##c | PERF_COUNT_HW_CACHE_OP_##op << 8 |                              \
	 (uint64_t)PERF_COUNT_HW_CACHE_RESULT_##res << 16)

Test(events, hardware_cache)
{
	static const struct {
		const char *name;
		uint64_t config;
	} t[] = {
	    {"L1-dcache-loads", CACHE(L1D, READ, ACCESS)},
	    {"L1-dcache-load-misses", CACHE(L1D, READ, MISS)},
	    {"L1-dcache-stores", CACHE(L1D, WRITE, ACCESS)},
	    {"L1-dcache-store-misses", CACHE(L1D, WRITE, MISS)},
	    {"L1-dcache-prefetches", CACHE(L1D, PREFETCH, ACCESS)},
	    {"L1-icache-load-misses", CACHE(L1I, READ, MISS)},
	    {"LLC-loads", CACHE(LL, READ, ACCESS)},
	    {"LLC-load-misses", CACHE(LL, READ, MISS)},
	    {"LLC-store-misses", CACHE(LL, WRITE, MISS)},
	    {"LLC-prefetch-misses", CACHE(LL, PREFETCH, MISS)},
	    {"dTLB-load-misses", CACHE(DTLB, READ, MISS)},
	    {"dTLB-stores", CACHE(DTLB, WRITE, ACCESS)},
	    {"iTLB-loads", CACHE(ITLB, READ, ACCESS)},
	    {"iTLB-load-misses", CACHE(ITLB, READ, MISS)},
	    {"branch-loads", CACHE(BPU, READ, ACCESS)},
	    {"branch-load-misses", CACHE(BPU, READ, MISS)},
	    {"node-loads", CACHE(NODE, READ, ACCESS)},
	    {"node-load-misses", CACHE(NODE, READ, MISS)},
	    {"l1d-load-refs", CACHE(L1D, READ, ACCESS)},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++) {
		struct hwprof_event ev = one(t[i].name);
		cr_assert_eq(ev.kind, HWPROF_EV_CACHE, "%s", t[i].name);
		cr_assert_eq(ev.type, PERF_TYPE_HW_CACHE);
		cr_assert_eq(ev.config, t[i].config, "%s: 0x%llx", t[i].name,
			     (unsigned long long)ev.config);
	}
	/* iTLB has no stores, branch no prefetches. */
	bad("iTLB-stores", -EINVAL, "unknown event 'iTLB-stores'");
	bad("branch-prefetches", -EINVAL, "unknown event");
}

Test(events, every_listed_name_parses)
{
	char name[128];
	enum hwprof_event_kind kind;
	size_t i;
	for (i = 0; hwprof_event_name_at(i, name, sizeof(name), &kind) == 0; i++) {
		struct hwprof_event ev = one(name);
		cr_assert_eq(ev.kind, kind, "%s", name);
	}
	cr_assert_eq(i, 10 + 2 * 16 + 11, "hardware + cache + software names: %zu", i);
}

Test(events, name_of_attr_is_the_listed_name)
{
	char name[128], back[128];
	enum hwprof_event_kind kind;

	/* Every listed name parses to a type and config that name it back. */
	for (size_t i = 0; hwprof_event_name_at(i, name, sizeof(name), &kind) == 0; i++) {
		struct hwprof_event ev = one(name);
		cr_assert_eq(hwprof_event_name_of(ev.type, ev.config, back, sizeof(back)), 0, "%s",
			     name);
		cr_assert_str_eq(back, name);
	}
	cr_assert_eq(
	    hwprof_event_name_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, back, sizeof(back)),
	    0);
	cr_assert_str_eq(back, "page-faults");
	cr_assert_eq(hwprof_event_name_of(PERF_TYPE_RAW, 0x1a8, back, sizeof(back)), 0);
	cr_assert_str_eq(back, "r1a8");
	strcpy(back, "x");
	cr_assert_eq(hwprof_event_name_of(PERF_TYPE_TRACEPOINT, 5, back, sizeof(back)), -ENOENT);
	cr_assert_eq(hwprof_event_name_of(PERF_TYPE_SOFTWARE, 999, back, sizeof(back)), -ENOENT);
	cr_assert_eq(
	    hwprof_event_name_of(PERF_TYPE_HW_CACHE,
				 PERF_COUNT_HW_CACHE_ITLB | PERF_COUNT_HW_CACHE_OP_WRITE << 8, back,
				 sizeof(back)),
	    -ENOENT, "iTLB has no stores");
	cr_assert_str_eq(back, "x");
}

Test(events, raw)
{
	struct hwprof_event ev = one("r1a8");
	cr_assert_eq(ev.kind, HWPROF_EV_RAW);
	cr_assert_eq(ev.type, PERF_TYPE_RAW);
	cr_assert_eq(ev.config, 0x1a8);
	ev = one("rFFFFFFFFFFFFFFFF:pp");
	cr_assert_eq(ev.config, UINT64_MAX);
	cr_assert_eq(ev.precise_ip, 2);
	bad("r12345678901234567", -EINVAL, "more than 64 bits");
	bad("rxyz", -EINVAL, "unknown event 'rxyz'");
}

/* ---- modifiers ----------------------------------------------------------------------------- */

Test(events, modifiers_and_defaults)
{
	struct hwprof_event ev = one("cycles");
	cr_assert(!ev.exclude_user && ev.exclude_kernel && ev.exclude_hv, "user space only");
	cr_assert_eq(ev.precise_ip, 0);
	cr_assert_not(ev.precise_max);
	ev = one("cycles:k");
	cr_assert(ev.exclude_user && !ev.exclude_kernel && ev.exclude_hv);
	ev = one("cycles:uk");
	cr_assert(!ev.exclude_user && !ev.exclude_kernel && ev.exclude_hv);
	ev = one("cycles:ukh");
	cr_assert(!ev.exclude_user && !ev.exclude_kernel && !ev.exclude_hv);
	ev = one("cycles:h");
	cr_assert(ev.exclude_user && ev.exclude_kernel && !ev.exclude_hv);
	ev = one("cycles:p");
	cr_assert_eq(ev.precise_ip, 1);
	ev = one("cycles:upp");
	cr_assert_eq(ev.precise_ip, 2);
	cr_assert(!ev.exclude_user && ev.exclude_kernel);
	cr_assert_str_eq(ev.name, "cycles");
	cr_assert_str_eq(ev.spec, "cycles:upp");
	ev = one("cycles:ppp");
	cr_assert_eq(ev.precise_ip, 3);
	ev = one("LLC-load-misses:P");
	cr_assert(ev.precise_max);
	cr_assert_eq(ev.precise_ip, 0);
	bad("cycles:q", -EINVAL, "unknown modifier 'q' in 'cycles:q'");
	bad("cycles:pppp", -EINVAL, "too many 'p'");
	bad("cycles:", -EINVAL, "empty modifier");
	bad("cycles:u:k", -EINVAL, "unexpected ':'");
	bad("cyclez:q", -EINVAL, "unknown event 'cyclez'");
}

/* ---- lists and groups ----------------------------------------------------------------------- */

Test(events, groups)
{
	struct hwprof_event_list l;
	char err[256];
	cr_assert_eq(hwprof_events_parse(" cycles , {instructions:u,branches}:k ,cpu-clock", &l,
					 err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(l.n, 4);
	cr_assert_eq(l.ngroups, 3);
	int group[] = {0, 1, 1, 2};
	bool leader[] = {true, true, false, true};
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(l.ev[i].group, group[i], "%d", i);
		cr_assert_eq(l.ev[i].leader, leader[i], "%d", i);
	}
	/* a member's own u/k/h wins over the group's */
	cr_assert(!l.ev[1].exclude_user && l.ev[1].exclude_kernel);
	cr_assert(l.ev[2].exclude_user && !l.ev[2].exclude_kernel);
	cr_assert_str_eq(l.ev[2].name, "branches");
	cr_assert_eq(l.ev[3].config, PERF_COUNT_SW_CPU_CLOCK);
	hwprof_events_free(&l);
	hwprof_events_free(&l);
	hwprof_events_free(NULL);

	cr_assert_eq(hwprof_events_parse("{cycles:pp,instructions}:P", &l, err, sizeof(err)), 0);
	cr_assert_eq(l.ev[0].precise_ip, 2);
	cr_assert(l.ev[0].precise_max && l.ev[1].precise_max);
	hwprof_events_free(&l);

	bad("{cycles,instructions", -EINVAL, "unclosed '{'");
	bad("{cycles,instructions,", -EINVAL, "unclosed '{'");
	/* The brace is the news, not its first event (which 'a' would be). */
	bad("{a,b", -EINVAL, "unclosed '{' at offset 0 of '{a,b' (add '}')");
	bad("cycles,{a,b", -EINVAL, "unclosed '{' at offset 7 of 'cycles,{a,b'");
	bad("{}", -EINVAL, "empty group");
	bad("{cycles,{instructions}}", -EINVAL, "nested");
	bad("cycles}", -EINVAL, "unmatched '}'");
	bad("", -EINVAL, "empty event list");
	bad("   ", -EINVAL, "empty event list");
	bad(NULL, -EINVAL, "empty event list");
	bad("cycles,", -EINVAL, "trailing ','");
	bad(",cycles", -EINVAL, "unexpected ','");
	bad("cycles instructions", -EINVAL, "unexpected 'i'");
	bad("{cycles}:x", -EINVAL, "unknown modifier 'x'");
}

Test(events, unknown_suggests)
{
	bad("cyclez", -EINVAL, "unknown event 'cyclez' (did you mean 'cycles'?)");
	cr_expect_eq(hwprof_see_last(), HWPROF_SEE_EVENTS);
	bad("page-fault", -EINVAL, "did you mean 'page-faults'");
	bad("LLC-load-mises", -EINVAL, "did you mean 'LLC-load-misses'");
	bad("instrutcions", -EINVAL, "did you mean 'instructions'");
	bad("zzzzqqqq", -EINVAL, "unknown event 'zzzzqqqq'");
	cr_expect_eq(hwprof_see_last(), HWPROF_SEE_EVENTS);
	bad("{cycles}:x", -EINVAL, "unknown modifier 'x'");
	cr_expect_eq(hwprof_see_last(), HWPROF_SEE_NONE, "a syntax error points to no list");
}

Test(events, null_err_buffer)
{
	struct hwprof_event_list l;
	cr_assert_eq(hwprof_events_parse("nope{", &l, NULL, 0), -EINVAL);
	cr_assert_eq(hwprof_events_parse("cycles", &l, NULL, 0), 0);
	hwprof_events_free(&l);
}

/* ---- sysfs PMUs -------------------------------------------------------------------------- */

Test(events, intel_fields_bit_exact, .init = intel_tree)
{
	struct hwprof_event ev = one("cpu/event=0x3c,umask=0x1,cmask=2,inv,edge/");
	cr_assert_eq(ev.kind, HWPROF_EV_PMU);
	cr_assert_eq(ev.type, 4);
	cr_assert_str_eq(ev.pmu, "cpu");
	cr_assert_eq(ev.config, 0x3cull | 0x1ull << 8 | 2ull << 24 | 1ull << 23 | 1ull << 18,
		     "0x%llx", (unsigned long long)ev.config);
	cr_assert_eq(ev.config1, 0);
	cr_assert_str_eq(ev.name, "cpu/event=0x3c,umask=0x1,cmask=2,inv,edge/");
	cr_assert(ev.exclude_kernel, "user space by default");

	ev = one("cpu/event=0xd0,umask=0x81,ldlat=0x80,frontend=0x400001/pp");
	cr_assert_eq(ev.config, 0x81d0);
	cr_assert_eq(ev.config1, 0x80);
	cr_assert_eq(ev.config2, 0x400001);
	cr_assert_eq(ev.precise_ip, 2);
	cr_assert_str_eq(ev.spec, "cpu/event=0xd0,umask=0x81,ldlat=0x80,frontend=0x400001/upp");

	ev = one("cpu/config=0x1234,config1=7/:u");
	cr_assert_eq(ev.config, 0x1234);
	cr_assert_eq(ev.config1, 7);

	/* alias, then a field that overrides part of it */
	ev = one("cpu/mem-loads/");
	cr_assert_eq(ev.config, 0x1cd);
	cr_assert_eq(ev.config1, 3);
	ev = one("cpu/mem-loads,ldlat=50/ppp");
	cr_assert_eq(ev.config1, 50);
	cr_assert_eq(ev.precise_ip, 3);
	ev = one("cpu/cpu-cycles/");
	cr_assert_eq(ev.type, 4);
	cr_assert_eq(ev.config, 0x3c);

	cr_assert_eq(hwprof_max_precise(), 3);
	char cpus[64];
	cr_assert_eq(pmu_cpus("uncore_imc", cpus, sizeof(cpus)), 0);
	cr_assert_str_eq(cpus, "0");
	cr_assert_eq(pmu_cpus("cpu", cpus, sizeof(cpus)), -ENOENT);
	cr_assert(pmu_is_core("cpu"));
	cr_assert_not(pmu_is_core("uncore_imc"));

	bad("cpu/event=zz/", -EINVAL, "bad value 'zz' for 'event' in 'cpu/event=zz/'");
	bad("cpu/event=0x100/", -EINVAL, "does not fit field 'event'");
	bad("cpu/event=1,bogus=2/", -EINVAL, "unknown term 'bogus'");
	bad("cpu/evnt=1/", -EINVAL, "did you mean 'event'");
	bad("cpu/event=1", -EINVAL, "unterminated 'cpu/event=1'");
	bad("cpu//", -EINVAL, "no event terms");
	bad("cpu/event=-1/", -EINVAL, "bad value '-1'");
	bad("cpu/event=0x3c/q", -EINVAL, "unknown modifier 'q'");
	bad("nosuch/event=1/", -ENOENT, "unknown PMU 'nosuch'");
	bad("cpux/event=1/", -ENOENT, "did you mean 'cpu'");
	bad("../cpu/event=1/", -EINVAL, "bad PMU name '..'");
}

Test(events, pmu_events_in_lists, .init = intel_tree)
{
	struct hwprof_event_list l;
	char err[256];
	cr_assert_eq(hwprof_events_parse("{cpu/event=0xc0, umask = 0x2/u,cycles},mem-loads:pp,"
					 "cpu/topdown-total-slots/",
					 &l, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(l.n, 4);
	cr_assert_eq(l.ngroups, 3);
	cr_assert_eq(l.ev[0].config, 0x2c0);
	cr_assert_str_eq(l.ev[0].spec, "cpu/event=0xc0, umask = 0x2/u");
	cr_assert_str_eq(l.ev[0].name, "cpu/event=0xc0, umask = 0x2/");
	cr_assert(!l.ev[0].exclude_user && l.ev[0].exclude_kernel);
	cr_assert_eq(l.ev[1].group, 0);
	cr_assert_not(l.ev[1].leader);
	/* a bare alias is found in the core PMU's events/ */
	cr_assert_eq(l.ev[2].type, 4);
	cr_assert_str_eq(l.ev[2].pmu, "cpu");
	cr_assert_eq(l.ev[2].config, 0x1cd);
	cr_assert_eq(l.ev[2].config1, 3);
	cr_assert_eq(l.ev[2].precise_ip, 2);
	cr_assert_eq(l.ev[3].config, 0x400);
	hwprof_events_free(&l);
}

/* Random specs from the grammar's alphabet: an answer (0 or -errno with one line), never a
 * crash or a sanitizer report. */
Test(events, fuzz, .init = intel_tree)
{
	static const char *const atoms[] = {
	    "{",      "}",   ",",	  ":",		"/",
	    "=",      "u",   "k",	  "pp",		"P",
	    "cycles", "cpu", "event",	  "0x3c",	"umask",
	    "r1a8",   " ",   "mem-loads", "uncore_imc", "cas_count_read",
	    "zz",     "inv", "-",	  ".",		"LLC-load-misses",
	    "\t"};
	unsigned seed = 12345;
	char spec[256];
	for (int it = 0; it < 4000; it++) {
		size_t len = 0;
		int natoms = 1 + (int)(rand_r(&seed) % 12);
		spec[0] = '\0';
		for (int a = 0; a < natoms; a++) {
			const char *atom = atoms[rand_r(&seed) % (sizeof(atoms) / sizeof(*atoms))];
			if (len + strlen(atom) + 1 >= sizeof(spec))
				break;
			strcpy(spec + len, atom);
			len += strlen(atom);
		}
		struct hwprof_event_list l;
		char err[256] = "";
		int r = hwprof_events_parse(spec, &l, err, sizeof(err));
		if (r == 0) {
			cr_assert_geq(l.n, 1, "'%s'", spec);
			cr_assert_leq(l.ngroups, l.n);
			hwprof_events_free(&l);
		} else {
			cr_assert(r == -EINVAL || r == -ENOENT, "'%s': %d", spec, r);
			cr_assert_neq(err[0], '\0', "'%s' has a message", spec);
			cr_assert_null(strchr(err, '\n'));
		}
	}
	char big[4096];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	bad(big, -EINVAL, "too long");
	big[0] = '{';
	big[sizeof(big) - 2] = '}';
	bad(big, -EINVAL, "too long");
}

Test(events, uncore_alias_scale_unit, .init = intel_tree)
{
	struct hwprof_event ev = one("uncore_imc/cas_count_read/");
	cr_assert_eq(ev.kind, HWPROF_EV_PMU);
	cr_assert_eq(ev.type, 18);
	cr_assert_eq(ev.config, 0x0304);
	cr_assert_eq(ev.scale, 6.103515625e-5);
	cr_assert_str_eq(ev.unit, "MiB");
	cr_assert_str_eq(ev.pmu, "uncore_imc");
	cr_assert(!ev.exclude_user && !ev.exclude_kernel && !ev.exclude_hv,
		  "uncore PMUs refuse exclude_*: every level by default");
	ev = one("uncore_imc/cas_count_read/u");
	cr_assert(!ev.exclude_user && ev.exclude_kernel && ev.exclude_hv, "explicit :u kept");

	/* without the PMU, like perf: found in uncore_imc's events/ */
	ev = one("cas_count_read");
	cr_assert_eq(ev.type, 18);
	cr_assert_eq(ev.config, 0x0304);
	cr_assert_str_eq(ev.unit, "MiB");
	cr_assert_str_eq(ev.pmu, "uncore_imc");

	ev = one("uncore_imc/clockticks/");
	cr_assert_eq(ev.scale, 1.0);
	cr_assert_str_eq(ev.unit, "");
	bad("uncore_imc/cas_count_reed/", -EINVAL, "did you mean 'cas_count_read'");
}

Test(events, amd_split_field_and_ibs, .init = amd_tree)
{
	/* event is config:0-7,32-35: 0x1c0 puts 0xc0 low and 0x1 at bit 32 */
	struct hwprof_event ev = one("cpu/event=0x1c0,umask=0x2/");
	cr_assert_eq(ev.config, 0xc0ull | 0x2ull << 8 | 1ull << 32, "0x%llx",
		     (unsigned long long)ev.config);
	ev = one("cpu/event=0xfff/");
	cr_assert_eq(ev.config, 0xffull | 0xfull << 32);
	bad("cpu/event=0x1000/", -EINVAL, "12 bits: config:0-7,32-35");
	ev = one("ibs_op/cnt_ctl=1/");
	cr_assert_eq(ev.type, 11);
	cr_assert_eq(ev.config, 1ull << 19);
	ev = one("ibs_op/cnt_ctl/");
	cr_assert_eq(ev.config, 1ull << 19);
	/* no caps/max_precise: unknown, the step-down finds the level */
	cr_assert_eq(hwprof_max_precise(), 3);
}

Test(events, hybrid_core_pmus, .init = hybrid_tree)
{
	struct hwprof_event ev = one("cpu_atom/cycles/");
	cr_assert_eq(ev.kind, HWPROF_EV_HARDWARE);
	cr_assert_eq(ev.type, PERF_TYPE_HARDWARE);
	cr_assert_eq(ev.config, 10ull << 32 | PERF_COUNT_HW_CPU_CYCLES, "extended type");
	ev = one("cpu_core/LLC-load-misses/upp");
	cr_assert_eq(ev.kind, HWPROF_EV_CACHE);
	cr_assert_eq(ev.type, PERF_TYPE_HW_CACHE);
	cr_assert_eq(ev.config, 4ull << 32 | CACHE(LL, READ, MISS));
	ev = one("cpu_core/cpu-cycles/");
	cr_assert_eq(ev.kind, HWPROF_EV_PMU);
	cr_assert_eq(ev.type, 4);
	cr_assert_eq(ev.config, 0x3c);
	ev = one("cpu_atom/event=0xc0,umask=0/");
	cr_assert_eq(ev.type, 10);
	cr_assert_eq(ev.config, 0xc0);
	cr_assert_eq(hwprof_max_precise(), 3, "cpu_core's level");
	char cpus[64];
	cr_assert_eq(pmu_cpus("cpu_atom", cpus, sizeof(cpus)), 0);
	cr_assert_str_eq(cpus, "16-23");
	cr_assert_eq(pmu_cpus("cpu_core", cpus, sizeof(cpus)), 0);
	cr_assert_str_eq(cpus, "0-15");
	cr_assert(pmu_is_core("cpu_atom"));
	cr_assert_eq(pmu_max_precise("cpu_atom"), 2);
	bad("cpu/cycles/", -ENOENT, "unknown PMU 'cpu'");
}

Test(events, to_attr, .init = intel_tree)
{
	struct hwprof_event ev = one("cpu/mem-loads/P");
	struct perf_event_attr a;
	memset(&a, 0xff, sizeof(a));
	hwprof_event_to_attr(&ev, &a);
	cr_assert_eq(a.size, sizeof(a));
	cr_assert_eq(a.type, 4);
	cr_assert_eq(a.config, 0x1cd);
	cr_assert_eq(a.config1, 3);
	cr_assert_eq(a.precise_ip, 3, "from caps/max_precise");
	cr_assert(!a.exclude_user && a.exclude_kernel && a.exclude_hv);
	cr_assert_eq(a.sample_period, 0);
	cr_assert_eq(a.read_format, 0);
	cr_assert_eq(a.disabled, 0);
	put("cpu/caps/max_precise", "1");
	hwprof_event_to_attr(&ev, &a);
	cr_assert_eq(a.precise_ip, 1);
}

/* ---- opening: the precise_ip step-down through the fake kernel ------------------------------ */

static struct perf_event_attr attr_for(const char *spec)
{
	struct hwprof_event ev = one(spec);
	struct perf_event_attr a;
	hwprof_event_to_attr(&ev, &a);
	a.sample_period = 4000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	a.disabled = 1;
	a.inherit = 1;
	return a;
}

static void assert_same_but_precise(const struct perf_event_attr *x,
				    const struct perf_event_attr *y)
{
	struct perf_event_attr a = *x, b = *y;
	a.precise_ip = b.precise_ip = 0;
	cr_assert_eq(memcmp(&a, &b, sizeof(a)), 0, "attr changed beyond precise_ip");
}

static void stepdown(int precise_errno)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	cfg.max_precise = 1;
	cfg.precise_errno = precise_errno;
	fake_kernel_install(&cfg);
	struct perf_event_attr a = attr_for("cycles:ppp"), want = a;
	int obtained = -1;
	int fd = hwprof_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC, &obtained);
	cr_assert_geq(fd, 0);
	cr_assert_eq(obtained, 1);
	cr_assert_eq(a.precise_ip, 1);
	cr_assert_eq(fake_kernel_nopens(), 3);
	for (size_t i = 0; i < 3; i++) {
		const struct fake_kernel_open *o = fake_kernel_open_log(i);
		cr_assert_eq(o->attr.precise_ip, 3 - i, "try %zu", i);
		assert_same_but_precise(&o->attr, &want);
		cr_assert_eq(o->pid, 0);
		cr_assert_eq(o->cpu, -1);
		cr_assert_eq(o->flags, PERF_FLAG_FD_CLOEXEC);
	}
	cr_assert_eq(fake_kernel_open_log(0)->result, -precise_errno);
	cr_assert_eq(fake_kernel_open_log(2)->result, fd);
	cr_assert_eq(hwprof_sys()->close(fd), 0);
}

Test(events, stepdown_eopnotsupp)
{
	stepdown(EOPNOTSUPP);
}

Test(events, stepdown_einval)
{
	stepdown(EINVAL);
}

Test(events, stepdown_max_from_sysfs, .init = intel_tree)
{
	put("cpu/caps/max_precise", "2");
	struct fake_kernel_config cfg = fake_kernel_defaults();
	cfg.max_precise = 2;
	fake_kernel_install(&cfg);
	struct perf_event_attr a = attr_for("cycles:P");
	cr_assert_eq(a.precise_ip, 2);
	int obtained = -1;
	cr_assert_geq(hwprof_event_open(&a, 0, -1, -1, 0, &obtained), 0);
	cr_assert_eq(obtained, 2);
	cr_assert_eq(fake_kernel_nopens(), 1, "no needless tries");
}

Test(events, enoent_without_pmu)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	cfg.has_pmu = false;
	fake_kernel_install(&cfg);
	struct perf_event_attr a = attr_for("cycles:pp"), want = a;
	int obtained = -7;
	cr_assert_eq(hwprof_event_open(&a, 0, -1, -1, 0, &obtained), -ENOENT);
	cr_assert_eq(obtained, -7, "untouched on failure");
	cr_assert_eq(memcmp(&a, &want, sizeof(a)), 0, "attr restored");
	cr_assert_eq(fake_kernel_nopens(), 3, "tried 2, 1, 0");
	cr_assert_eq(fake_kernel_open_log(2)->attr.precise_ip, 0);
	cr_assert_not(hwprof_host_has_pmu());

	/* software events still open, at any level on this kind of host */
	a = attr_for("cpu-clock:ppp");
	int fd = hwprof_event_open(&a, 0, -1, -1, 0, &obtained);
	cr_assert_geq(fd, 0);
	cr_assert_eq(obtained, 3);

	struct hwprof_event ev = one("cycles");
	char buf[256];
	hwprof_open_advice(&ev, ENOENT, buf, sizeof(buf));
	cr_assert_str_eq(buf, "not supported on this host (no hardware PMU exposed, virtualized? "
			      "software events such as cpu-clock, task-clock, page-faults work)");
	cr_expect_eq(hwprof_see_last(), HWPROF_SEE_EVENTS);
	hwprof_open_advice(&ev, EMFILE, buf, sizeof(buf));
	cr_expect_eq(hwprof_see_last(), HWPROF_SEE_NONE);
}

Test(events, host_has_pmu_fake)
{
	fake_kernel_install(NULL);
	cr_assert(hwprof_host_has_pmu());
	cr_assert_eq(fake_kernel_nfds_open(), 0, "probe fd closed");
	const struct fake_kernel_open *o = fake_kernel_open_log(0);
	cr_assert_eq(o->attr.type, PERF_TYPE_HARDWARE);
	cr_assert_eq(o->attr.config, PERF_COUNT_HW_CPU_CYCLES);
	cr_assert(o->attr.exclude_kernel);
}

Test(events, eacces_advice_names_level)
{
	for (int level = 2; level <= 4; level++) {
		struct fake_kernel_config cfg = fake_kernel_defaults();
		cfg.paranoid = level;
		fake_kernel_install(&cfg);
		fake_proc(level, 0);
		cr_assert_eq(hwprof_paranoid(), level);
		struct hwprof_event ev = one(level == 2 ? "cpu-clock:k" : "cpu-clock");
		struct perf_event_attr a;
		hwprof_event_to_attr(&ev, &a);
		int err = hwprof_event_open(&a, 0, -1, -1, 0, NULL);
		cr_assert_eq(err, -EACCES, "level %d", level);
		char buf[512], want[64];
		hwprof_open_advice(&ev, -err, buf, sizeof(buf));
		snprintf(want, sizeof(want), "perf_event_paranoid is %d", level);
		cr_assert_not_null(strstr(buf, want), "%s", buf);
		cr_assert_not_null(strstr(buf, "CAP_PERFMON"), "%s", buf);
		if (level == 2)
			cr_assert_not_null(strstr(buf, "':u'"), "%s", buf);
		else
			cr_assert_not_null(strstr(buf, "perf_event_paranoid=2"), "%s", buf);
	}
	setenv("HWPROF_PROC_ROOT", "/nonexistent", 1);
	cr_assert_eq(hwprof_paranoid(), INT_MIN);
	unsetenv("HWPROF_PROC_ROOT");
}

/* M2: the EACCES advice of a user-space event at level 2 serves record too, which has no -a:
 * it names the process's owner as the likely cause and never suggests -a (stat adds its own
 * -a clause for a CPU-wide count). */
Test(events, eacces_advice_user_space_no_dash_a)
{
	for (int level = 0; level <= 2; level++) {
		fake_proc(level, 0);
		struct hwprof_event ev = one("cpu-clock");
		char buf[512];
		hwprof_open_advice(&ev, EACCES, buf, sizeof(buf));
		cr_assert_null(strstr(buf, "-a"), "level %d: %s", level, buf);
		cr_assert_not_null(strstr(buf, "your own"), "level %d: %s", level, buf);
		cr_assert_not_null(strstr(buf, "CAP_PERFMON"), "level %d: %s", level, buf);
	}
	unsetenv("HWPROF_PROC_ROOT");
}

/* perf's default privilege: an event without u/k/h counts the kernel too when the process
 * may (CAP_PERFMON, CAP_SYS_ADMIN, perf_event_paranoid <= 1), user space only otherwise. */
Test(events, default_privilege_follows_capabilities_and_paranoid)
{
	static const struct {
		int level;
		unsigned long long capeff;
		bool kernel;
	} cases[] = {
	    {2, 0, false},
	    {3, 0, false},
	    {1, 0, true},
	    {-1, 0, true},
	    {2, 1ull << 38, true},	 /* CAP_PERFMON */
	    {4, 1ull << 21, true},	 /* CAP_SYS_ADMIN */
	    {2, 0x1ffffffffffull, true}, /* root's full set */
	    {2, 1, false},		 /* CAP_CHOWN alone */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fake_proc(cases[i].level, cases[i].capeff);
		cr_assert_eq(hwprof_may_profile_kernel(), cases[i].kernel, "case %zu", i);
		struct hwprof_event ev = one("page-faults");
		cr_assert_eq(ev.exclude_kernel, !cases[i].kernel, "case %zu", i);
		cr_assert_eq(ev.exclude_hv, !cases[i].kernel, "case %zu", i);
		cr_assert_not(ev.exclude_user, "case %zu", i);
		/* Named with the modifier in effect, as perf names it ("page-faults:u"). */
		cr_assert_str_eq(ev.spec, cases[i].kernel ? "page-faults" : "page-faults:u",
				 "case %zu", i);
		cr_assert_str_eq(ev.name, "page-faults", "case %zu", i);
		ev = one("cycles:pp");
		cr_assert_str_eq(ev.spec, cases[i].kernel ? "cycles:pp" : "cycles:upp", "case %zu",
				 i);
		ev = one("page-faults:u"); /* a modifier wins either way */
		cr_assert(ev.exclude_kernel && !ev.exclude_user, "case %zu", i);
		cr_assert_str_eq(ev.spec, "page-faults:u", "case %zu", i);
		ev = one("page-faults:k");
		cr_assert_str_eq(ev.spec, "page-faults:k", "case %zu", i);
	}
	/* Nothing readable: user space only, which every level up to 2 allows. */
	setenv("HWPROF_PROC_ROOT", "/nonexistent", 1);
	cr_assert_not(hwprof_may_profile_kernel());
	cr_assert(one("cycles").exclude_kernel);
	unsetenv("HWPROF_PROC_ROOT");
}

Test(events, other_advice)
{
	struct hwprof_event ev = one("cycles");
	char buf[256];
	cr_assert_not_null(strstr(hwprof_open_advice(&ev, EMFILE, buf, sizeof(buf)), "ulimit -n"));
	cr_assert_not_null(strstr(hwprof_open_advice(&ev, EINVAL, buf, sizeof(buf)), "refused"));
	cr_assert_not_null(strstr(hwprof_open_advice(&ev, ESRCH, buf, sizeof(buf)), "no such"));
	ev = one("r1a8");
	cr_assert_not_null(strstr(hwprof_open_advice(&ev, EINVAL, buf, sizeof(buf)), "0x1a8"));
	cr_assert_not_null(
	    strstr(hwprof_open_advice(NULL, -ENOENT, buf, sizeof(buf)), "no hardware PMU"));
	cr_assert_str_eq(hwprof_paranoid_allows(2),
			 "user-space profiling of your own processes only");
	put("msr/type", "9");
	put("msr/format/event", "config:0-63");
	put("msr/events/tsc", "event=0x00");
	ev = one("msr/tsc/u");
	hwprof_open_advice(&ev, EINVAL, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "write 'msr/tsc/ukh'"), "%s", buf);
	ev = one("msr/tsc/");
	hwprof_open_advice(&ev, EINVAL, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "CPU-wide only"), "%s", buf);
}

/* A child that has exited and is not reaped yet: a zombie, as a thread is while it ends. */
static pid_t zombie(void)
{
	struct hwprof_task t = {0};
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	cr_assert_gt(pid, 0);
	for (int i = 0; i < 400 && hwprof_task_read(pid, &t) == 0 && t.state != 'Z'; i++)
		usleep(5000);
	cr_assert_eq(t.state, 'Z');
	return pid;
}

Test(events, ended_task_is_esrch_whatever_the_kernel_said)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	struct perf_event_attr a;
	pid_t z = zombie();

	cfg.has_pmu = false;
	fake_kernel_install(&cfg);
	a = attr_for("cycles");
	/* The fake answers ENOENT (no PMU) for both; only the ended task is ESRCH. */
	cr_assert_eq(hwprof_event_open(&a, getpid(), -1, -1, 0, NULL), -ENOENT);
	cr_assert_eq(hwprof_event_open(&a, z, -1, -1, 0, NULL), -ESRCH);
	cr_assert(hwprof_task_gone(z));
	cr_assert_not(hwprof_task_gone(getpid()));
	waitpid(z, NULL, 0);
	cr_assert(hwprof_task_gone(z));
}

Test(events, emfile_through_stepdown)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	cfg.max_fds = 0;
	fake_kernel_install(&cfg);
	struct perf_event_attr a = attr_for("cpu-clock:p");
	cr_assert_eq(hwprof_event_open(&a, 0, -1, -1, 0, NULL), -EMFILE);
}

/* ---- the real kernel --------------------------------------------------------------------- */

Test(events_real, real_software_any_precise)
{
	unsetenv("HWPROF_SYSFS_ROOT");
	struct perf_event_attr a = attr_for("cpu-clock:ppp");
	int obtained = -1;
	int fd = hwprof_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC, &obtained);
	cr_assert_geq(fd, 0, "cpu-clock: %s", strerror(-fd));
	cr_assert(obtained >= 0 && obtained <= 3);
	close(fd);
}

Test(events_real, real_pmu)
{
	unsetenv("HWPROF_SYSFS_ROOT");
	if (!hwprof_host_has_pmu())
		cr_skip_test("no hardware PMU: 'cycles' does not open on this host");
	struct perf_event_attr a = attr_for("cycles:P");
	int obtained = -1;
	int fd = hwprof_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC, &obtained);
	cr_assert_geq(fd, 0, "%s", strerror(-fd));
	cr_assert_leq(obtained, hwprof_max_precise());
	close(fd);
}

Test(events_real, real_sysfs_pmus)
{
	unsetenv("HWPROF_SYSFS_ROOT");
	cr_assert_str_eq(hwprof_sysfs_root(), "/sys");
	struct hwprof_event_list l;
	char err[256];
	/* every kernel has the software PMU; msr (x86) has an alias with a format field */
	cr_assert_eq(hwprof_events_parse("software/config=3/", &l, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(l.ev[0].type, PERF_TYPE_SOFTWARE);
	cr_assert_eq(l.ev[0].kind, HWPROF_EV_SOFTWARE);
	cr_assert_eq(l.ev[0].config, 3);
	cr_assert_eq(l.ev[0].exclude_kernel, !hwprof_may_profile_kernel(),
		     "software PMU: the default privilege");
	hwprof_events_free(&l);
	if (access("/sys/bus/event_source/devices/msr/events/tsc", F_OK) == 0) {
		cr_assert_eq(hwprof_events_parse("msr/tsc/", &l, err, sizeof(err)), 0, "%s", err);
		cr_assert_eq(l.ev[0].config, 0);
		/* msr refuses exclude_*: it counts every level by default, and opens so as root */
		cr_assert(!l.ev[0].exclude_kernel && !l.ev[0].exclude_user);
		if (geteuid() == 0) {
			struct perf_event_attr a;
			hwprof_event_to_attr(&l.ev[0], &a);
			int fd = hwprof_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC, NULL);
			cr_assert_geq(fd, 0, "msr/tsc/: %s", strerror(-fd));
			close(fd);
		}
		hwprof_events_free(&l);
	}
}

/* perf_event_paranoid for real, as `nobody`: a user-space event opens at levels <= 2, a kernel
 * one is refused at level >= 2 with advice that names the level. */
Test(events_real, real_paranoid_as_nobody)
{
	unsetenv("HWPROF_SYSFS_ROOT");
	int level = hwprof_paranoid();
	if (geteuid() != 0)
		cr_skip_test("not root: cannot drop privileges to nobody");
	if (level == INT_MIN)
		cr_skip_test("perf_event_paranoid is unreadable");
	int pfd[2];
	cr_assert_eq(pipe(pfd), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(pfd[0]);
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(3);
		struct perf_event_attr u = attr_for("cpu-clock:u"), k = attr_for("cpu-clock:k");
		int fu = hwprof_event_open(&u, 0, -1, -1, 0, NULL);
		int fk = hwprof_event_open(&k, 0, -1, -1, 0, NULL);
		char line[512];
		struct hwprof_event ev = one("cpu-clock:k");
		hwprof_open_advice(&ev, fk < 0 ? -fk : 0, line, sizeof(line));
		dprintf(pfd[1], "%d %d %s", fu < 0 ? fu : 0, fk < 0 ? fk : 0, line);
		_exit(0);
	}
	close(pfd[1]);
	char buf[600] = "";
	ssize_t n = read(pfd[0], buf, sizeof(buf) - 1);
	close(pfd[0]);
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
	cr_assert_gt(n, 0);
	int ru, rk;
	char advice[600];
	cr_assert_eq(sscanf(buf, "%d %d %599[^\n]", &ru, &rk, advice), 3, "%s", buf);
	cr_log_info("perf_event_paranoid %d as nobody: user %d, kernel %d: %s", level, ru, rk,
		    advice);
	if (level <= 2)
		cr_assert_eq(ru, 0, "user-space cpu-clock opens at level %d", level);
	if (level >= 2) {
		char want[64];
		cr_assert(rk == -EACCES || rk == -EPERM, "kernel counting refused: %d", rk);
		snprintf(want, sizeof(want), "perf_event_paranoid is %d", level);
		cr_assert_not_null(strstr(advice, want), "%s", advice);
		cr_assert_not_null(strstr(advice, "CAP_PERFMON"), "%s", advice);
	} else {
		cr_assert_eq(rk, 0);
	}
}

/* hwprof_strerror_last() holds the parser's line, with or without an ERR buffer, and is ""
 * after a success (hwprof/event.h). */
Test(events, parse_error_text_through_strerror_last)
{
	struct hwprof_event_list l = {0};
	char err[256] = "";

	cr_assert_eq(hwprof_events_parse("cyclez", &l, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "unknown event 'cyclez'"), "%s", err);
	cr_assert_str_eq(hwprof_strerror_last(), err);
	cr_assert_eq(hwprof_events_parse("page-faults", &l, err, sizeof(err)), 0);
	cr_assert_str_eq(hwprof_strerror_last(), "");
	cr_assert_str_eq(err, "");
	hwprof_events_free(&l);
	cr_assert_eq(hwprof_events_parse("{page-faults", &l, NULL, 0), -EINVAL);
	cr_assert_not_null(strstr(hwprof_strerror_last(), "unclosed '{'"), "%s",
			   hwprof_strerror_last());
}

Test(events, group_modifiers_show_in_each_member_spec)
{
	struct hwprof_event_list l = {0};
	char err[256] = "";

	cr_assert_eq(hwprof_events_parse("{task-clock:p,page-faults:u,minor-faults}:k,cpu-clock",
					 &l, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(l.n, 4);
	cr_assert_str_eq(l.ev[0].spec, "task-clock:kp");
	cr_assert_str_eq(l.ev[1].spec, "page-faults:u", "an own privilege modifier wins");
	cr_assert(l.ev[1].exclude_kernel && !l.ev[1].exclude_user);
	cr_assert_str_eq(l.ev[2].spec, "minor-faults:k");
	cr_assert(l.ev[2].exclude_user && !l.ev[2].exclude_kernel);
	/* Outside the group: as written, with the default privilege in effect (this fixture's
	 * process may not count the kernel). */
	cr_assert_str_eq(l.ev[3].spec, "cpu-clock:u");
	hwprof_events_free(&l);
}

Test(events, cgroup_switches_is_a_software_event)
{
	struct hwprof_event_list l = {0};
	char err[256] = "";

	cr_assert_eq(hwprof_events_parse("cgroup-switches", &l, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(l.ev[0].type, PERF_TYPE_SOFTWARE);
	cr_assert_eq(l.ev[0].config, PERF_COUNT_SW_CGROUP_SWITCHES);
	hwprof_events_free(&l);
}

/* ---- tracepoints (issue 17): a fixture tracefs in $HWPROF_TRACEFS_ROOT ------------------ */

static char tracefs[PATH_MAX];

/* A tracefs tree with sched:sched_switch (id 316), sched:sched_wakeup (id 318) and
 * syscalls:sys_enter_read, sys_enter_readv (ids 600, 601), plus the files a system holds
 * beside its events (enable, filter). */
static void tracefs_tree(void)
{
	static const struct {
		const char *rel, *text;
	} files[] = {
	    {"events/sched/sched_switch/id", "316"},
	    {"events/sched/sched_wakeup/id", "318"},
	    {"events/sched/enable", "0"},
	    {"events/sched/filter", "none"},
	    {"events/syscalls/sys_enter_read/id", "600"},
	    {"events/syscalls/sys_enter_readv/id", "601"},
	    {"events/header_page", "x"},
	};
	char path[2 * PATH_MAX];

	snprintf(tracefs, sizeof(tracefs), "/tmp/hwprof-tracefs-XXXXXX");
	cr_assert_not_null(mkdtemp(tracefs));
	setenv("HWPROF_TRACEFS_ROOT", tracefs, 1);
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		snprintf(path, sizeof(path), "%s/%s", tracefs, files[i].rel);
		for (char *p = path + strlen(tracefs) + 1; *p; p++)
			if (*p == '/') {
				*p = '\0';
				mkdir(path, 0755);
				*p = '/';
			}
		FILE *f = fopen(path, "w");
		cr_assert_not_null(f, "%s", path);
		fprintf(f, "%s\n", files[i].text);
		fclose(f);
	}
}

Test(events, tracepoint_by_name_and_pattern, .init = tracefs_tree)
{
	struct hwprof_event_list l = {0};
	char err[256] = "";

	cr_assert_eq(hwprof_events_parse("sched:sched_switch,syscalls:sys_enter_rea*,cycles:u", &l,
					 err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(l.n, 4);
	cr_assert_eq(l.ev[0].kind, HWPROF_EV_TRACEPOINT);
	cr_assert_eq(l.ev[0].type, PERF_TYPE_TRACEPOINT);
	cr_assert_eq(l.ev[0].config, 316);
	cr_assert_str_eq(l.ev[0].spec, "sched:sched_switch");
	cr_assert(!l.ev[0].exclude_kernel && !l.ev[0].exclude_user,
		  "a tracepoint fires in the kernel: nothing excluded");
	cr_assert_not(hwprof_event_is_hw(&l.ev[0]));
	/* The pattern: each match in name order, a group of its own. */
	cr_assert_str_eq(l.ev[1].name, "syscalls:sys_enter_read");
	cr_assert_eq(l.ev[1].config, 600);
	cr_assert_str_eq(l.ev[2].name, "syscalls:sys_enter_readv");
	cr_assert_eq(l.ev[2].config, 601);
	cr_assert(l.ev[1].group != l.ev[2].group && l.ev[2].leader);
	/* "u" after ':' is a modifier, not a tracepoint. */
	cr_assert_eq(l.ev[3].kind, HWPROF_EV_HARDWARE);
	cr_assert_eq(l.ngroups, 4);
	hwprof_events_free(&l);

	cr_assert_eq(
	    hwprof_events_parse("{sched:sched_switch,sched:sched_wakeup}", &l, err, sizeof(err)), 0,
	    "%s", err);
	cr_assert_eq(l.ngroups, 1);
	cr_assert_eq(l.ev[1].config, 318);
	hwprof_events_free(&l);
}

Test(events, tracepoint_errors_name_the_cause, .init = tracefs_tree)
{
	struct hwprof_event_list l = {0};
	char err[256] = "", empty[PATH_MAX + 8];

	cr_assert_eq(hwprof_events_parse("sched:sched_swich", &l, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "unknown tracepoint 'sched:sched_swich' (did you mean "
			      "'sched:sched_switch'?)");
	cr_assert_eq(hwprof_events_parse("sched:sched_*x", &l, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "no tracepoint matches 'sched:sched_*x'");
	cr_assert_eq(hwprof_events_parse("{syscalls:sys_enter_*}", &l, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "'syscalls:sys_enter_*': a tracepoint pattern cannot be in a group "
			      "(name its events)");
	cr_assert_eq(hwprof_events_parse("sched:enable", &l, err, sizeof(err)), -EINVAL,
		     "a system's own file is no event");
	/* A system tracefs lacks, with an event named like a tracepoint's. */
	cr_assert_eq(hwprof_events_parse("nosys:foo_bar", &l, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "unknown tracepoint 'nosys:foo_bar'");
	/* :u on a tracepoint counts nothing ever: not counted, with the reason. */
	cr_assert_eq(hwprof_events_parse("sched:sched_switch:u", &l, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_not_null(hwprof_count_why_not(&l.ev[0]));
	hwprof_events_free(&l);
	/* No tracefs mounted: say how to mount it. */
	snprintf(empty, sizeof(empty), "%s/sched", tracefs);
	setenv("HWPROF_TRACEFS_ROOT", empty, 1);
	cr_assert_eq(hwprof_events_parse("sched:sched_switch", &l, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "'sched:sched_switch': tracefs is not mounted (as root: mount -t "
			      "tracefs nodev /sys/kernel/tracing)");
}

/* Which events carry a data address (record --data on by itself) and a data source. */
Test(events, data_carried_by_event)
{
	static const struct {
		const char *spec;
		unsigned data;
	} cases[] = {
	    {"page-faults", HWPROF_DATA_ADDR},
	    {"major-faults", HWPROF_DATA_ADDR},
	    {"minor-faults:u", HWPROF_DATA_ADDR},
	    {"alignment-faults", HWPROF_DATA_ADDR},
	    {"cpu-clock", 0},
	    {"cycles", 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hwprof_event ev = one(cases[i].spec);
		cr_assert_eq(hwprof_event_data(&ev), cases[i].data, "%s", cases[i].spec);
	}
}

Test(events, data_carried_by_intel_mem_loads, .init = intel_tree)
{
	struct hwprof_event ev = one("cpu/mem-loads,ldlat=30/P");
	cr_assert_eq(hwprof_event_data(&ev), HWPROF_DATA_ADDR | HWPROF_DATA_MEM);
	ev = one("cpu/event=0x3c/");
	cr_assert_eq(hwprof_event_data(&ev), 0);
}

Test(events, data_carried_by_amd_ibs_op, .init = amd_tree)
{
	struct hwprof_event ev = one("ibs_op/cnt_ctl=1/");
	cr_assert_eq(hwprof_event_data(&ev), HWPROF_DATA_ADDR | HWPROF_DATA_MEM);
}
