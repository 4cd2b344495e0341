/* closest.h - "did you mean" for names the user mistyped: event names, PMUs, functions,
 * subcommands. Internal: not installed. */
#ifndef HWPROF_CLOSEST_H
#define HWPROF_CLOSEST_H

#include <stddef.h>

/* Longest prefix of a name that the edit distance looks at, in bytes. */
#define HWPROF_EDIT_MAX 64

/* Case-insensitive Levenshtein distance (insert, delete, substitute: 1 each) of the first N
 * bytes of A and the first K bytes of B, each cut to HWPROF_EDIT_MAX bytes. */
size_t hwprof_edit_distance_n(const char *a, size_t n, const char *b, size_t k);

/* Case-insensitive edit distance of the strings A and B; HWPROF_EDIT_MAX when either is
 * longer than HWPROF_EDIT_MAX bytes (too long to be a typo of the other). */
size_t hwprof_edit_distance(const char *a, const char *b);

/* The running best candidate for WORD. Start with hwprof_suggest_init(), feed every known
 * name to hwprof_suggest_consider() (candidates may be temporary: the best is copied). */
struct hwprof_suggest {
	const char *word; /* borrowed, must outlive the struct */
	char best[128];	  /* closest candidate so far, cut to 127 bytes */
	size_t dist;	  /* its distance; (size_t)-1 before the first */
};

/* Starts a search for the closest name to WORD. */
void hwprof_suggest_init(struct hwprof_suggest *s, const char *word);

/* Keeps CAND when it is closer to the word than the best so far (ties keep the first). */
void hwprof_suggest_consider(struct hwprof_suggest *s, const char *cand);

/* The best candidate when it is close enough to be a typo (distance at most a third of the
 * word's length, and at least 2), else "". Points into S. */
const char *hwprof_suggest_result(const struct hwprof_suggest *s);

#endif
