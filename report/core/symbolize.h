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

#include <elfutils/libdwfl.h>
#include <gelf.h>

struct dso;
struct dso_sym;
struct strpool;

/* One frame of an address's inline chain: a function (pprof's Function) at a line (its
 * Line). Strings interned in the caller's pool; NULL = unknown. */
struct sym_frame {
	const char *function;  /* for people: demangled, C++ scopes qualified */
	const char *linkage;   /* the linkage (mangled) name: DW_AT_linkage_name, or the
				* symbol's for the outermost frame; NULL when it has none */
	const char *decl_file; /* where the function is declared (DW_AT_decl_file) */
	int decl_line;	       /* DW_AT_decl_line, 0 unknown */
	const char *file;      /* where the frame is at the address: the innermost frame's
				* the line table's row, each outer frame's the call site of
				* the inlined call it holds (DW_AT_call_file/line) */
	int line;	       /* 0 unknown */
};

/* Inline frames kept per address; a deeper chain keeps its innermost ones and the
 * outermost (the real function). */
#define SYM_MAX_FRAMES 32

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
	struct sym_frame chain[SYM_MAX_FRAMES]; /* the whole inline chain, innermost first,
						 * the real function last, whatever MODE;
						 * NCHAIN 0: no function known */
	int nchain;
};

/* Opens D (already dso_check()ed OK) for symbolization with extra debug directories DIRS
 * (not copied: they must outlive D's symbols). Returns 0; or, with WHY (one line), -1 when
 * libdwfl cannot read it, -ENOMEM when memory ran out (reading the DWARF too). With HAS_DWARF,
 * reads the DWARF now and sets *HAS_DWARF to whether line information was found (in the file or
 * separate debug info); when not, WHY says why (a refused debug file by name, or the search path).
 * With HAS_DWARF NULL, the DWARF is read at the first dso_sym_lookup(), if any
 * (dso_sym_dwarf_missing() tells what it found). */
int dso_sym_open(struct dso *d, const char **dirs, size_t ndirs, bool *has_dwarf, char *why,
		 size_t whylen);

/* Resolves link-time address ADDR of D (opened) under MODE into *R. Returns 0, or -ENOMEM
 * (memory ran out, libdw's included: R is then no answer to keep). */
int dso_sym_lookup(struct dso *d, uint64_t addr, enum inline_mode mode, struct strpool *pool,
		   struct sym_result *r);

/* ADDR of D (opened) as dso_sym_lookup() would resolve it with no DWARF: the function its
 * symbol names (interned in POOL) as R's function and one-frame chain; nothing (nchain 0)
 * when no symbol holds ADDR. Never reads the DWARF. */
void dso_sym_lookup_symbol(struct dso *d, uint64_t addr, struct strpool *pool,
			   struct sym_result *r);

/* Whether D's debug file had compressed DWARF sections that do not inflate (inflate.h: read
 * as if absent); WHY (LEN bytes) then names the file and the sections. */
bool dso_sym_dwarf_damaged(struct dso *d, char *why, size_t whylen);

/* Whether D's DWARF was looked for (at open or by a lookup) and not found; WHY (LEN bytes)
 * then says why, as dso_sym_open() does. False when it was found or never looked for. */
bool dso_sym_dwarf_missing(struct dso *d, char *why, size_t whylen);

/* The function symbol of D (opened) holding link-time address ADDR (symtab.h: .symtab or
 * .dynsym, PLT slots): *START and *SIZE (bytes) its range, *NAME its name (demangled,
 * "memcpy@plt" for a PLT slot, interned in POOL). Returns false when no symbol holds ADDR. */
bool dso_sym_symbol(struct dso *d, uint64_t addr, struct strpool *pool, const char **name,
		    uint64_t *start, uint64_t *size);

/* D's own ELF file (libelf's handle, owned by D's Dwfl: the file with the code, not a
 * separate debug file), *BIAS what to add to its section addresses to get link-time ones.
 * NULL when D is not opened or libdwfl cannot give it. D's DWARF is read first (its Dwfl may
 * be made again then); the handle lives as long as D's dso_sym. */
Elf *dso_sym_elf(struct dso *d, uint64_t *bias);

/* D's libdwfl module (owned by D's Dwfl; module addresses are link-time ones), or NULL when
 * D is not opened. D's DWARF is read first, as for dso_sym_elf(). */
Dwfl_Module *dso_sym_module(struct dso *d);

/* Whether the answers dso_sym_lookup() gave for D so far come from D's file and at most one
 * separate debug file: D's DWARF was read and found, with no dwz supplementary file and no
 * split DWARF unit among those looked in. *DEBUGFILE is then the separate debug file's path
 * (owned by D's Dwfl), or NULL when the DWARF is D's own file's. False when D is not opened
 * or its DWARF was not read or not found. */
bool dso_sym_dwarf_origin(struct dso *d, const char **debugfile);

/* Frees S (the Dwfl and its files). Accepts NULL. */
void dso_sym_free(struct dso_sym *s);

#endif
