/* json.h - a small streaming JSON writer that places the commas and closes what it opened, for
 * every JSON output (regions, stat, list, report). Internal: not installed.
 *
 * Inside an object each value has a KEY; inside an array KEY is NULL. Strings and numbers are
 * written by hwprof_json_str() and hwprof_json_double() (textfmt.h): valid UTF-8, NaN and
 * infinity as null. Write errors stay in ferror(F). */
#ifndef HWPROF_JSON_H
#define HWPROF_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define HWPROF_JW_DEPTH 16

struct hwprof_jw {
	FILE *f;
	const char *sep;		 /* between values: "," or ", " */
	const char *colon;		 /* after a key: ":" or ": " */
	int depth;			 /* open containers */
	char close[HWPROF_JW_DEPTH];	 /* '}' or ']' for each */
	bool has_value[HWPROF_JW_DEPTH]; /* the container already holds a value */
	bool newline;			 /* the next value starts a line */
};

struct hwprof_metric;

/* The version of every JSON document hwprof writes (report, annotate, stat, list, diff): the
 * "version" member of its top-level object, raised when a member changes meaning or goes
 * away (new members do not raise it). */
#define HWPROF_JSON_VERSION 2

/* Starts writing to F. COMPACT: "," and ":" between tokens, else ", " and ": ". */
void hwprof_jw_init(struct hwprof_jw *j, FILE *f, bool compact);

/* Opens an object or an array as the value KEY (NULL in an array or at the top). Deeper than
 * HWPROF_JW_DEPTH is not tracked: callers stay well below. */
void hwprof_jw_object(struct hwprof_jw *j, const char *key);
void hwprof_jw_array(struct hwprof_jw *j, const char *key);

/* Closes the innermost open object or array. */
void hwprof_jw_end(struct hwprof_jw *j);

/* One value KEY: a string (NULL writes null), a number with DIGITS significant digits, an
 * integer, a boolean, or null. */
void hwprof_jw_str(struct hwprof_jw *j, const char *key, const char *s);
/* An array KEY of the N strings V (a command's argv, a list of messages); V may be NULL when
 * N is 0. */
void hwprof_jw_str_array(struct hwprof_jw *j, const char *key, char *const *v, size_t n);
void hwprof_jw_double(struct hwprof_jw *j, const char *key, double v, int digits);
void hwprof_jw_int(struct hwprof_jw *j, const char *key, long long v);
/* The member "version": HWPROF_JSON_VERSION, first in a document's top-level object. */
void hwprof_jw_version(struct hwprof_jw *j);
void hwprof_jw_uint(struct hwprof_jw *j, const char *key, uint64_t v);
void hwprof_jw_bool(struct hwprof_jw *j, const char *key, bool v);
void hwprof_jw_null(struct hwprof_jw *j, const char *key);
/* hwprof_jw_double() with 15 digits when VALID, else null: a figure that could not be
 * measured. */
void hwprof_jw_measured(struct hwprof_jw *j, const char *key, double v, bool valid);

/* Starts the next value on a new line, after its comma: one line per row of a long array. */
void hwprof_jw_newline(struct hwprof_jw *j);

/* A derived metric as the object {"name", "value" (DIGITS significant digits), "formula"}:
 * the one shape every JSON output gives a metric. */
void hwprof_jw_metric(struct hwprof_jw *j, const struct hwprof_metric *m, int digits);

#endif
