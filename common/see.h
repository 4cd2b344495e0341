/* see.h - setting the kind of way out a library message leaves to its program
 * (hwprof_see_last()). Internal: not installed. */
#ifndef HWPROF_SEE_H
#define HWPROF_SEE_H

#include "hwprof/event.h"

/* Sets the calling thread's hwprof_see_last() to SEE (HWPROF_SEE_NONE on entry of each
 * function that writes messages, the kind with its message). */
void see_set(enum hwprof_see see) __attribute__((visibility("hidden")));

#endif
