/* gen_case.c - writes a small synthetic recording of BINARY for report_cli.py and annotate's
 * tests: the cases a real recording gives only by chance (lost samples) or slowly.
 *
 * usage: gen_case OUT BINARY [samples=N] [lost=N] [freq=HZ | period=P] [cmd=WORD]
 *                            [event=NAME] [other=NAME:N]... [count=NAME:VALUE:ENABLED:RUNNING]...
 *                            [sampled=K:COUNT:LOST]... [type=T] [precise=P]
 *                            [at=OFFSET:N]...
 * Samples fall on the first executable segment of BINARY (event 0, "cpu-clock" unless event=
 * names it); each other= adds a sampling event NAME with N samples of its own. lost= goes to
 * a LOST record and the trailer, as record writes them. Each count= adds a counted total to
 * the trailer (ENABLED and RUNNING in ns). Each sampled= gives sampling event K (0 the first,
 * then the other= ones) its own count and lost count in a SAMPLED record ('-': unknown).
 * type= and precise= set event 0's perf type (0 hardware) and precise_ip (requested and
 * obtained); each at= puts N of the samples at file offset OFFSET of BINARY (a known
 * instruction), the rest spread over the segment as before. */
#include "synth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_EVENTS 8
#define MAX_COUNTS 8
#define MAX_AT	   8

int main(int argc, char **argv)
{
	struct hwprof_file_event ev[MAX_EVENTS] = {{.name = "cpu-clock",
						    .type = 1,
						    .sampling = true,
						    .freq = true,
						    .period_or_freq = 4000}};
	uint64_t nsamples = 1000, lost = 0, per_event[MAX_EVENTS] = {0}, period = 250000;
	const char *cmd = NULL;
	struct hwprof_file_trailer t = {.exit_status = 0};
	struct hwprof_file_count counts[MAX_COUNTS];
	struct hwprof_file_sampled sampled[MAX_EVENTS] = {{0}};
	struct hwprof_record r;
	struct synth s;
	uint32_t nev = 1, nat = 0;
	uint64_t at_off[MAX_AT], at_n[MAX_AT];

	if (argc < 3) {
		fprintf(stderr, "usage: gen_case OUT BINARY [key=value]...\n");
		return 64;
	}
	for (int i = 3; i < argc; i++) {
		const char *a = argv[i], *v = strchr(a, '=');
		if (!v)
			return 64;
		v++;
		if (!strncmp(a, "samples=", 8))
			nsamples = strtoull(v, NULL, 0);
		else if (!strncmp(a, "lost=", 5))
			lost = strtoull(v, NULL, 0);
		else if (!strncmp(a, "freq=", 5))
			ev[0].period_or_freq = strtoull(v, NULL, 0);
		else if (!strncmp(a, "period=", 7))
			ev[0].freq = false, ev[0].period_or_freq = period = strtoull(v, NULL, 0);
		else if (!strncmp(a, "cmd=", 4))
			cmd = v;
		else if (!strncmp(a, "event=", 6))
			snprintf(ev[0].name, sizeof(ev[0].name), "%s", v);
		else if (!strncmp(a, "type=", 5))
			ev[0].type = (uint32_t)strtoul(v, NULL, 0);
		else if (!strncmp(a, "precise=", 8))
			ev[0].precise_requested = ev[0].precise_obtained =
			    (uint8_t)strtoul(v, NULL, 0);
		else if (!strncmp(a, "at=", 3) && nat < MAX_AT && strchr(v, ':')) {
			at_off[nat] = strtoull(v, NULL, 0);
			at_n[nat++] = strtoull(strchr(v, ':') + 1, NULL, 0);
		} else if (!strncmp(a, "config=", 7))
			ev[0].config = strtoull(v, NULL, 0);
		else if (!strncmp(a, "count=", 6) && t.ncounts < MAX_COUNTS) {
			struct hwprof_file_count *c = &counts[t.ncounts++];
			unsigned long long val, en, run;
			*c = (struct hwprof_file_count){.counted = true, .scale = 1.0};
			if (sscanf(v, "%191[^:]:%llu:%llu:%llu", c->event, &val, &en, &run) != 4)
				return 64;
			c->value = val;
			c->enabled_ns = en;
			c->running_ns = run;
			t.counts = counts;
		} else if (!strncmp(a, "sampled=", 8)) {
			char *end;
			unsigned long k = strtoul(v, &end, 0);
			if (k >= MAX_EVENTS || *end != ':')
				return 64;
			if (end[1] != '-') {
				sampled[k].count_known = true;
				sampled[k].count = strtoull(end + 1, NULL, 0);
			}
			end = strchr(end + 1, ':');
			if (!end)
				return 64;
			if (end[1] != '-') {
				sampled[k].lost_known = true;
				sampled[k].lost = strtoull(end + 1, NULL, 0);
			}
			t.sampled = sampled;
		} else if (!strncmp(a, "other=", 6) && nev < MAX_EVENTS && strchr(v, ':')) {
			ev[nev] = (struct hwprof_file_event){
			    .type = 1, .sampling = true, .period_or_freq = 1};
			snprintf(ev[nev].name, sizeof(ev[nev].name), "%.*s",
				 (int)(strchr(v, ':') - v), v);
			per_event[nev++] = strtoull(strchr(v, ':') + 1, NULL, 0);
		} else
			return 64;
	}
	if (synth_begin(&s, "gen_case", argv[1], argv[2], cmd ? cmd : argv[2], "case", ev, nev))
		return 2;
	per_event[0] = nsamples;
	for (uint32_t k = 0; k < nev; k++)
		for (uint64_t i = 0; i < per_event[k]; i++) {
			uint64_t ip = s.base + s.off + (i * 64) % s.filesz, left = i;

			for (uint32_t j = 0; !k && j < nat; j++) {
				if (left < at_n[j]) {
					ip = s.base + at_off[j];
					break;
				}
				left -= at_n[j];
			}
			r.type = HWPROF_REC_SAMPLE;
			r.sample = (struct hwprof_rec_sample){.pid = 1000,
							      .tid = 1000,
							      .time = 10 + t.samples * 1000,
							      .ip = ip,
							      .period = k ? 1 : period,
							      .event = (uint16_t)k};
			if (hwprof_writer_add(s.w, &r) < 0)
				return 2;
			t.samples++;
		}
	if (lost) {
		r.type = HWPROF_REC_LOST;
		r.lost = (struct hwprof_rec_lost){.time = 10 + t.samples * 1000, .lost = lost};
		hwprof_writer_add(s.w, &r);
	}
	t.lost = lost;
	t.duration_ns = t.samples * 1000;
	return synth_end(&s, &t);
}
