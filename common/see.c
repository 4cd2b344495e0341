/* see.c - the kind of the last library message's way out, per thread (see hwprof.h). */
#include "see.h"

static _Thread_local enum hwprof_see last_see;

void see_set(enum hwprof_see see)
{
	last_see = see;
}

enum hwprof_see hwprof_see_last(void)
{
	return last_see;
}
