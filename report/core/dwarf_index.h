/* dwarf_index.h - a module's functions (DW_TAG_subprogram ranges) and compilation units by
 * address, and the inline frames at an address.
 *
 * dwarf_getscopes() walks a CU's DIE tree from its root for every address, and libdw 0.188
 * finds CUs by address only through .debug_aranges, which clang does not write. Indexing a
 * CU's functions once makes each lookup a binary search plus a walk down one function's
 * inlined_subroutine / lexical_block children; CU ranges are indexed only when the file has
 * no .debug_aranges.
 */
#ifndef HWPROF_REPORT_DWARF_INDEX_H
#define HWPROF_REPORT_DWARF_INDEX_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>

struct dw_node;

struct dw_range {
	Dwarf_Addr lo, hi; /* [lo, hi), module addresses */
	Dwarf_Die die;	   /* the subprogram, or the CU for cu ranges */
	Dwarf_Die cu;
	Dwarf_Addr bias;      /* module address = DWARF address + bias */
	struct dw_node *tree; /* a function's blocks and inlined calls, read on its first
			       * lookup (dwarf_index.c); NULL until then */
};

/* Memory for the function trees, freed at once. */
struct dw_arena {
	struct dw_chunk *chunks;
	size_t used, size; /* bytes of the first chunk */
};

/* The functions of one CU, indexed the first time an address falls in it. */
struct cu_functions {
	Dwarf_Off cu_offset; /* the CU DIE's offset in .debug_info */
	struct dw_range *v;
	size_t n;
	Dwarf_Addr discarded_hi; /* end of the CU's ranges the linker discarded, which
				  * it resolved to start at 0 (DWARF addresses); 0: none */
	const char *missing_dwo; /* a skeleton unit whose split unit libdw did not find:
				  * its DW_AT_dwo_name (libdw's string); else NULL */
};

struct dwarf_index {
	Dwfl_Module *mod;
	struct dw_range *cus; /* CU ranges, for files without .debug_aranges */
	size_t ncus;
	bool cus_built;
	struct cu_functions *tab; /* the CUs indexed, in the order first looked up */
	size_t n, cap;
	uint32_t *index; /* TAB by CU offset: idindex.h slots, or NULL before the first */
	size_t icap;
	bool split;	       /* a CU indexed was a split DWARF skeleton: its answers
				* depend on a .dwo file too */
	struct dw_arena arena; /* the functions' trees */
};

/* Prepares X for MOD, which must outlive X (the Dwfl owns it); nothing is read until the
 * first lookup. */
void dwarf_index_init(struct dwarf_index *x, Dwfl_Module *mod);

/* The function frames at module address ADDR into FRAMES (room for MAX), innermost first:
 * inlined_subroutine DIEs, then the subprogram last. Sets *CU (NULL when no CU holds ADDR,
 * or when only a range the linker discarded, resolved to address 0, would) and *BIAS; sets
 * *SHADOWED when ADDR lies in a live function but also under such a range, where the CU's
 * line table cannot tell the two apart (--gc-sections: ld.bfd, gold). Returns how many frames (0
 * when no function DIE holds ADDR). Sets *MISSING_DWO to the DW_AT_dwo_name of ADDR's CU when
 * that is a split DWARF skeleton whose split unit (the .dwo) libdw did not find, else NULL:
 * its functions and inline frames are unknown then (0 frames). Only the CU of ADDR is indexed,
 * so a profile touching few CUs of a large library reads few. Out of memory gives 0 frames (the
 * address then shows by symbol only). Not thread-safe: one thread per X (symbolization runs one
 * job per DSO). */
int dwarf_index_frames(struct dwarf_index *x, Dwarf_Addr addr, Dwarf_Die *frames, int max,
		       Dwarf_Die **cu, Dwarf_Addr *bias, bool *shadowed, const char **missing_dwo);

/* Frees what X indexed; not MOD. */
void dwarf_index_release(struct dwarf_index *x);

#endif
