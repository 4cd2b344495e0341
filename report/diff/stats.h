/* stats.h - the numbers of one diff row: the change of a share, and whether the samples
 * say it is real (a two-proportion z-test, Holm's correction for the rows compared).
 */
#ifndef HWPROF_DIFF_STATS_H
#define HWPROF_DIFF_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The change of a share from BASE to NEW (both 0..1), in percentage points: +10 when a row
 * went from 20% to 30% of the samples. */
double diff_delta_points(double base, double new_share);

/* The change relative to BASE: (NEW - BASE) / BASE, +0.5 for 20% -> 30%. BASE 0: +infinity
 * when NEW > 0 (the row is new), NaN when both are 0. */
double diff_relative_change(double base, double new_share);

/* The two-proportion z statistic of K1 of N1 samples against K2 of N2, pooled under "the
 * two shares are equal": (K2/N2 - K1/N1) / sqrt(p (1 - p) (1/N1 + 1/N2)), p = (K1 + K2) /
 * (N1 + N2). Positive when the second share is the larger. K may be fractional (a
 * period-weighted share times N). 0 when N1 or N2 is 0 or the pooled share is 0 or 1
 * (nothing to tell apart). */
double diff_two_proportion_z(double k1, double n1, double k2, double n2);

/* The z statistic of two Poisson rates: K1 events over exposure E1 against K2 over E2 (e.g.
 * samples over instructions), pooled under "the rates are equal": (K2/E2 - K1/E1) /
 * sqrt(r (1/E1 + 1/E2)), r = (K1 + K2) / (E1 + E2). 0 when an exposure is 0 or K1 + K2 is. */
double diff_two_rate_z(double k1, double e1, double k2, double e2);

/* Fisher's exact test of K1 of N1 samples against K2 of N2 (integers, K <= N): the two-sided
 * p-value, the probability under "equal shares" (given the row's K1 + K2 samples, the
 * hypergeometric law of the new side's share of them) of a table no more likely than the one
 * seen. For rows whose expected counts are too small for diff_two_proportion_z(). Returns
 * NaN when the support has more than DIFF_EXACT_MAX values (use the z-test there). */
double diff_fisher_p(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2);

/* The exact two-sided binomial test of K successes in N trials of probability Q (0..1): for
 * two Poisson counts, the new side's K of the row's N samples against Q = E2 / (E1 + E2).
 * NaN when N > DIFF_EXACT_MAX. */
double diff_binomial_p(uint64_t k, uint64_t n, double q);

/* The largest support the exact tests sum over. */
#define DIFF_EXACT_MAX 1000000u

/* Whether the normal approximation of a 2x2 table of samples (the row's K1 of N1, K2 of N2)
 * is fair: every expected count at least 5, the usual rule (Cochran). */
bool diff_z_fair(double k1, double n1, double k2, double n2);

/* The two-sided p-value of a standard normal statistic Z: P(|X| >= |Z|), in 0..1. */
double diff_p_two_sided(double z);

/* Holm's step-down adjustment of the N p-values P into ADJ (may be P itself): a row is
 * significant at level alpha when ADJ <= alpha, which keeps the chance of any false
 * "significant" among the N rows at most alpha. N may be 0. Returns 0, or -ENOMEM (ADJ
 * unchanged). */
int diff_holm(const double *p, size_t n, double *adj);

#endif
