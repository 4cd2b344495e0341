/* symbolize.h - one address of one DSO to function, inline frame and file:line (libdwfl).
 *
 * Each DSO gets its own Dwfl with the file reported at bias 0, so module addresses are the
 * ELF link-time addresses (dso_offset_to_vaddr()) whatever the load address was. libdwfl's
 * standard callbacks find separate debug info: .gnu_debuglink, DIR/.build-id/xx/rest.debug
 * under /usr/lib/debug and each --debug-dir, and debuginfod when DEBUGINFOD_URLS is set.
 */
#ifndef HWPROF_REPORT_SYMBOLIZE_H
#define HWPROF_REPORT_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

struct dso;
struct dso_sym;
struct strpool;

/* What one address resolves to. Strings are interned in the caller's pool; NULL = unknown. */
struct sym_result {
	const char *function;	  /* innermost frame (callee mode) or outermost (caller) */
	const char *inlined_into; /* callee mode, inlined: the real function it is in */
	const char *file;
	int line;
	const char *call_file; /* inlined: the outermost call site */
	int call_line;
	bool shadowed;		 /* in a function whose lines a function the linker
				  * discarded overlaps (dwarf_index.h): no line given */
	const char *missing_dwo; /* the split DWARF file (.dwo, comp_dir joined) that holds
				  * ADDR's functions, not found: no inline frames, and
				  * under INLINE_CALLER no line (the call site is unknown) */
};

/* Opens D (already dso_check()ed OK) for symbolization with extra debug directories DIRS.
 * Returns 0; or -1 with WHY (one line) when libdwfl cannot read it. Sets *HAS_DWARF to
 * whether line information was found (in the file or separate debug info); when not, WHY
 * says why (a refused debug file by name, or the search path). */
int dso_sym_open(struct dso *d, const char **dirs, size_t ndirs, bool *has_dwarf, char *why,
		 size_t whylen);

/* Resolves link-time address ADDR of D (opened) under MODE into *R. Returns 0, or -ENOMEM. */
int dso_sym_lookup(struct dso *d, uint64_t addr, enum inline_mode mode, struct strpool *pool,
		   struct sym_result *r);

/* Frees S (the Dwfl and its files). Accepts NULL. */
void dso_sym_free(struct dso_sym *s);

#endif
