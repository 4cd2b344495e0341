/* JSON/CSV quoting (textfmt.h) and the edit distance behind "did you mean" (closest.h). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "closest.h"
#include "hwprof/metrics.h"
#include "textfmt.h"

/* What FN writes for S, as a malloc'd string. */
static char *render(void (*fn)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	fn(f, s);
	fclose(f);
	return buf;
}

static char *render_double(double v, int digits)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	hwprof_json_double(f, v, digits);
	fclose(f);
	return buf;
}

#define EXPECT(fn, in, want)                                                                       \
	do {                                                                                       \
		char *got = render(fn, in);                                                        \
		cr_expect_str_eq(got, want);                                                       \
		free(got);                                                                         \
	} while (0)

Test(textfmt, json_escapes_quotes_backslash_and_every_control_char)
{
	EXPECT(hwprof_json_str, "plain", "\"plain\"");
	EXPECT(hwprof_json_str, "a\"b\\c", "\"a\\\"b\\\\c\"");
	EXPECT(hwprof_json_str, "\n\t\r\b\f", "\"\\n\\t\\r\\b\\f\"");
	EXPECT(hwprof_json_str, "\x01\x1f", "\"\\u0001\\u001f\"");
	EXPECT(hwprof_json_str, "caf\xc3\xa9", "\"caf\xc3\xa9\"");
	EXPECT(hwprof_json_str, NULL, "null");
}

Test(textfmt, json_is_valid_utf8_whatever_the_bytes)
{
	/* Well-formed 2-, 3- and 4-byte sequences pass through. */
	EXPECT(hwprof_json_str, "\xe2\x82\xac \xf0\x9f\x98\x80",
	       "\"\xe2\x82\xac \xf0\x9f\x98\x80\"");
	/* Latin-1 bytes, a lone continuation byte, an overlong '/', a surrogate, a sequence
	 * cut by the end of the string: one U+FFFD per byte that starts nothing. */
	EXPECT(hwprof_json_str, "d\xff\xfe.c", "\"d\\ufffd\\ufffd.c\"");
	EXPECT(hwprof_json_str, "\x80", "\"\\ufffd\"");
	EXPECT(hwprof_json_str, "\xc0\xaf", "\"\\ufffd\\ufffd\"");
	EXPECT(hwprof_json_str, "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
	EXPECT(hwprof_json_str, "a\xe2\x82", "\"a\\ufffd\\ufffd\"");
	EXPECT(hwprof_json_str, "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
}

/* Text for people shows '?' for each control byte, each byte of a C1 control (U+009B is
 * CSI) and each byte of invalid UTF-8; well-formed UTF-8 passes. Both ways agree. */
Test(textfmt, text_tames_controls_and_invalid_utf8)
{
	static const char *const cases[][2] = {
	    {"evil\x1b]0;x\x07\n", "evil?]0;x??"},
	    {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	     "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},
	    {"d\xff\xfe.c", "d??.c"},
	    {"\xc2\x9b[31m red", "??[31m red"},
	    {"\xc2\xa0nbsp", "\xc2\xa0nbsp"},
	    {"\xc0\xaf \xed\xa0\x80 a\xe2\x82", "?? ??? a??"},
	    {"\x7f", "?"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *copy = strdup(cases[i][0]);
		cr_expect_str_eq(hwprof_text_tame(copy), cases[i][1], "case %zu", i);
		free(copy);
		EXPECT(hwprof_text_put, cases[i][0], cases[i][1]);
	}
}

/* Random bytes read as "text" one time in three when each byte of 0x80 and above passed. */
Test(textfmt, plain_text_is_utf8_without_controls)
{
	cr_expect(hwprof_text_looks_plain("a\tb\r\n", 5));
	cr_expect(hwprof_text_looks_plain("caf\xc3\xa9", 5));
	cr_expect(hwprof_text_looks_plain("caf\xc3", 4), "a character cut by the end");
	cr_expect(hwprof_text_looks_plain("\xe2\x80", 2), "a character cut by the end");
	cr_expect(hwprof_text_looks_plain("", 0));
	cr_expect(!hwprof_text_looks_plain("\xb5\xe3\x9a\xff\xfe\xc8\xd1\x80", 8));
	cr_expect(!hwprof_text_looks_plain("caf\xe9 latin-1", 13));
	cr_expect(!hwprof_text_looks_plain("\xe0\x80", 2), "overlong, even cut");
	cr_expect(!hwprof_text_looks_plain("\xc2\x9b[2J", 5), "C1 control CSI");
	cr_expect(!hwprof_text_looks_plain("ab\0cd", 5));
	cr_expect(!hwprof_text_looks_plain("ab\x7f", 3));
}

Test(textfmt, json_double_is_null_for_nan_and_infinity)
{
	char *s = render_double(1.5, 10);
	cr_expect_str_eq(s, "1.5");
	free(s);
	s = render_double(NAN, 15);
	cr_expect_str_eq(s, "null");
	free(s);
	s = render_double(-INFINITY, 15);
	cr_expect_str_eq(s, "null");
	free(s);
}

Test(textfmt, csv_quotes_on_comma_quote_and_line_breaks)
{
	EXPECT(hwprof_csv_str, "main", "main");
	EXPECT(hwprof_csv_str, "f(int, char)", "\"f(int, char)\"");
	EXPECT(hwprof_csv_str, "say \"hi\"", "\"say \"\"hi\"\"\"");
	EXPECT(hwprof_csv_str, "a\nb", "\"a\nb\"");
	EXPECT(hwprof_csv_str, "a\rb", "\"a\rb\"");
	EXPECT(hwprof_csv_str, NULL, "");
}

/* The one way a counted total reads in text outputs (stat, report, annotate, regions). */
Test(textfmt, count_text_groups_event_counts_and_keeps_unit_decimals)
{
	char buf[64];

	cr_expect_str_eq(hwprof_count_text(1234567.4, "", buf, sizeof(buf)), "1,234,567");
	cr_expect_str_eq(hwprof_count_text(1234567.5, "ns", buf, sizeof(buf)), "1,234,568");
	cr_expect_str_eq(hwprof_count_text(0, "", buf, sizeof(buf)), "0");
	/* A mean over runs under 1 (one context switch in three runs) is not printed as 0. */
	cr_expect_str_eq(hwprof_count_text(1.0 / 3, "", buf, sizeof(buf)), "0.33");
	cr_expect_str_eq(hwprof_count_text(1536.257, "MiB", buf, sizeof(buf)), "1536.26");
	cr_expect_str_eq(hwprof_count_text(-1, "", buf, sizeof(buf)), "-1.00");
	cr_expect_str_eq(hwprof_count_text(2e18, "", buf, sizeof(buf)), "2000000000000000000.00");
}

/* The one way a derived metric's value reads in text outputs. */
Test(textfmt, metric_text_rates_in_percent_others_three_decimals)
{
	struct hwprof_metric rate = {.name = "LLC miss rate", .value = 0.12345, .percent = true};
	struct hwprof_metric ipc = {.name = "IPC", .value = 2.5, .percent = false};
	char buf[64];

	cr_expect_str_eq(hwprof_metric_text(&rate, buf, sizeof(buf)), "12.35%");
	cr_expect_str_eq(hwprof_metric_text(&ipc, buf, sizeof(buf)), "2.500");
}

/* The one way a command line is written from its words: as a shell would read it back. */
Test(textfmt, argv_line_quotes_only_what_needs_it)
{
	char *plain[] = {"./touch", "100", "-x"};
	char *odd[] = {"sh", "-c", "echo a b", "", "it's", NULL};
	char *s;

	s = hwprof_argv_line(plain, 3);
	cr_expect_str_eq(s, "./touch 100 -x");
	free(s);
	s = hwprof_argv_line(odd, 6);
	cr_expect_str_eq(s, "sh -c 'echo a b' '' 'it'\\''s' ''");
	free(s);
	s = hwprof_argv_line(plain, 0);
	cr_expect_str_eq(s, "");
	free(s);
}

Test(closest, edit_distance_is_case_insensitive_levenshtein)
{
	cr_expect_eq(hwprof_edit_distance("cycles", "cycles"), 0);
	cr_expect_eq(hwprof_edit_distance("CYCLES", "cycles"), 0);
	cr_expect_eq(hwprof_edit_distance("cylces", "cycles"), 2);
	cr_expect_eq(hwprof_edit_distance("kitten", "sitting"), 3);
	cr_expect_eq(hwprof_edit_distance("", "abc"), 3);
	cr_expect_eq(hwprof_edit_distance_n("mainXYZ", 4, "main", 4), 0);
}

Test(closest, too_long_names_are_not_typos)
{
	char longname[HWPROF_EDIT_MAX + 2];

	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	cr_expect_eq(hwprof_edit_distance(longname, longname), HWPROF_EDIT_MAX);
}

Test(closest, suggest_only_when_close)
{
	static const char *const cmds[] = {"record", "report", "annotate", "stat", "list"};
	struct hwprof_suggest s;

	hwprof_suggest_init(&s, "reprot");
	for (size_t i = 0; i < 5; i++)
		hwprof_suggest_consider(&s, cmds[i]);
	cr_expect_str_eq(hwprof_suggest_result(&s), "report");

	hwprof_suggest_init(&s, "xyzzyq");
	for (size_t i = 0; i < 5; i++)
		hwprof_suggest_consider(&s, cmds[i]);
	cr_expect_str_eq(hwprof_suggest_result(&s), "");
}

Test(textfmt, names_compare_by_text_null_first)
{
	static const char two[] = "b\0b";

	cr_expect_eq(hwprof_namecmp(two, two + 2), 0);
	cr_expect_lt(hwprof_namecmp(NULL, "a"), 0);
	cr_expect_gt(hwprof_namecmp("a", NULL), 0);
	cr_expect_eq(hwprof_namecmp(NULL, ""), 0);
	cr_expect_lt(hwprof_namecmp("alpha", "zeta"), 0);
}
