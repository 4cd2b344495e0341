/* steady.c - a fixed amount of arithmetic on one CPU: the steady target of the "CPU that
 * recording adds" rows. The sqlite driver's CPU time swings by a tenth from run to run on a
 * shared host (its memory and caches see the neighbours), more than the few milliseconds a
 * profiler adds; a loop in registers varies by about 1 % here, so what sampling costs shows.
 *
 * usage: steady [ITERATIONS]   (default 1000000000, about 1.1 s here)
 *
 * Prints its own elapsed and CPU time (getrusage(2), user + system) the way
 * sqlite_driver does, so bench/run reads both the same way. Exit 0; 2 on a bad argument.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

int main(int argc, char **argv)
{
	uint64_t n = 1000000000ULL, x = 1;
	double t0 = now_ms();
	char *end;

	if (argc > 1) {
		n = strtoull(argv[1], &end, 10);
		if (*end || !n) {
			fprintf(stderr, "usage: steady [ITERATIONS]\n");
			return 2;
		}
	}
	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL; /* HOT: steady */
		__asm__ volatile("" : "+r"(x));
	}
	printf("steady: %llu iterations, checksum %llu, elapsed_ms %.1f, cpu_ms %.1f\n",
	       (unsigned long long)n, (unsigned long long)(x & 0xffff), now_ms() - t0, cpu_ms());
	return 0;
}
