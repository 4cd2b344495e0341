/* vendor.h - CPU-specific (vendor) event names through libpfm4 (internal to libhwprof and
 * `hwprof list`).
 *
 * libpfm4 (Debian libpfm4-dev, the library PAPI uses) holds the event tables of Intel's
 * perfmon JSON and AMD's PPRs: "MEM_LOAD_RETIRED.L3_MISS" on Skylake is event 0xd1, umask 0x20.
 * These functions turn such a name into the perf_event_attr words (pfm_get_os_event_encoding()
 * with PFM_OS_PERF_EVENT_EXT) and list the names of the PMUs libpfm4 finds active on this CPU.
 * Nothing here opens an event.
 *
 * libpfm4's environment (read once, at the first call): LIBPFM_FORCE_PMU=NAME makes PMU NAME
 * ("skl", "icl", "amd64_fam17h_zen2", ...) active whatever the CPU (tests encode Intel and AMD
 * events on any host with it); LIBPFM_ENCODE_INACTIVE=1 lets a "PMU::EVENT" name of an
 * inactive PMU encode. Functions return 0 or -errno and never print.
 */
#ifndef HWPROF_VENDOR_H
#define HWPROF_VENDOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One encoded vendor event. */
struct vendor_event {
	uint32_t type;			   /* perf_event_attr.type: PERF_TYPE_RAW for a core PMU,
					    * the sysfs type of an uncore one */
	uint64_t config, config1, config2; /* perf_event_attr words (config1: ldlat, offcore) */
	bool precise;			   /* libpfm4 says the event (every umask chosen) can be
					    * sampled precisely (PEBS); false: precise_ip must be 0 */
	bool core;			   /* a core PMU's event (false: uncore) */
	char pmu[64];			   /* libpfm4's PMU name: "skl", "amd64_fam17h_zen2" */
	char full[256]; /* libpfm4's full spelling: "skl::MEM_LOAD_RETIRED:L3_MISS" */
};

/* Whether vendor names can be looked up: 0 when libpfm4 is loaded (pfm_lib.h, on the first
 * call of any function here) and initialized; -ENODEV when not, with the one line that says
 * why into BUF (LEN bytes: "cannot load libpfm.so.4: ... (install ...)"). */
int vendor_status(char *buf, size_t len);

/* Encodes event NAME ("MEM_LOAD_RETIRED.L3_MISS", "ls_dispatch.ld_dispatch",
 * "skl::INST_RETIRED.ANY_P"; case does not matter) with libpfm4's own attributes ATTRS
 * (colon-separated, "c=1:e:ldlat=32", or "") into OUT. The privilege level and precise_ip are
 * the caller's (hwprof's modifiers), so ATTRS naming one of libpfm4's perf_event attributes
 * (u, k, h, precise, period, freq, excl, mg, mh, cpu, pinned) is -EINVAL.
 * Returns 0; -ENOENT when no active hardware PMU has the event (ERR untouched); -EINVAL with
 * one line in ERR (ERRLEN bytes) for a bad umask or attribute ("unknown attribute 'q' of
 * skl::MEM_LOAD_RETIRED (its attributes: e i c t ldlat ...)"); -ENODEV when libpfm4 cannot
 * be loaded or initialize (vendor_status() says why). */
int vendor_encode(const char *name, const char *attrs, struct vendor_event *out, char *err,
		  size_t errlen);

/* The active hardware (core and uncore) PMUs libpfm4 finds, as a space-separated list of its
 * names into BUF ("skl", "" when none). Returns how many, or -ENODEV. */
int vendor_active_pmus(char *buf, size_t len);

/* One event of `hwprof list vendor`. */
struct vendor_listing {
	const char *pmu;  /* libpfm4's PMU name */
	char name[256];	  /* "MEM_LOAD_RETIRED.L3_MISS" (EVENT.UMASK, or EVENT alone) */
	const char *desc; /* libpfm4's description of the umask (or the event) */
	bool encoded;	  /* the fields below are known (a few need an attribute to encode) */
	uint32_t type;
	uint64_t config, config1;
	bool precise;
};

/* Calls FN(ARG, L) for each event of every active hardware PMU whose name contains PATTERN
 * (case-insensitively; NULL or "" all), in libpfm4's order: one call per umask, or one for an
 * event without umasks. FN returning non-zero stops the walk and is returned. Returns 0, or
 * -ENODEV. */
int vendor_each(const char *pattern, int (*fn)(void *arg, const struct vendor_listing *l),
		void *arg);

#endif
