/* demangle.c - the one file that includes libiberty. */
#include "demangle.h"

#include <libiberty/demangle.h>
#include <stddef.h>

char *demangle(const char *name)
{
	if (!name || name[0] != '_' || name[1] != 'Z')
		return NULL;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
}
