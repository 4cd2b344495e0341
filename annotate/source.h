/* source.h - finding and reading the source files that DWARF names.
 *
 * DWARF gives each line's file as the compiler saw it (report joins comp_dir and the file name).
 * A build that was moved, or made on another machine, needs help to find its sources:
 *   --prefix-map OLD=NEW  rewrites a leading OLD (whole path components) to NEW;
 *   --source-dir DIR      looks for the path's trailing components under DIR
 *                         (/build/x/src/a.c -> DIR/build/x/src/a.c, DIR/x/src/a.c, ..., DIR/a.c).
 * Candidates are tried in that order, the path as recorded last, so what the user says wins.
 * Each file is read once per cache and kept until the cache is freed.
 *
 * CLI code: allocation failures die through cli.h's x* wrappers.
 */
#ifndef HWPROF_ANNOTATE_SOURCE_H
#define HWPROF_ANNOTATE_SOURCE_H

#include <stddef.h>
#include <time.h>

struct source_options {
	const char *const *source_dirs; /* --source-dir, in the order given */
	size_t nsource_dirs;
	const char *const *prefix_maps; /* --prefix-map "OLD=NEW", in the order given */
	size_t nprefix_maps;
};

/* One source file, found or not. */
struct source_file {
	const char *dwarf_path; /* the path asked for (as in DWARF) */
	const char *path;	/* where it was read from; NULL when not found */
	char **lines;		/* lines[0] is line 1: tabs expanded to 8 columns, control bytes
				 * shown as '?', no newline */
	size_t nlines;
	char *text;	       /* the file as read, where most LINES are (owned by the cache) */
	char *expanded;	       /* the lines with a tab or a control byte, shown, or NULL */
	char *looked_for;      /* when not found: one line, "PATH (errno text)" per candidate,
				* "; "-separated */
	struct timespec mtime; /* of the file read (st_mtim), to tell an edit after the build */
};

struct source_cache;

/* Checks one --prefix-map argument: "OLD=NEW" with a non-empty OLD. Returns 0 or -EINVAL. */
int source_prefix_map_check(const char *map);

/* A new cache using OPT's lists (not copied: they must outlive the cache). */
struct source_cache *source_cache_new(const struct source_options *opt);

/* The file DWARF_PATH (not NULL), read on first use. The result is owned by the cache and
 * never NULL: check ->path to see whether it was found. */
const struct source_file *source_get(struct source_cache *c, const char *dwarf_path);

/* Frees C and every file it read. Accepts NULL. */
void source_cache_free(struct source_cache *c);

/* Largest source file read, in bytes: bigger files are treated as not found (not source). */
#define SOURCE_MAX_BYTES (64u << 20)

#endif
