/* perf2hwprof.c - converts a perf recording, as printed by perf script, into a hwprof sample
 * file (hwprof/sampfile.h), so that `hwprof report` and `perf report` can be compared on the
 * very same samples: with the same samples, any difference in the top lines is a difference
 * in symbolization, not sampling noise.
 *
 * usage: perf script -i perf.data -F pid,tid,time,period,ip --ns --show-mmap-events \
 *            --show-task-events | perf2hwprof EVENT FREQ OUT
 *
 * Reads these perf script lines from stdin and ignores every other line:
 *   PID/TID SEC.NSEC: PERF_RECORD_MMAP2 PID/TID: [0xSTART(0xLEN) @ PGOFF ...]: PROT PATH
 *   PID/TID SEC.NSEC: PERF_RECORD_COMM exec: NAME:PID/TID
 *   PID/TID SEC.NSEC: PERIOD IP
 * Only executable mappings (PROT with x) become MMAP records; build-ids are left unknown (the
 * report reads them from the files). EVENT (e.g. cpu-clock:u) and FREQ (Hz) fill the header's
 * event as a software cpu-clock sampled by frequency.
 *
 * Output: "perf2hwprof: N samples, M mmaps, B bytes" on stdout. Exit 0, 2 on error, 64 usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hwprof/sampfile.h"

static int fail(const char *what, int err)
{
	fprintf(stderr, "perf2hwprof: %s: %s\n", what, strerror(err));
	return 2;
}

/* "SEC.NSEC" → ns. */
static uint64_t parse_time(const char *s)
{
	unsigned long long sec = 0, nsec = 0;

	sscanf(s, "%llu.%llu", &sec, &nsec);
	return (uint64_t)sec * 1000000000ULL + nsec;
}

/* One perf script line → a record in REC; returns 1 when REC was filled. PATH/COMM point into
 * LINE. */
static int parse_line(char *line, struct hwprof_record *rec)
{
	unsigned pid, tid;
	char tbuf[64];
	int n = 0;
	char *rest, *p;

	if (sscanf(line, " %u/%u %63[0-9.]:%n", &pid, &tid, tbuf, &n) != 3 || n == 0)
		return 0;
	rest = line + n;
	memset(rec, 0, sizeof(*rec));
	if ((p = strstr(rest, "PERF_RECORD_MMAP2 "))) {
		unsigned long long start, len, pgoff;
		char *close = strstr(p, "]: ");

		if (!close ||
		    sscanf(strchr(p, '['), "[0x%llx(0x%llx) @ %llx", &start, &len, &pgoff) != 3)
			return 0;
		p = close + 3; /* "r-xp /path" */
		if (strlen(p) < 5 || p[2] != 'x' || !strchr(p, ' '))
			return 0;
		rec->type = HWPROF_REC_MMAP;
		rec->mmap.pid = pid;
		rec->mmap.tid = tid;
		rec->mmap.time = parse_time(tbuf);
		rec->mmap.start = start;
		rec->mmap.len = len;
		rec->mmap.pgoff = pgoff;
		rec->mmap.prot = PROT_READ | PROT_EXEC;
		rec->mmap.flags = MAP_PRIVATE;
		rec->mmap.filename = strchr(p, ' ') + 1;
		return 1;
	}
	if ((p = strstr(rest, "PERF_RECORD_COMM exec: "))) {
		char *name = p + strlen("PERF_RECORD_COMM exec: "), *colon = strrchr(name, ':');

		if (!colon)
			return 0;
		*colon = '\0';
		rec->type = HWPROF_REC_COMM;
		rec->comm = (struct hwprof_rec_comm){
		    .pid = pid, .tid = tid, .time = parse_time(tbuf), .exec = true, .comm = name};
		return 1;
	}
	{
		unsigned long long period, ip;

		if (strstr(rest, "PERF_RECORD") || sscanf(rest, " %llu %llx", &period, &ip) != 2)
			return 0;
		rec->type = HWPROF_REC_SAMPLE;
		rec->sample = (struct hwprof_rec_sample){
		    .pid = pid,
		    .tid = tid,
		    .time = parse_time(tbuf),
		    .ip = ip,
		    .period = period,
		    .kernel = ip >= 0xffff800000000000ULL,
		};
		return 1;
	}
}

int main(int argc, char **argv)
{
	struct hwprof_file_header h;
	struct hwprof_file_event ev = {.type = 1 /* PERF_TYPE_SOFTWARE */,
				       .config = 0,
				       .sampling = true,
				       .freq = true,
				       .exclude_kernel = true,
				       .exclude_hv = true};
	struct hwprof_file_trailer tr = {.exit_status = INT32_MIN};
	struct hwprof_writer *w = NULL;
	struct hwprof_record rec;
	uint64_t samples = 0, mmaps = 0, first = 0, last = 0;
	char *line = NULL, *end;
	size_t cap = 0;
	ssize_t len;
	int err;

	if (argc != 4) {
		fprintf(stderr, "usage: perf script ... | perf2hwprof EVENT FREQ OUT\n");
		return 64;
	}
	snprintf(ev.name, sizeof(ev.name), "%s", argv[1]);
	ev.period_or_freq = strtoull(argv[2], &end, 10);
	if (*end || !ev.period_or_freq) {
		fprintf(stderr, "perf2hwprof: FREQ '%s': not a positive number\n", argv[2]);
		return 64;
	}
	ev.exclude_kernel = strstr(argv[1], ":u") != NULL;
	err = hwprof_header_init(&h);
	if (err)
		return fail("hwprof_header_init", -err);
	h.argc = 1;
	h.argv = (char *[]){"perf-script"};
	h.nevents = 1;
	h.events = &ev;
	err = hwprof_writer_open(&w, argv[3], &h);
	if (err)
		return fail(argv[3], -err);
	while (!err && (len = getline(&line, &cap, stdin)) > 0) {
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (!parse_line(line, &rec))
			continue;
		if (rec.type == HWPROF_REC_SAMPLE) {
			samples++;
			first = first ? first : rec.sample.time;
			last = rec.sample.time;
		}
		mmaps += rec.type == HWPROF_REC_MMAP;
		err = hwprof_writer_add(w, &rec);
	}
	free(line);
	tr.samples = samples;
	tr.duration_ns = last - first;
	if (err) {
		hwprof_writer_close(w, NULL);
		return fail(argv[3], -err);
	}
	printf("perf2hwprof: %" PRIu64 " samples, %" PRIu64 " mmaps, %" PRIu64 " bytes\n", samples,
	       mmaps, hwprof_writer_bytes(w));
	err = hwprof_writer_close(w, &tr);
	return err ? fail(argv[3], -err) : 0;
}
