/* strpool.h - interned strings owned by one profile.
 *
 * Symbolization produces the same file, function and DSO names again and again; interning keeps
 * one copy of each, and lets rows compare names by pointer.
 */
#ifndef HWPROF_REPORT_STRPOOL_H
#define HWPROF_REPORT_STRPOOL_H

#include <stddef.h>

struct strpool;

/* A new empty pool, or NULL on ENOMEM. */
struct strpool *strpool_new(void);

/* The pool's copy of S (NULL gives NULL). Equal strings give the same pointer. Returns NULL
 * with errno ENOMEM when S is not NULL and memory ran out. Thread-safe: the symbolization
 * threads of one profile share its pool. */
const char *strpool_intern(struct strpool *p, const char *s);

/* Frees P and every string it gave out. Accepts NULL. */
void strpool_free(struct strpool *p);

#endif
