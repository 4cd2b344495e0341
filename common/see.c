/* see.c - the calling thread's last library message and its way out (see.h). */
#include "see.h"

#include <stdio.h>

static _Thread_local enum hwprof_see last_see;
static _Thread_local char last_msg[SEE_MSG_MAX];

void see_set(enum hwprof_see see)
{
	last_see = see;
}

enum hwprof_see hwprof_see_last(void)
{
	return last_see;
}

char *see_msg(void)
{
	return last_msg;
}

const char *hwprof_strerror_last(void)
{
	return last_msg;
}

int see_finish(int rc, char *err, size_t errlen)
{
	if (rc >= 0)
		last_msg[0] = '\0';
	if (err && errlen)
		snprintf(err, errlen, "%s", rc < 0 ? last_msg : "");
	return rc;
}
