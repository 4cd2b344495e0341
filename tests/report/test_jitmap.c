/* test_jitmap.c - perf's JIT map format (report/core/jitmap.c): ranges, a later line for the
 * same start, lines that do not parse, a half-written last line. */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "jitmap.h"

Test(jitmap, ranges_replacements_and_bad_lines)
{
	char path[] = "/tmp/hwprof-jitmap-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct jitmap *m;

	cr_assert_not_null(f);
	fputs("1000 100 first function\n" /* [0x1000, 0x1100) */
	      "2000 10 LazyCompile:~old /x.js:1\n"
	      "garbage line\n"
	      "3000 0 zero size\n"
	      "2000 20 LazyCompile:*new /x.js:1\n" /* recompiled at the same start */
	      "4000 10 half written",		   /* no newline: still being written */
	      f);
	fclose(f);
	cr_assert_eq(jitmap_read(path, &m), 0);
	unlink(path);
	cr_assert_eq(jitmap_size(m), 2);
	cr_assert_str_eq(jitmap_find(m, 0x1000), "first function");
	cr_assert_str_eq(jitmap_find(m, 0x10ff), "first function");
	cr_assert_null(jitmap_find(m, 0x1100), "past its size");
	cr_assert_null(jitmap_find(m, 0xfff));
	cr_assert_str_eq(jitmap_find(m, 0x201f), "LazyCompile:*new /x.js:1");
	cr_assert_null(jitmap_find(m, 0x3000));
	cr_assert_null(jitmap_find(m, 0x4000));
	jitmap_free(m);
	cr_assert_eq(jitmap_read("/nonexistent/perf-1.map", &m), -ENOENT);
}

Test(jitmap, anonymous_mappings)
{
	cr_assert(jitmap_anon("//anon"));
	cr_assert(jitmap_anon("[anon:v8]"));
	cr_assert(jitmap_anon("/memfd:jit (deleted)"));
	cr_assert(jitmap_anon(""));
	cr_assert_not(jitmap_anon("/usr/bin/node"));
	cr_assert_not(jitmap_anon("[vdso]"));
}
