/* pfm_lib.c - libpfm4 loaded on first use; see pfm_lib.h. */
#include "pfm_lib.h"

#include "dynlib.h"

/* libpfm4's soname has been libpfm.so.4 since its version 4.0. */
_Static_assert(LIBPFM_VERSION >> 16 == 4, "a libpfm other than 4: its soname is unknown");

static struct pfm_lib pfm;

static const struct dynlib_sym syms[] = {
    {"pfm_initialize", &pfm.initialize},
    {"pfm_get_pmu_info", &pfm.get_pmu_info},
    {"pfm_get_event_info", &pfm.get_event_info},
    {"pfm_get_event_attr_info", &pfm.get_event_attr_info},
    {"pfm_get_event_next", &pfm.get_event_next},
    {"pfm_get_os_event_encoding", &pfm.get_os_event_encoding},
    {"pfm_strerror", &pfm.strerror},
};

static struct dynlib lib = {.soname = "libpfm.so.4",
			    .package = "libpfm4, Debian: libpfm4",
			    .syms = syms,
			    .nsyms = sizeof(syms) / sizeof(*syms),
			    .lock = PTHREAD_MUTEX_INITIALIZER};

const struct pfm_lib *pfm_lib(char *err, size_t errlen)
{
	return dynlib_load(&lib, err, errlen) < 0 ? NULL : &pfm;
}
