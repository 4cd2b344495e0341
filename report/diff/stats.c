/* stats.c - a diff row's delta, relative change, z statistic and Holm's adjusted p-value.
 *
 * Each sample of a recording lands on a row or not, so a row's share is a binomial
 * proportion of the recording's samples (the model report's Wilson intervals rest on). Two
 * recordings give two independent proportions: the pooled two-proportion z-test asks whether
 * they differ by more than sampling explains. With thousands of samples the normal
 * approximation is close; a row with a handful of samples gets a small z and stays
 * "not significant", which is the safe side.
 *
 * Many rows are tested at once: at alpha 0.05, forty unchanged rows would give two false
 * "significant" rows per diff. Holm's step-down method keeps the chance of any false one at
 * alpha, with no assumption about how the rows depend on each other (the shares of one
 * recording are negatively correlated: they sum to 1); docs/diff.md says why Holm and not
 * Benjamini-Hochberg.
 */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

double diff_delta_points(double base, double new_share)
{
	return (new_share - base) * 100;
}

double diff_relative_change(double base, double new_share)
{
	if (base > 0)
		return (new_share - base) / base;
	return new_share > 0 ? INFINITY : NAN;
}

double diff_two_proportion_z(double k1, double n1, double k2, double n2)
{
	double pooled, se;

	if (n1 <= 0 || n2 <= 0)
		return 0;
	pooled = (k1 + k2) / (n1 + n2);
	if (pooled <= 0 || pooled >= 1)
		return 0;
	se = sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
	return (k2 / n2 - k1 / n1) / se;
}

double diff_two_rate_z(double k1, double e1, double k2, double e2)
{
	double rate;

	if (e1 <= 0 || e2 <= 0 || k1 + k2 <= 0)
		return 0;
	rate = (k1 + k2) / (e1 + e2);
	return (k2 / e2 - k1 / e1) / sqrt(rate * (1 / e1 + 1 / e2));
}

bool diff_z_fair(double k1, double n1, double k2, double n2)
{
	double n = n1 + n2, k = k1 + k2;

	if (n <= 0)
		return false;
	return k * n1 / n >= 5 && k * n2 / n >= 5 && (n - k) * n1 / n >= 5 && (n - k) * n2 / n >= 5;
}

static double log_choose(double n, double k)
{
	return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1);
}

/* The outcomes no more likely than the one seen, summed: LOGP(x) for x in [LO, HI], the
 * observed at X. A relative slack of 1e-7 keeps an outcome exactly as likely as the one seen
 * (a symmetric table) in, whatever the rounding of lgamma(). */
static double sum_tail(double (*logp)(const double *, double), const double *arg, double lo,
		       double hi, double x)
{
	double seen = logp(arg, x), sum = 0;

	for (double v = lo; v <= hi; v++) {
		double l = logp(arg, v);
		if (l <= seen + 1e-7)
			sum += exp(l);
	}
	return fmin(sum, 1);
}

/* arg: n1, n2, K (the row's samples), log C(N, K). */
static double hyper_logp(const double *a, double x)
{
	return log_choose(a[1], x) + log_choose(a[0], a[2] - x) - a[3];
}

double diff_fisher_p(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2)
{
	double a[4] = {(double)n1, (double)n2, (double)(k1 + k2)};
	double lo = a[2] > a[0] ? a[2] - a[0] : 0, hi = fmin(a[2], a[1]);

	if (hi - lo > DIFF_EXACT_MAX)
		return NAN;
	a[3] = log_choose(a[0] + a[1], a[2]);
	return sum_tail(hyper_logp, a, lo, hi, (double)k2);
}

/* arg: n, log q, log (1 - q). */
static double binom_logp(const double *a, double x)
{
	return log_choose(a[0], x) + (x > 0 ? x * a[1] : 0) +
	       (a[0] - x > 0 ? (a[0] - x) * a[2] : 0);
}

double diff_binomial_p(uint64_t k, uint64_t n, double q)
{
	double a[3] = {(double)n, log(q), log1p(-q)};

	if (n > DIFF_EXACT_MAX)
		return NAN;
	return sum_tail(binom_logp, a, 0, (double)n, (double)k);
}

double diff_p_two_sided(double z)
{
	return erfc(fabs(z) / sqrt(2));
}

struct ranked {
	double p;
	size_t i;
};

static int by_p(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The i-th smallest p-value (from 0) is multiplied by the N - i hypotheses still standing,
 * and an adjusted value is never below the one before it: a row is significant only if every
 * row with a smaller p-value is. */
int diff_holm(const double *p, size_t n, double *adj)
{
	struct ranked *r = malloc((n ? n : 1) * sizeof(*r));
	double run = 0;

	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		r[i] = (struct ranked){.p = isnan(p[i]) ? 1 : p[i], .i = i};
	qsort(r, n, sizeof(*r), by_p);
	for (size_t k = 0; k < n; k++) {
		double v = r[k].p * (double)(n - k);

		run = fmax(run, fmin(v, 1));
		adj[r[k].i] = run;
	}
	free(r);
	return 0;
}
