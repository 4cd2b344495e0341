/* file_ends.h - the two ends of record's sample file: the header written before the first
 * record (the host, the command, the events and how they were opened) and the trailer after
 * the last (the totals, the counts, the tally, the target's exit status).
 */
#ifndef HWPROF_RECORD_FILE_ENDS_H
#define HWPROF_RECORD_FILE_ENDS_H

#include "hwprof/sampfile.h"
#include "recording.h"

/* Once the events are open: fills R->header (the host's facts, the target's command, -C's
 * CPUs, the sampling events as the sampler opened them, then the counted ones) and opens
 * R->writer with it on the output's fd (outfile_take_fd()). Returns 0, or -1 after an error
 * message. */
int file_header_write(struct recording *r);

/* After the last record: writes the drops no LOST record announced as one LOST record, then
 * the trailer T (its duration_ns set by the caller): every sampling event's totals, the
 * counts (counting_read()), R's tally, the exit status in WSTATUS of a launched command
 * (INT32_MIN for none) and the stop signal; closes R->writer. Returns 0 with T->counts to
 * free by the caller, or -1 after an error message (the file is kept as far as it was
 * written, outfile_write_failed(); T's arrays freed). */
int file_trailer_write(struct recording *r, struct hwprof_file_trailer *t, int wstatus);

#endif
