/* source.c - finding and reading source files (source.h). */
#include "source.h"
#include "textfmt.h"

#include "cli.h"
#include "keymap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct source_cache {
	const struct source_options *opt;
	struct source_file **files;
	size_t nfiles, cap;
	struct keymap index; /* dwarf_path -> index into files */
};

int source_prefix_map_check(const char *map)
{
	const char *eq = strchr(map, '=');

	return eq && eq != map ? 0 : -EINVAL;
}

struct source_cache *source_cache_new(const struct source_options *opt)
{
	struct source_cache *c = xcalloc(1, sizeof(*c));

	c->opt = opt;
	keymap_init(&c->index, 16);
	return c;
}

/* Columns and bytes of one line of source as shown: tabs to the next multiple of 8, control
 * bytes as '?' (a stray escape in a source file must not drive the terminal). Writes the line
 * and its NUL at OUT when OUT is not NULL; returns the bytes it takes, NUL included. */
static size_t expand_line(const char *s, size_t n, char *out)
{
	size_t width = 0, bytes = 0;

	if (!memchr(s, '\t', n)) { /* most lines: no column to count */
		for (size_t i = 0; out && i < n; i++) {
			unsigned char ch = (unsigned char)s[i];

			out[i] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
		}
		if (out)
			out[n] = '\0';
		return n + 1;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '\t') {
			do {
				if (out)
					out[bytes] = ' ';
				bytes++;
				width++;
			} while (width % 8);
			continue;
		}
		if (out)
			out[bytes] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
		bytes++;
		/* UTF-8 continuation bytes take no column. */
		width += (ch & 0xc0) != 0x80;
	}
	if (out)
		out[bytes] = '\0';
	return bytes + 1;
}

/* Whether the N bytes at S show as they are: no tab to expand, no control byte to hide (below
 * 0x20, 0x7f). Eight bytes at a time, as the whole of a 9 MB amalgamation is checked: a word
 * X has a byte below B (B <= 0x80) when (X - B * ONES) & ~X & HIGHS is not 0, and a byte
 * 0x7f when X ^ 0x7f... has a zero byte (B = 1). */
static bool plain(const char *s, size_t n)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;

		memcpy(&x, s + i, 8);
		y = x ^ (0x7f * ones);
		if (((x - 0x20 * ones) & ~x & highs) | ((y - ones) & ~y & highs))
			return false;
	}
	for (; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch < 0x20 || ch == 0x7f)
			return false;
	}
	return true;
}

/* A line that is not plain(): its index and where it is in the file. */
struct unplain {
	size_t line, at, len;
};

/* F's lines from BUF[0..LEN), BUF kept as F->text (LEN is below its size: room for a NUL).
 * A plain line stays where it is, its newline (a CR before it too) made its NUL; the others
 * are expanded by expand_line() into one more block, F->expanded. No empty line after a final
 * newline. */
static void split_lines(struct source_file *f, char *buf, size_t len)
{
	char *p = buf, *end = buf + len;
	struct unplain *u = NULL;
	size_t n = 0, nu = 0, ucap = 0, bytes = 0;

	for (const char *q = buf; q < end; n++) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));

		q = nl ? nl + 1 : end;
	}
	f->text = buf;
	f->lines = xmalloc((n ? n : 1) * sizeof(*f->lines));
	f->nlines = n;
	for (size_t i = 0; i < n; i++) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = (size_t)((nl ? nl : end) - p);

		l -= l && p[l - 1] == '\r';
		if (plain(p, l)) {
			p[l] = '\0';
			f->lines[i] = p;
		} else {
			if (nu == ucap) {
				ucap = ucap ? 2 * ucap : 64;
				u = xrealloc(u, ucap * sizeof(*u));
			}
			u[nu++] = (struct unplain){.line = i, .at = (size_t)(p - buf), .len = l};
			bytes += expand_line(p, l, NULL);
		}
		p = nl ? nl + 1 : end;
	}
	if (nu)
		f->expanded = xmalloc(bytes);
	for (size_t k = 0, o = 0; k < nu; k++) {
		f->lines[u[k].line] = f->expanded + o;
		o += expand_line(buf + u[k].at, u[k].len, f->expanded + o);
	}
	free(u);
}

/* read_lines()'s answer for a FIFO, socket or device: no errno says it. */
#define NOT_REGULAR (-4096)

/* Reads PATH into F's lines. Returns 0, NOT_REGULAR, or -errno (EISDIR, EFBIG for a huge
 * file, open's). */
static int read_lines(struct source_file *f, const char *path)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int fd, ret = 0;

	/* Non-blocking: a FIFO at the path would block open(2) until a writer came. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = -EISDIR;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = NOT_REGULAR;
		goto out;
	}
	if ((uint64_t)st.st_size > SOURCE_MAX_BYTES) {
		ret = -EFBIG;
		goto out;
	}
	for (;;) {
		ssize_t got;

		if (len == cap) {
			if (cap >= SOURCE_MAX_BYTES) {
				ret = -EFBIG;
				goto out;
			}
			cap = cap ? cap * 2 : (size_t)st.st_size + 1;
			buf = xrealloc(buf, cap);
		}
		got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			ret = -errno;
			goto out;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	/* The lines stay in the block read, but for those with a tab or a control byte: a 9 MB
	 * amalgamation (sqlite3.c, 250,000 lines) took a malloc per line and most of annotate's
	 * own time, then a copy of every line a fifth of it. */
	split_lines(f, buf, len);
	buf = NULL;
	f->path = xstrdup(path);
	f->mtime = st.st_mtim;
out:
	free(buf);
	close(fd);
	return ret;
}

/* Appends CANDIDATE and why it failed to F's looked_for line. */
static void note_miss(struct source_file *f, const char *candidate, int err)
{
	size_t old = f->looked_for ? strlen(f->looked_for) : 0;
	char why[128];
	size_t add;

	if (err == NOT_REGULAR)
		snprintf(why, sizeof(why), "not a regular file");
	else
		hwprof_msgf(why, sizeof(why), err, "%m");
	add = strlen(candidate) + strlen(why) + 8;
	f->looked_for = xrealloc(f->looked_for, old + add);
	snprintf(f->looked_for + old, add, "%s%s (%s)", old ? "; " : "", candidate, why);
}

/* Tries CANDIDATE (owned by the caller). Returns 1 when F was read from it. */
static int try_path(struct source_file *f, const char *candidate)
{
	int err = read_lines(f, candidate);

	if (!err)
		return 1;
	note_miss(f, candidate, err);
	return 0;
}

/* Whether PATH starts with the directory OLD (OLD's length N), on a path component boundary. */
static int has_prefix(const char *path, const char *old, size_t n)
{
	if (strncmp(path, old, n))
		return 0;
	return old[n - 1] == '/' || path[n] == '/' || path[n] == '\0';
}

static void find_file(struct source_file *f, const struct source_options *opt)
{
	const char *p = f->dwarf_path;
	char *cand = NULL;

	for (size_t i = 0; i < opt->nprefix_maps; i++) {
		const char *map = opt->prefix_maps[i], *eq = strchr(map, '=');
		size_t n;

		if (!eq || eq == map)
			continue;
		n = (size_t)(eq - map);
		if (!has_prefix(p, map, n))
			continue;
		if (asprintf(&cand, "%s%s", eq + 1, p + n) < 0)
			die("out of memory");
		if (try_path(f, cand))
			goto out;
		free(cand);
		cand = NULL;
	}
	for (size_t i = 0; i < opt->nsource_dirs; i++) {
		const char *dir = opt->source_dirs[i];

		/* Every trailing part of the path, longest first: "/a/b/c.c" gives a/b/c.c, b/c.c,
		 * c.c. */
		for (const char *s = p; s; s = strchr(s, '/')) {
			while (*s == '/')
				s++;
			if (!*s)
				break;
			if (asprintf(&cand, "%s/%s", dir, s) < 0)
				die("out of memory");
			if (try_path(f, cand))
				goto out;
			free(cand);
			cand = NULL;
		}
	}
	try_path(f, p);
out:
	free(cand);
	if (f->path) {
		free(f->looked_for);
		f->looked_for = NULL;
	}
}

const struct source_file *source_get(struct source_cache *c, const char *dwarf_path)
{
	struct source_file *f;
	size_t at = keymap_find(&c->index, dwarf_path, NULL, NULL);

	if (at != KEYMAP_NONE)
		return c->files[at];
	f = xcalloc(1, sizeof(*f));
	f->dwarf_path = xstrdup(dwarf_path);
	find_file(f, c->opt);
	if (c->nfiles == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 16;
		c->files = xrealloc(c->files, c->cap * sizeof(*c->files));
	}
	/* Keyed by the file's own copy of the path: the caller's may not last. */
	keymap_get_or_add(&c->index, f->dwarf_path, NULL, NULL, c->nfiles);
	c->files[c->nfiles++] = f;
	return f;
}

void source_cache_free(struct source_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nfiles; i++) {
		struct source_file *f = c->files[i];

		free(f->lines);
		free(f->text);
		free(f->expanded);
		free((char *)f->dwarf_path);
		free((char *)f->path);
		free(f->looked_for);
		free(f);
	}
	free(c->files);
	keymap_release(&c->index);
	free(c);
}
