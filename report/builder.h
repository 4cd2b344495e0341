/* builder.h - builds a struct profile from decoded records, one input at a time.
 *
 * profile_load() feeds it from sample files; tests feed it records they make up. Call order:
 * builder_new, then per input builder_begin_input, builder_add for each record,
 * builder_end_input; then builder_finish (symbolizes) and builder_free.
 */
#ifndef HWPROF_REPORT_BUILDER_H
#define HWPROF_REPORT_BUILDER_H

#include <stddef.h>

#include "hwprof/sampfile.h"
#include "model.h"

struct builder;

/* A builder for OPT (kept by pointer: must outlive the builder). Returns 0 and *OUT, or
 * -EINVAL (a malformed filter, ERR says which) or -ENOMEM. */
int builder_new(struct builder **out, const struct profile_options *opt, char *err, size_t errlen);

/* Starts input NAME (for messages) with its HEADER (its facts copied from the first input, its
 * events added by name to the profile's). Each input has its own processes. Returns 0 or
 * -ENOMEM. */
int builder_begin_input(struct builder *b, const char *name,
			const struct hwprof_file_header *header);

/* The event shown of the current input (after builder_begin_input): its index in the
 * input's header.events, or -1 when the input lacks it. The inputs are one event at a time,
 * matched by name: --event, else the first input's first sampling event. *NAME (NAME may be
 * NULL) gets that event's name, NULL while no input has given it. */
int builder_input_event(const struct builder *b, const char **name);

/* Adds one record of the current input. Returns 0 or -ENOMEM. */
int builder_add(struct builder *b, const struct hwprof_record *rec);

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
