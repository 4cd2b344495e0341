/* spin.c - burns CPU: forever, or until it has used argv[1] ms of CPU time. For the tests of
 * how record stops a target and its children, and of the sample rate per CPU-second. */
#include <stdlib.h>
#include <time.h>

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double limit = argc > 1 ? atof(argv[1]) : -1;
	volatile unsigned long s = 0;

	for (;;) {
		for (int i = 0; i < 1000000; i++)
			s++;
		if (limit >= 0 && cpu_ms() >= limit)
			return 0;
	}
}
