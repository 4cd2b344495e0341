/* demangle.c - the one file that includes libiberty. */
#include "demangle.h"

#include <libiberty/demangle.h>
#include <stddef.h>

char *demangle(const char *name)
{
	/* Legacy Rust names are Itanium-shaped ("_ZN...17h<hash>E"): libiberty's automatic
	 * style tries Rust first on them and on v0's "_R" prefix. */
	if (!name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
}
