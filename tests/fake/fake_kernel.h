/* fake_kernel.h - a fake perf_event_open(2) kernel behind hwprof/sys.h, for tests.
 *
 * It answers the way a real kernel does (see perf_event_open(2) and linux/perf_event.h), so the
 * hardware code paths run on hosts without a PMU. Nothing in the product uses it.
 *
 * Usage (criterion; each test runs in its own process, so global state is fine):
 *
 *	struct fake_kernel_config cfg = fake_kernel_defaults();   // a modern host with a PMU
 *	cfg.has_pmu = false;                                       // ... or none
 *	fake_kernel_install(&cfg);                                 // hwprof_sys() now answers fake
 *	fake_kernel_set_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 5000);
 *	... code under test ...
 *	cr_assert_eq(fake_kernel_nopens(), 3);
 *	cr_assert_eq(fake_kernel_open_log(0)->attr.precise_ip, 3);
 *	fake_kernel_uninstall();                                   // closes leftovers, real kernel
 *
 * fake_kernel_install() also points HWPROF_PROC_ROOT at a /proc of its own with the config's
 * perf_event_paranoid and, when privileged, CAP_PERFMON in /proc/self/status, so that what the
 * library reads of the host (the default privilege of an event, hwprof_may_profile_kernel())
 * agrees with the fake kernel; a test that has set HWPROF_PROC_ROOT itself keeps its own.
 * fake_kernel_uninstall() removes it.
 *
 * What the fake kernel does, in the order a real kernel checks (first failure wins):
 *   1. -EMFILE   when max_fds fake fds are already open.
 *   2. -EINVAL   pid == -1 && cpu == -1; a non-zero attr.size other than
 *                PERF_ATTR_SIZE_VER0..sizeof(struct perf_event_attr) -> -E2BIG (size written back).
 *   3. -EACCES   perf_event_paranoid emulation when !privileged (root / CAP_PERFMON skip it):
 *                  paranoid >= 3 (Debian/Ubuntu patch levels 3 and 4): every open;
 *                  paranoid >= 2: exclude_kernel == 0 (kernel profiling);
 *                  paranoid >= 1: pid == -1 && cpu >= 0 (system-wide / CPU events);
 *                  paranoid <= 0 and -1: allowed.
 *   4. -ESRCH    pid > 0 and no such process (checked with kill(pid, 0)).
 *   5. -EINVAL   old_kernel_inherit_group and attr.inherit with PERF_FORMAT_GROUP in read_format
 *                (kernels before 6.2 refused it; see the design notes).
 *   5b. -EINVAL  old_kernel_no_format_lost and PERF_FORMAT_LOST in read_format (before 6.0).
 *   6. -ENOENT   !has_pmu and the type needs a hardware PMU: PERF_TYPE_HARDWARE, HW_CACHE, RAW or a
 *                dynamic sysfs PMU type (>= PERF_TYPE_MAX). Software events always work.
 *   7. precise_errno (default -EOPNOTSUPP; set EINVAL for kernels that answer that)
 *                when precise_ip > max_precise for a hardware event, or > sw_max_precise for a
 *                software one (default 3: this host's software events take any level).
 *   8. -EBADF    group_fd >= 0 that is not an open fake fd; -EINVAL when it is not a leader.
 *   9. -EINVAL   group_counters_einval and the group would hold more hardware events than
 *                nr_counters (x86's validate_group does this).
 * Success returns a real fd (open("/dev/null")), so close() by any path is safe.
 *
 * Counting model (deterministic, so tests can assert exact numbers):
 *   - Every event has a "true" count: fake_kernel_set_count(type, config, value), else
 *     cfg.default_count.
 *   - An event counts when it has been enabled: at open unless attr.disabled (enable_on_exec
 *     counts as enabled: the fake has no exec), or by PERF_EVENT_IOC_ENABLE.
 *     PERF_EVENT_IOC_RESET on an event that is not enabled at that moment makes it read 0 again
 *     until the next ENABLE. DISABLE keeps what was counted.
 *   - An event that has counted reports time_enabled = cfg.enabled_ns and
 *     time_running = enabled_ns * ratio; an event that never counted reports 0, 0, 0.
 *     ratio = 1 for software events; for hardware events ratio = nr_counters / H where H is the
 *     number of hardware events open at read time, when H > nr_counters (multiplexing), else 1.
 *     fake_kernel_set_times() overrides both times for one event (e.g. running_ns = 0 to get an
 *     event that "never ran").
 *   - The value read is count * time_running / time_enabled (what a multiplexed counter sees),
 *     so scaling by enabled/running gives the true count back (exactly when it divides).
 *   - read(2) honours read_format exactly as linux/perf_event.h documents:
 *       !PERF_FORMAT_GROUP: { value; [time_enabled]; [time_running]; [id]; [lost] }
 *       PERF_FORMAT_GROUP:  { nr; [time_enabled]; [time_running]; { value; [id]; [lost] }[nr] }
 *     time_enabled/time_running of a group read are the leader's. A group read on any member
 *     reads the leader's whole group (leader first, then members in open order). A buffer too
 *     small gives -ENOSPC. Ids are unique, from 1000 up; PERF_EVENT_IOC_ID writes the id.
 *   - ioctl ENABLE / DISABLE / RESET apply to the fd, or with PERF_IOC_FLAG_GROUP to its whole
 *     group (on the leader). Every ioctl is logged. Unknown requests give -ENOTTY.
 *   - mmap: NULL with EINVAL unless cfg.allow_mmap; with EPERM when longer than
 *     cfg.mmap_max_len (if set); then a zeroed anonymous mapping (an empty ring: data_head =
 *     0). munmap releases it.
 */
#ifndef HWPROF_FAKE_KERNEL_H
#define HWPROF_FAKE_KERNEL_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hwprof/sys.h"

/* The host the fake kernel emulates. Get the defaults from fake_kernel_defaults(). */
struct fake_kernel_config {
	bool has_pmu;		    /* default true */
	int max_precise;	    /* highest precise_ip for hardware events; default 3 */
	int sw_max_precise;	    /* highest precise_ip for software events; default 3 */
	int precise_errno;	    /* positive errno for a too-high level; default EOPNOTSUPP */
	int paranoid;		    /* perf_event_paranoid: -1..4; default 2 */
	bool privileged;	    /* root or CAP_PERFMON: skip paranoid checks; default false */
	int nr_counters;	    /* hardware counters before multiplexing; default 4 */
	bool group_counters_einval; /* a group larger than nr_counters -> EINVAL; default true */
	bool old_kernel_inherit_group;	/* inherit + PERF_FORMAT_GROUP -> EINVAL; default false */
	bool old_kernel_no_format_lost; /* PERF_FORMAT_LOST -> EINVAL; default false */
	int max_fds;			/* open fake fds allowed before EMFILE; default 1024 */
	bool allow_mmap;		/* mmap gives a zeroed mapping; default false (EINVAL) */
	size_t mmap_max_len;		/* > 0: a longer mmap fails with EPERM, as over the
					 * locked-memory limit; default 0 (no limit) */
	uint64_t default_count;		/* count of events without fake_kernel_set_count; 1000000 */
	uint64_t enabled_ns;		/* time_enabled of an event that counted; 1000000000 */
};

/* Writes a fake /proc at ROOT (made if missing): sys/kernel/perf_event_paranoid holding
 * PARANOID and self/status with CapEff CAPEFF (the effective capability bits, proc(5)), what
 * the library reads of the host through HWPROF_PROC_ROOT. Returns 0 or -errno of mkdir or
 * fopen. fake_kernel_install() calls it for its own /proc; tests call it for theirs. */
int fake_proc_write(const char *root, int paranoid, unsigned long long capeff);

/* One perf_event_open call the fake kernel saw, successful or not. */
struct fake_kernel_open {
	struct perf_event_attr attr; /* as passed in (a copy) */
	pid_t pid;
	int cpu;
	int group_fd;
	unsigned long flags;
	int result; /* the fd returned, or -errno */
};

/* One ioctl the fake kernel saw. */
struct fake_kernel_ioctl {
	int fd;
	unsigned long request; /* PERF_EVENT_IOC_* */
	unsigned long arg;
	int result;
};

/* A modern x86 host with a PMU: see the field comments for each default. */
struct fake_kernel_config fake_kernel_defaults(void);

/* Resets all state (logs, counts, fds), copies CFG and installs the fake with hwprof_sys_set().
 * CFG NULL means the defaults. */
void fake_kernel_install(const struct fake_kernel_config *cfg);

/* Closes every fake fd still open, unmaps fake mappings, restores the real kernel. */
void fake_kernel_uninstall(void);

/* The table fake_kernel_install() installs (for tests that install it themselves). */
extern const struct hwprof_sys fake_kernel_sys;

/* The true count of (TYPE, CONFIG) for events opened later or earlier (read time decides). */
void fake_kernel_set_count(uint32_t type, uint64_t config, uint64_t value);

/* Overrides time_enabled / time_running (ns) for every event (TYPE, CONFIG). running_ns 0 makes
 * an event that never ran (it reads value 0). */
void fake_kernel_set_times(uint32_t type, uint64_t config, uint64_t enabled_ns,
			   uint64_t running_ns);

/* The PERF_FORMAT_LOST value a non-group read(2) of each event (TYPE, CONFIG) returns
 * (default 0). */
void fake_kernel_set_lost(uint32_t type, uint64_t config, uint64_t lost);

/* Every perf_event_open call since install, in order. I < fake_kernel_nopens(), else NULL. */
size_t fake_kernel_nopens(void);
const struct fake_kernel_open *fake_kernel_open_log(size_t i);

/* Every ioctl since install, in order. */
size_t fake_kernel_nioctls(void);
const struct fake_kernel_ioctl *fake_kernel_ioctl_log(size_t i);

/* Fake fds currently open (not closed through hwprof_sys()->close). */
int fake_kernel_nfds_open(void);

/* Whether FD is a fake event that is enabled now; -1 when FD is not a fake fd. */
int fake_kernel_is_enabled(int fd);

/* The id (PERF_FORMAT_ID) of fake FD, or 0 when FD is not a fake fd. */
uint64_t fake_kernel_id(int fd);

#endif
