/* symcache.h - symbolized addresses kept on disk between reports, one file per DSO build.
 *
 * The usual loop is report, change a sort key, report again: the second report asks the same
 * DWARF the same questions. The cache keeps each answer (struct sym_result) keyed by the
 * DSO's build-id and address, so a report whose addresses are all cached never opens the
 * DSO's DWARF (inflating libc's compressed debug file and decoding line tables were most of
 * a report's cost).
 *
 * Where: $XDG_CACHE_HOME/hwprof/ (default ~/.cache/hwprof/), one file per DSO build-id,
 * inline mode, --debug-dir list (and DEBUGINFOD_URLS) and hwprof build (hwprof's own build-id: a
 * changed symbolizer never trusts an older one's answers). A file is trusted only when its version,
 * keys and checksum match and the separate debug file it was made from (if any) has the same
 * size, mtime and inode; anything else (truncated, corrupt, another build) is ignored and
 * rewritten. Writes go to a temporary file renamed into place, so concurrent reports never
 * see a partial file (the last writer wins; each file is complete). The directory is kept
 * under SYMCACHE_MAX_BYTES by removing the least recently used files.
 */
#ifndef HWPROF_REPORT_SYMCACHE_H
#define HWPROF_REPORT_SYMCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

struct dso;
struct strpool;
struct sym_result;
struct symcache;

/* The cache directory's bound (bytes of cache files); the environment variable
 * HWPROF_CACHE_MAX_BYTES (a decimal number) overrides it. */
#define SYMCACHE_MAX_BYTES (256ull << 20)

/* The cache of D (dso_check()ed OK) under MODE and the --debug-dir list DIRS: its file read
 * when there is a valid one. NULL when D cannot be cached (no recorded build-id, hwprof's own
 * build-id unknown, no cache directory can be made) or on ENOMEM: the caller symbolizes as
 * without a cache. */
struct symcache *symcache_open(const struct dso *d, enum inline_mode mode, const char **dirs,
			       size_t ndirs);

/* Whether C holds link-time address ADDR; if so fills *R (strings interned in POOL) exactly
 * as the dso_sym_lookup() that made it did. False also when interning runs out of memory. */
bool symcache_get(struct symcache *c, uint64_t addr, struct strpool *pool, struct sym_result *r);

/* Whether C holds link-time address ADDR. */
bool symcache_has(const struct symcache *c, uint64_t addr);

/* Keeps R, dso_sym_lookup()'s answer for ADDR, to be written by symcache_close(). R's strings
 * must live until then (a profile's pool). Returns 0 or -ENOMEM. */
int symcache_put(struct symcache *c, uint64_t addr, const struct sym_result *r);

/* Writes C's file when it got new answers, D is not NULL and D's DWARF was read from files
 * the cache can vouch for (dso_sym_dwarf_origin()), then frees C. D NULL: nothing is written
 * (the symbolization failed). Best effort: a write that fails leaves the old file or none.
 * Accepts C NULL. */
void symcache_close(struct symcache *c, struct dso *d);

#endif
