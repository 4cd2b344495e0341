/* steady.c - a fixed amount of arithmetic on one CPU: the steady target of the "CPU that
 * recording adds" rows. The sqlite driver's CPU time swings from run to run on a shared host
 * (its memory and caches see the neighbours) by more than what a profiler adds; a loop in
 * registers varies far less, so what sampling costs shows.
 *
 * usage: steady [ITERATIONS]   (default 1000000000, about 1.1 s here)
 *
 * Prints the elapsed and CPU time of its loop (CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID) in
 * sqlite_driver's words, so bench/run reads both the same way. Exit 0; 2 on a bad argument.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double ms(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	uint64_t n = 1000000000ULL, x = 1;
	double t0 = ms(CLOCK_MONOTONIC), c0 = ms(CLOCK_PROCESS_CPUTIME_ID);
	char *end;

	if (argc > 1) {
		n = strtoull(argv[1], &end, 10);
		if (argv[1][0] == '-' || *end || !n) {
			fprintf(stderr, "usage: steady [ITERATIONS]\n");
			return 2;
		}
	}
	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL; /* HOT: steady */
		__asm__ volatile("" : "+r"(x));
	}
	printf("steady: %llu iterations, checksum %llu, elapsed_ms %.1f, cpu_ms %.1f\n",
	       (unsigned long long)n, (unsigned long long)(x & 0xffff), ms(CLOCK_MONOTONIC) - t0,
	       ms(CLOCK_PROCESS_CPUTIME_ID) - c0);
	return 0;
}
