/* gen_synth.c - writes a synthetic recording for measuring `hwprof report`'s speed:
 *   gen_synth OUT BINARY SAMPLES [DISTINCT]
 * BINARY (with debug info) is "mapped" at a PIE-like address in 4 threads of one process;
 * SAMPLES samples fall on DISTINCT addresses of its executable segment (default 20000), with
 * a skewed (Zipf-like) spread as real profiles have. Not a test: docs/report.md has numbers. */
#include "synth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct hwprof_file_event ev = {.name = "cpu-clock",
				       .type = 1,
				       .config = 0,
				       .sampling = true,
				       .freq = true,
				       .period_or_freq = 4000};
	struct hwprof_file_trailer t = {.exit_status = 0};
	struct hwprof_record r;
	struct synth s;
	uint64_t n, distinct, *ips;
	int ret;

	if (argc < 4) {
		fprintf(stderr, "usage: gen_synth OUT BINARY SAMPLES [DISTINCT]\n");
		return 64;
	}
	n = strtoull(argv[3], NULL, 0);
	distinct = argc > 4 ? strtoull(argv[4], NULL, 0) : 20000;
	if (synth_begin(&s, "gen_synth", argv[1], argv[2], argv[2], "synth", &ev, 1))
		return 2;
	ips = malloc(distinct * sizeof(*ips));
	srand(1);
	for (uint64_t i = 0; i < distinct; i++)
		ips[i] = s.base + s.off + (uint64_t)rand() % s.filesz;
	for (uint64_t i = 0; i < n; i++) {
		/* Zipf-like: index = distinct^u - 1 for uniform u. */
		double u = (double)rand() / RAND_MAX;
		uint64_t k = (uint64_t)pow((double)distinct, u) - 1;
		r.type = HWPROF_REC_SAMPLE;
		r.sample = (struct hwprof_rec_sample){.pid = 1000,
						      .tid = 1000 + (uint32_t)(i % 4),
						      .cpu = (uint32_t)(i % 2),
						      .time = 10 + i * 250000,
						      .ip = ips[k < distinct ? k : distinct - 1],
						      .period = 250000};
		if ((ret = hwprof_writer_add(s.w, &r)) < 0) {
			fprintf(stderr, "gen_synth: %s\n", strerror(-ret));
			return 2;
		}
	}
	t.samples = n;
	t.duration_ns = n * 250000 / 4;
	ret = synth_end(&s, &t);
	printf("gen_synth: %llu samples, %llu distinct addresses, %s\n", (unsigned long long)n,
	       (unsigned long long)distinct, argv[1]);
	free(ips);
	return ret;
}
