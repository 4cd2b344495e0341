/* host.c - stub; see its header under common/include/hwprof/. */
#include "hwprof/hwprof.h"
#include "hwprof/sampfile.h"
