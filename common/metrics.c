/* metrics.c - stub */
#include "hwprof/metrics.h"
