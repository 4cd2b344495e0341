/* ci.c - the 95% Wilson score interval of a share.
 *
 * Each sample lands on a row or not: the row's share is a binomial proportion over the
 * profile's samples. Wilson's interval stays inside [0, 1] and behaves at small counts, where
 * the normal approximation (share +- 1.96 sd) gives negative lows.
 */
#include "rows.h"

#include <math.h>

void profile_wilson95(double k, double n, double *lo, double *hi)
{
	const double z = 1.959963984540054; /* two-sided 95% normal quantile */
	double p, z2n, denom, center, half;

	if (n <= 0) {
		*lo = 0;
		*hi = 1;
		return;
	}
	p = k / n;
	if (p < 0)
		p = 0;
	if (p > 1)
		p = 1;
	z2n = z * z / n;
	denom = 1 + z2n;
	center = (p + z2n / 2) / denom;
	half = z * sqrt(p * (1 - p) / n + z2n / (4 * n)) / denom;
	*lo = center - half < 0 ? 0 : center - half;
	*hi = center + half > 1 ? 1 : center + half;
}
