/* sampfile_speed.c - writes a sample file of N synthetic samples shaped like real recordings
 * and prints its bytes per sample and the time to decode it (hwprof_reader_next over every
 * record). Not a test: figures for docs/format.md. Usage: sampfile_speed [N] [DIR] */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hwprof/sampfile.h"
#include "sampfile_util.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int run(const char *name, void (*gen)(struct hwprof_rec_sample *, size_t, uint64_t),
	       size_t n, const char *dir)
{
	struct hwprof_file_header h;
	struct hwprof_rec_sample *s = calloc(n, sizeof(*s));
	struct hwprof_writer *w;
	struct hwprof_reader *r;
	struct hwprof_record rec;
	struct stat st0, st1;
	char path[4096], err[256];
	int ret = 1;

	if (!s)
		return 1;
	snprintf(path, sizeof(path), "%s/sampfile-speed-%d.data", dir, (int)getpid());
	tu_header(&h);
	gen(s, n, 5);
	if (hwprof_writer_open(&w, path, &h))
		goto out;
	stat(path, &st0);
	double t0 = now();
	for (size_t i = 0; i < n; i++) {
		rec = (struct hwprof_record){.type = HWPROF_REC_SAMPLE, .sample = s[i]};
		if (hwprof_writer_add(w, &rec))
			goto out;
	}
	if (hwprof_writer_close(w, NULL))
		goto out;
	double t1 = now();
	stat(path, &st1);
	double best = 1e9;
	uint64_t got = 0, sum = 0;
	for (int rep = 0; rep < 5; rep++) {
		double t2 = now();
		if (hwprof_reader_open(&r, path, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			goto out;
		}
		got = 0;
		while (hwprof_reader_next(r, &rec) == 1) {
			got += rec.type == HWPROF_REC_SAMPLE;
			sum += rec.sample.ip;
		}
		hwprof_reader_close(r);
		double t3 = now();
		if (t3 - t2 < best)
			best = t3 - t2;
	}
	printf(
	    "%-22s %zu samples: %.2f bytes/sample, write %.1f ms, decode %.1f ms (best of 5)%s\n",
	    name, n, (double)(st1.st_size - st0.st_size) / (double)n, (t1 - t0) * 1e3, best * 1e3,
	    got == n && sum ? "" : " MISMATCH");
	ret = got == n ? 0 : 1;
out:
	unlink(path);
	free(s);
	return ret;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	const char *dir = argc > 2 ? argv[2] : "/tmp";

	return run("cpu-clock 4 kHz", tu_cpu_clock, n, dir) |
	       run("page-faults -c 1", tu_page_faults, n, dir) |
	       run("freq mode (-F)", tu_freq, n, dir);
}
