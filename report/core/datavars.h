/* datavars.h - a DSO's global and static variables by link-time address, and the member or
 * element of one that an address falls in.
 *
 * Variables come from the ELF symbol table (STT_OBJECT, with their sizes) and from DWARF
 * (DW_TAG_variable whose DW_AT_location is a DW_OP_addr, with DW_AT_type): with a type, an
 * address inside a struct or union names its member and inside an array of structs its
 * element ("table[3].key"); an array of scalars ends the path ("g.b").
 */
#ifndef HWPROF_REPORT_CORE_DATAVARS_H
#define HWPROF_REPORT_CORE_DATAVARS_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dso;
struct strpool;

struct data_var {
	uint64_t addr, size; /* [addr, addr + size), link-time addresses; size >= 1 */
	const char *name;    /* interned */
	bool typed;	     /* TYPE holds its DWARF type */
	Dwarf_Die type;
};

struct data_vars {
	struct data_var *v; /* sorted by addr */
	size_t n;
};

/* Collects the variables of D (opened: dso_sym_module()). Returns 0 (possibly with none) or
 * -ENOMEM. */
int data_vars_build(struct data_vars *vs, struct dso *d, struct strpool *pool);

/* What link-time address ADDR is in: *OBJECT the key, interned in POOL ("g.b", "table[].key"
 * with the first array index in *ELEM, or the symbol's name with the byte offset in *ELEM when
 * it has no type; *ELEM -1 otherwise), *BASE the variable's name and *BASE_START its address;
 * every address in [*SAME_LO, *SAME_HI) resolves the same. Returns 0, 1 when no variable holds
 * ADDR (nothing set), or -ENOMEM. */
int data_vars_resolve(const struct data_vars *vs, uint64_t addr, struct strpool *pool,
		      const char **object, int64_t *elem, const char **base, uint64_t *base_start,
		      uint64_t *same_lo, uint64_t *same_hi);

/* Frees VS's array. */
void data_vars_release(struct data_vars *vs);

#endif
