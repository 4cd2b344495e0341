/* hwprof/event.h - the one event-spec parser, and opening an event with the precise_ip
 * step-down.
 *
 * Spelling follows perf (see docs/events.md):
 *   generic hardware   cycles instructions cache-references cache-misses branches
 *                      branch-misses bus-cycles stalled-cycles-frontend stalled-cycles-backend
 *                      ref-cycles
 *   hardware cache     L1-dcache-loads L1-dcache-load-misses LLC-loads LLC-load-misses
 *                      dTLB-load-misses iTLB-load-misses branch-load-misses ... (CACHE-OP-RESULT)
 *   software           cpu-clock task-clock page-faults|faults minor-faults major-faults
 *                      context-switches|cs cpu-migrations|migrations alignment-faults
 *                      emulation-faults dummy
 *   raw                rNNNN (hex config for the core PMU)
 *   sysfs PMU          pmu/event=0x..,umask=0x..,cmask=..,inv,edge/  (field bit positions from
 *                      <sysfs>/bus/event_source/devices/PMU/format/) and aliases pmu/name/
 *                      (<sysfs>/.../PMU/events/name, with name.scale and name.unit)
 *   vendor             EVENT.UMASK names of the CPU's own events ("MEM_LOAD_RETIRED.L3_MISS",
 *                      "ls_dispatch.ld_dispatch", "skl::INST_RETIRED.ANY_P"): a name none of the
 *                      above knows is resolved by libpfm4 for the PMUs it finds active, with
 *                      libpfm4's own attributes after ':' (":c=1", ":e", ":i", ":ldlat=32")
 *                      beside hwprof's modifiers; LIBPFM_FORCE_PMU=NAME picks the PMU.
 *   PAPI presets       PAPI_TOT_INS PAPI_TOT_CYC PAPI_L1_DCM ... as aliases of the generic event
 *                      that counts the same (hwprof_papi_preset_at()); one without is refused.
 *   groups             {a,b,c}  - one group; the first member leads.
 *   modifiers          :u :k :h :p :pp :ppp :P  (combinable, e.g. cycles:upp)
 * A list is comma-separated at the top level: "cycles,{instructions,branches}:u".
 *
 * Privilege defaults follow perf: with no u/k/h modifier an event counts the kernel too when
 * this process may (hwprof_may_profile_kernel(), read at parse time: CAP_PERFMON,
 * CAP_SYS_ADMIN or perf_event_paranoid <= 1), else user space only (exclude_kernel =
 * exclude_hv = 1, which every level up to 2 allows). `:k` alone counts the kernel only, `:uk`
 * both. Exception: an event of a non-core sysfs PMU
 * (uncore_*, msr, ibs_op: no `cpus` file and not "cpu") counts every level by default, because
 * the kernel refuses exclude_* bits for those PMUs (EINVAL).
 *
 * The sysfs root is "/sys" unless the environment variable HWPROF_SYSFS_ROOT names another
 * directory (tests point it at fixture trees).
 */
#ifndef HWPROF_EVENT_H
#define HWPROF_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct perf_event_attr;

/* Broad family of an event, for defaults and advice. */
enum hwprof_event_kind {
	HWPROF_EV_HARDWARE,   /* PERF_TYPE_HARDWARE generic event */
	HWPROF_EV_CACHE,      /* PERF_TYPE_HW_CACHE */
	HWPROF_EV_SOFTWARE,   /* PERF_TYPE_SOFTWARE: works without a PMU */
	HWPROF_EV_RAW,	      /* PERF_TYPE_RAW rNNNN */
	HWPROF_EV_PMU,	      /* a sysfs PMU (dynamic type), by fields or alias */
	HWPROF_EV_TRACEPOINT, /* PERF_TYPE_TRACEPOINT "sys:event", config the tracefs id */
};

/* One parsed event. Plain data: copy it freely. */
struct hwprof_event {
	char name[128]; /* as the user wrote it, without modifiers: "LLC-load-misses" */
	char spec[192]; /* as written, with modifiers: "LLC-load-misses:pp"; a member of
			 * "{a,b}:u" gets the modifiers in effect: "a:u" */
	char pmu[64];	/* sysfs PMU name for HWPROF_EV_PMU, else "" */
	enum hwprof_event_kind kind;
	uint32_t type; /* perf_event_attr.type (PERF_TYPE_* or a sysfs PMU type) */
	uint64_t config, config1, config2;
	bool exclude_user, exclude_kernel, exclude_hv;
	int precise_ip;	   /* requested level 0..3 (:p = 1, :pp = 2, :ppp = 3) */
	bool precise_max;  /* :P - the highest level the host accepts */
	double scale;	   /* multiply counts by this (sysfs .scale); 1.0 when none */
	char unit[32];	   /* sysfs .unit, e.g. "MiB"; "" when none */
	int group;	   /* index of the group this event belongs to; 0-based, dense */
	bool leader;	   /* first member of its group */
	char vendor[64];   /* libpfm4's PMU ("skl", "amd64_fam17h_zen2") of a vendor event,
			    * resolved by name through libpfm4; else "" */
	int precise_limit; /* the highest precise_ip EV may ask for: 0 for a vendor event
			    * libpfm4 says cannot be sampled precisely, else 3 */
};

/* A parsed event list. Owned by the caller; free with hwprof_events_free(). */
struct hwprof_event_list {
	struct hwprof_event *ev;
	size_t n;	/* events */
	size_t ngroups; /* groups; an event outside braces is a group of one */
};

/* Where a person can look next after a library message. The library names no program's
 * commands; a program that has one for the kind adds it to the message (hwprof's CLI: "see
 * 'hwprof list'", "record one with 'hwprof record -- PROGRAM'"). */
enum hwprof_see {
	HWPROF_SEE_NONE,
	HWPROF_SEE_EVENTS,     /* the event names this host has (an unknown or unsupported one) */
	HWPROF_SEE_PMU_EVENTS, /* a sysfs PMU's events and fields (an unknown PMU or term) */
	HWPROF_SEE_RECORDING,  /* how to make a sample file (none there, or not one) */
	HWPROF_SEE_VENDOR_EVENTS, /* the CPU's own events through libpfm4: their umasks,
				   * attributes and precise ones */
};

/* The one way to get a failure's text: one line about the calling thread's last failure of
 * hwprof_events_parse(), hwprof_reader_open() or a group or region function (hwprof.h),
 * naming the culprit and a way out; "" after one of them succeeded. (The sample-file writer's
 * -errno values say all there is: strerror() them.) Owned by the library, per thread, valid
 * until that thread's next call of one of those functions. The ERR buffers that
 * hwprof_events_parse() and hwprof_reader_open() take receive a copy of the same line. */
const char *hwprof_strerror_last(void);

/* The kind of the calling thread's last message from hwprof_events_parse(),
 * hwprof_open_advice(), the group functions (hwprof_strerror_last()) or hwprof_reader_open():
 * each resets it when called, and sets it with its message. */
enum hwprof_see hwprof_see_last(void);

/* Parses SPEC (see above) into OUT (zeroed first). Returns 0, or -EINVAL for a malformed spec
 * or unknown event, -ENOENT for a PMU that does not exist in sysfs, -ENOMEM. On error
 * hwprof_strerror_last() and ERR (ERRLEN bytes, may be NULL) hold one line naming the culprit
 * and a way out, e.g.
 * "unknown event 'cyclez' (did you mean 'cycles'?)"; hwprof_see_last() says where the names
 * that do exist can be found (HWPROF_SEE_EVENTS, HWPROF_SEE_PMU_EVENTS). */
int hwprof_events_parse(const char *spec, struct hwprof_event_list *out, char *err, size_t errlen);

/* Frees what hwprof_events_parse allocated; accepts NULL and an empty list. */
void hwprof_events_free(struct hwprof_event_list *list);

/* Fills ATTR (zeroed first, size = sizeof) from EV: type, config*, exclude_*, precise_ip
 * (the requested level; for :P the level from hwprof_max_precise()). Sampling and read_format
 * fields are left 0 for the caller. */
void hwprof_event_to_attr(const struct hwprof_event *ev, struct perf_event_attr *attr);

/* Whether EV needs a hardware PMU (everything but HWPROF_EV_SOFTWARE). */
bool hwprof_event_is_hw(const struct hwprof_event *ev);

/* The unit EV counts in: its sysfs .unit ("MiB", "Joules"), "ns" for cpu-clock and
 * task-clock (perf_event_open(2): they count nanoseconds), else "" (events). Never NULL;
 * points into EV or at a literal. */
const char *hwprof_event_unit(const struct hwprof_event *ev);

/* What EV's samples can carry about the data they touched (perf_event_open(2)): */
enum hwprof_event_data {
	HWPROF_DATA_ADDR = 1 << 0, /* PERF_SAMPLE_ADDR holds a data address: the software
				    * page-faults, minor-faults, major-faults, alignment-faults
				    * and emulation-faults (the faulting address), and the
				    * memory-sampling events below */
	HWPROF_DATA_MEM = 1 << 1,  /* PERF_SAMPLE_DATA_SRC and PERF_SAMPLE_WEIGHT hold where the
				    * access was served and its latency: Intel's mem-loads and
				    * mem-stores (cpu/mem-loads,ldlat=N/), AMD's ibs_op PMU */
};

/* The HWPROF_DATA_* bits of EV, by what it counts (not how it was spelled); 0 for the rest. */
unsigned hwprof_event_data(const struct hwprof_event *ev);

/* The highest precise_ip the core PMU advertises: sysfs caps/max_precise of "cpu" (or
 * "cpu_core"/"cpu_atom" on hybrid parts), else 3 when unknown (the open step-down finds the
 * real level). */
int hwprof_max_precise(void);

/* Opens ATTR with perf_event_open(2) through hwprof_sys(), stepping precise_ip down from
 * attr->precise_ip to 0 on any error (kernels answer EINVAL or EOPNOTSUPP for an unsupported
 * level, see perf_event_open(2)), restoring every other attr field between tries.
 * Returns the fd, or -errno of the try at the requested level when every level fails (the
 * first error is the one that explains the failure), but -ESRCH whenever PID > 0 has ended
 * or is a zombie by then (a group member of a thread that exits fails with ENODEV or
 * EINVAL). *OBTAINED receives the level that opened (may be NULL). */
int hwprof_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		      unsigned long flags, int *obtained);

/* One line of advice for a failed open of EV with error ERR (a positive errno), written to BUF:
 *   ENOENT/EOPNOTSUPP/ENODEV -> "not supported on this host (no hardware PMU exposed, virtualized?
 *                               ...)", hwprof_see_last() HWPROF_SEE_EVENTS
 *   EACCES/EPERM -> the perf_event_paranoid level read from /proc and what it allows, CAP_PERFMON
 *   EMFILE -> too many events / open files (ulimit -n)
 *   EINVAL -> which attribute the kernel refused, when known
 * Returns BUF. */
const char *hwprof_open_advice(const struct hwprof_event *ev, int err, char *buf, size_t len);

/* /proc/sys/kernel/perf_event_paranoid, or INT_MIN when unreadable. The environment variable
 * HWPROF_PROC_ROOT replaces "/proc" (tests emulate levels 3 and 4 with a fixture file). */
int hwprof_paranoid(void);

/* Whether this process may count and sample the kernel: CAP_SYS_ADMIN or CAP_PERFMON in its
 * effective set (/proc/self/status CapEff, capability(7)), or perf_event_paranoid <= 1
 * (perf_event_open(2)); false when neither can be read. HWPROF_PROC_ROOT replaces "/proc" as
 * for hwprof_paranoid(). What an event without a u/k/h modifier counts follows it. */
bool hwprof_may_profile_kernel(void);

/* /proc/sys/kernel/perf_event_max_sample_rate in Hz: the highest sample_freq the kernel accepts
 * (perf_event_open(2), "perf_event_max_sample_rate"; it may lower it at run time), or -1 when
 * unreadable. HWPROF_PROC_ROOT replaces "/proc" as for hwprof_paranoid(). */
long long hwprof_max_sample_rate(void);

/* The sysfs root in use ("/sys" or $HWPROF_SYSFS_ROOT). Never NULL. */
const char *hwprof_sysfs_root(void);

/* Whether the host exposes a hardware PMU: a test open of `cycles` (user space, counting)
 * through hwprof_sys() succeeds. The result is not cached. */
bool hwprof_host_has_pmu(void);

/* The I-th named event that `hwprof list` shows (generic hardware, then hardware cache, then
 * software; canonical spellings only): writes its name to BUF (LEN bytes) and its kind to
 * *KIND. Returns 0, or -ENOENT when I is past the end. */
int hwprof_event_name_at(size_t i, char *buf, size_t len, enum hwprof_event_kind *kind);

/* The name perf gives the event of perf_event_attr TYPE and CONFIG (linux/perf_event.h):
 * the canonical generic hardware, hardware cache or software name ("cpu-clock",
 * "LLC-load-misses"), or "rNNNN" for PERF_TYPE_RAW, written to BUF (LEN bytes). Returns 0,
 * or -ENOENT (BUF untouched) for another type (a tracepoint, a sysfs PMU) or a config that
 * has no name. */
int hwprof_event_name_of(uint32_t type, uint64_t config, char *buf, size_t len);

/* The encoding of an event whose name does not tell its code (a raw, sysfs PMU or vendor
 * event), as perf_event_attr holds it (linux/perf_event.h): "raw 0x20d1" for PERF_TYPE_RAW,
 * "type 14, config 0x412e" for another PMU type, with ", config1 0x20" and ", config2 0x.."
 * when not 0, into BUF (LEN bytes). Returns 0, or -ENOENT (BUF "") for a generic hardware,
 * cache, software or tracepoint type, whose name says it all. */
int hwprof_event_code(uint32_t type, uint64_t config, uint64_t config1, uint64_t config2, char *buf,
		      size_t len);

/* The I-th PAPI preset name hwprof accepts in an event list (PAPI_TOT_INS, PAPI_L1_DCM,
 * ...): *NAME, and either *EVENT, the generic event it stands for ("instructions"), or, for a
 * preset no generic event counts, *EVENT NULL and *WHY the reason it is refused (static
 * strings). Returns 0, or -ENOENT past the end. */
int hwprof_papi_preset_at(size_t i, const char **name, const char **event, const char **why);

/* The other spellings perf accepts for the canonical generic or software event NAME
 * ("context-switches" -> "cs"; "cycles" -> "cpu-cycles") into OUT (room for MAX; static
 * strings). Returns how many were stored (0 for a name without aliases). */
size_t hwprof_event_aliases(const char *name, const char **out, size_t max);

/* What perf_event_paranoid LEVEL allows an unprivileged user (without CAP_PERFMON), as one
 * phrase, e.g. 2 -> "user-space profiling of your own processes only". See perf_event_open(2)
 * and the kernel's Documentation/admin-guide/perf-security.rst. Never NULL. */
const char *hwprof_paranoid_allows(int level);

#ifdef __cplusplus
}
#endif

#endif
