/* builder.h - builds a struct profile from decoded records, one input at a time.
 *
 * profile_load() feeds it from sample files; tests feed it records they make up. Call order:
 * builder_new, then per input builder_begin_input, builder_add for each record,
 * builder_end_input; then builder_finish (symbolizes) and builder_free.
 */
#ifndef HWPROF_REPORT_BUILDER_H
#define HWPROF_REPORT_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/sampfile.h"
#include "profile.h"

struct builder;

/* A builder for OPT (kept by pointer: must outlive the builder). Returns 0 and *OUT, or
 * -EINVAL (a malformed filter, ERR says which) or -ENOMEM. */
int builder_new(struct builder **out, const struct profile_options *opt, char *err, size_t errlen);

/* Starts input NAME (for messages) with its HEADER (its facts copied from the first input, its
 * events added by name to the profile's). Each input has its own processes. Returns 0 or
 * -ENOMEM. */
int builder_begin_input(struct builder *b, const char *name,
			const struct hwprof_file_header *header);

/* For the next builder_begin_input() only: show header event EVENT when no --event is given
 * and no earlier input chose the event (it must be a sampling event; else the first sampling
 * event is shown, as without the call). */
void builder_default_event(struct builder *b, uint32_t event);

/* The event shown of the current input (after builder_begin_input): its index in the
 * input's header.events, or -1 when the input lacks it. The inputs are one event at a time,
 * matched by name: --event, else the first input's first sampling event (or the one
 * builder_default_event() named). *NAME (NAME may be
 * NULL) gets that event's name, NULL while no input has given it. */
int builder_input_event(const struct builder *b, const char **name);

/* Adds one record of the current input. Returns 0 or -ENOMEM. */
/* (A SAMPLE goes to builder_add_sample() with its stack id.) */
int builder_add(struct builder *b, const struct hwprof_record *rec);

/* The producer's two calls for stacks, for any input format. Adds stack ID (non-zero,
 * unique in the current input; a later one with the same id replaces it) of the current
 * input: NR caller addresses IPS (copied), innermost first, return addresses (a caller's
 * line is that of IP - 1), the sample's own IP not among them; the first NR_KERNEL are
 * kernel addresses; TRUNCATED when the recorded chain was cut. Returns 0, -EINVAL (ID 0) or
 * -ENOMEM. */
int builder_add_stack(struct builder *b, uint32_t id, const uint64_t *ips, uint32_t nr,
		      uint32_t nr_kernel, bool truncated);

/* Adds sample S of the current input whose callers are stack STACK_ID (0: none recorded),
 * given before by builder_add_stack(); a STACK_ID never given makes the input partial (a
 * warning says how many samples) and the sample counts without callers. A sample of another
 * sampling event than the shown one goes to the value vector only (profile.h: vsamples).
 * Returns 0 or -ENOMEM. */
int builder_add_sample(struct builder *b, const struct hwprof_rec_sample *s, uint32_t stack_id);

/* Ends the current input: TRAILER may be NULL (cut short); STATUS and MSG as
 * hwprof_reader_status() gives them. Its counted totals are summed per event name (see
 * profile.count_inputs). Returns 0 or -ENOMEM. */
int builder_end_input(struct builder *b, const struct hwprof_file_trailer *trailer,
		      enum hwprof_read_status status, const char *msg);

/* Symbolizes, filters and sorts: *OUT gets the profile (owned by the caller, free with
 * profile_free()). Returns 0, or -EINVAL when a filter value matches nothing (ERR names it
 * and what the inputs hold), or -ENOMEM. */
int builder_finish(struct builder *b, struct profile **out, char *err, size_t errlen);

/* Frees B. Accepts NULL. */
void builder_free(struct builder *b);

#endif
