/* test_vendor.c - vendor event names through libpfm4, in its forced-PMU mode
 * (LIBPFM_FORCE_PMU makes one PMU model active on any host, this one without a PMU
 * included), against the codes the vendors publish. The parse -> perf_event_attr path is
 * checked to open nothing (the fake kernel counts every perf_event_open). */
#include "fake_kernel.h"

#include "hwprof/event.h"
#include "vendor.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One published encoding: the spelling, config and config1 (perf_event_attr of the core PMU,
 * PERF_TYPE_RAW), and whether it samples precisely (PEBS). */
struct published {
	const char *spec;
	uint64_t config, config1;
	bool precise;
};

/* Intel Skylake client (libpfm4 "skl"). Source: Intel's perfmon event list for SKL
 * (github.com/intel/perfmon, SKL/events/skylake_core.json: EventCode, UMask, CounterMask,
 * Invert, EdgeDetect, MSRValue for MSR_PEBS_LD_LAT_THRESHOLD, PEBS) and the Intel SDM
 * vol. 3B, "Performance Monitoring Events for 6th Generation Intel Core Processors".
 * config = EventCode | UMask << 8 | Edge << 18 | Inv << 23 | CMask << 24 (IA32_PERFEVTSELx). */
static const struct published skl[] = {
    {"MEM_LOAD_RETIRED.L3_MISS", 0x20d1, 0, true},		   /* D1H umask 20H, PEBS */
    {"MEM_LOAD_RETIRED.L1_HIT", 0x01d1, 0, true},		   /* D1H umask 01H, PEBS */
    {"mem_load_retired.l3_miss", 0x20d1, 0, true},		   /* perf's lower case */
    {"INST_RETIRED.ANY_P", 0x00c0, 0, false},			   /* C0H umask 00H */
    {"BR_MISP_RETIRED.ALL_BRANCHES", 0x00c5, 0, true},		   /* C5H umask 00H, PEBS */
    {"L2_RQSTS.MISS", 0x3f24, 0, false},			   /* 24H umask 3FH */
    {"CPU_CLK_UNHALTED.THREAD_P", 0x003c, 0, false},		   /* 3CH umask 00H */
    {"MEM_INST_RETIRED.ALL_LOADS", 0x81d0, 0, true},		   /* D0H umask 81H, PEBS */
    {"MEM_TRANS_RETIRED.LOAD_LATENCY:ldlat=32", 0x01cd, 32, true}, /* CDH umask 01H */
    {"UOPS_ISSUED.ANY:c=1:i", 0x0180010e, 0, false},		   /* 0EH umask 01H, CMask 1, Inv */
    {"UOPS_ISSUED.ANY:c=1:e", 0x0104010e, 0, false}, /* 0EH umask 01H, CMask 1, Edge */
    {"skl::L2_RQSTS.MISS", 0x3f24, 0, false},	     /* libpfm4's PMU:: prefix */
};

/* AMD Zen 2 (libpfm4 "amd64_fam17h_zen2"). Source: AMD "Processor Programming Reference
 * (PPR) for AMD Family 17h Model 31h" (pub. 55803), section 2.1.15.4 "Core Performance
 * Monitor Counters": PMCxNNN with its unit mask bits. config = EventSelect[7:0] |
 * UnitMask << 8 | EventSelect[11:8] << 32 (Core::X86::Msr::PERF_CTL). */
static const struct published zen2[] = {
    {"RETIRED_INSTRUCTIONS", 0x00c0, 0, false},			    /* PMCx0C0 Ex_Ret_Instr */
    {"RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED", 0x00c3, 0, false}, /* PMCx0C3 */
    {"CYCLES_NOT_IN_HALT", 0x0076, 0, false},			    /* PMCx076 */
    {"LS_DISPATCH.LD_DISPATCH", 0x0129, 0, false},		    /* PMCx029 bit 0 */
    {"ls_dispatch.store_dispatch", 0x0229, 0, false},		    /* PMCx029 bit 1 */
    {"DATA_CACHE_REFILLS_FROM_SYSTEM.LS_MABRESP_RMT_DRAM", 0x4043, 0, false}, /* PMCx043 bit 6 */
    {"L1_DTLB_MISS.TLB_RELOAD_1G_L2_MISS", 0x8045, 0, false},		      /* PMCx045 bit 7 */
    {"RETIRED_FUSED_INSTRUCTIONS", 0x1000000d0ull, 0, false}, /* PMCx1D0: bits 11:8 at 32 */
};

/* An empty sysfs tree, so that no alias of this host's PMUs answers first. */
static void empty_sysfs(void)
{
	char root[PATH_MAX] = "/tmp/hwprof-vendor-XXXXXX";

	cr_assert_not_null(mkdtemp(root));
	setenv("HWPROF_SYSFS_ROOT", root, 1);
}

static void force_skl(void)
{
	empty_sysfs();
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
}

static void force_zen2(void)
{
	empty_sysfs();
	setenv("LIBPFM_FORCE_PMU", "amd64_fam17h_zen2", 1);
}

static void check_table(const struct published *t, size_t n, const char *pmu)
{
	fake_kernel_install(NULL);
	for (size_t i = 0; i < n; i++) {
		struct hwprof_event_list l;
		struct perf_event_attr attr;
		char err[512];

		cr_assert_eq(hwprof_events_parse(t[i].spec, &l, err, sizeof(err)), 0, "%s: %s",
			     t[i].spec, err);
		cr_assert_eq(l.n, 1);
		hwprof_event_to_attr(&l.ev[0], &attr);
		cr_expect_eq(attr.type, PERF_TYPE_RAW, "%s", t[i].spec);
		cr_expect_eq(attr.config, t[i].config, "%s: config 0x%llx, published 0x%llx",
			     t[i].spec, (unsigned long long)attr.config,
			     (unsigned long long)t[i].config);
		cr_expect_eq(attr.config1, t[i].config1, "%s", t[i].spec);
		cr_expect_str_eq(l.ev[0].vendor, pmu, "%s", t[i].spec);
		cr_expect_eq(l.ev[0].kind, HWPROF_EV_RAW);
		cr_expect_eq(l.ev[0].precise_limit, t[i].precise ? 3 : 0, "%s", t[i].spec);
		/* hwprof's default privilege: user space only. */
		cr_expect(!attr.exclude_user && attr.exclude_kernel, "%s", t[i].spec);
		hwprof_events_free(&l);
	}
	cr_assert_eq(fake_kernel_nopens(), 0, "parsing opened %zu events", fake_kernel_nopens());
	fake_kernel_uninstall();
}

Test(vendor, intel_skylake_published_codes, .init = force_skl)
{
	check_table(skl, sizeof(skl) / sizeof(*skl), "skl");
}

Test(vendor, amd_zen2_published_codes, .init = force_zen2)
{
	check_table(zen2, sizeof(zen2) / sizeof(*zen2), "amd64_fam17h_zen2");
}

static struct hwprof_event one(const char *spec)
{
	struct hwprof_event_list l;
	struct hwprof_event ev;
	char err[512];

	cr_assert_eq(hwprof_events_parse(spec, &l, err, sizeof(err)), 0, "%s: %s", spec, err);
	cr_assert_eq(l.n, 1, "%s", spec);
	ev = l.ev[0];
	hwprof_events_free(&l);
	return ev;
}

static void bad(const char *spec, const char *want)
{
	struct hwprof_event_list l;
	char err[512];

	cr_assert_eq(hwprof_events_parse(spec, &l, err, sizeof(err)), -EINVAL, "%s", spec);
	cr_assert(strstr(err, want), "%s: '%s' lacks '%s'", spec, err, want);
}

Test(vendor, modifiers, .init = force_skl)
{
	struct hwprof_event ev = one("MEM_LOAD_RETIRED.L3_MISS:upp");

	cr_assert_eq(ev.precise_ip, 2);
	cr_assert(!ev.exclude_user && ev.exclude_kernel);
	cr_assert_str_eq(ev.name, "MEM_LOAD_RETIRED.L3_MISS");
	cr_assert_str_eq(ev.spec, "MEM_LOAD_RETIRED.L3_MISS:upp");
	ev = one("MEM_LOAD_RETIRED.L3_MISS:k");
	cr_assert(ev.exclude_user && !ev.exclude_kernel);
	/* libpfm4's attributes and hwprof's modifiers in one list, in any order. */
	ev = one("UOPS_ISSUED.ANY:u:c=1:i");
	cr_assert_eq(ev.config, 0x0180010e);
	cr_assert(!ev.exclude_user && ev.exclude_kernel);
	cr_assert_str_eq(ev.spec, "UOPS_ISSUED.ANY:u:c=1:i");
	ev = one("MEM_TRANS_RETIRED.LOAD_LATENCY:ldlat=50:P");
	cr_assert_eq(ev.config1, 50);
	cr_assert(ev.precise_max);

	/* In a list and a group, with the group's modifiers. */
	struct hwprof_event_list l;
	char err[512];
	cr_assert_eq(hwprof_events_parse("{cycles,MEM_LOAD_RETIRED.L3_MISS:c=2}:k,page-faults", &l,
					 err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(l.n, 3);
	cr_assert_eq(l.ev[1].config, 0x020020d1);
	cr_assert(l.ev[1].exclude_user && !l.ev[1].exclude_kernel);
	cr_assert_str_eq(l.ev[1].spec, "MEM_LOAD_RETIRED.L3_MISS:c=2:k");
	hwprof_events_free(&l);

	bad("INST_RETIRED.ANY_P:p", "cannot be sampled precisely");
	bad("MEM_LOAD_RETIRED.L3_MISS:u=1", "':u=1' is libpfm4's spelling");
	bad("MEM_LOAD_RETIRED.L3_MISS:precise=2", "':precise=2' is libpfm4's spelling");
	bad("MEM_LOAD_RETIRED.NO_SUCH_UMASK", "libpfm4 refuses it");
	bad("MEM_LOAD_RETIRED.L3_MISS:zz=1", "libpfm4 refuses it");
	/* Generic names stay hwprof's own, and their modifier rules too. */
	cr_assert_eq(one("cycles").type, PERF_TYPE_HARDWARE);
	bad("cycles:u:k", "unexpected ':'");
	bad("cycles:c=1", "unknown modifier 'c'");
	bad("cyclez", "did you mean 'cycles'");
}

/* libpfm4's own EVENT:UMASK spelling, with a '_' in the umask, is a vendor event, not a
 * tracepoint "group:name": tracefs has no INST_RETIRED group (the test points tracefs at an
 * empty directory, so nothing of this host's answers). */
Test(vendor, colon_umask_with_underscore_is_libpfm4s, .init = force_skl)
{
	char tracefs[PATH_MAX] = "/tmp/hwprof-vendor-tracefs-XXXXXX";
	struct hwprof_event ev;

	char events[PATH_MAX + 8];

	cr_assert_not_null(mkdtemp(tracefs));
	snprintf(events, sizeof(events), "%s/events", tracefs);
	cr_assert_eq(mkdir(events, 0755), 0);
	setenv("HWPROF_TRACEFS_ROOT", tracefs, 1);
	ev = one("INST_RETIRED:ANY_P");
	cr_assert_eq(ev.kind, HWPROF_EV_RAW);
	cr_assert_eq(ev.config, 0x00c0, "C0H umask 00H: 0x%llx", (unsigned long long)ev.config);
	cr_assert_str_eq(ev.vendor, "skl");
	ev = one("MEM_LOAD_RETIRED:L3_MISS:u");
	cr_assert_eq(ev.config, 0x20d1);
	cr_assert(!ev.exclude_user && ev.exclude_kernel);
	ev = one("BR_MISP_RETIRED:ALL_BRANCHES");
	cr_assert_eq(ev.config, 0x00c5);
	/* Not an event libpfm4 knows either: still an unknown tracepoint. */
	bad("nosys:foo_bar", "unknown tracepoint 'nosys:foo_bar'");
	rmdir(events);
	rmdir(tracefs);
}

Test(vendor, code_text)
{
	char buf[128];

	cr_assert_eq(hwprof_event_code(PERF_TYPE_RAW, 0x20d1, 0, 0, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "raw 0x20d1");
	cr_assert_eq(hwprof_event_code(PERF_TYPE_RAW, 0x1cd, 0x20, 0, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "raw 0x1cd, config1 0x20");
	cr_assert_eq(hwprof_event_code(14, 0x304, 0, 0, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "type 14, config 0x304");
	cr_assert_eq(hwprof_event_code(PERF_TYPE_HARDWARE, 0, 0, 0, buf, sizeof(buf)), -ENOENT);
	cr_assert_str_eq(buf, "");
}

/* This host as it is: an Intel event's name is refused with the reason, whether libpfm4
 * finds no CPU PMU here (a VM without one) or another vendor's (an AMD host). Skipped
 * where the name is an event of this host. */
Test(vendor, foreign_name_says_why, .init = empty_sysfs)
{
	struct hwprof_event_list l;
	char err[512], pmus[256];
	int r;

	unsetenv("LIBPFM_FORCE_PMU");
	r = hwprof_events_parse("MEM_LOAD_RETIRED.L3_MISS", &l, err, sizeof(err));
	if (r == 0) {
		hwprof_events_free(&l);
		cr_skip_test("MEM_LOAD_RETIRED.L3_MISS is an event of this host's PMU");
	}
	cr_assert_eq(r, -EINVAL);
	if (vendor_active_pmus(pmus, sizeof(pmus)) <= 0) {
		cr_assert(strstr(err, "libpfm4 finds no CPU PMU on this host"), "%s", err);
		return;
	}
	cr_assert(strstr(err, "nor an event of this CPU's PMU as libpfm4 knows it"), "%s", err);
	cr_assert(strstr(err, pmus), "names %s: %s", pmus, err);
	cr_assert_eq(hwprof_see_last(), HWPROF_SEE_VENDOR_EVENTS);
}

/* PAPI preset names stand for the generic events; one without a generic event is refused
 * with the reason. */
Test(vendor, papi_presets, .init = empty_sysfs)
{
	struct hwprof_event ev = one("PAPI_TOT_INS:u");
	const char *name, *event, *why;

	cr_assert_eq(ev.type, PERF_TYPE_HARDWARE);
	cr_assert_eq(ev.config, PERF_COUNT_HW_INSTRUCTIONS);
	cr_assert_str_eq(ev.spec, "PAPI_TOT_INS:u");
	ev = one("PAPI_TOT_CYC");
	cr_assert_eq(ev.config, PERF_COUNT_HW_CPU_CYCLES);
	ev = one("PAPI_L1_DCM");
	cr_assert_eq(ev.type, PERF_TYPE_HW_CACHE);
	cr_assert_eq(ev.config, PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
				    PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	ev = one("papi_br_msp");
	cr_assert_eq(ev.config, PERF_COUNT_HW_BRANCH_MISSES);
	ev = one("PAPI_L3_TCM");
	cr_assert_eq(ev.config, PERF_COUNT_HW_CACHE_MISSES);
	ev = one("PAPI_TLB_DM");
	cr_assert_eq(ev.config, PERF_COUNT_HW_CACHE_DTLB | PERF_COUNT_HW_CACHE_OP_READ << 8 |
				    PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	bad("PAPI_L2_TCM", "PAPI preset 'PAPI_L2_TCM': no generic event counts L2 misses");
	bad("PAPI_FP_OPS", "floating-point operations");
	bad("PAPI_NOPE", "unknown PAPI preset 'PAPI_NOPE'");
	cr_assert_eq(hwprof_papi_preset_at(0, &name, &event, &why), 0);
	cr_assert_str_eq(name, "PAPI_TOT_INS");
	cr_assert_str_eq(event, "instructions");
	cr_assert_null(why);
}
