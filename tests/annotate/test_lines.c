/* test_lines.c - annotate's per-line model (annotate/lines.h) on a hand-built profile. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "lines.h"

static struct fixture fx;
static struct ann_model *m;
static struct source_cache *src;
static struct source_options sopt;

static void setup(void)
{
	fixture_init(&fx);
	m = ann_model_build(&fx.p);
	src = source_cache_new(&sopt);
}

static void teardown(void)
{
	source_cache_free(src);
	ann_model_free(m);
}

TestSuite(lines, .init = setup, .fini = teardown);

/* The row of line LINE in V (the first, after row FROM), or -1. */
static long row_of(const struct ann_view *v, int line, size_t from)
{
	for (size_t i = from; i < v->nrows; i++)
		if (v->rows[i].kind == ANN_ROW_LINE && v->rows[i].line == line)
			return (long)i;
	return -1;
}

static long row_containing(const struct ann_view *v, enum ann_row_kind kind, const char *text)
{
	for (size_t i = 0; i < v->nrows; i++)
		if (v->rows[i].kind == kind && v->rows[i].text && strstr(v->rows[i].text, text))
			return (long)i;
	return -1;
}

Test(lines, functions_hottest_first_with_inlined_samples)
{
	cr_assert_eq(m->nfuncs, 3, "work, main, [unknown]: got %zu", m->nfuncs);
	cr_assert_str_eq(m->funcs[0].name, "work");
	/* 4000 + 2000 own, 1000 from the inlined fill_pages. */
	cr_assert_eq(m->funcs[0].samples, 7000);
	cr_assert_float_eq(m->funcs[0].share, 7000.0 / 7013.0, 1e-12);
	cr_assert_eq(m->funcs[0].ninlined, 1);
	cr_assert_str_eq(m->funcs[1].name, "main");
	cr_assert_eq(m->funcs[1].samples, 10);
	cr_assert_str_eq(m->funcs[2].name, "[unknown]");
	cr_assert_eq(m->funcs[2].samples, 3);
	/* Each function holds exactly the locations charged to it. */
	for (size_t i = 0; i < m->nfuncs; i++) {
		for (size_t j = 0; j < m->funcs[i].nlocs; j++) {
			const struct profile_loc *l = m->locs[m->funcs[i].first + j];
			const char *owner = l->inlined_into ? l->inlined_into : l->function;

			cr_assert_str_eq(m->funcs[i].name, owner ? owner : "[unknown]");
		}
	}
}

Test(lines, marked_line_gets_its_share)
{
	struct ann_view *v = ann_view_build(m, 0, src);
	long r = row_of(v, fx.first, 0);

	cr_assert_geq(r, 0, "no row for line %d (HOT: first)", fx.first);
	cr_assert_eq(v->rows[r].samples, 4000, "two addresses of one line add up");
	cr_assert_float_eq(v->rows[r].share_func, 4000.0 / 7000.0, 1e-12);
	cr_assert_float_eq(v->rows[r].share_total, 4000.0 / 7013.0, 1e-12);
	cr_assert_eq(v->rows[r].heat, ANN_HEAT_HOTTEST);
	cr_assert(v->rows[r].hot);
	cr_assert_eq(v->hottest, (size_t)r, "the hottest row is the HOT: first line");
	cr_assert(strstr(v->rows[r].text, "HOT: first"), "text: %s", v->rows[r].text);

	r = row_of(v, fx.second, 0);
	cr_assert_geq(r, 0);
	cr_assert_float_eq(v->rows[r].share_func, 2000.0 / 7000.0, 1e-12);
	cr_assert(strstr(v->rows[r].text, "HOT: second"));
	ann_view_free(v);
}

Test(lines, whole_function_shown_with_context)
{
	struct ann_view *v = ann_view_build(m, 0, src);
	const char *c = fixture_path(0, "annotate_work.c");
	int start = text_line(c, "static __attribute__((noinline)) long work(");
	long r0 = row_of(v, start, 0);

	cr_assert_geq(r0, 0, "the function's first line %d is shown", start);
	cr_assert_eq(v->rows[r0].samples, 0);
	cr_assert_eq(v->rows[r0].heat, ANN_HEAT_NONE);
	cr_assert_not(v->rows[r0].hot);
	/* Lines run on without holes from the signature to the hot lines. */
	for (int l = start; l <= fx.second; l++)
		cr_assert_eq(row_of(v, l, 0), r0 + (l - start), "line %d in place", l);
	cr_assert_eq(v->rows[0].kind, ANN_ROW_TITLE);
	cr_assert(strstr(v->rows[0].text, "annotate_work.c"));
	ann_view_free(v);
}

Test(lines, inline_function_shown_within_its_caller)
{
	size_t idx[4];
	struct ann_view *v;
	long title, r;

	cr_assert_eq(ann_model_find(m, "fill_pages", idx, 4, NULL, 0), 0,
		     "an inline function is no function of its own");
	v = ann_view_build(m, 0, src);
	title = row_containing(v, ANN_ROW_TITLE, "inlined fill_pages");
	cr_assert_geq(title, 0, "a section for the inline function");
	cr_assert(strstr(v->rows[title].text, "annotate_work.h"), "%s", v->rows[title].text);
	{
		char at[64];

		snprintf(at, sizeof(at), "called at annotate_work.c:%d", fx.call);
		cr_assert(strstr(v->rows[title].text, at), "%s lacks '%s'", v->rows[title].text,
			  at);
	}
	cr_assert_eq(v->rows[title].samples, 1000);
	r = row_of(v, fx.inlined, (size_t)title);
	cr_assert_gt(r, title, "the inlined line comes after its title");
	cr_assert_eq(v->rows[r].samples, 1000);
	cr_assert_float_eq(v->rows[r].share_func, 1000.0 / 7000.0, 1e-12);
	cr_assert(strstr(v->rows[r].text, "HOT: inlined"), "%s", v->rows[r].text);
	/* Own code first: both own hot lines come before the inline section. */
	cr_assert_lt(row_of(v, fx.first, 0), title);
	cr_assert_lt(row_of(v, fx.second, 0), title);
	ann_view_free(v);
}

Test(lines, missing_source_keeps_lines_and_says_what_was_looked_for)
{
	struct ann_view *v = ann_view_build(m, 1, src);
	long note = row_containing(v, ANN_ROW_NOTE, "/nonexistent/src/gone.c");
	long r = row_of(v, 10, 0);

	cr_assert_str_eq(m->funcs[1].name, "main");
	cr_assert_geq(note, 0, "a note naming the path looked for");
	cr_assert(strstr(v->rows[note].text, "not found"), "%s", v->rows[note].text);
	cr_assert_geq(row_containing(v, ANN_ROW_NOTE, "--source-dir"), 0, "a way out");
	cr_assert_geq(r, 0);
	cr_assert_null(v->rows[r].text);
	cr_assert_eq(v->rows[r].samples, 10);
	cr_assert_float_eq(v->rows[r].share_func, 1.0, 1e-12);
	cr_assert_eq(v->nrows, 4, "title, two notes, the one sampled line: got %zu", v->nrows);
	ann_view_free(v);
}

Test(lines, samples_without_symbol_or_line)
{
	struct ann_view *v = ann_view_build(m, 2, src);
	long r = row_of(v, 0, 0);

	cr_assert_geq(r, 0);
	cr_assert_eq(v->rows[r].samples, 3);
	cr_assert(strstr(v->rows[r].text, "libc.so.6"), "%s", v->rows[r].text);
	ann_view_free(v);
}

Test(lines, hot_lines_in_order_and_wrapping)
{
	struct ann_view *v = ann_view_build(m, 0, src);
	long first = row_of(v, fx.first, 0), second = row_of(v, fx.second, 0);
	long inl = row_of(v, fx.inlined, 0);

	cr_assert_eq(v->nhot, 3);
	cr_assert_eq(ann_view_next_hot(v, 0, 1), (size_t)first);
	cr_assert_eq(ann_view_next_hot(v, (size_t)first, 1), (size_t)second);
	cr_assert_eq(ann_view_next_hot(v, (size_t)second, 1), (size_t)inl);
	cr_assert_eq(ann_view_next_hot(v, (size_t)inl, 1), (size_t)first, "wraps to the first");
	cr_assert_eq(ann_view_next_hot(v, (size_t)first, -1), (size_t)inl, "wraps to the last");
	ann_view_free(v);
}

Test(lines, search_text_smartcase_and_wrap)
{
	struct ann_view *v = ann_view_build(m, 0, src);
	long second = row_of(v, fx.second, 0);

	cr_assert_eq(ann_view_search(v, 0, 1, "hot: second"), (size_t)second);
	cr_assert_eq(ann_view_search(v, 0, 1, "Hot: second"), (size_t)-1, "upper case: exact");
	cr_assert_eq(ann_view_search(v, v->nrows - 1, 1, "HOT: second"), (size_t)second, "wraps");
	cr_assert_eq(ann_view_search(v, (size_t)second, -1, "HOT: second"), (size_t)second,
		     "a full circle back backwards");
	ann_view_free(v);
}

Test(lines, find_by_name_and_closest_names)
{
	static struct profile_loc locs[3] = {
	    {.dso = "a", .function = "ns::Walker::step(int) const", .samples = 5, .period = 5},
	    {.dso = "a", .function = "touch_pages.constprop.0", .samples = 4, .period = 4},
	    {.dso = "b", .function = "work", .samples = 1, .period = 1},
	};
	struct profile p = {.locs = locs, .nlocs = 3, .samples = 10, .period = 10};
	struct ann_model *mm = ann_model_build(&p);
	size_t idx[4], n;

	cr_assert_eq(ann_model_find(mm, "step", idx, 4, NULL, 0), 1);
	cr_assert_eq(ann_model_find(mm, "ns::Walker::step", idx, 4, NULL, 0), 1);
	cr_assert_eq(ann_model_find(mm, "ns::Walker::step(int) const", idx, 4, NULL, 0), 1);
	cr_assert_eq(ann_model_find(mm, "touch_pages", idx, 4, NULL, 0), 1, "clone suffix");
	cr_assert_eq(ann_model_find(mm, "Walker", idx, 4, NULL, 0), 0);
	cr_assert_eq(ann_model_find(mm, "Walker::step", idx, 4, NULL, 0), 1);
	n = ann_model_closest(mm, "wrok", idx, 4);
	cr_assert_eq(n, 3);
	cr_assert_str_eq(mm->funcs[idx[0]].name, "work");
	n = ann_model_closest(mm, "touch", idx, 1);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(mm->funcs[idx[0]].name, "touch_pages.constprop.0");
	ann_model_free(mm);
}

Test(lines, identifier_where_the_function_is_defined)
{
	char buf[256];

	cr_assert_str_eq(ann_name_ident("long ns::Box<int>::work(int) const", buf, sizeof(buf)),
			 "work");
	cr_assert_str_eq(ann_name_ident("touch_pages.constprop.0", buf, sizeof(buf)),
			 "touch_pages");
	/* A template argument with its own "::" is no part of the identifier. */
	cr_assert_str_eq(
	    ann_name_ident("void ns::put<std::string>(std::string const&)", buf, sizeof(buf)),
	    "put");
	cr_assert_str_eq(ann_name_ident("main", buf, sizeof(buf)), "main");
}

Test(lines, heat_levels)
{
	cr_assert_eq(ann_heat_of(0), ANN_HEAT_NONE);
	cr_assert_eq(ann_heat_of(0.001), ANN_HEAT_LOW);
	cr_assert_eq(ann_heat_of(0.005), ANN_HEAT_WARM);
	cr_assert_eq(ann_heat_of(0.049), ANN_HEAT_WARM);
	cr_assert_eq(ann_heat_of(0.05), ANN_HEAT_HOT);
	cr_assert_eq(ann_heat_of(0.2), ANN_HEAT_HOTTEST);
	cr_assert_eq(ann_heat_of(1), ANN_HEAT_HOTTEST);
}

/* One heat table: the markers, names and the legend the TUI's help shows come from it. */
Test(lines, heat_table_gives_markers_names_and_legend)
{
	char buf[128];

	cr_assert_eq(ann_heat_levels[ANN_HEAT_NONE].marker, ' ');
	cr_assert_eq(ann_heat_levels[ANN_HEAT_LOW].marker, '.');
	cr_assert_eq(ann_heat_levels[ANN_HEAT_WARM].marker, ':');
	cr_assert_eq(ann_heat_levels[ANN_HEAT_HOT].marker, '+');
	cr_assert_eq(ann_heat_levels[ANN_HEAT_HOTTEST].marker, '#');
	cr_assert_str_eq(ann_heat_levels[ANN_HEAT_WARM].name, "warm");
	cr_assert_float_eq(ANN_HOT_LINE_SHARE, 0.005, 1e-12);
	cr_assert_str_eq(ann_heat_legend(buf, sizeof(buf)),
			 ". under 0.5%  : under 5%  + under 20%  # 20% or more");
}

Test(lines, long_stretch_without_samples_folds_into_a_gap)
{
	char path[] = "/tmp/annotate_gapXXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct profile_loc locs[2] = {
	    {.dso = "x", .function = "big", .file = path, .line = 5, .samples = 1, .period = 1},
	    {.dso = "x", .function = "big", .file = path, .line = 95, .samples = 3, .period = 3},
	};
	struct profile p = {.locs = locs, .nlocs = 2, .samples = 4, .period = 4};
	struct ann_model *mm;
	struct ann_view *v;
	long gap;

	cr_assert(f);
	fprintf(f, "int big(void)\n{\n");
	for (int i = 3; i <= 99; i++)
		fprintf(f, "\tx%d();\n", i);
	fprintf(f, "}\n");
	fclose(f);
	mm = ann_model_build(&p);
	v = ann_view_build(mm, 0, src);
	unlink(path);
	/* Lines 1-3 (signature), 2-8 (around 5), 92-98 and 98-100 (around 95, the brace). */
	gap = row_containing(v, ANN_ROW_GAP, "83 lines without samples (9-91)");
	cr_assert_geq(gap, 0);
	cr_assert_eq(row_of(v, 8, 0), gap - 1);
	cr_assert_eq(row_of(v, 92, 0), gap + 1);
	cr_assert_eq(row_of(v, 1, 0), 1);
	cr_assert_eq(row_of(v, 100, 0), (long)v->nrows - 1, "ends on the closing brace");
	cr_assert_eq(v->rows[v->nrows - 1].text[0], '}');
	cr_assert_eq(v->rows[row_of(v, 95, 0)].samples, 3);
	ann_view_free(v);
	ann_model_free(mm);
}

Test(lines, samples_beyond_the_end_of_the_source)
{
	const char *c = fixture_path(0, "annotate_work.c");
	struct profile_loc locs[1] = {
	    {.dso = "x", .function = "work", .file = c, .line = 100000, .samples = 2, .period = 2},
	};
	struct profile p = {.locs = locs, .nlocs = 1, .samples = 2, .period = 2};
	struct ann_model *mm = ann_model_build(&p);
	struct ann_view *v = ann_view_build(mm, 0, src);
	long r = row_of(v, 100000, 0);

	cr_assert_geq(row_containing(v, ANN_ROW_NOTE, "samples fall on line 100000"), 0);
	cr_assert_geq(r, 0);
	cr_assert_null(v->rows[r].text);
	cr_assert_eq(v->rows[r].samples, 2);
	ann_view_free(v);
	ann_model_free(mm);
}

Test(lines, empty_profile)
{
	struct profile p = {0};
	struct ann_model *mm = ann_model_build(&p);

	cr_assert_eq(mm->nfuncs, 0);
	ann_model_free(mm);
}

/* F25: a C++ function by its base name (no return type, template arguments or parameters),
 * by its linkage name, and a base name shared by several functions (an error listing them). */
Test(lines, cxx_base_and_linkage_names)
{
	static struct profile_loc locs[4] = {
	    {.dso = "a",
	     .samples = 5,
	     .period = 5,
	     .function = "long work<int, long>(std::map<int, long, std::less<int>, "
			 "std::allocator<std::pair<int const, long> > >&)"},
	    {.dso = "a", .function = "ns::Box<int>::get(int) const", .samples = 4, .period = 4},
	    {.dso = "a", .function = "ns::Box<long>::get(int) const", .samples = 3, .period = 3},
	    {.dso = "a",
	     .function = "ns::Box<long>::get(int) const [clone .cold]",
	     .samples = 1,
	     .period = 1},
	};
	struct profile p = {.locs = locs, .nlocs = 4, .samples = 13, .period = 13};
	struct ann_model *mm = ann_model_build(&p);
	char cands[512] = "";
	size_t idx[4];

	cr_assert_eq(ann_model_find(mm, "work", idx, 4, NULL, 0), 1);
	cr_assert_str_eq(mm->funcs[idx[0]].name, locs[0].function);
	cr_assert_eq(ann_model_find(mm, "work<int, long>", idx, 4, NULL, 0), 1);
	cr_assert_eq(ann_model_find(mm,
				    "_Z4workIilElRSt3mapIT_T0_St4lessIS1_ESaISt4pairIKS1_S2_EEE",
				    idx, 4, NULL, 0),
		     1, "linkage name");
	cr_assert_eq(ann_model_find(mm, "get", idx, 4, cands, sizeof(cands)), -EINVAL);
	cr_assert(strstr(cands, "ns::Box<int>::get(int) const") &&
		      strstr(cands, "ns::Box<long>::get(int) const") && !strstr(cands, "clone"),
		  "%s", cands);
	cr_assert_eq(ann_model_find(mm, "ns::Box::get", idx, 4, NULL, 0), -EINVAL);
	/* The whole name picks one, and its clone goes with it. */
	cr_assert_eq(ann_model_find(mm, "ns::Box<long>::get(int) const", idx, 4, NULL, 0), 2);
	cr_assert_eq(ann_model_find(mm, "ns::Box<long>::get", idx, 4, NULL, 0), 2);
	ann_model_free(mm);
}

/* Stacks: work() called from two lines of main (3:1), main's own samples without a caller. */
Test(lines, callers_and_the_inclusive_cost_of_a_lines_calls)
{
	static const char *file = "/src/a.c";
	struct profile_loc locs[4] = {
	    {.dso = "a", .function = "work", .file = file, .line = 10, .samples = 4, .period = 4},
	    {.dso = "a", .function = "main", .file = file, .line = 20},
	    {.dso = "a", .function = "main", .file = file, .line = 21},
	    {.dso = "a", .function = "main", .file = file, .line = 25, .samples = 2, .period = 2},
	};
	static const uint32_t s1[] = {0, 1}, s2[] = {0, 2}, s3[] = {3}, s4[] = {0, 1, 1};
	struct profile_stack stacks[] = {
	    {.locs = s1, .n = 2, .samples = 2, .period = 2},
	    {.locs = s2, .n = 2, .samples = 1, .period = 1},
	    {.locs = s3, .n = 1, .samples = 2, .period = 2},
	    {.locs = s4, .n = 3, .samples = 1, .period = 1}, /* main calls itself on line 20 */
	};
	struct profile_loc sampled[2] = {locs[0], locs[3]};
	struct profile p = {.locs = sampled,
			    .nlocs = 2,
			    .locations = locs,
			    .nlocations = 4,
			    .stacks = stacks,
			    .nstacks = 4,
			    .samples = 6,
			    .period = 6};
	struct ann_model *mm = ann_model_build(&p);
	struct ann_calls c;
	const struct ann_line_calls *lc;
	size_t work, main_fn;

	cr_assert_eq(ann_model_find(mm, "work", &work, 1, NULL, 0), 1);
	cr_assert_eq(ann_model_find(mm, "main", &main_fn, 1, NULL, 0), 1);
	ann_calls_build(mm, work, &c);
	cr_expect_eq(c.samples, 4);
	cr_assert_eq(c.ncallers, 2);
	cr_expect_str_eq(c.callers[0].function, "main");
	cr_expect_eq(c.callers[0].line, 20);
	cr_expect_eq(c.callers[0].samples, 3);
	cr_expect_float_eq(c.callers[0].share, 0.75, 1e-9);
	cr_expect_eq(c.callers[1].line, 21);
	cr_expect_eq(c.nlines, 0, "work makes no call");
	ann_calls_release(&c);
	ann_calls_build(mm, main_fn, &c);
	cr_expect_eq(c.samples, 6);
	cr_assert_eq(c.ncallers, 1);
	cr_expect_null(c.callers[0].function, "main is the outermost frame");
	lc = ann_calls_at(&c, file, 20);
	cr_assert(lc);
	cr_expect_eq(lc->samples, 3, "the recursive stack counts once on line 20");
	cr_expect_str_eq(lc->callee, "work", "the costliest callee, for the TUI's 'c'");
	cr_expect_str_eq(lc->callee_dso, "a");
	lc = ann_calls_at(&c, file, 21);
	cr_assert(lc);
	cr_expect_eq(lc->samples, 1);
	cr_expect_null(ann_calls_at(&c, file, 25));
	ann_calls_release(&c);
	ann_model_free(mm);
}
