/* producer.h - what a reader of one input format gives the loader (load.c).
 *
 * A producer turns one file into the loader's vocabulary (hwprof/sampfile.h): one header (the
 * recording's facts and its events), then records in file order (MMAP, COMM, FORK, EXIT,
 * STACK, SAMPLE, ...), then how the file ended. The loader does what needs every input at
 * once (inputs given twice, merged recordings that differ, the one event shown) and the
 * builder (builder.h) the rest: replay, stacks, symbolization, the tables of profile.h.
 *
 * A new input format is one file that defines a `struct producer` and one line in load.c's
 * table of producers; nothing else changes.
 */
#ifndef HWPROF_REPORT_CORE_PRODUCER_H
#define HWPROF_REPORT_CORE_PRODUCER_H

#include <stdbool.h>
#include <stddef.h>

#include "hwprof/sampfile.h"

/* The loader's side of one input, passed to the producer's read(). */
struct input;

/* Starts the input with header H, which must stay valid until input_end(). Call once,
 * before any record. Returns 0 or -ENOMEM. */
int input_begin(struct input *in, const struct hwprof_file_header *h);

/* Before input_begin(): the event (an index in the header's events) to show when the user
 * names none and no earlier input has chosen one. A producer that knows each event's samples
 * before it gives them names the first event that has samples (perf report, skipping the
 * empty ones, shows it first); without a call, the first sampling event is shown. */
void input_default_event(struct input *in, uint32_t event);

/* Adds record REC (copied as needed: REC may be reused after the call). A SAMPLE of another
 * event than the one shown is counted for the warning that says so, and left out. Returns 0
 * or -ENOMEM. */
int input_record(struct input *in, const struct hwprof_record *rec);

/* Ends the input: TRAILER (NULL: the file was cut short), STATUS and MSG as
 * hwprof_reader_status() gives them (a producer of another format maps its own end to
 * them). Call once, after input_begin(). Returns 0 or -ENOMEM. */
int input_end(struct input *in, const struct hwprof_file_trailer *trailer,
	      enum hwprof_read_status status, const char *msg);

/* Adds a note (one line, printf-formatted, prefixed by nothing: name the input yourself)
 * for the user to read once: something about the file that changes no number. Returns 0
 * or -ENOMEM. */
int input_note(struct input *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The same, a warning: something about the file that makes some figure of the report
 * incomplete (the samples themselves are all there). Returns 0 or -ENOMEM. */
int input_warning(struct input *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One input format. */
struct producer {
	const char *name; /* the format, for messages ("hwprof.data") */
	/* Whether HEAD, the file's first N bytes (N may be less than the format's magic when
	 * the file is that short), starts a file of this format. */
	bool (*probe)(const unsigned char *head, size_t n);
	/* Reads the file at PATH into IN: input_begin(), input_record() per record,
	 * input_end(); input_note() as needed. FD: -1 (open PATH), or PATH already open (a
	 * pipe or FIFO, which opened twice would lose what its writer wrote): read from it,
	 * not closed. Returns 0; or -errno with ERR (one line naming PATH, the cause and a way
	 * out) when PATH cannot be read as this format at all (-ENOENT, -EACCES, -EPROTO, ...);
	 * or the -errno an input_*() call returned. */
	int (*read)(struct input *in, const char *path, int fd, char *err, size_t errlen);
};

/* hwprof's own sample files (input_hwprof.c); also what is tried when no producer knows a
 * file (its reader's messages say what is wrong with it). */
extern const struct producer producer_hwprof;

/* perf's perf.data, as a file or as perf record -o -'s pipe stream (input_perf.c). */
extern const struct producer producer_perf;

/* Whether HEAD, a file's first N bytes, is the header of perf record --threads' output
 * (DIR/data: the DIR_FORMAT feature set, the samples in DIR/data.N; perf's header.h). */
bool perf_header_is_dir_format(const unsigned char *head, size_t n);

#endif
