/* drain.c - record's rings drained into the file in time order (see drain.h). */
#include "drain.h"

#include <linux/perf_event.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "cli.h"
#include "decode.h"
#include "ring.h"

/* --call-graph dwarf: a sample is unwound when it is written, in time order, so that the
 * unwinder has seen exactly the mappings its process had then (the records before it). Its
 * registers and stack copy wait beside it in the merge queue. */
static int queue_for_unwinding(struct recording *r, const struct hwprof_record *rec)
{
	void *blob;
	size_t len;
	int ret = unwind_pack(r->sampler.decode.stack, r->sampler.decode.ustack, &blob, &len);

	if (ret < 0)
		return ret;
	ret = merge_add_blob(&r->merge, rec, blob, len);
	return ret < 0 ? ret : 0;
}

/* The other half: REC to the unwinder; a sample's stack unwound from BLOB[LEN] and interned
 * into *STACK_ID. Returns 0 or -errno. */
static int unwind_record(struct recording *r, const struct hwprof_record *rec, const void *blob,
			 size_t len, uint32_t *stack_id)
{
	struct callchain_stack *st = r->unwound;
	int ret = unwind_track(r->unwind, rec);

	if (ret < 0 || rec->type != HWPROF_REC_SAMPLE || !blob)
		return ret;
	ret = unwind_sample(r->unwind, &rec->sample, blob, len, (uint32_t)r->opt.max_stack - 1, st);
	if (ret < 0)
		return ret;
	ret = hwprof_writer_add_stack(r->writer, st->ips, st->nr, st->nr_kernel, st->truncated,
				      stack_id);
	r->tally.stacks_truncated += ret == 0 && st->truncated;
	return ret;
}

/* One perf record from a ring: translated, tallied, queued for the time-ordered write. */
static int on_ring_record(const struct perf_event_header *h, size_t len, void *arg)
{
	struct recording *r = arg;
	struct hwprof_record rec;
	int ret = decode_record(&r->sampler.decode, h, len, &rec);

	if (ret < 0) {
		r->tally.bad++;
		return 0;
	}
	if (ret == 0)
		return 0;
	switch (rec.type) {
	case HWPROF_REC_SAMPLE: {
		const struct callchain_stack *st = r->sampler.decode.stack;
		if (r->unwind)
			return queue_for_unwinding(r, &rec);
		if (!st)
			break;
		/* Interned now, in ring order: the writer puts every stack before the blocks
		 * of the samples that use it, whatever order the merge gives them. */
		ret = hwprof_writer_add_stack(r->writer, st->ips, st->nr, st->nr_kernel,
					      st->truncated, &rec.sample.stack_id);
		if (ret < 0) {
			if (!r->write_err)
				r->write_err = ret;
			return ret;
		}
		r->tally.stacks_truncated += st->truncated;
		if (!rec.sample.kernel) {
			r->tally.user_chains++;
			/* A chain cut at --max-stack is no sign of missing frames. */
			r->tally.user_no_caller += st->nr == st->nr_kernel && !st->truncated;
		}
		break;
	}
	case HWPROF_REC_LOST:
		r->tally.lost += rec.lost.lost;
		break;
	case HWPROF_REC_THROTTLE:
		r->tally.throttles++;
		break;
	case HWPROF_REC_MMAP:
		/* A build-id names code to symbolize; a data mapping needs none. */
		if ((rec.mmap.prot & PROT_EXEC) &&
		    (!r->sampler.kernel_build_id || !rec.mmap.build_id_size))
			mapfacts_build_id(&r->mapfacts, &rec.mmap);
		mapfacts_identity(&rec.mmap);
		break;
	default:
		break;
	}
	ret = merge_add(&r->merge, &rec);
	return ret < 0 ? ret : 0;
}

/* Writes REC, a sample after unwinding its stack from *BLOB: on the writer thread when there
 * is one. Returns 0 or -errno. */
static int write_record(const struct hwprof_record *queued, void **blob, size_t len, void *arg)
{
	struct recording *r = arg;
	struct hwprof_record copy = *queued, *rec = &copy;
	int ret = r->unwind ? unwind_record(r, rec, *blob, len, &copy.sample.stack_id) : 0;

	if (ret == 0)
		ret = hwprof_writer_add(r->writer, rec);
	if (ret == 0 && rec->type == HWPROF_REC_SAMPLE)
		r->tally.samples++;
	return ret;
}

static void flush_writer(void *arg)
{
	struct recording *r = arg;

	hwprof_writer_flush(r->writer);
}

int drain_start_writer(struct recording *r)
{
	int ret;

	if (!r->unwind)
		return 0;
	/* The queue's bound: about 30000 samples of 8 KiB stacks. */
	ret = write_thread_start(&r->writer_thread, write_record, flush_writer, r, 256u << 20);
	return ret < 0 ? error_errno(ret, "starting the writer thread: %m") : 0;
}

int drain_stop_writer(struct recording *r)
{
	int ret = write_thread_stop(r->writer_thread);

	r->writer_thread = NULL;
	if (ret < 0 && !r->write_err)
		r->write_err = ret;
	return ret < 0 ? -1 : 0;
}

static int emit(const struct hwprof_record *rec, void **blob, size_t len, void *arg)
{
	struct recording *r = arg;
	void *taken = *blob;
	int ret;

	if (r->writer_thread) {
		*blob = NULL;
		ret = write_thread_push(r->writer_thread, rec, taken, len);
	} else {
		ret = write_record(rec, blob, len, r);
	}
	if (ret < 0) {
		if (!r->write_err)
			r->write_err = ret;
		return ret;
	}
	/* In time order here, after the merge: a child's EXIT drained from its CPU's ring
	 * before its FORK from the parent's would leave the pid tracked for good. With -p,
	 * nothing of it is ours to end or to wait for. */
	if (rec->type != HWPROF_REC_SAMPLE && !target_attached(&r->target))
		target_track(&r->target, rec);
	return 0;
}

/* Drains every ring, then writes what is older than the start of this round. */
static int drain(struct recording *r, bool final)
{
	/* Stamped-to-published delay of a kernel record is far below this margin. */
	const uint64_t margin = 20 * 1000000ull;
	uint64_t start = record_now_ns(), upto;
	long ret;

	for (size_t c = 0; c < r->sampler.ncpus; c++) {
		ret = ring_drain(&r->sampler.cpus[c].ring, on_ring_record, r);
		if (ret < 0 && r->write_err)
			return outfile_write_failed(&r->out, r->write_err);
		if (ret < 0)
			return error_errno((int)ret, "reading the ring buffer of CPU %d: %m",
					   r->sampler.cpus[c].cpu);
	}
	upto = final ? UINT64_MAX : start > margin ? start - margin : 0;
	ret = merge_flush(&r->merge, upto, emit, r);
	if (ret < 0 && r->write_err)
		return outfile_write_failed(&r->out, r->write_err);
	if (ret < 0)
		return error_errno((int)ret, "ordering the records: %m");
	return 0;
}

int drain_loop(struct recording *r, const sigset_t *unblocked, int *wstatus)
{
	size_t n = r->sampler.ncpus;
	struct pollfd *pfd = xcalloc(n + 1, sizeof(*pfd));
	uint64_t last_flush = record_now_ns();
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		pfd[i].fd = r->sampler.cpus[i].fd;
		pfd[i].events = POLLIN;
	}
	pfd[n].fd = r->target.pidfd;
	pfd[n].events = POLLIN;
	for (;;) {
		struct timespec ts = {0, (target_stop_signal() ? 50 : 500) * 1000000L};
		bool attached_gone = false;

		if (ppoll(pfd, n + 1, &ts, unblocked) > 0) {
			for (size_t i = 0; i < n; i++)
				if (pfd[i].revents & (POLLHUP | POLLERR))
					pfd[i].fd = -1; /* the task is gone: no more wakeups */
			attached_gone = pfd[n].revents != 0;
		}
		if (drain(r, false) < 0) {
			ret = -1;
			break;
		}
		if (record_now_ns() - last_flush > 1000000000ull) {
			if (!r->writer_thread)
				hwprof_writer_flush(r->writer);
			last_flush = record_now_ns();
		}
		if (!record_launched(r) ? attached_gone || target_stop_signal()
					: target_ended(&r->target, record_now_ns(), wstatus))
			break;
	}
	free(pfd);
	return ret;
}

int drain_synth_record(struct hwprof_record *rec, void *arg)
{
	struct recording *r = arg;

	if (rec->type == HWPROF_REC_MMAP) {
		mapfacts_build_id(&r->mapfacts, &rec->mmap);
		mapfacts_identity(&rec->mmap);
	}
	return merge_add(&r->merge, rec);
}

int drain_finish(struct recording *r)
{
	if (drain(r, true) < 0)
		return -1;
	if (r->writer_thread && drain_stop_writer(r) < 0)
		return outfile_write_failed(&r->out, r->write_err);
	return 0;
}
