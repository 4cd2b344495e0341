/* textfmt.h - strings and numbers in the outputs of region reports, 'hwprof stat', 'hwprof
 * list', 'hwprof report' and 'hwprof annotate': JSON and CSV quoting, counts for people.
 * Internal: not installed. */
#ifndef HWPROF_TEXTFMT_H
#define HWPROF_TEXTFMT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Writes S to F as a JSON string (RFC 8259): quoted, '"' and '\' escaped, \b \f \n \r \t in
 * their short form and every other control character (< 0x20) as \u00XX. Well-formed UTF-8
 * passes through; each byte that starts no well-formed sequence (Latin-1 in a file name or
 * argv) is written as \ufffd, so that the output is always valid UTF-8 (RFC 8259, 8.1). A
 * NULL S writes null. Write errors stay in ferror(F). */
void hwprof_json_str(FILE *f, const char *s);

/* Writes V to F as a JSON number with DIGITS significant digits (%.*g), or null when V is
 * NaN or infinite (JSON has neither). */
void hwprof_json_double(FILE *f, double v, int digits);

/* Writes S to F as one CSV field (RFC 4180): as is, or quoted with '"' doubled when it holds
 * ',' '"' '\n' or '\r'. A NULL S writes nothing (an empty field). */
void hwprof_csv_str(FILE *f, const char *s);

/* Compares names A and B as strcmp() does, a NULL (unknown) name as "": the order rows and
 * frames of equal cost keep, by text and never by where the strings sit in memory. */
int hwprof_namecmp(const char *a, const char *b);

/* Writes N with thousands separators ("1,234,567") into BUF (LEN bytes, truncated to fit);
 * returns BUF. */
char *hwprof_group_digits(unsigned long long n, char *buf, size_t len);

/* Writes counted (scaled) value V as people read it into BUF (LEN bytes); returns BUF. An
 * event count (UNIT "" or "ns") is rounded and grouped ("1,234,567"); a value in a sysfs unit
 * ("MiB", "Joules"), one between 0 and 1 (a mean over runs: "0.33", not "0"), or one that is
 * negative or too large to round (>= 1e18), keeps two decimals ("1536.26"). The one spelling
 * of a count in text outputs. */
char *hwprof_count_text(double v, const char *unit, char *buf, size_t len);

struct hwprof_metric;

/* Writes metric M's value as people read it into BUF (LEN bytes); returns BUF: a rate in
 * percent with two decimals ("12.35%"), any other metric with three ("2.500"). */
char *hwprof_metric_text(const struct hwprof_metric *m, char *buf, size_t len);

/* Formats FMT into BUF (LEN bytes, cut to fit; nothing when BUF is NULL or LEN 0) as
 * snprintf(3) does, with %m standing for strerror(ERR), ERR an errno or a -errno: the one way a
 * message spells an errno, in the library and the CLI alike. errno is kept. Returns BUF. */
char *hwprof_msgf(char *buf, size_t len, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
char *hwprof_vmsgf(char *buf, size_t len, int err, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

/* ARGC words of ARGV as one command line, each quoted as a shell would need to read it back
 * ('echo a b', '' for an empty word, ' inside as '\''; a NULL word is empty). Returns a
 * malloc'd string the caller frees, or NULL with errno ENOMEM. Control bytes are kept: tame
 * them for text meant for people (hwprof_text_tame). */
char *hwprof_argv_line(char *const *argv, size_t argc);

/* Replaces with '?', in place, every control byte of S (< 0x20 and 0x7f), each byte of a C1
 * control (U+0080..U+009F in UTF-8) and each byte that starts no well-formed UTF-8 sequence
 * (Latin-1, junk), and returns S: a name read from a binary or a sample file made elsewhere
 * ("evil\x1b]0;...") must neither drive the terminal nor break a table's line. Well-formed
 * UTF-8 passes. For text meant for people only; JSON and CSV keep the bytes
 * (hwprof_json_str, hwprof_csv_str). */
char *hwprof_text_tame(char *s);

/* Whether the N bytes at P read as text: well-formed UTF-8 (a character cut by the end of
 * the N bytes counts as far as it goes) with no control character other than tab, newline
 * and carriage return, as hwprof_text_tame() judges them. For messages about a file's first
 * bytes: random bytes are binary data, not text. */
bool hwprof_text_looks_plain(const void *p, size_t n);

/* Writes S to F as hwprof_text_tame() would show it, without changing S. */
void hwprof_text_put(FILE *f, const char *s);

/* The columns S takes as hwprof_text_put() shows it: one per UTF-8 code point, one per '?'. */
size_t hwprof_text_width(const char *s);

/* Writes S as hwprof_text_put() would, in a column of WIDTH (>= 1) characters: padded with
 * spaces, or cut to WIDTH - 1 characters and "…" (U+2026) when wider, so that a long name
 * cannot push the next column out of line. */
void hwprof_text_column(FILE *f, const char *s, size_t width);

#endif
