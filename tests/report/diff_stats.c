/* diff_stats.c - report/diff/stats.c against values worked out by hand and with python3's
 * math module (the expressions are in each test's comment). */
#include <criterion/criterion.h>

#include <math.h>

#include "stats.h"

#define near(a, b, eps) cr_assert(fabs((a) - (b)) <= (eps), "%.15g, want %.15g", (a), (b))

Test(diff_stats, delta_and_relative_change)
{
	near(diff_delta_points(0.20, 0.30), 10.0, 1e-12);
	near(diff_delta_points(0.5, 0.25), -25.0, 1e-12);
	near(diff_relative_change(0.20, 0.30), 0.5, 1e-12);
	near(diff_relative_change(0.5, 0.25), -0.5, 1e-12);
	cr_assert(isinf(diff_relative_change(0, 0.1)) && diff_relative_change(0, 0.1) > 0);
	cr_assert(isnan(diff_relative_change(0, 0)));
	near(diff_relative_change(0.1, 0), -1.0, 1e-12);
}

/* pooled p = 250/2000 = 0.125; se = sqrt(0.125 * 0.875 * (1/1000 + 1/1000)) = 0.0147902;
 * z = 0.05 / se = 3.3806170189140654 (python3). */
Test(diff_stats, two_proportion_z)
{
	near(diff_two_proportion_z(100, 1000, 150, 1000), 3.3806170189140654, 1e-12);
	near(diff_two_proportion_z(150, 1000, 100, 1000), -3.3806170189140654, 1e-12);
	/* Unequal sizes: 500 of 2000 against 500 of 1000: 13.69306393762915. */
	near(diff_two_proportion_z(500, 2000, 500, 1000), 13.69306393762915, 1e-10);
	/* Equal shares, and the cases with nothing to tell apart. */
	near(diff_two_proportion_z(10, 100, 20, 200), 0, 1e-12);
	cr_assert_eq(diff_two_proportion_z(0, 100, 0, 200), 0);
	cr_assert_eq(diff_two_proportion_z(100, 100, 200, 200), 0);
	cr_assert_eq(diff_two_proportion_z(1, 0, 1, 10), 0);
}

/* rate = 300 / 2e4; z = (0.02 - 0.01) / sqrt(0.015 * 2e-4) = 5.773502691896257. */
Test(diff_stats, two_rate_z)
{
	near(diff_two_rate_z(100, 1e4, 200, 1e4), 5.773502691896257, 1e-12);
	near(diff_two_rate_z(200, 1e4, 100, 1e4), -5.773502691896257, 1e-12);
	/* The same rate over different work: no change. */
	near(diff_two_rate_z(100, 1e4, 300, 3e4), 0, 1e-12);
	cr_assert_eq(diff_two_rate_z(0, 1e4, 0, 1e4), 0);
	cr_assert_eq(diff_two_rate_z(5, 0, 5, 1e4), 0);
}

/* erfc(1.959963984540054 / sqrt(2)) = 0.05; erfc(3 / sqrt(2)) = 0.0026997960632601913;
 * 2 * (1 - NormalDist().cdf(2.5)) = 0.012419330651552318 (python3's statistics). */
Test(diff_stats, p_two_sided)
{
	near(diff_p_two_sided(1.959963984540054), 0.05, 1e-12);
	near(diff_p_two_sided(-1.959963984540054), 0.05, 1e-12);
	near(diff_p_two_sided(3), 0.0026997960632601913, 1e-15);
	near(diff_p_two_sided(2.5), 0.012419330651552318, 1e-12);
	near(diff_p_two_sided(0), 1.0, 1e-15);
}

/* python3: sum of comb(n2, x) * comb(n1, K - x) / comb(N, K) over the tables no more likely
 * than the one seen. */
Test(diff_stats, fisher)
{
	near(diff_fisher_p(0, 6674, 2, 355), 0.002543936806885014, 1e-12);
	near(diff_fisher_p(3, 10, 7, 10), 0.1788954079975752, 1e-10);
	near(diff_fisher_p(1, 100, 5, 100), 0.21164785269573166, 1e-10);
	near(diff_fisher_p(5, 100, 5, 100), 1.0, 1e-12);
	cr_assert(!diff_z_fair(0, 6674, 2, 355));
	cr_assert(diff_z_fair(100, 1000, 150, 1000));
	cr_assert(!diff_z_fair(1, 0, 1, 10));
}

/* python3: comb(K, x) q^x (1-q)^(K-x) summed the same way. */
Test(diff_stats, binomial)
{
	near(diff_binomial_p(2, 2, 355.0 / 7029), 0.002550760126517702, 1e-12);
	near(diff_binomial_p(7, 10, 0.5), 0.34375, 1e-12);
	near(diff_binomial_p(1, 12, 0.5), 0.00634765625, 1e-12);
	near(diff_binomial_p(0, 0, 0.3), 1.0, 1e-12);
}

/* Sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04, each at least
 * the one before: 0.02, 0.03, 0.06, 0.06, back in the input order. */
Test(diff_stats, holm)
{
	double p[] = {0.01, 0.04, 0.03, 0.005}, adj[4];

	cr_assert_eq(diff_holm(p, 4, adj), 0);
	near(adj[0], 0.03, 1e-12);
	near(adj[1], 0.06, 1e-12);
	near(adj[2], 0.06, 1e-12);
	near(adj[3], 0.02, 1e-12);
	/* In place, capped at 1, a NaN counted as 1. */
	double q[] = {0.5, NAN, 0.2};
	cr_assert_eq(diff_holm(q, 3, q), 0);
	near(q[2], 0.6, 1e-12);
	near(q[0], 1.0, 1e-12);
	near(q[1], 1.0, 1e-12);
	cr_assert_eq(diff_holm(NULL, 0, NULL), 0);
}
