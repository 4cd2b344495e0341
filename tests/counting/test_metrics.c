/* test_metrics.c - derived metrics (common/metrics.c) against hand-computed values. */
#include <criterion/criterion.h>

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
