/* test_rows.c - report's rows and their outputs: the Wilson interval, --sort keys, rows grouped
 * by line, function and DSO, period weights and counted totals in text and JSON, unknown
 * addresses, and the text table's cut names. */
#include <criterion/criterion.h>

#include "fixture.h"
#include "output.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

Test(rows, wilson_against_hand_computed_values)
{
	double lo, hi;

	/* p = .3, n = 100, z = 1.96: center .30740, half .08845 */
	profile_wilson95(30, 100, &lo, &hi);
	cr_expect(lo > 0.21885 && lo < 0.21895, "lo %f", lo);
	cr_expect(hi > 0.39580 && hi < 0.39590, "hi %f", hi);
	/* 0 of 10: [0, z^2/n / (1 + z^2/n)] = [0, .27753] */
	profile_wilson95(0, 10, &lo, &hi);
	cr_expect(lo == 0 && hi > 0.2775 && hi < 0.2776, "[%f, %f]", lo, hi);
	profile_wilson95(10, 10, &lo, &hi);
	cr_expect(hi > 0.999999 && lo > 0.7224 && lo < 0.7225, "[%f, %f]", lo, hi);
	/* 500 of 1000: .5 +- 1.96 * sqrt(.25/1000 + 3.8415/4e6) / 1.0038415 = [.46907, .53093] */
	profile_wilson95(500, 1000, &lo, &hi);
	cr_expect(lo > 0.46905 && lo < 0.46910 && hi > 0.53090 && hi < 0.53095, "[%f, %f]", lo, hi);
	profile_wilson95(0, 0, &lo, &hi);
	cr_expect(lo == 0 && hi == 1);
}

Test(rows, sort_keys_parse)
{
	enum profile_key k[3];
	char err[256] = "";

	cr_assert_eq(profile_parse_sort("function,line", k, 3, err, sizeof(err)), 2);
	cr_expect(k[0] == PROFILE_KEY_FUNCTION && k[1] == PROFILE_KEY_LINE);
	cr_assert_eq(profile_parse_sort("dso", k, 3, err, sizeof(err)), 1);
	cr_expect(k[0] == PROFILE_KEY_DSO);
	cr_expect_eq(profile_parse_sort("line,bogus", k, 3, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "'bogus'") && strstr(err, "line, function, dso"), "%s", err);
	cr_expect_eq(profile_parse_sort("", k, 3, err, sizeof(err)), -EINVAL);
	/* Every bad key is named: a repeated one (not "too many keys" at the last), an alias
	 * of one given before, and unknown ones with the repeats. */
	cr_expect_eq(profile_parse_sort("line,function,dso,line", k, 3, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "--sort 'line,function,dso,line': 'line' given twice (keys:"), "%s",
		  err);
	cr_expect_eq(profile_parse_sort("line,srcline", k, 3, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "'srcline' given twice"), "%s", err);
	cr_expect_eq(
	    profile_parse_sort("bogus,line,nope,line,dso,sym,function", k, 3, err, sizeof(err)),
	    -EINVAL);
	cr_expect(strstr(err, "unknown sort keys 'bogus', 'nope'") &&
		      strstr(err, "; 'line', 'function' given again"),
		  "%s", err);
}

Test(rows, rows_group_by_keys_with_intervals)
{
	char out[PATH_MAX];
	struct profile *p;
	struct profile_row *rows;
	size_t n;
	enum profile_key line = PROFILE_KEY_LINE, fn = PROFILE_KEY_FUNCTION;
	int poke = hot_line("wl_inline.c", "poke");

	tmp_path(out, sizeof(out), "rows.data");
	record(out, need_env("RPT_INLINE"), "1000");
	p = load1(out, INLINE_CALLEE);
	cr_assert_eq(profile_rows(p, &line, 1, &rows, &n), 0);
	cr_assert(n >= 2);
	/* second (3N) leads first (N); the intervals do not overlap. */
	cr_expect_str_eq(rows[0].function, "poke");
	cr_expect_str_eq(rows[0].inlined_into, "second");
	cr_expect_eq(rows[0].line, poke);
	cr_expect_str_eq(rows[1].inlined_into, "first");
	cr_expect(rows[0].share > 0.70 && rows[0].share < 0.76, "%f", rows[0].share);
	cr_expect(rows[0].ci_lo < rows[0].share && rows[0].share < rows[0].ci_hi);
	cr_expect(!rows[0].rank_uncertain && rows[1].ci_hi < rows[0].ci_lo);
	for (size_t i = 1; i < n; i++)
		cr_expect(rows[i].period <= rows[i - 1].period);
	free(rows);
	cr_assert_eq(profile_rows(p, &fn, 1, &rows, &n), 0);
	cr_expect_str_eq(rows[0].function, "poke");
	cr_expect_eq(rows[0].line, poke, "one line only: kept under --sort function");
	free(rows);
	profile_free(p);
	unlink(out);
}

/* Shares weigh samples by their period (-F varies it); the header's counted totals are scaled
 * for multiplexing, flagged under 90%, and give derived metrics with formulas. */
Test(rows, period_weights_and_counted_totals)
{
	struct hwprof_file_count counts[2] = {
	    {.event = "instructions",
	     .counted = true,
	     .value = 3000,
	     .enabled_ns = 100,
	     .running_ns = 50,
	     .scale = 1.0},
	    {.event = "cycles",
	     .counted = true,
	     .value = 1000,
	     .enabled_ns = 100,
	     .running_ns = 50,
	     .scale = 1.0},
	};
	struct hwprof_file_trailer t = {
	    .samples = 2, .duration_ns = 1000000000, .ncounts = 2, .counts = counts};
	struct profile_options o = {0};
	struct builder *b;
	struct profile *p = NULL;
	struct profile_row *rows;
	struct output_opts oo = {0};
	enum profile_key key = PROFILE_KEY_LINE;
	char err[256], *text = NULL;
	size_t n, len;
	FILE *f;

	cr_assert_eq(builder_new(&b, &o, err, sizeof(err)), 0);
	begin(b, "weights.data");
	add_samples(b, 1, 1, 1, 0x1000, 1, false);
	{
		struct hwprof_record r = {.type = HWPROF_REC_SAMPLE};
		r.sample = (struct hwprof_rec_sample){
		    .pid = 1, .tid = 1, .time = 2, .ip = 0x2000, .period = 3};
		cr_assert_eq(builder_add(b, &r), 0);
	}
	cr_assert_eq(builder_end_input(b, &t, HWPROF_READ_OK, NULL), 0);
	cr_assert_eq(builder_finish(b, &p, err, sizeof(err)), 0, "%s", err);
	builder_free(b);
	cr_assert_eq(profile_rows(p, &key, 1, &rows, &n), 0);
	cr_assert_eq(n, 2);
	cr_expect(rows[0].share > 0.7499 && rows[0].share < 0.7501, "%f", rows[0].share);
	cr_expect_eq(rows[0].offset, 0x2000);
	cr_expect(profile_count_read(&counts[0]).scaled == 6000.0);

	f = open_memstream(&text, &len);
	cr_assert_eq(output_text(f, p, rows, n, &oo), 0);
	fclose(f);
	cr_expect(strstr(text, "instructions") && strstr(text, "6,000"), "%s", text);
	cr_expect(strstr(text, "50.0%  (multiplexed"), "multiplexing not flagged:\n%s", text);
	cr_expect(strstr(text, "IPC") && strstr(text, "3.000"), "no IPC 3.000:\n%s", text);
	free(text);

	text = NULL;
	f = open_memstream(&text, &len);
	cr_assert_eq(output_json(f, p, rows, n, &oo), 0);
	fclose(f);
	cr_expect(strstr(text, "\"counts\":[{\"event\":\"instructions\",\"value\":3000,"
			       "\"enabled_ns\":100,\"running_ns\":50,\"scaled\":6000"),
		  "%s", text);
	cr_expect(strstr(text, "\"name\":\"IPC\",\"value\":3"), "%s", text);
	free(text);
	free(rows);
	profile_free(p);
}

/* --sort function: the addresses of a DSO without symbols are one "[unknown]" row, not one
 * row per address (a stripped binary otherwise floods the report). --sort line keeps them
 * apart: there the address is the only location there is. */
Test(rows, unknown_addresses_group_under_function_sort)
{
	static const char dso[] = "/usr/bin/stripped", lib[] = "/lib/libc.so.6";
	struct profile_loc locs[] = {
	    {.dso = dso, .offset = 0x4883, .unknown = true, .samples = 30, .period = 30},
	    {.dso = dso, .offset = 0x4330, .unknown = true, .samples = 20, .period = 20},
	    {.dso = lib, .offset = 0x100, .unknown = true, .samples = 10, .period = 10},
	};
	struct profile p = {.locs = locs, .nlocs = 3, .samples = 60, .period = 60};
	enum profile_key fn = PROFILE_KEY_FUNCTION, line = PROFILE_KEY_LINE;
	struct profile_row *rows;
	size_t n;

	cr_assert_eq(profile_rows(&p, &fn, 1, &rows, &n), 0);
	cr_assert_eq(n, 2, "one row per DSO, got %zu", n);
	cr_expect_eq(rows[0].dso, dso);
	cr_expect_eq(rows[0].samples, 50);
	cr_expect(rows[0].unknown && rows[0].function == NULL);
	free(rows);
	cr_assert_eq(profile_rows(&p, &line, 1, &rows, &n), 0);
	cr_expect_eq(n, 3);
	free(rows);
}

/* --sort dso: a row is the DSO alone, whatever its locations have in common. */
Test(rows, dso_rows_show_only_the_dso)
{
	static const char dso[] = "/usr/bin/stripped", file[] = "a.c", fn[] = "f";
	struct profile_loc locs[] = {
	    {.dso = dso, .offset = 0x10, .unknown = true, .samples = 3, .period = 3},
	    {.dso = "/lib/x.so",
	     .file = file,
	     .line = 7,
	     .function = fn,
	     .samples = 1,
	     .period = 1},
	};
	struct profile p = {.locs = locs, .nlocs = 2, .samples = 4, .period = 4};
	enum profile_key key = PROFILE_KEY_DSO;
	struct profile_row *rows;
	size_t n;

	cr_assert_eq(profile_rows(&p, &key, 1, &rows, &n), 0);
	cr_assert_eq(n, 2);
	for (size_t i = 0; i < n; i++) {
		cr_expect(!rows[i].unknown && !rows[i].file && !rows[i].line && !rows[i].function,
			  "row %zu shows more than its DSO", i);
	}
	free(rows);
}

Test(rows, text_cuts_long_function_names_and_keeps_the_dso_column)
{
	static const char longfn[] = "long hw::work<int, long>(std::map<int, long, std::less<int>, "
				     "std::allocator<std::pair<int const, long> > >&)";
	struct profile_loc locs[] = {
	    {.dso = "/bin/prog",
	     .function = longfn,
	     .file = "w.cc",
	     .line = 3,
	     .samples = 3,
	     .period = 3},
	    {.dso = "/bin/prog",
	     .function = "main",
	     .file = "w.cc",
	     .line = 9,
	     .samples = 2,
	     .period = 2},
	    {.dso = "/lib/libc.so.6", .function = "memset", .samples = 1, .period = 1},
	};
	struct profile p = {.locs = locs, .nlocs = 3, .samples = 6, .period = 6, .samples_read = 6};
	enum profile_key key = PROFILE_KEY_LINE;
	struct output_opts oo = {.keys = &key, .nkeys = 1};
	struct profile_row *rows;
	char *text = NULL, *at;
	size_t n, len = 0;
	FILE *f = open_memstream(&text, &len);
	long col[3];

	cr_assert_eq(profile_rows(&p, &key, 1, &rows, &n), 0);
	cr_assert_eq(output_text(f, &p, rows, n, &oo), 0);
	fclose(f);
	/* Cut to the widest column (72 characters, the "…" included), not dropped. */
	cr_expect(!strstr(text, longfn) &&
		      strstr(text, "long hw::work<int, long>(std::map<int, long, "
				   "std::less<int>, std::alloc\u2026  prog"),
		  "%s", text);
	/* The dso column starts at the same character on every row ("…" is one character). */
	at = text;
	for (int i = 0; i < 3; i++) {
		char *row = strstr(at, i == 2 ? "memset" : i ? "main" : "long hw"), *dso;
		cr_assert(row);
		dso = strstr(row, i == 2 ? "libc.so.6" : "prog");
		while (row > text && row[-1] != '\n')
			row--;
		col[i] = (long)(dso - row) - (i == 0 ? 2 : 0);
	}
	cr_expect(col[0] == col[1] && col[1] == col[2], "%ld %ld %ld\n%s", col[0], col[1], col[2],
		  text);
	cr_expect(strstr(text, "?"
			       "?") != NULL,
		  "memset without a line");
	free(rows);
	free(text);
}

/* Rows of equal cost come in the order of their names, whatever the order of the pooled
 * strings in memory (which the symbolization jobs' timing decides): here each pointer order
 * is the opposite of the names'. */
Test(rows, ties_ordered_by_name_not_by_address)
{
	static const char dsos[] = "/z/prog\0/a/lib.so", outer[] = "zeta\0alpha";
	const char *z = dsos, *a = dsos + 8, *zeta = outer, *alpha = outer + 5;
	struct profile_loc locs[] = {
	    {.dso = z, .function = "main", .samples = 5, .period = 5},
	    {.dso = a, .function = "main", .samples = 5, .period = 5},
	    {.dso = z, .function = "f", .inlined_into = zeta, .samples = 2, .period = 2},
	    {.dso = z, .function = "f", .inlined_into = alpha, .samples = 2, .period = 2},
	};
	struct profile p = {.locs = locs, .nlocs = 4, .samples = 14, .period = 14};
	enum profile_key fn = PROFILE_KEY_FUNCTION;
	struct profile_row *rows;
	size_t n;

	cr_assert_eq(profile_rows(&p, &fn, 1, &rows, &n), 0);
	cr_assert_eq(n, 4);
	cr_expect_str_eq(rows[0].dso, "/a/lib.so");
	cr_expect_str_eq(rows[1].dso, "/z/prog");
	cr_expect_str_eq(rows[2].inlined_into, "alpha");
	cr_expect_str_eq(rows[3].inlined_into, "zeta");
	free(rows);
}
