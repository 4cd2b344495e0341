/* functions.h - the profile's function table (profile.h: struct profile_function), each
 * distinct function once.
 *
 * A function is its four fields, compared by value: its strings are interned in the
 * profile's pool (strpool.h), so within one profile equal strings are one pointer and the
 * key compares pointers. An open-addressing hash; entries stay in insertion order.
 */
#ifndef HWPROF_REPORT_CORE_FUNCTIONS_H
#define HWPROF_REPORT_CORE_FUNCTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

struct fn_table {
	struct profile_function *v; /* v[0]: the unknown function (every field NULL / 0) */
	size_t n, cap;
	uint32_t *index; /* hash slots: 1 + index into v, 0 = empty */
	size_t icap;	 /* power of two, or 0 */
};

/* Initialises T with the unknown function at index 0. Returns 0 or -ENOMEM. */
int fn_table_init(struct fn_table *t);

/* The index of F (its strings interned in the profile's pool) in T into *ID, added when new;
 * a function with nothing known is 0. Returns 0 or -ENOMEM. */
int fn_table_intern(struct fn_table *t, const struct profile_function *f, uint32_t *id);

/* Frees T's hash and empties it; its array V is the caller's when it took it (set V to NULL
 * first), else freed too. */
void fn_table_release(struct fn_table *t);

#endif
