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
	size_t hidden; /* text symbols whose address read as 0 (kptr_restrict) */
};

/* Loads the text symbols of PATH: a regular file or a pipe, at most 256 MiB, lines of at
 * most 1023 bytes. Returns 0 (n == 0 with hidden > 0 when addresses are hidden; both 0 when
 * PATH holds no text symbol), or -errno: ENOENT, EACCES (from fopen), EINVAL (PATH is a
 * device or directory), EFBIG (larger than the bound), EBADMSG (a line too long), EIO,
 * ENOMEM. On error WHY (WHYLEN bytes) holds a short cause ("a character device, not a
 * kallsyms file"), empty for ENOMEM. */
int kallsyms_load(struct kallsyms *k, const char *path, char *why, size_t whylen);

/* The function holding ADDR (the nearest symbol at or below it), or NULL. */
const char *kallsyms_find(const struct kallsyms *k, uint64_t addr);

/* Frees K's symbols. */
void kallsyms_release(struct kallsyms *k);

#endif
