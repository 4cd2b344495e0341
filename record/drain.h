/* drain.h - record's records from the ring buffers to the file: each perf record translated
 * (decode.h) and tallied, put back in time order (merge.h), and written; with --call-graph
 * dwarf, each sample unwound on the writer thread (write_thread.h) as it is written.
 *
 * Call order: drain_start_writer once the writer is open; drain_synth_record for the
 * records read from /proc; drain_loop while the target runs; drain_finish after sampling was
 * disabled; drain_stop_writer also when the recording fails.
 */
#ifndef HWPROF_RECORD_DRAIN_H
#define HWPROF_RECORD_DRAIN_H

#include <signal.h>

#include "hwprof/sampfile.h"
#include "recording.h"

/* With --call-graph dwarf (R->unwind set), starts R's writer thread: from then on what the
 * merge gives is unwound and written there. Without, does nothing. Returns 0, or -1 after an
 * error message. */
int drain_start_writer(struct recording *r);

/* Queues REC, a record made from /proc (attach_record_fn; ARG is the recording), for the
 * time-ordered write, its mapping's build-id and identity filled in (mapfacts.h). Returns 0
 * or -ENOMEM. */
int drain_synth_record(struct hwprof_record *rec, void *arg);

/* Drains the rings until the target ends (reaped into *WSTATUS) or, with -p or `-a` alone,
 * until the process ends or a stop signal. After a stop signal, also until the rest of the
 * target's process group has ended (target_ended). Signals arrive in ppoll() with the mask
 * UNBLOCKED; the file is flushed about once a second. Returns 0, or -1 after an error message
 * (a failed write keeps the file, outfile_write_failed()). */
int drain_loop(struct recording *r, const sigset_t *unblocked, int *wstatus);

/* The last drain, after the events were disabled: every record still in the rings and the
 * merge written, the writer thread stopped. Returns 0, or -1 after an error message. */
int drain_finish(struct recording *r);

/* Stops R's writer thread (none: nothing), everything queued written. Returns 0, or -1 when
 * a write failed (R->write_err set). */
int drain_stop_writer(struct recording *r);

#endif
