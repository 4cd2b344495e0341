/* textfmt.c - JSON and CSV quoting, in one place for every output of the tree. */
#include "textfmt.h"
#include "hwprof/metrics.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Length of the well-formed UTF-8 sequence at S (Unicode 15, table 3-7: no overlong forms,
 * no surrogates, nothing past U+10FFFF), or 0 when S does not start one. Only the first AVAIL
 * bytes of S are looked at: a sequence they cut, whose bytes there hold, has its full length.
 * A NUL-terminated S may pass SIZE_MAX: its NUL fails a sequence before the end. */
static size_t utf8_seq(const unsigned char *s, size_t avail)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, lo = s[0] == 0xe0 ? 0xa0 : 0x80, hi = s[0] == 0xed ? 0x9f : 0xbf;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, lo = s[0] == 0xf0 ? 0x90 : 0x80, hi = s[0] == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (avail > 1 && (s[1] < lo || s[1] > hi))
		return 0;
	for (size_t i = 2; i < n && i < avail; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

static size_t utf8_len(const unsigned char *s)
{
	return utf8_seq(s, SIZE_MAX);
}

void hwprof_json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		const char *esc = NULL;

		switch (c) {
		case '"':
			esc = "\\\"";
			break;
		case '\\':
			esc = "\\\\";
			break;
		case '\b':
			esc = "\\b";
			break;
		case '\f':
			esc = "\\f";
			break;
		case '\n':
			esc = "\\n";
			break;
		case '\r':
			esc = "\\r";
			break;
		case '\t':
			esc = "\\t";
			break;
		}
		if (esc) {
			fputs(esc, f);
		} else if (c < 0x20) {
			fprintf(f, "\\u%04x", c);
		} else if (c < 0x80) {
			fputc(c, f);
		} else {
			size_t n = utf8_len((const unsigned char *)s);

			/* JSON text is UTF-8 (RFC 8259, 8.1): a byte of another encoding (a
			 * Latin-1 file name) becomes U+FFFD, as a UTF-8 decoder shows it. */
			if (n) {
				fwrite(s, 1, n, f);
				s += n - 1;
			} else {
				fputs("\\ufffd", f);
			}
		}
	}
	fputc('"', f);
}

void hwprof_json_double(FILE *f, double v, int digits)
{
	if (isfinite(v))
		fprintf(f, "%.*g", digits, v);
	else
		fputs("null", f);
}

void hwprof_csv_str(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

char *hwprof_count_text(double v, const char *unit, char *buf, size_t len)
{
	if ((unit[0] && strcmp(unit, "ns")) || v < 0 || v >= 1e18 || (v > 0 && v < 1)) {
		snprintf(buf, len, "%.2f", v);
		return buf;
	}
	return hwprof_group_digits((unsigned long long)llround(v), buf, len);
}

char *hwprof_metric_text(const struct hwprof_metric *m, char *buf, size_t len)
{
	if (m->percent)
		snprintf(buf, len, "%.2f%%", 100 * m->value);
	else
		snprintf(buf, len, "%.3f", m->value);
	return buf;
}

char *hwprof_argv_line(char *const *argv, size_t argc)
{
	size_t len = 1;
	char *s, *o;

	/* Worst case: every byte a quote (4 bytes: '\'') plus the word's own two quotes. */
	for (size_t i = 0; i < argc; i++)
		len += 4 * strlen(argv[i] ? argv[i] : "") + 3;
	s = o = malloc(len);
	if (!s)
		return NULL;
	for (size_t i = 0; i < argc; i++) {
		const char *w = argv[i] ? argv[i] : "";
		bool quote = !*w || strpbrk(w, " \t\n'\"\\$`*?[]{}()<>|&;#~") != NULL;

		if (i)
			*o++ = ' ';
		if (quote)
			*o++ = '\'';
		for (; *w; w++) {
			if (*w == '\'') {
				memcpy(o, "'\\''", 4);
				o += 4;
			} else {
				*o++ = *w;
			}
		}
		if (quote)
			*o++ = '\'';
	}
	*o = '\0';
	return s;
}

int hwprof_namecmp(const char *a, const char *b)
{
	return a == b ? 0 : strcmp(a ? a : "", b ? b : "");
}

char *hwprof_group_digits(unsigned long long n, char *buf, size_t len)
{
	char digits[32];
	int nd = snprintf(digits, sizeof(digits), "%llu", n);
	size_t o = 0;

	for (int i = 0; i < nd && o + 1 < len; i++) {
		if (i && (nd - i) % 3 == 0 && o + 2 < len)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

/* The length of the character at S (1 for a byte that starts no well-formed UTF-8 sequence),
 * and in *BAD whether it is shown as '?': a C0 control or DEL, a C1 control (U+0080-U+009F:
 * U+009B is CSI to a terminal), or a byte of another encoding. */
static size_t char_at(const unsigned char *s, bool *bad)
{
	size_t n;

	if (s[0] < 0x80) {
		*bad = s[0] < 0x20 || s[0] == 0x7f;
		return 1;
	}
	n = utf8_len(s);
	*bad = !n || (s[0] == 0xc2 && s[1] < 0xa0);
	return n ? n : 1;
}

bool hwprof_text_looks_plain(const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n;) {
		size_t len = 1;
		bool bad;
		if (s[i] < 0x80) {
			bad = (s[i] < 0x20 && s[i] != '\t' && s[i] != '\n' && s[i] != '\r') ||
			      s[i] == 0x7f;
		} else {
			/* As char_at(), on the bytes there are. */
			len = utf8_seq(s + i, n - i);
			bad = !len || (s[i] == 0xc2 && n - i > 1 && s[i + 1] < 0xa0);
		}
		if (bad)
			return false;
		i += len;
	}
	return true;
}

char *hwprof_text_tame(char *s)
{
	unsigned char *p = (unsigned char *)s;
	bool bad;

	while (*p) {
		size_t n = char_at(p, &bad);
		if (bad)
			memset(p, '?', n);
		p += n;
	}
	return s;
}

void hwprof_text_put(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	bool bad;

	while (*p) {
		size_t n = char_at(p, &bad);
		for (size_t i = 0; i < n; i++)
			fputc(bad ? '?' : p[i], f);
		p += n;
	}
}

/* The next character of S as shown: its bytes, or one '?' for one bad byte (a C1 control's
 * second byte is a bad byte of its own). Returns the bytes of S it stands for. */
static size_t shown_at(const unsigned char *s, bool *bad)
{
	size_t n = char_at(s, bad);

	return *bad ? 1 : n;
}

void hwprof_text_column(FILE *f, const char *s, size_t width)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t cols = 0, total = hwprof_text_width(s);
	bool bad;

	/* One column per character; past WIDTH the last column is the ellipsis. */
	for (; *p && (total <= width || cols + 1 < width); cols++) {
		size_t n = shown_at(p, &bad);
		if (bad)
			fputc('?', f);
		else
			fwrite(p, 1, n, f);
		p += n;
	}
	if (total > width) {
		fputs("\u2026", f);
		cols++;
	}
	for (; cols < width; cols++)
		fputc(' ', f);
}

size_t hwprof_text_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t cols = 0;
	bool bad;

	for (; *p; cols++)
		p += shown_at(p, &bad);
	return cols;
}

/* glibc's printf family spells %m from errno. */
char *hwprof_vmsgf(char *buf, size_t len, int err, const char *fmt, va_list ap)
{
	int saved = errno;

	if (!buf || !len)
		return buf;
	errno = err < 0 ? -err : err;
	vsnprintf(buf, len, fmt, ap);
	errno = saved;
	return buf;
}

char *hwprof_msgf(char *buf, size_t len, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hwprof_vmsgf(buf, len, err, fmt, ap);
	va_end(ap);
	return buf;
}
