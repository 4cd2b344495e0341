/* test_source.c - finding and reading source files (annotate/source.h). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "source.h"

Test(source, path_as_recorded)
{
	struct source_options o = {0};
	struct source_cache *c = source_cache_new(&o);
	const char *path = fixture_path(0, "annotate_work.c");
	const struct source_file *f = source_get(c, path);
	int first = hot_line(path, "first");

	cr_assert_str_eq(f->path, path);
	cr_assert_gt(f->nlines, (size_t)first);
	cr_assert(strstr(f->lines[first - 1], "HOT: first"));
	cr_assert_null(f->looked_for);
	cr_assert_eq(source_get(c, path), f, "read once, then cached");
	source_cache_free(c);
}

Test(source, prefix_map_rewrites_a_moved_build)
{
	char map[4200];
	const char *maps[2] = {"/elsewhere=/nowhere", map};
	struct source_options o = {.prefix_maps = maps, .nprefix_maps = 2};
	struct source_cache *c;
	const struct source_file *f;

	snprintf(map, sizeof(map), "/old/build=%s", fixture_dir());
	c = source_cache_new(&o);
	f = source_get(c, "/old/build/annotate_work.c");
	cr_assert_not_null(f->path, "looked for: %s", f->looked_for);
	cr_assert_str_eq(f->path, fixture_path(0, "annotate_work.c"));
	/* Whole components only: /old/buildx is not under /old/build. */
	f = source_get(c, "/old/buildx/annotate_work.c");
	cr_assert_null(f->path);
	source_cache_free(c);
}

Test(source, source_dir_tries_trailing_components)
{
	const char *dirs[1] = {fixture_dir()};
	struct source_options o = {.source_dirs = dirs, .nsource_dirs = 1};
	struct source_cache *c = source_cache_new(&o);
	const struct source_file *f = source_get(c, "/some/other/machine/annotate_work.h");

	cr_assert_not_null(f->path, "looked for: %s", f->looked_for);
	cr_assert_str_eq(f->path, fixture_path(0, "annotate_work.h"));
	source_cache_free(c);
}

Test(source, not_found_says_what_was_looked_for)
{
	const char *dirs[1] = {"/nonexistent-dir"};
	struct source_options o = {.source_dirs = dirs, .nsource_dirs = 1};
	struct source_cache *c = source_cache_new(&o);
	const struct source_file *f = source_get(c, "/gone/a.c");

	cr_assert_null(f->path);
	cr_assert_eq(f->nlines, 0);
	cr_assert_str_eq(f->looked_for, "/nonexistent-dir/gone/a.c (No such file or directory); "
					"/nonexistent-dir/a.c (No such file or directory); "
					"/gone/a.c (No such file or directory)");
	source_cache_free(c);
}

Test(source, directory_is_not_a_source)
{
	struct source_options o = {0};
	struct source_cache *c = source_cache_new(&o);
	const struct source_file *f = source_get(c, "/tmp");

	cr_assert_null(f->path);
	cr_assert(strstr(f->looked_for, strerror(EISDIR)), "%s", f->looked_for);
	source_cache_free(c);
}

/* TEXT (LEN bytes) written to a temporary file and read through C. */
static const struct source_file *read_text(struct source_cache *c, const char *text, size_t len)
{
	char path[] = "/tmp/annotate_srcXXXXXX";
	int fd = mkstemp(path);
	const struct source_file *f;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	f = source_get(c, path);
	unlink(path);
	return f;
}

Test(source, tabs_crlf_and_control_bytes)
{
	static const char text[] = "a\tb\r\n\x1b[2Jx\n\n\tz";
	struct source_options o = {0};
	struct source_cache *c = source_cache_new(&o);
	const struct source_file *f = read_text(c, text, sizeof(text) - 1);

	cr_assert_eq(f->nlines, 4);
	cr_assert_str_eq(f->lines[0], "a       b");
	cr_assert_str_eq(f->lines[1], "?[2Jx", "an escape byte must not reach the terminal");
	cr_assert_str_eq(f->lines[2], "");
	cr_assert_str_eq(f->lines[3], "        z", "last line without a newline");
	source_cache_free(c);
}

/* Lines longer than a word, checked eight bytes at a time: a control byte or 0x7f at any
 * place is hidden, UTF-8 and plain ASCII are kept as they are, a CR before the newline
 * dropped. */
Test(source, long_lines_checked_by_words)
{
	static const char text[] = "0123456789abcdef\n"
				   "abcdefg\x01ijklmnop\n"
				   "0123456789abcd\x7f\n"
				   "h\xc3\xa9llo w\xc3\xb6rld, plain\r\n"
				   "fifteen bytes!!\x1f\n"
				   " !\"#$%&'()*+,-./~~~~~~~~\n";
	struct source_options o = {0};
	struct source_cache *c = source_cache_new(&o);
	const struct source_file *f = read_text(c, text, sizeof(text) - 1);

	cr_assert_eq(f->nlines, 6);
	cr_assert_str_eq(f->lines[0], "0123456789abcdef");
	cr_assert_str_eq(f->lines[1], "abcdefg?ijklmnop");
	cr_assert_str_eq(f->lines[2], "0123456789abcd?");
	cr_assert_str_eq(f->lines[3], "h\xc3\xa9llo w\xc3\xb6rld, plain");
	cr_assert_str_eq(f->lines[4], "fifteen bytes!!?");
	cr_assert_str_eq(f->lines[5], " !\"#$%&'()*+,-./~~~~~~~~");
	source_cache_free(c);
}

Test(source, prefix_map_syntax)
{
	cr_assert_eq(source_prefix_map_check("/a=/b"), 0);
	cr_assert_eq(source_prefix_map_check("/a="), 0);
	cr_assert_eq(source_prefix_map_check("=/b"), -EINVAL);
	cr_assert_eq(source_prefix_map_check("/a"), -EINVAL);
}

Test(source, many_files_each_read_once)
{
	struct source_options o = {0};
	struct source_cache *c = source_cache_new(&o);
	const struct source_file *first[200];
	char path[64];

	for (int i = 0; i < 200; i++) {
		snprintf(path, sizeof(path), "/nonexistent/f%d.c", i);
		first[i] = source_get(c, path);
		cr_assert_str_eq(first[i]->dwarf_path, path);
	}
	/* The caller's buffer changed under the cache: it keys on its own copies. */
	for (int i = 0; i < 200; i++) {
		snprintf(path, sizeof(path), "/nonexistent/f%d.c", i);
		cr_assert_eq(source_get(c, path), first[i], "f%d.c read again", i);
	}
	source_cache_free(c);
}
