/* test_header.c - annotate's header lines (annotate/header.h) and the --stdio text. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "header.h"
#include "textfmt.h"
#include "views.h"

static const struct ann_header_line *find(const struct ann_header *h, const char *text)
{
	for (size_t i = 0; i < h->n; i++)
		if (strstr(h->lines[i].text, text))
			return &h->lines[i];
	return NULL;
}

static void counts(struct fixture *f, uint64_t running_cycles)
{
	f->counts[0] = (struct hwprof_file_count){.event = "instructions",
						  .counted = true,
						  .value = 3000000,
						  .enabled_ns = 1000,
						  .running_ns = 1000};
	f->counts[1] = (struct hwprof_file_count){.event = "cycles",
						  .counted = true,
						  .value = 1000000,
						  .enabled_ns = 1000,
						  .running_ns = running_cycles};
	f->counts[2] = (struct hwprof_file_count){.event = "LLC-load-misses",
						  .counted = true,
						  .value = 6000,
						  .enabled_ns = 1000,
						  .running_ns = 1000};
	f->counts[3] = (struct hwprof_file_count){.event = "LLC-loads", .counted = false};
	f->p.trailer.counts = f->counts;
	f->p.trailer.ncounts = 4;
}

Test(header, event_samples_and_lost)
{
	struct fixture f;
	struct ann_header h;
	const struct ann_header_line *l;

	fixture_init(&f);
	f.p.trailer.lost = 7;
	f.p.samples_read = 7013;
	ann_header_build(&h, &f.p, 0);
	l = find(&h, "event: ");
	cr_assert_not_null(l);
	cr_assert_str_eq(l->text,
			 "event: page-faults  period 1  precise_ip requested 0, obtained 0");
	cr_assert_not(l->warn, "a software event has no skid");
	l = find(&h, "samples: ");
	cr_assert_not_null(l);
	cr_assert(strstr(l->text, "samples: 7,013  lost: 7 (0.1%)"), "%s", l->text);
	cr_assert(strstr(l->text, "duration: 1.500 s"), "%s", l->text);
	cr_assert(l->warn, "lost samples are flagged");
	l = find(&h, "counted: ");
	cr_assert_not_null(l);
	cr_assert(strstr(l->text, "none"), "%s", l->text);
	ann_header_release(&h);
}

Test(header, counted_totals_metrics_and_multiplexing_flag)
{
	struct fixture f;
	struct ann_header h;
	const struct ann_header_line *l;

	fixture_init(&f);
	counts(&f, 850); /* cycles ran 85% of the time: flagged */
	ann_header_build(&h, &f.p, 0);
	l = find(&h, "counted: ");
	cr_assert_not_null(l);
	/* cycles scaled by enabled/running: 1000000 * 1000 / 850. */
	cr_assert(strstr(l->text, "cycles 1,176,471"), "%s", l->text);
	cr_assert(strstr(l->text, "instructions 3,000,000"), "%s", l->text);
	cr_assert(strstr(l->text, "LLC-loads not counted"), "%s", l->text);
	l = find(&h, "metrics: ");
	cr_assert_not_null(l, "IPC and MPKI derived");
	cr_assert(strstr(l->text, "IPC 2.550"), "%s", l->text);
	cr_assert(strstr(l->text, "MPKI 2.000"), "%s", l->text);
	l = find(&h, "multiplexing: cycles ran 85% of the time, under 90%");
	cr_assert_not_null(l);
	cr_assert(l->warn);
	ann_header_release(&h);

	counts(&f, 950); /* 95%: shown, not flagged */
	ann_header_build(&h, &f.p, 0);
	cr_assert_null(find(&h, "under 90%"));
	l = find(&h, "multiplexing: lowest cycles ran 95%");
	cr_assert_not_null(l);
	ann_header_release(&h);
}

Test(header, hardware_event_without_precise_ip_warns_of_skid)
{
	struct fixture f;
	struct ann_header h;
	const struct ann_header_line *l;

	fixture_init(&f);
	snprintf(f.event.name, sizeof(f.event.name), "LLC-load-misses:P");
	f.event.type = 3;
	f.event.precise_max = true;
	f.event.precise_requested = 3;
	f.event.freq = true;
	f.event.period_or_freq = 4000;
	ann_header_build(&h, &f.p, 0);
	l = find(&h, "event: ");
	cr_assert(strstr(l->text, "frequency 4000 Hz"), "%s", l->text);
	cr_assert(strstr(l->text, "precise_ip requested P (3), obtained 0"), "%s", l->text);
	cr_assert(strstr(l->text, "skid"), "%s", l->text);
	cr_assert(l->warn);
	ann_header_release(&h);
}

Test(header, file_cut_short)
{
	struct fixture f;
	struct ann_header h;

	fixture_init(&f);
	f.p.have_trailer = false;
	f.p.lost_partial = true;
	f.p.trailer.lost = 3; /* the LOST records read before the cut */
	ann_header_build(&h, &f.p, 0);
	cr_assert_not_null(find(&h, "lost: at least 3 (0.0%)"));
	cr_assert_not_null(find(&h, "(a file has no trailer: LOST records only)"));
	cr_assert_not_null(find(&h, "counted: unknown"));
	ann_header_release(&h);
}

/* Two sampling events: the share is the shown event's own lost count of its samples when the
 * file has each event's (format 1.1), else every event's LOST records of every event's
 * samples, said so; profile_lost() gives report the same answer. */
Test(header, lost_with_two_sampling_events)
{
	struct fixture f;
	struct ann_header h;
	struct hwprof_file_event ev[2];
	struct hwprof_file_sampled sampled[2] = {{.lost_known = true, .lost = 987},
						 {.lost_known = true, .lost = 13}};
	uint64_t per_event[2] = {7013, 3000};

	fixture_init(&f);
	ev[0] = f.event;
	ev[1] = (struct hwprof_file_event){.name = "cpu-clock", .type = 1, .sampling = true};
	f.p.header.events = ev;
	f.p.header.nevents = 2;
	f.p.event_samples = per_event;
	f.p.trailer.lost = 1000;
	f.p.trailer.sampled = sampled;
	ann_header_build(&h, &f.p, 0);
	cr_assert_not_null(find(&h, "lost: 987 (12.3%)"));
	ann_header_release(&h);

	f.p.trailer.sampled = NULL; /* format 1.0: LOST records only */
	ann_header_build(&h, &f.p, 0);
	cr_assert_not_null(find(&h, "lost: 1,000 (9.1% of all events)"));
	ann_header_release(&h);
}

Test(header, wraps_at_the_width)
{
	struct fixture f;
	struct ann_header h;

	fixture_init(&f);
	counts(&f, 1000);
	ann_header_build(&h, &f.p, 48);
	for (size_t i = 0; i < h.n; i++)
		cr_assert_leq(strlen(h.lines[i].text), 48, "'%s'", h.lines[i].text);
	cr_assert_not_null(find(&h, "         cycles 1,000,000"), "continued, indented");
	ann_header_release(&h);
}

/* M8: a warning longer than the screen is wrapped at spaces, so its way out stays visible;
 * its continuation lines are flagged too. A word longer than the width is cut, not lost. */
Test(header, long_warning_wraps_with_its_way_out)
{
	struct fixture f;
	struct ann_header h;
	char *warnings[1] = {
	    "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30: no debug info, 994 samples shown by "
	    "symbol only (no .debug_info section; build with -g, install its debug package, or "
	    "give --debug-dir)"};
	size_t first = 0, nwarn = 0;
	char all[1024] = "";

	fixture_init(&f);
	f.p.warnings = warnings;
	f.p.nwarnings = 1;
	ann_header_build(&h, &f.p, 80);
	for (size_t i = 0; i < h.n; i++) {
		cr_assert_leq(strlen(h.lines[i].text), 80, "'%s'", h.lines[i].text);
		if (!strncmp(h.lines[i].text, "warning: ", 9))
			first = i, nwarn = 1;
	}
	cr_assert_eq(nwarn, 1);
	for (size_t i = first; i < h.n; i++) {
		cr_assert(h.lines[i].warn, "'%s'", h.lines[i].text);
		strncat(all, h.lines[i].text, sizeof(all) - strlen(all) - 1);
	}
	cr_assert(strstr(all, "give") && strstr(h.lines[h.n - 1].text, "--debug-dir)"), "%s", all);
	cr_assert(strstr(h.lines[first + 1].text, "         "), "continued, indented");
	ann_header_release(&h);

	/* Without a width (--stdio) the warning stays one line. */
	ann_header_build(&h, &f.p, 0);
	cr_assert(strstr(h.lines[h.n - 1].text, "libstdc++.so.6.0.30: no debug info") &&
		  strstr(h.lines[h.n - 1].text, "--debug-dir)"));
	ann_header_release(&h);
}

Test(header, digit_groups)
{
	char b[32];

	cr_assert_str_eq(hwprof_group_digits(0, b, sizeof(b)), "0");
	cr_assert_str_eq(hwprof_group_digits(999, b, sizeof(b)), "999");
	cr_assert_str_eq(hwprof_group_digits(1000, b, sizeof(b)), "1,000");
	cr_assert_str_eq(hwprof_group_digits(12345678, b, sizeof(b)), "12,345,678");
}

/* --stdio on the hand-built profile: the rows of the hottest function, exactly. */
Test(header, stdio_text)
{
	struct fixture f;
	struct ann_model *m;
	struct source_options o = {0};
	struct source_cache *c;
	char *out = NULL, want[512];
	size_t len = 0, funcs[2] = {0, 1};
	FILE *mem = open_memstream(&out, &len);

	fixture_init(&f);
	m = ann_model_build(&f.p);
	c = source_cache_new(&o);
	cr_assert_eq(ann_stdio(mem, m, c, funcs, 2, 1), 0);
	fclose(mem);
	cr_assert(strstr(out, "\n== work  [annotate_work]  99.81% of all samples (7,000 samples, "
			      "1 inlined function) ==\n"),
		  "%s", out);
	snprintf(want, sizeof(want), "\n#  57.1%%  57.0%%    4000 %4d          ", f.first);
	cr_assert(strstr(out, want), "no '%s' in:\n%s", want, out);
	snprintf(want, sizeof(want), "\n#  28.6%%  28.5%%    2000 %4d  ", f.second);
	cr_assert(strstr(out, want), "no '%s' in:\n%s", want, out);
	snprintf(want, sizeof(want), "\n+  14.3%%  14.3%%    1000 %4d  ", f.inlined);
	cr_assert(strstr(out, want), "no '%s' in:\n%s", want, out);
	cr_assert(
	    strstr(out, "-- inlined fill_pages (annotate_work.h), called at annotate_work.c:"));
	cr_assert(strstr(out, "note: source not found, looked for: /nonexistent/src/gone.c"));
	cr_assert(strstr(out, "(1 more function with fewer samples; --limit 0 shows all)"));
	free(out);
	source_cache_free(c);
	ann_model_free(m);
}
