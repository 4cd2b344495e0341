/* kallsyms.h - kernel function names from /proc/kallsyms (or a copy of it).
 *
 * Addresses read as 0 when kptr_restrict hides them from this user: then the table is empty
 * and kernel samples show as [kernel].
 */
#ifndef HWPROF_REPORT_KALLSYMS_H
#define HWPROF_REPORT_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	char *name; /* "function" or "function [module]" */
};

struct kallsyms {
	struct ksym *v; /* text symbols sorted by address */
	size_t n;
};

/* Loads the text symbols of PATH. Returns 0 (possibly with n == 0 when addresses are
 * hidden), or -errno (ENOENT, EACCES from fopen; ENOMEM). */
int kallsyms_load(struct kallsyms *k, const char *path);

/* The function holding ADDR (the nearest symbol at or below it), or NULL. */
const char *kallsyms_find(const struct kallsyms *k, uint64_t addr);

/* Frees K's symbols. */
void kallsyms_release(struct kallsyms *k);

#endif
