/* decode.h - translating perf ring-buffer records into sample-file records.
 *
 * Layouts from linux/perf_event.h (enum perf_event_type). With attr.sample_id_all every
 * non-sample record ends in a sample_id block { pid, tid } { time } { id } { stream_id }
 * { cpu, res } { id (IDENTIFIER) }, each present when its PERF_SAMPLE_* bit is set. Samples
 * themselves lay out IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD, CALLCHAIN,
 * REGS_USER, STACK_USER, WEIGHT or WEIGHT_STRUCT, DATA_SRC in that order. Only those sample_type
 * bits are understood; record asks the kernel for no others.
 */
#ifndef HWPROF_RECORD_DECODE_H
#define HWPROF_RECORD_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "callchain.h"
#include "hwprof/sampfile.h"
#include "unwind.h"

/* The sample_type bits decode understands. */
#define DECODE_SAMPLE_TYPES                                                                        \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |             \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |                      \
	 PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT |                 \
	 PERF_SAMPLE_DATA_SRC)

/* The most registers PERF_SAMPLE_REGS_USER may carry (one per bit of sample_regs_user). */
#define DECODE_REGS_MAX 64

/* How the records of one recording are shaped, and which event an id belongs to. */
struct decode_ctx {
	uint64_t sample_type;	/* attr.sample_type, the same for every sampling event */
	const uint64_t *ids;	/* PERF_EVENT_IOC_ID of each opened fd ... */
	const uint16_t *events; /* ... and the header.events index it samples */
	size_t nids;
	/* The period of every sample when sample_type lacks PERF_SAMPLE_PERIOD (fixed-period
	 * mode, -c): there the kernel must not be asked for the period, because a software
	 * event with PERF_SAMPLE_PERIOD and freq == 0 overflows on every event and reports the
	 * event count as the period (kernel/events/core.c, perf_swevent_event). */
	uint64_t fixed_period;
	/* With PERF_SAMPLE_CALLCHAIN: where a sample's callers go (NULL: the chain is skipped),
	 * and attr.sample_max_stack, the entries the kernel stores at most (a chain that long
	 * counts as truncated; 0: no limit known). */
	struct callchain_stack *stack;
	uint32_t max_stack;
	/* With PERF_SAMPLE_REGS_USER: attr.sample_regs_user (its bits say how many registers a
	 * sample carries); with it or PERF_SAMPLE_STACK_USER, where a sample's user state goes
	 * (NULL: skipped). */
	uint64_t regs_user;
	struct unwind_ustack *ustack;
	/* record --data (attr.mmap_data): keep the MMAP2 records of data mappings (heap, stack,
	 * anonymous, file-backed) too; else only executable ones are kept. */
	bool data_mmaps;
};

/* Translates REC (LEN bytes, 8-byte aligned, as ring_drain hands it) into OUT. A sample's
 * ADDR, DATA_SRC and WEIGHT (WEIGHT_STRUCT: its var1_dw, the access latency) go into its
 * addr, data_src and weight. A sample's
 * PERF_SAMPLE_CALLCHAIN goes into *CTX->stack by callchain_callers() (callchain.h). REGS_USER and
 * STACK_USER go into *CTX->ustack (zeroed first); a STACK_USER whose dyn_size exceeds its size
 * is malformed.
 * Returns 1 when OUT holds a record (strings in OUT point into REC), 0 for a record type that
 * is not kept (or an MMAP2 of a non-executable mapping without CTX->data_mmaps), -EBADMSG when REC
 * is too short for its type or its strings are not terminated. Samples with an id that is not in
 * CTX get event index 0. CPU in LOST/THROTTLE records comes from the sample_id block (0 without
 * it). */
int decode_record(const struct decode_ctx *ctx, const struct perf_event_header *rec, size_t len,
		  struct hwprof_record *out);

/* Bytes of the sample_id block that sample_id_all appends for SAMPLE_TYPE. */
size_t decode_sample_id_size(uint64_t sample_type);

#endif
