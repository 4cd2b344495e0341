/* wl_vdso.c - clock_gettime(2) in a loop: on x86-64 its time is spent in the vDSO
 * (__vdso_clock_gettime), which a report names as perf's does. Loops argv[1] times
 * (default 5000000). */
#include <stdlib.h>
#include <time.h>

volatile long sink;

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 5000000, sum = 0;
	struct timespec ts;

	for (long i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sum += ts.tv_nsec;
	}
	sink = sum;
	return 0;
}
