/* sampfile_stats.c - counts what a sample file holds, through the project's reader
 * (hwprof/sampfile.h), independently of `hwprof report`'s output format.
 *
 * usage: sampfile_stats FILE
 *
 * Prints key=value lines on stdout: samples (SAMPLE records read), lost (sum of LOST records),
 * throttles, mmaps, trailer_samples, trailer_lost (-1 without a trailer), status (ok,
 * truncated, corrupt). Exit 0, 2 when the file does not open (message on stderr).
 */
#include <stdio.h>

#include "hwprof/sampfile.h"

int main(int argc, char **argv)
{
	struct hwprof_reader *r;
	struct hwprof_record rec;
	const struct hwprof_file_trailer *tr;
	unsigned long long samples = 0, lost = 0, throttles = 0, mmaps = 0;
	static const char *const status[] = {"ok", "truncated", "corrupt"};
	enum hwprof_read_status st;
	const char *msg;
	char err[512] = "";
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: sampfile_stats FILE\n");
		return 64;
	}
	rc = hwprof_reader_open(&r, argv[1], err, sizeof(err));
	if (rc) {
		fprintf(stderr, "sampfile_stats: %s: %s\n", argv[1], err[0] ? err : "cannot open");
		return 2;
	}
	while (hwprof_reader_next(r, &rec) == 1) {
		switch (rec.type) {
		case HWPROF_REC_SAMPLE:
			samples++;
			break;
		case HWPROF_REC_LOST:
			lost += rec.lost.lost;
			break;
		case HWPROF_REC_THROTTLE:
			throttles++;
			break;
		case HWPROF_REC_MMAP:
			mmaps++;
			break;
		default:
			break;
		}
	}
	st = hwprof_reader_status(r, &msg);
	tr = hwprof_reader_trailer(r);
	printf("samples=%llu\nlost=%llu\nthrottles=%llu\nmmaps=%llu\n", samples, lost, throttles,
	       mmaps);
	printf("trailer_samples=%lld\ntrailer_lost=%lld\n", tr ? (long long)tr->samples : -1LL,
	       tr ? (long long)tr->lost : -1LL);
	printf("status=%s\n", (unsigned)st < 3 ? status[st] : "unknown");
	if (msg)
		printf("message=%s\n", msg);
	hwprof_reader_close(r);
	return 0;
}
