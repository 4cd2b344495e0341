/* list_vendor.h - `hwprof list vendor [PATTERN]`: the CPU's own events libpfm4 knows. */
#ifndef HWPROF_LIST_VENDOR_H
#define HWPROF_LIST_VENDOR_H

#include "json.h"

#include <stdbool.h>

/* Prints the events of the active hardware PMUs libpfm4 finds whose name contains PATTERN
 * (NULL: all), each with its raw encoding, whether it samples precisely and its description;
 * with ONE_LINE only how many there are. JW non-NULL: a "vendor" object {pmus, events
 * [{name, pmu, type, config, config1, precise, description}]} into it instead of text. A host
 * where libpfm4 finds no active PMU gets one line (or "pmus": []) saying so. */
void list_vendor(struct hwprof_jw *jw, const char *pattern, bool one_line);

#endif
