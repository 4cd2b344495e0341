/* sampler.h - the sampling events of one recording: one per event per CPU, with a ring each.
 *
 * `inherit` events (to follow threads and children) cannot be mmap'ed with cpu == -1 (the
 * kernel answers EINVAL), so every event is opened once per online CPU on the target's pid.
 * The first event of each CPU owns that CPU's ring buffer; the other events' output is
 * redirected into it with PERF_EVENT_IOC_SET_OUTPUT, and PERF_SAMPLE_IDENTIFIER tells them
 * apart. Only the first event asks for the side-band records (MMAP2, COMM, FORK/EXIT), so
 * they come once. Everything goes through hwprof_sys(), so the fake kernel can stand in.
 */
#ifndef HWPROF_RECORD_SAMPLER_H
#define HWPROF_RECORD_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "decode.h"
#include "hwprof/event.h"
#include "hwprof/sampfile.h"
#include "ring.h"

struct sampler_config {
	uint64_t period;	    /* sample period in events; used when FREQ is 0 */
	uint64_t freq;		    /* sample frequency in Hz, or 0 */
	size_t pages;		    /* data pages per ring, a power of two */
	bool enable_on_exec;	    /* start at the target's exec (launch); else sampler_enable() */
	bool callchain;		    /* PERF_SAMPLE_CALLCHAIN (frame pointers): the callers of each
				     * sample into decode.stack */
	uint16_t max_stack;	    /* attr.sample_max_stack: callchain entries at most (<= sysctl
				     * kernel.perf_event_max_stack, else the open fails EOVERFLOW) */
	bool callchain_kernel_only; /* with CALLCHAIN: attr.exclude_callchain_user (the user
				     * part comes from STACK_USER) */
	uint32_t stack_user;	    /* > 0: PERF_SAMPLE_REGS_USER + PERF_SAMPLE_STACK_USER, copying
				     * this many bytes of user stack (attr.sample_stack_user, a multiple
				     * of 8, else the open fails EINVAL) into decode.ustack */
	uint64_t regs_user;	    /* with STACK_USER: attr.sample_regs_user */
	bool data;		    /* PERF_SAMPLE_ADDR and attr.mmap_data (MMAP2 of data
				     * mappings, kept by decode) */
	bool data_mem;		    /* with DATA: PERF_SAMPLE_DATA_SRC and PERF_SAMPLE_WEIGHT too,
				     * for memory-sampling events (mem-loads, ibs_op) */
	bool system_wide;	    /* every task of each CPU (pid -1, no inherit), not PIDS */
	const int *cpus;	    /* the CPUs to open on (-C), NCPUS of them; NULL: every
				     * online CPU */
	size_t ncpus;
};

struct sampler_cpu {
	int cpu;
	int fd; /* the fd that owns the ring */
	void *map;
	size_t map_len;
	struct ring ring;
};

struct sampler {
	size_t nevents;
	struct hwprof_file_event *fev; /* per event: attr facts, precise requested/obtained */
	size_t ncpus;
	struct sampler_cpu *cpus;
	size_t npids;
	int *fds;      /* every fd, ncpus * npids * nevents, -1 when not open */
	uint64_t *ids; /* PERF_EVENT_IOC_ID of each fd ... */
	uint16_t *idx; /* ... and its event index */
	size_t nids;
	struct decode_ctx decode;
	bool kernel_build_id; /* the kernel took attr.build_id */
	bool format_lost;     /* the kernel took PERF_FORMAT_LOST (Linux 6.0+) */
	size_t pages;	      /* data pages per ring actually mapped */
	size_t min_pages;     /* sampler_min_pages() of the config: halving stops there */
};

/* Opens every event of LIST for each of the NPIDS threads PIDS (or, with CFG->system_wide, for
 * every task: PIDS unused) on each CPU of CFG (see above) and maps the rings: one launched target
 * is one pid; an attached process is each of its threads (an event follows only the thread it was
 * opened on, and what it creates later). For :P and :pp-style requests the precise_ip step-down
 * runs on the first CPU; the other CPUs use the level it obtained. When mmap is refused with EPERM
 * (the locked-memory limit, kernel.perf_event_mlock_kb, for non-root users) the ring size is halved
 * down to 8 pages. Returns 0, or -errno with ERR (ERRLEN bytes) naming the event and the way out. S
 * is zeroed first; on error everything opened is closed again. */
int sampler_open(struct sampler *s, const struct hwprof_event_list *list,
		 const struct sampler_config *cfg, const pid_t *pids, size_t npids, char *err,
		 size_t errlen);

/* PERF_EVENT_IOC_ENABLE on every fd (for events opened without enable_on_exec). */
void sampler_enable(struct sampler *s);

/* PERF_EVENT_IOC_DISABLE on every fd (sampling stops; the rings stay readable). */
void sampler_disable(struct sampler *s);

/* The CPU time of the sampled tasks in ns into *NS: time_running of the first event, summed
 * over its per-CPU (and, with -p, per-thread) events, read(2) with read_format
 * TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING (perf_event_open(2)). With `inherit` the kernel adds
 * a child's times to its parent's event when the child exits, so this covers the threads and
 * children that ended; ones still running are not in it. A hardware event that was multiplexed
 * ran less than its tasks did. Returns 0, or -errno of the first read that failed. */
int sampler_running_ns(const struct sampler *s, uint64_t *ns);

/* Each event's own totals into OUT (S->nevents entries, zeroed first): its value and, when
 * the kernel took PERF_FORMAT_LOST (Linux 6.0+; read_format, perf_event_open(2)), the samples
 * it could not write to a full ring, summed over its per-CPU and per-thread fds. A child's
 * value is in its parent's event once the child ended; its lost count need not be (the read
 * returns the lost_samples of the event opened, kernel/events/core.c), so LOST records still
 * count. Call after sampler_disable(). Returns 0, or -errno of the first read that failed. */
int sampler_read_totals(const struct sampler *s, struct hwprof_file_sampled *out);

/* Unmaps the rings and closes the fds. Accepts a zeroed S. */
void sampler_close(struct sampler *s);

/* The fewest data pages a ring may have, a power of two: 8, or with STACK_USER bytes of stack
 * copied per sample (--call-graph dwarf) enough to hold two samples, each the copy and a page
 * for the rest at most (ids, callchain, registers). sampler_open() halves a ring refused for
 * the locked-memory limit down to it and no further. */
size_t sampler_min_pages(uint32_t stack_user);

/* The online CPUs from /sys/devices/system/cpu/online (0..N-1 from sysconf when unreadable)
 * into a malloc'd array *OUT. Returns the count (>= 1) or -ENOMEM. */
int sampler_online_cpus(int **out);

#endif
