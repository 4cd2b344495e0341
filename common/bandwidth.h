/* bandwidth.h - which memory-controller events measure this host's DRAM traffic (internal to
 * libhwprof and `hwprof stat --bandwidth`). Nothing here opens an event or prints.
 *
 * One family of counters is chosen, the first the host has, so that no byte is counted twice
 * (an Ice Lake server has both uncore_imc_N and free-running counters):
 *   Intel server  uncore_imc_0..N (skx, icx, spr uncore): events/cas_count_read and
 *                 cas_count_write per box; one CAS moves one 64-byte line (the events' .scale
 *                 6.103515625e-5 MiB says so; 64 bytes when a box has no .scale)
 *   Intel client  uncore_imc (snb..cfl, free-running): events/data_reads, data_writes
 *   AMD           amd_df, the data fabric: the DRAM channel data beats of the Zen generations
 *                 whose codes are published, 64 bytes each, read and write together; the
 *                 kernel exports no alias for them, so the codes are hwprof's (the table in
 *                 bandwidth.c names their source). A Zen generation not in the table is
 *                 refused with the reason, never guessed.
 * The PMUs are read under hwprof_sysfs_root(), the CPU's family under $HWPROF_PROC_ROOT.
 */
#ifndef HWPROF_BANDWIDTH_H
#define HWPROF_BANDWIDTH_H

#include <stdbool.h>
#include <stddef.h>

struct hwprof_event;

/* What an event's bytes are. */
enum bw_dir {
	BW_READ,
	BW_WRITE,
	BW_ANY, /* reads and writes together (AMD's data fabric) */
};

/* One event to count: an event spec for hwprof_events_parse() and what it measures. */
struct bw_event {
	char spec[128];		/* "uncore_imc_3/cas_count_read/", "amd_df/event=0x07,.../" */
	enum bw_dir dir;	/* what its bytes are */
	double bytes_per_count; /* when the parsed event has no byte unit (.unit); 64 */
};

/* The events of the host's memory controllers. */
struct bw_plan {
	const char *source; /* "uncore_imc_N", "uncore_imc", "amd_df" (static) */
	size_t boxes;	    /* memory-controller PMUs (uncore_imc_N boxes; 1 otherwise) */
	bool split;	    /* reads and writes apart (false: BW_ANY events only) */
	struct bw_event ev[64];
	size_t n;
};

/* Fills *PLAN with the events of the host's memory controllers. Returns 0; -ENOENT when the
 * host has none of the PMUs above; -EOPNOTSUPP when it has one whose events are not known
 * (an amd_df of an unknown Zen generation, an uncore_imc without cas_count_read); in both
 * cases WHY (LEN bytes) holds one phrase saying what was looked for or what is unknown:
 * "no memory-controller PMU (uncore_imc_N, uncore_imc or amd_df) in
 * /sys/bus/event_source/devices". */
int bw_plan_host(struct bw_plan *plan, char *why, size_t len);

/* Bytes per unit of a sysfs .unit: "B"/"bytes" 1, "KiB" 1024, "KB" 1e3, "MiB", "MB", "GiB",
 * "GB"; 0 for any other unit (not bytes). */
double bw_unit_bytes(const char *unit);

/* The bytes VALUE (a count already multiplied by EV's .scale, as hwprof_group_read() gives
 * it) stands for: VALUE times EV's byte unit, or times BYTES_PER_COUNT when EV has no byte
 * unit. */
double bw_bytes(const struct hwprof_event *ev, double value, double bytes_per_count);

#endif
