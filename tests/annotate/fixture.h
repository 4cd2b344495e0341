/* fixture.h - hand-built profiles for annotate's unit tests (until then and besides a real
 * recording: these pin exact shares). The sources are the real workload annotate_work.c /
 * annotate_work.h; line numbers come from their "HOT:" tokens, never written down here.
 * ANNOTATE_SRC (set by meson) is the folder of these files.
 */
#ifndef ANNOTATE_TEST_FIXTURE_H
#define ANNOTATE_TEST_FIXTURE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

static inline const char *fixture_dir(void)
{
	const char *d = getenv("ANNOTATE_SRC");

	cr_assert(d, "ANNOTATE_SRC is not set (meson passes it)");
	return d;
}

/* A path under the fixture folder, in a static buffer per slot. */
static inline const char *fixture_path(int slot, const char *name)
{
	static char buf[4][4096];

	snprintf(buf[slot], sizeof(buf[slot]), "%s/%s", fixture_dir(), name);
	return buf[slot];
}

/* The 1-based line of FILE that holds "HOT: TOKEN" (TOKEN a whole word). */
static inline int hot_line(const char *file, const char *token)
{
	char line[1024], want[128];
	FILE *f = fopen(file, "r");
	int n = 0;

	cr_assert(f, "cannot open %s", file);
	snprintf(want, sizeof(want), "HOT: %s ", token);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, want)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	cr_assert_fail("no 'HOT: %s' in %s", token, file);
	return 0;
}

/* The 1-based line of FILE that contains TEXT. */
static inline int text_line(const char *file, const char *text)
{
	char line[1024];
	FILE *f = fopen(file, "r");
	int n = 0;

	cr_assert(f, "cannot open %s", file);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, text)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	cr_assert_fail("no '%s' in %s", text, file);
	return 0;
}

struct fixture {
	struct profile p;
	struct profile_loc locs[16];
	struct hwprof_file_event event;
	struct hwprof_file_count counts[4];
	int first, second, inlined, call; /* line numbers */
};

/* The workload's function `work` as page-faults with period 1 would record it: 4000 samples
 * on HOT: first, 2000 on HOT: second, 1000 on HOT: inlined (fill_pages, inlined into work),
 * plus `main` with 10 samples in a file that does not exist, and 3 samples without any
 * symbol. The locations are in no particular order on purpose. */
static inline void fixture_init(struct fixture *f)
{
	const char *c = fixture_path(0, "annotate_work.c");
	static char cfile[4096], hfile[4096];

	memset(f, 0, sizeof(*f));
	snprintf(cfile, sizeof(cfile), "%s", c);
	snprintf(hfile, sizeof(hfile), "%s", fixture_path(1, "annotate_work.h"));
	f->first = hot_line(cfile, "first");
	f->second = hot_line(cfile, "second");
	f->inlined = hot_line(hfile, "inlined");
	f->call = text_line(cfile, "fill_pages(c, pages / 4);");

	f->event = (struct hwprof_file_event){
	    .name = "page-faults", .type = 1, .config = 2, .sampling = true, .period_or_freq = 1};
	f->p.header.nevents = 1;
	f->p.header.events = &f->event;
	f->locs[0] = (struct profile_loc){.dso = "/bin/annotate_work",
					  .addr = 0x1010,
					  .function = "work",
					  .file = cfile,
					  .line = f->second,
					  .samples = 2000,
					  .period = 2000};
	f->locs[1] = (struct profile_loc){.dso = "/bin/annotate_work",
					  .addr = 0x1000,
					  .function = "work",
					  .file = cfile,
					  .line = f->first,
					  .samples = 3000,
					  .period = 3000};
	/* The same line at a second address: the model must add them up. */
	f->locs[2] = (struct profile_loc){.dso = "/bin/annotate_work",
					  .addr = 0x1004,
					  .function = "work",
					  .file = cfile,
					  .line = f->first,
					  .samples = 1000,
					  .period = 1000};
	f->locs[3] = (struct profile_loc){.dso = "/bin/annotate_work",
					  .addr = 0x1020,
					  .function = "fill_pages",
					  .inlined_into = "work",
					  .file = hfile,
					  .line = f->inlined,
					  .call_file = cfile,
					  .call_line = f->call,
					  .samples = 1000,
					  .period = 1000};
	f->locs[4] = (struct profile_loc){.dso = "/bin/annotate_work",
					  .addr = 0x2000,
					  .function = "main",
					  .file = "/nonexistent/src/gone.c",
					  .line = 10,
					  .samples = 10,
					  .period = 10};
	f->locs[5] = (struct profile_loc){
	    .dso = "/lib/libc.so.6", .addr = 0x9000, .unknown = true, .samples = 3, .period = 3};
	f->p.locs = f->locs;
	f->p.nlocs = 6;
	f->p.samples = f->p.samples_read = 7013;
	f->p.period = 7013;
	f->p.have_trailer = true;
	f->p.trailer.samples = 7013;
	f->p.trailer.duration_ns = 1500000000;
}

#endif
