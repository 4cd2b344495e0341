/* plt.h - a module's PLT slots, named after the functions they jump to ("memcpy@plt").
 *
 * A PLT slot has no symbol of its own. Each slot jumps through a GOT slot, and the dynamic
 * relocation of that GOT slot (R_X86_64_JUMP_SLOT, or R_X86_64_GLOB_DAT for .plt.got) names
 * the function (x86-64 psABI, "Procedure Linkage Table"). x86-64 only; other machines have
 * none here.
 */
#ifndef HWPROF_REPORT_PLT_H
#define HWPROF_REPORT_PLT_H

#include <elfutils/libdwfl.h>
#include <sys/types.h>

struct plt_slot {
	GElf_Addr addr;	  /* module address (the Dwfl's bias applied) */
	GElf_Xword size;  /* bytes: the section's slot size */
	const char *name; /* the target's name in .dynstr, undecorated (valid while the Dwfl
			   * lives) */
};

/* The slots of MOD's main file's .plt, .plt.sec and .plt.got (ld.bfd, ld.lld, with IBT or
 * not) into *OUT (malloc'd, the caller frees it; NULL when none). Returns how many, 0 (no PLT,
 * another machine, an unreadable section), or -ENOMEM. */
ssize_t plt_slots(Dwfl_Module *mod, struct plt_slot **out);

#endif
