/* perf_meta.h - what a perf.data file says about its recording: its events (each
 * perf_event_attr and the sample ids that belong to it) and the feature sections that
 * matter to a report (host, command line, event names, build-ids, sample times).
 *
 * The layout is perf's (tools/perf/Documentation/perf.data-file-format.txt): in a file, a
 * header, an attr section and feature sections after the data; in a pipe, the same facts as
 * PERF_RECORD_HEADER_ATTR and PERF_RECORD_HEADER_FEATURE records before the data
 * (input_perf.c). Both end up here. Every length is checked against the bytes given; no
 * allocation is sized by a file field alone. Host byte order only (input_perf.c refuses the
 * other).
 */
#ifndef HWPROF_REPORT_PERF_META_H
#define HWPROF_REPORT_PERF_META_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/sampfile.h"

/* perf's user record types (tools/perf/util/event.h, after the kernel's, which end below
 * 64) and feature ids (tools/perf/util/header.h). */
enum {
	PERF_USER_HEADER_ATTR = 64,
	PERF_USER_HEADER_EVENT_TYPE = 65,
	PERF_USER_HEADER_TRACING_DATA = 66,
	PERF_USER_HEADER_BUILD_ID = 67,
	PERF_USER_FINISHED_ROUND = 68,
	PERF_USER_AUXTRACE = 71,
	PERF_USER_HEADER_FEATURE = 80,
	PERF_USER_COMPRESSED = 81,
	PERF_USER_FINISHED_INIT = 82,
	PERF_USER_COMPRESSED2 = 83, /* newer perfs (2025): COMPRESSED, padded to 8 */
};
enum {
	PERF_FEAT_BUILD_ID = 2,
	PERF_FEAT_HOSTNAME = 3,
	PERF_FEAT_OSRELEASE = 4,
	PERF_FEAT_NRCPUS = 7,
	PERF_FEAT_CPUDESC = 8,
	PERF_FEAT_CMDLINE = 11,
	PERF_FEAT_EVENT_DESC = 12,
	PERF_FEAT_SAMPLE_TIME = 21,
	PERF_FEAT_DIR_FORMAT = 24, /* perf record --threads: the data in DIR/data.N files */
	PERF_FEAT_MAX = 256,	   /* bits of the header's feature bitmap */
};

/* A build-id perf stored for a file it saw samples in (HEADER_BUILD_ID). */
struct perf_build_id {
	char *filename;
	uint8_t size; /* 1..20 */
	uint8_t id[20];
};

/* One event of the recording. */
struct perf_event_info {
	struct perf_event_attr attr; /* the file's attr, zero-extended or cut to this size */
	char name[192];		     /* from EVENT_DESC, else hwprof_event_name_of() */
	bool named;		     /* NAME came from the file */
};

struct perf_meta {
	struct perf_event_info *ev;
	uint32_t nev;
	size_t capev;
	uint64_t *ids;	 /* sample ids ... */
	uint16_t *id_ev; /* ... and the event each belongs to */
	size_t nids;
	struct perf_build_id *bids;
	size_t nbids, capbids;
	char hostname[65], osrelease[65], cpudesc[128];
	uint32_t ncpus;
	char **argv; /* CMDLINE: perf's own command line (h.argv too) */
	uint32_t argc;
	uint64_t first_time, last_time; /* SAMPLE_TIME, ns (0: not known) */
	/* Filled by perf_meta_header(): the loader's header, pointing into this struct. */
	struct hwprof_file_header h;
	struct hwprof_file_event *hev;
};

/* Adds an event: ATTR (ATTR_LEN bytes of the file; its own size field says how many of them
 * are the attr: 0 means PERF_ATTR_SIZE_VER0) and its NIDS sample ids at IDS (raw u64s).
 * Returns 0, -EBADMSG (an attr shorter than PERF_ATTR_SIZE_VER0 or than its size field
 * says, more than 65535 events) or -ENOMEM. */
int perf_meta_add_attr(struct perf_meta *m, const unsigned char *attr, size_t attr_len,
		       const unsigned char *ids, size_t nids);

/* Reads feature FEAT's section, N bytes at P (features hwprof does not use are ignored).
 * Returns 0, -EBADMSG when the section does not hold what its layout says, or -ENOMEM. */
int perf_meta_feature(struct perf_meta *m, unsigned feat, const unsigned char *p, size_t n);

/* Reads one build-id record (a HEADER_BUILD_ID record, or an entry of the BUILD_ID feature
 * section) of N bytes at P. Returns 0, -EBADMSG or -ENOMEM. */
int perf_meta_build_id(struct perf_meta *m, const unsigned char *p, size_t n);

/* The event sample id ID belongs to, or -1. */
int perf_meta_event_of(const struct perf_meta *m, uint64_t id);

/* The build-id perf stored for FILENAME, or NULL. */
const struct perf_build_id *perf_meta_find_build_id(const struct perf_meta *m,
						    const char *filename);

/* Where the profiled command starts in perf's command line ARGV (ARGC words, as CMDLINE
 * holds it): after "--", else the first word after record's options ("perf [opts] [mem |
 * c2c | ...] record [opts] prog args"; an option's value may be the next word). Returns
 * ARGC when there is none (perf record -a alone, or no record word found), 0 when ARGV[0]
 * is not perf. */
size_t perf_cmdline_target(char *const *argv, size_t argc);

/* Fills m->h, the loader's header (hwprof/sampfile.h), from what was read; events without a
 * name from the file get perf's; h.data is set when a sampling event's sample_type has
 * PERF_SAMPLE_ADDR. Returns 0 or -ENOMEM. */
int perf_meta_header(struct perf_meta *m);

/* Frees everything M owns and empties it. */
void perf_meta_release(struct perf_meta *m);

#endif
