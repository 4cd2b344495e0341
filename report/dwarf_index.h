/* dwarf_index.h - a module's functions (DW_TAG_subprogram ranges) and compilation units by
 * address, and the inline frames at an address.
 *
 * dwarf_getscopes() walks a CU's DIE tree from its root for every address, and libdw 0.188
 * finds CUs by address only through .debug_aranges, which clang does not write. Indexing the
 * functions once makes each lookup a binary search plus a walk down one function's
 * inlined_subroutine / lexical_block children.
 */
#ifndef HWPROF_REPORT_DWARF_INDEX_H
#define HWPROF_REPORT_DWARF_INDEX_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>

struct dw_range {
	Dwarf_Addr lo, hi;	/* [lo, hi), module addresses */
	Dwarf_Die die;		/* the subprogram, or the CU for cu ranges */
	Dwarf_Die cu;
	Dwarf_Addr bias;	/* module address = DWARF address + bias */
};

struct dwarf_index {
	struct dw_range *fns, *cus;	/* sorted by lo */
	size_t nfns, ncus;
};

/* Indexes MOD's DWARF (none: an empty index). Returns 0 or -ENOMEM. */
int dwarf_index_build(struct dwarf_index *x, Dwfl_Module *mod);

/* The function frames at module address ADDR into FRAMES (room for MAX), innermost first:
 * inlined_subroutine DIEs, then the subprogram last. Sets *CU and *BIAS. Returns how many
 * (0 when no function DIE holds ADDR; *CU then is the CU holding it, or NULL). */
int dwarf_index_frames(const struct dwarf_index *x, Dwarf_Addr addr, Dwarf_Die *frames,
		       int max, Dwarf_Die **cu, Dwarf_Addr *bias);

void dwarf_index_release(struct dwarf_index *x);

#endif
