/* filter.h - report's --pid/--tid/--comm/--dso/--function lists.
 *
 * Each list remembers how many samples (or locations) each of its values matched, so that a
 * value matching nothing can be reported as the likely typo it is.
 */
#ifndef HWPROF_REPORT_FILTER_H
#define HWPROF_REPORT_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* A comma-separated filter list and how many samples (or locations) each value matched. */
struct filter {
	const char *option; /* "--pid" */
	char **v;
	uint32_t *ids; /* numeric values (pid, tid lists) */
	uint64_t *hits;
	size_t n, cap, capids;
};

/* Parses LIST (comma-separated; NULL = no filter) for OPTION into F; NUMERIC lists hold
 * decimal ids. Returns 0, -EINVAL with ERR (a bad id, an empty list) or -ENOMEM. */
int filter_parse(struct filter *f, const char *option, const char *list, bool numeric, char *err,
		 size_t errlen);

/* Whether a value passes F (always when F is empty); a match counts a hit. */
bool filter_id(struct filter *f, uint32_t id);
bool filter_str(struct filter *f, const char *s);
/* --dso: the recorded path or its base name. */
bool filter_dso(struct filter *f, const char *path);
/* Frees F's lists. */
void filter_release(struct filter *f);

/* "a, b, c" of N values into BUF (LEN bytes), for messages. */
void list_ids(char *buf, size_t len, const uint32_t *v, size_t n);
void list_strs(char *buf, size_t len, const char *const *v, size_t n);

/* ---- --function over a loaded profile (fnfilter.c) ------------------------------------- */

/* Keeps the locations of P (profile.h: locs, with their totals, and the stacks whose sampled
 * address is one of them) in the functions LIST (comma-separated) picks by fn_pick(): a
 * location answers to its function and to the one it is inlined into. NINPUTS and MODE shape
 * the message when a name matches nothing. Returns 0; -EINVAL with ERR (a name matching
 * nothing, or several functions by base name: the candidates); or -ENOMEM. */
int profile_keep_functions(struct profile *p, const char *list, size_t ninputs,
			   enum inline_mode mode, char *err, size_t errlen);

#endif
