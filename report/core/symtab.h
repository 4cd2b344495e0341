/* symtab.h - a DSO's function symbols sorted by address, for O(log n) lookups.
 *
 * libdwfl's dwfl_module_addrinfo() scans the whole symbol table on every call; with tens of
 * thousands of distinct addresses in a large program that scan is most of a report's time.
 */
#ifndef HWPROF_REPORT_SYMTAB_H
#define HWPROF_REPORT_SYMTAB_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>

struct strpool;

struct fsym {
	GElf_Addr addr;	     /* module address (the Dwfl's bias applied) */
	GElf_Xword size;     /* bytes; > 0 once built */
	GElf_Addr sec_end;   /* end of its section (module address); ~0: no section */
	const char *raw;     /* name in libelf's string table (valid while the Dwfl lives) */
	const char *name;    /* demangled, interned; NULL until first used */
	const char *linkage; /* RAW interned; NULL until first asked for */
	int rank;	     /* prefer typed over STT_NOTYPE, then GLOBAL over WEAK over LOCAL,
			      * at one address */
	bool plt;	     /* a PLT slot (plt.h): named RAW@plt */
};

struct symtab {
	struct fsym *v;
	size_t n;
};

/* Collects MOD's function symbols from its .symtab, or .dynsym when stripped: STT_FUNC and
 * STT_GNU_IFUNC, STT_NOTYPE labels in executable sections (hand-written assembly) unless
 * inside a sized function, and its PLT slots ("memcpy@plt", plt.h). A symbol of size 0 runs to the
 * next symbol's address, at most to its section's end (one of size 0 then is left out). Returns 0
 * (possibly with none) or -ENOMEM. */
int symtab_build(struct symtab *t, Dwfl_Module *mod);

/* The demangled name of the function holding ADDR, interned in POOL, or NULL. *RAW (RAW may
 * be NULL) gets its symbol's own (linkage) name, interned in POOL, when there is one. */
const char *symtab_find(struct symtab *t, GElf_Addr addr, struct strpool *pool, const char **raw);

/* The symbol holding ADDR (its [addr, addr + size) covers ADDR), or NULL. Owned by T. */
struct fsym *symtab_at(struct symtab *t, GElf_Addr addr);

/* S's demangled name ("memcpy@plt" for a PLT slot), interned in POOL (NULL on ENOMEM); *RAW
 * (RAW may be NULL) gets its linkage name, interned in POOL. */
const char *symtab_name(struct fsym *s, struct strpool *pool, const char **raw);

void symtab_release(struct symtab *t);

#endif
