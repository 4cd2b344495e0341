/* test_model.c - report/core's loading of sample files: merged inputs (one binary, different
 * events, counted totals), a file cut short, lost samples and when they make a profile partial,
 * the same file given twice, and counted totals scaled. */
#include <criterion/criterion.h>

#include "fixture.h"
#include "output.h"
#include "hwprof/metrics.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A synthetic recording of PROG through gen_case.c with KV (NULL-terminated). */
static void gen_case(const char *out, const char *prog, const char *kv1, const char *kv2)
{
	char *argv[] = {(char *)need_env("RPT_GEN_CASE"),
			(char *)out,
			(char *)prog,
			(char *)kv1,
			(char *)kv2,
			NULL};

	cr_assert_eq(run(argv), 0, "gen_case %s %s", kv1 ? kv1 : "", kv2 ? kv2 : "");
}

static void gen_casev(const char *out, const char *prog, const char *const *kv)
{
	char *argv[16] = {(char *)need_env("RPT_GEN_CASE"), (char *)out, (char *)prog};
	size_t n = 3;

	for (; *kv && n + 1 < sizeof(argv) / sizeof(argv[0]); kv++)
		argv[n++] = (char *)*kv;
	argv[n] = NULL;
	cr_assert_eq(run(argv), 0, "gen_case %s", out);
}

/* P's report in FORMAT ("text" or "json") as a malloc'd string. */
static char *render(const struct profile *p, const char *format)
{
	enum profile_key key = PROFILE_KEY_LINE;
	struct output_opts oo = {.keys = &key, .nkeys = 1};
	struct profile_row *rows = NULL;
	size_t nrows = 0, len = 0;
	char *s = NULL;
	FILE *f = open_memstream(&s, &len);

	cr_assert_not_null(f);
	cr_assert_eq(profile_rows(p, &key, 1, &rows, &nrows), 0);
	if (!strcmp(format, "json"))
		cr_assert_eq(output_json(f, p, rows, nrows, &oo), 0);
	else
		cr_assert_eq(output_text(f, p, rows, nrows, &oo), 0);
	fclose(f);
	free(rows);
	return s;
}

Test(model, merged_recordings_of_one_binary)
{
	char a[PATH_MAX], b[PATH_MAX];
	const char *in[2] = {a, b};
	struct profile_options o = {.inputs = in, .ninputs = 2};
	struct profile *p;
	int line = hot_line("wl_dwarf.c", "dwarf");

	tmp_path(a, sizeof(a), "m1.data");
	tmp_path(b, sizeof(b), "m2.data");
	record(a, need_env("RPT_DWARF_GCC_5"), "1000");
	record(b, need_env("RPT_DWARF_GCC_5"), "3000");
	p = load_opts(&o);
	cr_expect(samples_at(p, "wl_dwarf.c", line, "touch", NULL) >= 3800);
	cr_expect(!has_warning(p, "different builds", NULL));
	cr_expect(p->samples == p->samples_read && p->samples > 4000);
	profile_free(p);
	unlink(a);
	unlink(b);
}

/* A file cut short: what it has, plus the reader's warning, and the partial flag. */
Test(model, truncated_file_reports_what_it_has)
{
	char out[PATH_MAX], cut[PATH_MAX], cmd[2 * PATH_MAX + 64];
	struct stat st;
	struct profile *p;

	tmp_path(out, sizeof(out), "whole.data");
	tmp_path(cut, sizeof(cut), "cut.data");
	record(out, need_env("RPT_DWARF_GCC_5"), "2000");
	cr_assert(stat(out, &st) == 0);
	/* Drop the last quarter: the trailer and some sample blocks. */
	snprintf(cmd, sizeof(cmd), "head -c %lld '%s' > '%s'", (long long)st.st_size * 3 / 4, out,
		 cut);
	cr_assert(system(cmd) == 0);
	p = load1(cut, INLINE_CALLEE);
	cr_expect(p->partial, "a cut file must be reported as partial");
	cr_expect(p->nwarnings >= 1 && strstr(p->warnings[0], cut), "warning names the file");
	cr_expect(p->samples > 0 && !p->have_trailer);
	profile_free(p);
	unlink(out);
	unlink(cut);
}

Test(model, lost_samples_over_one_percent_make_it_partial)
{
	char out[PATH_MAX];
	struct profile *p;

	tmp_path(out, sizeof(out), "lost.data");
	gen_case(out, need_env("RPT_INLINE"), "lost=500", NULL);
	p = load1(out, INLINE_CALLEE);
	cr_expect(p->partial);
	cr_expect(has_warning(p, "500 of 1500 samples (33.3 %) were lost", "larger -m"));
	profile_free(p);
	gen_case(out, need_env("RPT_INLINE"), "lost=10", NULL); /* 1.0%: not over */
	p = load1(out, INLINE_CALLEE);
	cr_expect(!p->partial && !has_warning(p, "were lost", NULL));
	profile_free(p);
	unlink(out);
}

Test(model, same_file_twice_is_read_once_and_differences_noted)
{
	char a[PATH_MAX], b[PATH_MAX];
	const char *in[3] = {a, a, b};
	struct profile_options o = {.inputs = in, .ninputs = 2};
	struct profile *p;

	tmp_path(a, sizeof(a), "twice.data");
	tmp_path(b, sizeof(b), "other.data");
	gen_case(a, need_env("RPT_INLINE"), "samples=100", NULL);
	gen_case(b, need_env("RPT_INLINE"), "samples=50", "period=16");
	p = load_opts(&o);
	cr_expect_eq(p->samples, 100);
	cr_expect(has_warning(p, "the same file as", "read once"));
	cr_expect_eq(p->nnotes, 0);
	profile_free(p);
	o.ninputs = 3;
	p = load_opts(&o);
	cr_expect_eq(p->samples, 150);
	cr_assert_eq(p->nnotes, 1);
	cr_expect(strstr(p->notes[0], "4000 Hz") && strstr(p->notes[0], "period 16"), "%s",
		  p->notes[0]);
	profile_free(p);
	unlink(a);
	unlink(b);
}

/* M5: inputs that sampled different events are one event at a time, as the events of one
 * file are: the periods of page faults and of nanoseconds are never added. */
Test(model, merged_inputs_of_different_events_show_one_event)
{
	char a[PATH_MAX], b[PATH_MAX];
	const char *in[2] = {a, b};
	const char *kva[] = {"samples=30", "event=page-faults", "period=1", NULL};
	const char *kvb[] = {"samples=20", NULL};
	struct profile_options o = {.inputs = in, .ninputs = 2};
	struct profile *p;
	char *text;

	tmp_path(a, sizeof(a), "ev-pf.data");
	tmp_path(b, sizeof(b), "ev-cc.data");
	gen_casev(a, need_env("RPT_INLINE"), kva);
	gen_casev(b, need_env("RPT_INLINE"), kvb);

	p = load_opts(&o);
	cr_expect_eq(p->samples, 30);
	cr_expect_eq(p->period, 30.0);
	cr_expect_str_eq(profile_sampling_event(p)->name, "page-faults");
	cr_expect(has_warning(p, "20 samples of 'cpu-clock' are not shown", "--event cpu-clock"));
	cr_expect(!has_warning(p, "merged anyway", NULL));
	text = render(p, "text");
	cr_expect(strstr(text, "# event: page-faults, period 1,"), "%s", text);
	cr_expect(strstr(text, "# events recorded: page-faults (shown, 30 samples), cpu-clock (20 "
			       "samples); --event NAME shows another"),
		  "%s", text);
	free(text);
	profile_free(p);

	/* --event picks the later input's event: the header names it, with its rate. */
	o.event = "cpu-clock";
	p = load_opts(&o);
	cr_expect_eq(p->samples, 20);
	cr_expect_eq(p->period, 20 * 250000.0);
	cr_expect_str_eq(profile_sampling_event(p)->name, "cpu-clock");
	cr_expect(profile_sampling_event(p)->freq);
	cr_expect(
	    has_warning(p, "30 samples of 'page-faults' are not shown", "--event page-faults"));
	cr_expect(!has_warning(p, "merged anyway", NULL));
	text = render(p, "text");
	cr_expect(strstr(text, "# event: cpu-clock, 4000 Hz,"), "%s", text);
	cr_expect(strstr(text, "page-faults (30 samples), cpu-clock (shown, 20 samples)"), "%s",
		  text);
	free(text);
	text = render(p, "json");
	cr_expect(strstr(text, "{\"event\":\"cpu-clock\","), "%s", text);
	cr_expect(strstr(text, "\"events\":[{\"name\":\"page-faults\",\"shown\":false,\"samples\":"
			       "30},{\"name\":\"cpu-clock\",\"shown\":true,\"samples\":20}]"),
		  "%s", text);
	free(text);
	profile_free(p);
	unlink(a);
	unlink(b);
}

/* M4: counted totals are summed per event over the inputs, like samples and duration; an
 * event some input did not count gets no total that covers only part of the run. */
Test(model, merged_inputs_sum_counted_totals)
{
	char a[PATH_MAX], b[PATH_MAX];
	const char *in[2] = {a, b};
	const char *kva[] = {"samples=30", "count=instructions:3000:100:100",
			     "count=cycles:1000:100:100", "count=page-faults:500:100:100", NULL};
	const char *kvb[] = {"samples=20", "count=instructions:1000:100:100",
			     "count=cycles:1000:100:50", NULL};
	struct profile_options o = {.inputs = in, .ninputs = 2};
	struct hwprof_metric m[8];
	struct profile *p;
	size_t nm;
	char *text;

	tmp_path(a, sizeof(a), "cnt-a.data");
	tmp_path(b, sizeof(b), "cnt-b.data");
	gen_casev(a, need_env("RPT_INLINE"), kva);
	gen_casev(b, need_env("RPT_INLINE"), kvb);
	p = load_opts(&o);
	cr_assert_eq(p->trailer.ncounts, 3);
	cr_expect_str_eq(p->trailer.counts[0].event, "instructions");
	cr_expect_eq(p->trailer.counts[0].value, 4000);
	cr_expect_eq(p->trailer.counts[0].enabled_ns, 200);
	cr_expect_eq(p->trailer.counts[0].running_ns, 200);
	cr_expect_eq(p->trailer.counts[1].value, 2000);
	cr_expect_eq(p->trailer.counts[1].running_ns, 150);
	cr_expect(!profile_count_partial(p, 0) && !profile_count_partial(p, 1));
	cr_expect_str_eq(p->trailer.counts[2].event, "page-faults");
	cr_expect(profile_count_partial(p, 2));
	cr_expect_eq(p->ninputs, 2);
	cr_assert_not_null(p->count_inputs);
	cr_expect_eq(p->count_inputs[2], 1);
	/* IPC from the sums: 4000 / (2000 * 200 / 150). */
	nm = profile_metrics(p, m, sizeof(m) / sizeof(m[0]));
	cr_assert_geq(nm, 1);
	cr_expect_str_eq(m[0].name, "IPC");
	cr_expect_float_eq(m[0].value, 4000.0 / (2000.0 * 200 / 150), 1e-9);
	text = render(p, "text");
	cr_expect(strstr(text, "page-faults") && strstr(text, "counted in 1 of 2 inputs"), "%s",
		  text);
	cr_expect(!strstr(text, " 500 "), "%s", text);
	free(text);
	text = render(p, "json");
	cr_expect(strstr(text, "{\"event\":\"instructions\",\"value\":4000,\"enabled_ns\":200,"
			       "\"running_ns\":200,"),
		  "%s", text);
	cr_expect(strstr(text, "{\"event\":\"page-faults\",\"value\":null,\"enabled_ns\":null,"
			       "\"running_ns\":null,\"scaled\":null,\"counted\":false,"),
		  "%s", text);
	cr_expect(strstr(text, "\"inputs_counted\":1,\"inputs\":2"), "%s", text);
	free(text);
	profile_free(p);
	unlink(a);
	unlink(b);
}

Test(model, counted_total_scaled_up_never_down)
{
	/* time_running a tick past time_enabled (seen on some kernels): the value as read. */
	struct hwprof_file_count over = {.event = "task-clock",
					 .value = 1000,
					 .enabled_ns = 999,
					 .running_ns = 1000,
					 .counted = true,
					 .scale = 1.0};
	struct hwprof_file_count half = {.event = "cycles",
					 .value = 1000,
					 .enabled_ns = 2000,
					 .running_ns = 1000,
					 .counted = true,
					 .scale = 0.5};
	struct hwprof_file_count never = {.event = "cycles",
					  .value = 0,
					  .enabled_ns = 2000,
					  .running_ns = 0,
					  .counted = true,
					  .scale = 1.0};

	struct hwprof_count k = profile_count_read(&over);

	cr_expect(k.scaled == 1000.0 && k.ratio == 1.0 && k.counted, "%f %f", k.scaled, k.ratio);
	k = profile_count_read(&half);
	cr_expect(k.scaled == 1000.0, "%f", k.scaled);
	cr_expect(k.ratio == 0.5 && hwprof_count_multiplexed(&k), "%f", k.ratio);
	k = profile_count_read(&never);
	cr_expect(k.scaled == 0.0 && k.ratio == 0.0 && !k.counted);
	over.counted = false;
	k = profile_count_read(&over);
	cr_expect(k.scaled == 0.0 && !k.counted, "not counted in the file: not counted");
}

/* Samples dropped with no record of it (a kernel before 6.0, a child's drops) show as an
 * event that counted more than its samples and lost samples stand for: a warning, partial.
 * Within the period per task and CPU (a period not sampled yet at the end), nothing. */
Test(model, events_counted_beyond_samples_and_lost_make_it_partial)
{
	char out[PATH_MAX];
	struct profile *p;
	const char *missing[] = {"period=1",	      "samples=100", "sampled=0:149:-",
				 "event=page-faults", "config=2",    NULL};
	const char *within[] = {"period=1",	     "samples=100", "sampled=0:101:0",
				"event=page-faults", "config=2",    NULL};
	const char *lost[] = {"period=1",	   "samples=100", "lost=49", "sampled=0:149:49",
			      "event=page-faults", "config=2",	  NULL};

	tmp_path(out, sizeof(out), "unaccounted.data");
	gen_casev(out, need_env("RPT_INLINE"), missing);
	p = load1(out, INLINE_CALLEE);
	cr_expect(p->partial);
	cr_expect(has_warning(p,
			      "'page-faults' counted 149 events, but its 100 samples and 0 lost "
			      "samples stand for 100: about 49 samples are missing",
			      "larger -m"));
	profile_free(p);
	gen_casev(out, need_env("RPT_INLINE"), within);
	p = load1(out, INLINE_CALLEE);
	cr_expect(!p->partial && !has_warning(p, "counted", NULL));
	profile_free(p);
	/* Announced: the lost-share warning says it, not this one. */
	gen_casev(out, need_env("RPT_INLINE"), lost);
	p = load1(out, INLINE_CALLEE);
	cr_expect(has_warning(p, "49 of 149 samples (32.9 %) were lost", NULL));
	cr_expect(!has_warning(p, "are missing", NULL));
	profile_free(p);
	unlink(out);
	/* A clock event restarts its timer at each switch-in: its count runs ahead of samples x
	 * period with nothing dropped (cpu-clock -c 100000 of a busy loop: 41 'missing'). */
	const char *timer[] = {"period=1", "samples=100", "sampled=0:149:-", NULL};
	gen_casev(out, need_env("RPT_INLINE"), timer);
	p = load1(out, INLINE_CALLEE);
	cr_expect(!p->partial);
	cr_expect(!has_warning(p, "samples are missing", NULL));
	profile_free(p);
	unlink(out);
}

/* Two sampling events: the lost share is the shown event's own (its lost count of its samples
 * plus lost) when the file has each event's, else every event's LOST records of all samples,
 * and it says so. */
Test(model, lost_share_with_two_sampling_events)
{
	char out[PATH_MAX];
	struct profile *p;
	struct profile_lost lo;
	const char *own[] = {"samples=1000",	"other=page-faults:3000", "lost=400",
			     "sampled=0:-:100", "sampled=1:-:300",	  NULL};
	const char *all[] = {"samples=1000", "other=page-faults:3000", "lost=400", NULL};

	tmp_path(out, sizeof(out), "lost2.data");
	gen_casev(out, need_env("RPT_INLINE"), own);
	p = load1(out, INLINE_CALLEE);
	profile_lost(p, &lo);
	cr_expect_eq(lo.lost, 100);
	cr_expect_eq(lo.of, 1100);
	cr_expect(lo.per_event);
	cr_expect(has_warning(p, "100 of 1100 samples (9.1 %) were lost", NULL));
	profile_free(p);
	gen_casev(out, need_env("RPT_INLINE"), all);
	p = load1(out, INLINE_CALLEE);
	profile_lost(p, &lo);
	cr_expect_eq(lo.lost, 400);
	cr_expect_eq(lo.of, 4400);
	cr_expect_not(lo.per_event);
	cr_expect(has_warning(p, "400 of 4400 samples (9.1 %) of all events", NULL));
	profile_free(p);
	unlink(out);
}

/* A raw or vendor event: the header gives its name and its code together, as the file keeps
 * them (EVENT record: the spec and perf_event_attr type/config). */
Test(model, vendor_event_header_names_name_and_code)
{
	char a[PATH_MAX];
	const char *kv[] = {"samples=10",   "event=MEM_LOAD_RETIRED.L3_MISS:pp",
			    "type=4",	    "config=0x20d1",
			    "period=10007", NULL};
	struct profile_options o = {.inputs = (const char *[]){a}, .ninputs = 1};
	struct profile *p;
	char *text;

	tmp_path(a, sizeof(a), "ev-vendor.data");
	gen_casev(a, need_env("RPT_INLINE"), kv);
	p = load_opts(&o);
	text = render(p, "text");
	cr_expect(strstr(text, "# event: MEM_LOAD_RETIRED.L3_MISS:pp, raw 0x20d1, period 10007,"),
		  "%s", text);
	free(text);
	profile_free(p);
	unlink(a);
}
