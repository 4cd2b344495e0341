/* two_threads.c - two threads busy on the CPU for a fixed time: the workload for "lost samples
 * at 10 kHz" (each thread gives the kernel 10000 samples a second to write).
 *
 * usage: two_threads [SECONDS]   (default 3)
 *
 * Each thread spins on arithmetic until SECONDS of wall time have passed, checking the clock
 * every 2^16 iterations. Prints the sum so the loop is not optimised away. Exit 0.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds = 3;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *spin(void *arg)
{
	uint64_t x = (uintptr_t)arg + 1, i = 0;
	double end = now() + seconds;

	for (;;) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL; /* HOT: spin */
		if ((++i & 0xffff) == 0 && now() >= end)
			break;
	}
	return (void *)(uintptr_t)x;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	uint64_t sum = 0;

	if (argc > 1) {
		char *end;

		seconds = strtod(argv[1], &end);
		if (*end != '\0' || seconds <= 0 || seconds > 3600) {
			fprintf(stderr, "two_threads: SECONDS '%s': not a number in (0, 3600]\n",
				argv[1]);
			return 64;
		}
	}
	for (int i = 0; i < 2; i++) {
		if (pthread_create(&t[i], NULL, spin, (void *)(uintptr_t)i) != 0) {
			fprintf(stderr, "two_threads: pthread_create failed\n");
			return 2;
		}
	}
	for (int i = 0; i < 2; i++) {
		void *r;

		pthread_join(t[i], &r);
		sum += (uintptr_t)r;
	}
	printf("two_threads: %.1f s on 2 threads, sum %llu\n", seconds, (unsigned long long)sum);
	return 0;
}
