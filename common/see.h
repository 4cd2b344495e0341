/* see.h - the calling thread's last library message: its one line (hwprof_strerror_last())
 * and the kind of way out it leaves to its program (hwprof_see_last()). Internal: not
 * installed. */
#ifndef HWPROF_SEE_H
#define HWPROF_SEE_H

#include "hwprof/event.h"

#include <stddef.h>

/* Bytes of the calling thread's message buffer: room for a PATH_MAX path and its line. */
#define SEE_MSG_MAX 4608

/* Sets the calling thread's hwprof_see_last() to SEE (HWPROF_SEE_NONE on entry of each
 * function that writes messages, the kind with its message). */
void see_set(enum hwprof_see see) __attribute__((visibility("hidden")));

/* The calling thread's message buffer (SEE_MSG_MAX bytes, NUL-terminated), which
 * hwprof_strerror_last() returns: a failing library function writes its line here. */
char *see_msg(void) __attribute__((visibility("hidden")));

/* Ends a public function that also hands its message to the caller: copies the thread's
 * message into ERR (ERRLEN bytes, may be NULL) when RC < 0, "" otherwise, and clears the
 * thread's message on success. Returns RC. */
int see_finish(int rc, char *err, size_t errlen) __attribute__((visibility("hidden")));

#endif
