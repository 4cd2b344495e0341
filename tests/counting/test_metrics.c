/* test_metrics.c - derived metrics (common/metrics.c) against hand-computed values. */
#include <criterion/criterion.h>
#include <errno.h>

#include <string.h>

#include "hwprof/metrics.h"

static const struct hwprof_metric *find(const struct hwprof_metric *m, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(m[i].name, name))
			return &m[i];
	return NULL;
}

Test(metrics, ipc_rates_mpki_by_hand)
{
	const struct hwprof_metric_input in[] = {
	    {"instructions:u", 3000000, true},	{"cycles:u", 2000000, true},
	    {"cache-references", 600000, true}, {"cache-misses", 60000, true},
	    {"branches", 300000, true},		{"branch-misses", 9000, true},
	    {"L1-dcache-loads", 1000000, true}, {"L1-dcache-load-misses", 50000, true},
	};
	struct hwprof_metric m[16];
	size_t n = hwprof_metrics_derive(in, 8, m, 16);
	const struct hwprof_metric *x;

	x = find(m, n, "IPC");
	cr_assert_not_null(x);
	cr_assert_float_eq(x->value, 1.5, 1e-12);
	cr_assert_not(x->percent);
	cr_assert_str_eq(x->formula, "instructions / cycles = 3000000 / 2000000");
	x = find(m, n, "LLC miss rate");
	cr_assert_not_null(x);
	cr_assert_float_eq(x->value, 0.1, 1e-12);
	cr_assert(x->percent);
	cr_assert_str_eq(x->formula, "cache-misses / cache-references = 60000 / 600000");
	x = find(m, n, "branch miss rate");
	cr_assert_float_eq(x->value, 0.03, 1e-12);
	x = find(m, n, "L1-dcache miss rate");
	cr_assert_float_eq(x->value, 0.05, 1e-12);
	/* MPKI: misses * 1000 / instructions. */
	x = find(m, n, "cache-misses MPKI");
	cr_assert_not_null(x);
	cr_assert_float_eq(x->value, 20.0, 1e-12);
	x = find(m, n, "branch-misses MPKI");
	cr_assert_float_eq(x->value, 3.0, 1e-12);
	x = find(m, n, "L1-dcache-load-misses MPKI");
	cr_assert_float_eq(x->value, 50.0 / 3, 1e-12);
	cr_assert_eq(n, 7);
}

Test(metrics, llc_loads_preferred_and_pmu_syntax)
{
	const struct hwprof_metric_input in[] = {
	    {"cpu/instructions/", 1000, true}, {"LLC-loads", 400, true},
	    {"LLC-load-misses:pp", 100, true}, {"cache-references", 800, true},
	    {"cache-misses", 400, true},
	};
	struct hwprof_metric m[16];
	size_t n = hwprof_metrics_derive(in, 5, m, 16);
	const struct hwprof_metric *x = find(m, n, "LLC miss rate");

	cr_assert_not_null(x);
	cr_assert_float_eq(x->value, 0.25, 1e-12, "LLC-load-misses / LLC-loads first");
	x = find(m, n, "LLC-load-misses MPKI");
	cr_assert_float_eq(x->value, 100.0, 1e-12);
	cr_assert_null(find(m, n, "IPC"), "no cycles, no IPC");
}

Test(metrics, only_when_counted)
{
	const struct hwprof_metric_input in[] = {
	    {"instructions", 1000, true}, {"cycles", 0, false},	      {"cache-misses", 10, false},
	    {"branches", 0, true},	  {"branch-misses", 0, true},
	};
	struct hwprof_metric m[16];
	size_t n = hwprof_metrics_derive(in, 5, m, 16);

	cr_assert_null(find(m, n, "IPC"));
	cr_assert_null(find(m, n, "cache-misses MPKI"));
	cr_assert_null(find(m, n, "branch miss rate"), "no division by zero branches");
	cr_assert_not_null(find(m, n, "branch-misses MPKI"));
	cr_assert_eq(hwprof_metrics_derive(in, 5, m, 0), 0);
	cr_assert_eq(hwprof_metrics_derive(NULL, 0, m, 16), 0);
}

Test(metrics, by_name_and_why_not)
{
	const struct hwprof_metric_input in[] = {
	    {"instructions", 0, false},	 {"cycles:u", 0, false},    {"branches", 500, true},
	    {"branch-misses", 0, false}, {"task-clock", 1e6, true},
	};
	const char *why[] = {"not supported on this host", "not supported on this host", NULL, NULL,
			     NULL};
	const char *canon, *name;
	char buf[256];

	cr_assert_eq(hwprof_metric_events("IPC", buf, sizeof(buf), &canon), 0);
	cr_assert_str_eq(buf, "{instructions,cycles}");
	cr_assert_str_eq(canon, "IPC");
	cr_assert_eq(hwprof_metric_events("Branch miss_rate", buf, sizeof(buf), &canon), 0);
	cr_assert_str_eq(buf, "{branch-misses,branches}");
	cr_assert_str_eq(canon, "branch miss rate");
	cr_assert_eq(hwprof_metric_events("IPCX", buf, sizeof(buf), NULL), -ENOENT);
	cr_assert_eq(hwprof_metric_name_at(0, &name), 0);
	cr_assert_str_eq(name, "IPC");

	cr_assert_eq(hwprof_metric_why_not("IPC", in, 5, why, buf, sizeof(buf)), 1);
	cr_assert_str_eq(buf, "IPC: needs cycles and instructions (not supported on this host)");
	cr_assert_eq(hwprof_metric_why_not("branch-miss-rate", in, 5, why, buf, sizeof(buf)), 1);
	cr_assert_str_eq(buf, "branch miss rate: needs branch-misses (not counted)");
	cr_assert_eq(hwprof_metric_why_not("dTLB-miss-rate", in, 5, why, buf, sizeof(buf)), 2);
	cr_assert_str_eq(buf, "dTLB miss rate: needs dTLB-loads and dTLB-load-misses (not in the "
			      "event list)");
	cr_assert_eq(hwprof_metric_why_not("IPC", in + 4, 1, NULL, buf, sizeof(buf)), 2);
	const struct hwprof_metric_input ok[] = {{"instructions", 10, true}, {"cycles", 5, true}};
	cr_assert_eq(hwprof_metric_why_not("IPC", ok, 2, NULL, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "");
	const struct hwprof_metric_input half[] = {{"cycles", 5, true}};
	cr_assert_eq(hwprof_metric_why_not("IPC", half, 1, NULL, buf, sizeof(buf)), 1);
	cr_assert_str_eq(buf, "IPC: needs instructions (not in the event list)");
	cr_assert_eq(hwprof_metric_why_not("nosuch", ok, 2, NULL, buf, sizeof(buf)), -ENOENT);
}
