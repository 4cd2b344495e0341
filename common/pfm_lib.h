/* pfm_lib.h - libpfm4, the vendor event tables, loaded the first time a vendor event name is
 * looked up (vendor.h), not at every start-up (dynlib.h). The types and constants are
 * libpfm4's headers'; the functions are called through the table. Internal: not installed.
 */
#ifndef HWPROF_PFM_LIB_H
#define HWPROF_PFM_LIB_H

#include <perfmon/pfmlib_perf_event.h>
#include <stddef.h>

/* libpfm4's functions that hwprof calls, each with its header's type. */
struct pfm_lib {
	__typeof__(pfm_initialize) *initialize;
	__typeof__(pfm_get_pmu_info) *get_pmu_info;
	__typeof__(pfm_get_event_info) *get_event_info;
	__typeof__(pfm_get_event_attr_info) *get_event_attr_info;
	__typeof__(pfm_get_event_next) *get_event_next;
	__typeof__(pfm_get_os_event_encoding) *get_os_event_encoding;
	__typeof__(pfm_strerror) *strerror;
};

/* The table, libpfm4 loaded on the first call (thread-safe). Returns NULL when it cannot be
 * loaded, with the one line that says why and what to install in ERR (ERRLEN bytes). */
const struct pfm_lib *pfm_lib(char *err, size_t errlen);

#endif
