/* closest.c - edit distance and the closest known name, for "did you mean" hints. */
#include "closest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

size_t hwprof_edit_distance_n(const char *a, size_t n, const char *b, size_t k)
{
	size_t row[HWPROF_EDIT_MAX + 1];

	n = n > HWPROF_EDIT_MAX ? HWPROF_EDIT_MAX : n;
	k = k > HWPROF_EDIT_MAX ? HWPROF_EDIT_MAX : k;
	for (size_t j = 0; j <= k; j++)
		row[j] = j;
	/* One row of the DP table, updated in place; DIAG holds the previous row's j-1. */
	for (size_t i = 1; i <= n; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= k; j++) {
			size_t up = row[j];
			size_t cost =
			    tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			size_t best = diag + cost;

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[k];
}

size_t hwprof_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la > HWPROF_EDIT_MAX || lb > HWPROF_EDIT_MAX)
		return HWPROF_EDIT_MAX;
	return hwprof_edit_distance_n(a, la, b, lb);
}

void hwprof_suggest_init(struct hwprof_suggest *s, const char *word)
{
	s->word = word;
	s->best[0] = '\0';
	s->dist = (size_t)-1;
}

void hwprof_suggest_consider(struct hwprof_suggest *s, const char *cand)
{
	size_t d = hwprof_edit_distance(s->word, cand);

	if (d < s->dist) {
		s->dist = d;
		snprintf(s->best, sizeof(s->best), "%s", cand);
	}
}

const char *hwprof_suggest_result(const struct hwprof_suggest *s)
{
	size_t len = strlen(s->word);
	size_t limit = len / 3 > 2 ? len / 3 : 2;

	return s->dist <= limit ? s->best : "";
}
