/* values.h - the value vector (profile.h: nvalues, vsamples, loc_values): every sampling
 * event's samples per stack and per location, beside the shown event's own tables.
 *
 * The builder keeps the shown event's samples as always (stacks[], locations[]) and each other
 * sampling event's in a stack table of its own, in the same location ids; values_build() then
 * makes one table of every distinct stack with one column per event.
 */
#ifndef HWPROF_REPORT_CORE_VALUES_H
#define HWPROF_REPORT_CORE_VALUES_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"
#include "stacks.h"

/* Builds P's value vector from the shown event's stacks (P->stacks after the filters, or
 * without stacks P->locs, each its address alone) and OTHER[k] (k < NOTHER), the stacks of
 * header event k when it is not the shown one (empty tables: none). KEEP(CTX, ID) says
 * whether a stack of OTHER whose leaf is location ID passes the filters. Leaves the vector
 * empty (nvalues 0) when no OTHER table has a stack. Returns 0 or -ENOMEM. */
int values_build(struct profile *p, const struct stack_table *other, uint32_t nother,
		 bool (*keep)(void *ctx, uint32_t id), void *ctx);

/* Keeps the vector's stacks whose leaf location passes KEEP(CTX, ID), as a filter keeps
 * stacks[] (loc_values are the locations' own and stay). */
void values_filter(struct profile *p, bool (*keep)(void *ctx, uint32_t id), void *ctx);

#endif
