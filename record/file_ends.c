/* file_ends.c - record's file header and trailer (see file_ends.h). */
#include "file_ends.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli.h"
#include "syswide.h"

/* The header's fields; the events of the counting group after the sampling ones. */
static int fill_header(struct recording *r)
{
	const struct hwprof_group *counting = counting_group(&r->counting);
	size_t nc = counting ? r->counting.events.n : 0;
	int argc = 0, ret;

	ret = hwprof_header_init(&r->header);
	if (ret < 0)
		return error_errno(ret, "host facts for the file header: %m");
	while (r->target.argv && r->target.argv[argc])
		argc++;
	r->header.argc = (uint32_t)argc;
	r->header.system_wide = r->opt.system_wide;
	if (r->opt.cpu_list)
		syswide_cpus_text(r->cpus, (int)r->ncpus, r->header.cpus, sizeof(r->header.cpus));
	r->header.argv = xcalloc((size_t)argc + 1, sizeof(char *));
	for (int i = 0; i < argc; i++)
		r->header.argv[i] = xstrdup(r->target.argv[i]);
	r->header.nevents = (uint32_t)(r->sampler.nevents + nc);
	r->header.events = xcalloc(r->header.nevents, sizeof(*r->header.events));
	memcpy(r->header.events, r->sampler.fev, r->sampler.nevents * sizeof(*r->sampler.fev));
	for (size_t i = 0; i < nc; i++) {
		const struct hwprof_event *ev = hwprof_group_event(counting, i);
		struct hwprof_file_event *f = &r->header.events[r->sampler.nevents + i];

		snprintf(f->name, sizeof(f->name), "%s", ev->spec);
		f->type = ev->type;
		f->config = ev->config;
		f->config1 = ev->config1;
		f->config2 = ev->config2;
		f->exclude_user = ev->exclude_user;
		f->exclude_kernel = ev->exclude_kernel;
		f->exclude_hv = ev->exclude_hv;
	}
	return 0;
}

/* The kernel writes a LOST record for a full ring only when a later record fits (kernel/
 * events/ring_buffer.c), so samples dropped near the end are announced by none: each event's
 * own lost count (PERF_FORMAT_LOST) says how many. Reads every sampling event's totals into
 * SAMPLED (header.nevents entries, the sampling events first) and writes the drops no LOST
 * record announced as one LOST record (cpu UINT32_MAX: of no one ring), so the file's LOST
 * records and its trailer say the same. Returns 0, or -1 when the write failed (WRITE_ERR). */
static int write_unannounced_lost(struct recording *r, struct hwprof_file_sampled *sampled)
{
	struct hwprof_record rec = {.type = HWPROF_REC_LOST};
	uint64_t lost = 0;
	int ret = sampler_read_totals(&r->sampler, sampled);

	if (ret < 0) {
		memset(sampled, 0, r->sampler.nevents * sizeof(*sampled));
		warning_errno(ret,
			      "reading the sampling events' own totals: %m (lost samples no LOST "
			      "record announced are not known)");
		return 0;
	}
	for (size_t e = 0; e < r->sampler.nevents; e++)
		lost += sampled[e].lost;
	if (lost <= r->tally.lost)
		return 0;
	rec.lost.time = record_now_ns();
	rec.lost.lost = lost - r->tally.lost;
	rec.lost.cpu = UINT32_MAX;
	ret = hwprof_writer_add(r->writer, &rec);
	if (ret < 0) {
		r->write_err = ret;
		return -1;
	}
	r->tally.lost = lost;
	return 0;
}

int file_header_write(struct recording *r)
{
	int ret = fill_header(r);

	if (ret < 0)
		return ret;
	r->header.stacks = r->opt.callchain;
	r->header.data = r->cfg.data;
	ret = hwprof_writer_open_fd(&r->writer, outfile_take_fd(&r->out), &r->header);
	return ret < 0 ? outfile_error(r->opt.output, -ret) : 0;
}

int file_trailer_write(struct recording *r, struct hwprof_file_trailer *t, int wstatus)
{
	int ret;

	t->exit_status = INT32_MIN;
	t->sampled = xcalloc(r->header.nevents, sizeof(*t->sampled));
	if (write_unannounced_lost(r, t->sampled) < 0) {
		free(t->sampled);
		return outfile_write_failed(&r->out, r->write_err);
	}
	counting_read(&r->counting, t);
	t->samples = r->tally.samples;
	t->lost = r->tally.lost;
	t->throttles = r->tally.throttles;
	if (record_launched(r))
		t->exit_status = WIFSIGNALED(wstatus) ? -WTERMSIG(wstatus) : WEXITSTATUS(wstatus);
	if (target_stop_signal())
		snprintf(t->note, sizeof(t->note), "stopped by %s",
			 strsignal(target_stop_signal()));
	ret = hwprof_writer_close(r->writer, t);
	r->writer = NULL;
	free(t->sampled);
	if (ret < 0) {
		free(t->counts);
		return outfile_write_failed(&r->out, ret);
	}
	return 0;
}
