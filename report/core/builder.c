/* builder.c - replay records per input, filter by pid/tid/comm, aggregate by (DSO, offset);
 * then symbolize each distinct address once, filter by DSO/function, sort. */
#include "builder.h"
#include "vdso.h"

#include "aggregate.h"
#include "data.h"
#include "dso.h"
#include "jitmap.h"
#include "filter.h"
#include "funcname.h"
#include "functions.h"
#include "grow.h"
#include "jobs.h"
#include "kallsyms.h"
#include "maps.h"
#include "resolve.h"
#include "stacks.h"
#include "strpool.h"
#include "symbolize.h"
#include "symcache.h"
#include "values.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SEEN_MAX 8

struct builder {
	const struct profile_options *opt;
	struct profile *p;
	struct dso_table dsos;
	struct agg agg;
	struct maps *maps; /* of the current input */
	const char *input; /* name of the current input */
	size_t ninputs;
	uint64_t input_lost, input_throttles;
	/* The current input's shown event: its samples and their periods (before filters), and
	 * the tasks it started (FORK records), for check_accounted(). */
	uint64_t input_samples, input_tasks;
	double input_period;
	uint32_t input_ncpus;
	uint32_t input_nsampling;	      /* sampling events of the input */
	bool *input_sampling;		      /* per input event: a sampling one */
	struct hwprof_file_event input_shown; /* the input's shown event (when >= 0) */
	/* Per profile event: inputs that sample it, and of those, how many know its own count
	 * and lost count (SAMPLED records): p->trailer.sampled is known only when all do. */
	uint32_t *sampled_inputs, *count_inputs, *lost_inputs;
	/* The running vDSO's build-id when the current input was recorded on this kernel
	 * (vdso.h): what its "[vdso]" mappings are; size 0 otherwise. */
	uint8_t vdso_id[20];
	size_t vdso_id_size;
	int input_event;     /* index of the shown event in this input's header */
	uint32_t *input_map; /* this input's event i is p->header.events[input_map[i]] */
	uint32_t input_nevents;
	/* profile_options.focus: only addresses whose symbol it may name are looked up in the
	 * DWARF (every address when unset). */
	struct fn_query focus;
	bool focused;
	/* profile_options.lazy_lines, for a profile without stacks: PENDING (per location id)
	 * marks the addresses resolved by their symbol only. */
	bool lazy;
	bool *pending;
	/* The event shown of every input, by name: --event, else the first input's first
	 * sampling event (its event 0 when it has none). */
	char shown[sizeof(((struct hwprof_file_event *)0)->name)];
	bool shown_set, shown_sampling;
	uint32_t nevent_samples; /* entries of p->event_samples */
	struct filter pids, tids, comms, dso_filter;
	/* Each thread's command (interned), only kept when --comm filters: tid_comms[i] for
	 * the tid that comm_of maps to i. */
	struct u32_map comm_of;
	const char **tid_comms;
	size_t ntid_comms, captid_comms;
	const char *seen_comms[SEEN_MAX];
	uint32_t seen_pids[SEEN_MAX], seen_tids[SEEN_MAX];
	size_t nseen_comms, nseen_pids, nseen_tids;
	bool more_comms, more_pids, more_tids; /* more than SEEN_MAX: the lists are cut */
	/* The current input's stacks as recorded: its stack id -> index in in_stacks, whose
	 * addresses are in_ips[first .. first + nr). in_locs[first .. first + nloc) are their
	 * callers' location ids (b->agg) as last located, for process PID while the maps are of
	 * generation GEN, right for sample times in [lo, hi) (stack_callers()). */
	struct u32_map in_stack_ids;
	struct in_stack {
		size_t first;
		uint32_t nr, nr_kernel;
		bool truncated;
		bool located; /* in_locs holds them */
		uint32_t pid, nloc;
		uint64_t gen, lo, hi;
	} * in_stacks;
	size_t nin_stacks, cap_in_stacks;
	uint64_t *in_ips;
	uint32_t *in_locs; /* as many as in_ips */
	size_t nin_ips, cap_in_ips;
	uint64_t missing_stack;	   /* samples of this input naming a stack it never gave */
	struct stack_table stacks; /* of every input, in location ids (b->agg) */
	/* The value vector's (values.h): per profile event, the stacks of its samples when it
	 * is not the shown one, a sample without callers its address alone. */
	struct stack_table *ev_stacks;
	uint32_t nev_stacks;
	uint32_t *frames; /* one sample's location ids while it is added */
	size_t cap_frames;
	/* The capacities of p->header.events, p->trailer.counts and p->count_inputs. */
	size_t cap_events, cap_counts, cap_count_inputs;
	struct data_collect data; /* data addresses and mappings (data.h) */
	bool input_data;	  /* the current input recorded them (header.data) */
	uint32_t default_event;	  /* builder_default_event()'s + 1, 0: none */
};

#define add_warning(p, ...)                                                                        \
	profile_push_line(&(p)->warnings, &(p)->nwarnings, &(p)->cap_warnings, __VA_ARGS__)

int builder_new(struct builder **out, const struct profile_options *opt, char *err, size_t errlen)
{
	struct builder *b = calloc(1, sizeof(*b));
	int ret = -ENOMEM;

	*out = NULL;
	if (!b)
		return -ENOMEM;
	b->opt = opt;
	if (opt->focus) {
		fn_query_init(&b->focus, opt->focus);
		b->focused = true;
	}
	b->p = calloc(1, sizeof(*b->p));
	if (!b->p)
		goto fail;
	b->p->strings = strpool_new();
	if (!b->p->strings || dso_table_init(&b->dsos, b->p->strings) < 0 || agg_init(&b->agg) < 0)
		goto fail;
	if ((ret = filter_parse(&b->pids, "--pid", opt->pids, true, err, errlen)) < 0 ||
	    (ret = filter_parse(&b->tids, "--tid", opt->tids, true, err, errlen)) < 0 ||
	    (ret = filter_parse(&b->comms, "--comm", opt->comms, false, err, errlen)) < 0 ||
	    (ret = filter_parse(&b->dso_filter, "--dso", opt->dsos, false, err, errlen)) < 0)
		goto fail;
	*out = b;
	return 0;
fail:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	builder_free(b);
	return ret;
}

/* SRC's facts and command line into DST; not its events (merge_events()). */
static int copy_header(struct hwprof_file_header *dst, const struct hwprof_file_header *src)
{
	*dst = *src;
	dst->argv = NULL;
	dst->events = NULL;
	dst->argc = 0;
	dst->nevents = 0;
	if (src->argc && src->argv) {
		dst->argv = calloc(src->argc, sizeof(*dst->argv));
		if (!dst->argv)
			return -ENOMEM;
		for (uint32_t i = 0; i < src->argc; i++) {
			dst->argv[i] = strdup(src->argv[i] ? src->argv[i] : "");
			if (!dst->argv[i])
				return -ENOMEM;
			dst->argc++;
		}
	}
	/* The events come from merge_events(), the same for every input. */
	return 0;
}

/* The index in H of the event shown (see struct builder), or -1 when H lacks it. */
static int pick_event(const struct builder *b, const struct hwprof_file_header *h)
{
	const char *want = b->opt->event ? b->opt->event : b->shown_set ? b->shown : NULL;

	if (!want && b->default_event && b->default_event <= h->nevents &&
	    h->events[b->default_event - 1].sampling)
		return (int)b->default_event - 1;
	for (uint32_t i = 0; i < h->nevents; i++)
		if (h->events[i].sampling && (!want || !strcmp(h->events[i].name, want)))
			return (int)i;
	if (!want)
		return h->nevents ? 0 : -1;
	if (b->shown_set && !b->shown_sampling)
		for (uint32_t i = 0; i < h->nevents; i++)
			if (!strcmp(h->events[i].name, want))
				return (int)i;
	return -1;
}

/* Grows the array *V of SIZE-byte entries from N to M entries (M >= N), the new ones zeroed.
 * Returns 0 or -ENOMEM (*V unchanged). */
static int grow_zeroed(void **v, size_t size, size_t n, size_t m)
{
	char *p = realloc(*v, (m + 1) * size);

	if (!p)
		return -ENOMEM;
	memset(p + n * size, 0, (m + 1 - n) * size);
	*v = p;
	return 0;
}

/* Adds H's events missing from the profile's header (by name) and maps H's events to it:
 * the inputs' events are one list, as the events of one file are. */
static int merge_events(struct builder *b, const struct hwprof_file_header *h)
{
	struct hwprof_file_header *ph = &b->p->header;
	uint32_t *map = calloc(h->nevents + 1, sizeof(*map));
	uint64_t *counts;

	if (!map)
		return -ENOMEM;
	free(b->input_map);
	b->input_map = map;
	b->input_nevents = h->nevents;
	free(b->input_sampling);
	b->input_sampling = calloc(h->nevents + 1, sizeof(*b->input_sampling));
	if (!b->input_sampling)
		return -ENOMEM;
	b->input_nsampling = 0;
	for (uint32_t i = 0; i < h->nevents; i++) {
		uint32_t k;

		b->input_sampling[i] = h->events[i].sampling;
		b->input_nsampling += h->events[i].sampling;
		for (k = 0; k < ph->nevents && strcmp(ph->events[k].name, h->events[i].name); k++)
			;
		if (k == ph->nevents) {
			if (hwprof_grow((void **)&ph->events, &b->cap_events, ph->nevents + 1,
					sizeof(*ph->events)) < 0)
				return -ENOMEM;
			ph->events[ph->nevents++] = h->events[i];
		} else if (!ph->events[k].sampling && h->events[i].sampling) {
			/* Counted by one input, sampled by another: the sampling one says how. */
			ph->events[k] = h->events[i];
		}
		map[i] = k;
	}
	counts = realloc(b->p->event_samples, (ph->nevents + 1) * sizeof(*counts));
	if (!counts)
		return -ENOMEM;
	for (uint32_t k = b->nevent_samples; k < ph->nevents; k++)
		counts[k] = 0;
	b->p->event_samples = counts;
	if (grow_zeroed((void **)&b->p->trailer.sampled, sizeof(*b->p->trailer.sampled),
			b->nevent_samples, ph->nevents) < 0 ||
	    grow_zeroed((void **)&b->sampled_inputs, sizeof(uint32_t), b->nevent_samples,
			ph->nevents) < 0 ||
	    grow_zeroed((void **)&b->count_inputs, sizeof(uint32_t), b->nevent_samples,
			ph->nevents) < 0 ||
	    grow_zeroed((void **)&b->lost_inputs, sizeof(uint32_t), b->nevent_samples,
			ph->nevents) < 0 ||
	    grow_zeroed((void **)&b->ev_stacks, sizeof(*b->ev_stacks), b->nevent_samples,
			ph->nevents) < 0)
		return -ENOMEM;
	b->nevent_samples = ph->nevents;
	b->nev_stacks = ph->nevents;
	return 0;
}

int builder_begin_input(struct builder *b, const char *name,
			const struct hwprof_file_header *header)
{
	struct profile *p = b->p;
	int ret;

	maps_free(b->maps);
	u32_map_release(&b->comm_of);
	b->ntid_comms = 0;
	b->maps = maps_new();
	if (!b->maps || data_begin_input(&b->data) < 0)
		return -ENOMEM;
	b->input_data = header->data;
	b->input = strpool_intern(p->strings, name);
	b->input_lost = b->input_throttles = 0;
	u32_map_release(&b->in_stack_ids);
	b->nin_stacks = b->nin_ips = 0;
	b->missing_stack = 0;
	b->input_samples = b->input_tasks = 0;
	b->input_period = 0;
	b->input_ncpus = header->ncpus;
	b->vdso_id_size = vdso_build_id(header->hostname, header->kernel, b->vdso_id);
	b->input_event = pick_event(b, header);
	b->default_event = 0;
	if (b->input_event >= 0 && !b->shown_set) {
		snprintf(b->shown, sizeof(b->shown), "%s", header->events[b->input_event].name);
		b->shown_sampling = header->events[b->input_event].sampling;
		b->shown_set = true;
	}
	if (!b->ninputs++) {
		ret = copy_header(&p->header, header);
		if (ret < 0)
			return ret;
	}
	p->ninputs = (uint32_t)b->ninputs;
	if (b->input_event >= 0)
		b->input_shown = header->events[b->input_event];
	ret = merge_events(b, header);
	if (ret == 0 && b->input_event >= 0)
		p->event = b->input_map[b->input_event];
	return ret;
}

void builder_default_event(struct builder *b, uint32_t event)
{
	b->default_event = event + 1;
}

int builder_input_event(const struct builder *b, const char **name)
{
	if (name)
		*name = b->opt->event ? b->opt->event : b->shown_set ? b->shown : NULL;
	return b->input_event;
}

/* TID's command, or NULL when none was seen. */
static const char *comm_of(const struct builder *b, uint32_t tid)
{
	uint32_t i;

	return u32_map_get(&b->comm_of, tid, &i) ? b->tid_comms[i] : NULL;
}

static int set_comm(struct builder *b, uint32_t tid, const char *comm)
{
	uint32_t i;

	if (u32_map_get(&b->comm_of, tid, &i)) {
		b->tid_comms[i] = comm;
		return 0;
	}
	if (b->ntid_comms + 1 >= UINT32_MAX ||
	    hwprof_grow((void **)&b->tid_comms, &b->captid_comms, b->ntid_comms + 1,
			sizeof(*b->tid_comms)) < 0 ||
	    u32_map_set(&b->comm_of, tid, (uint32_t)b->ntid_comms) < 0)
		return -ENOMEM;
	b->tid_comms[b->ntid_comms++] = comm;
	return 0;
}

static void seen_id(uint32_t *v, size_t *n, bool *more, uint32_t id)
{
	for (size_t i = 0; i < *n; i++)
		if (v[i] == id)
			return;
	if (*n < SEEN_MAX)
		v[(*n)++] = id;
	else
		*more = true;
}

/* Where IP of PID at TIME lies: *DSO and *OFFSET (file offset in it; the address itself in
 * [kernel] and [unknown]). With LO (and HI), [*LO, *HI) narrowed to the times the answer
 * holds for (maps_find_span()). */
static void locate(struct builder *b, uint32_t pid, uint64_t ip, uint64_t time, bool kernel,
		   uint32_t *dso, uint64_t *offset, uint64_t *lo, uint64_t *hi)
{
	const struct map *mp;

	/* Canonical x86-64 kernel addresses have the top bit set. */
	if (kernel || ip >= 0xffff800000000000ull) {
		*dso = DSO_ID_KERNEL, *offset = ip;
		return;
	}
	mp =
	    lo ? maps_find_span(b->maps, pid, ip, time, lo, hi) : maps_find(b->maps, pid, ip, time);
	if (!mp)
		*dso = DSO_ID_UNKNOWN, *offset = ip;
	else
		*dso = mp->dso, *offset = ip - mp->start + mp->pgoff;
}

/* Recorded stack ST's callers as location ids for a sample of PID at TIME, into
 * b->in_locs[st->first .. + st->nloc). A caller's entry is a return address: the call
 * instruction ends just before it, so its location is the address 1 byte before (the call
 * site's line, not the line after the call). Located again only when the process, the maps
 * or the span of times the last answer holds for differ: samples of one stack add its
 * addresses once, not per sample. Returns 0 or -ENOMEM. */
static int stack_callers(struct builder *b, struct in_stack *st, uint32_t pid, uint64_t time)
{
	uint64_t gen = maps_generation(b->maps), lo = 0, hi = UINT64_MAX;
	uint32_t n = 0;

	if (st->located && st->pid == pid && st->gen == gen && time >= st->lo && time < st->hi)
		return 0;
	st->located = false;
	for (uint32_t i = 0; i < st->nr; i++) {
		uint64_t ip = b->in_ips[st->first + i], off;
		uint32_t dso;
		int ret;

		if (!ip)
			continue;
		locate(b, pid, ip - 1, time, i < st->nr_kernel, &dso, &off, &lo, &hi);
		ret = agg_intern(&b->agg, dso, off, &b->in_locs[st->first + n++]);
		if (ret < 0)
			return ret;
	}
	st->located = true;
	st->pid = pid, st->nloc = n, st->gen = gen, st->lo = lo, st->hi = hi;
	return 0;
}

/* Sample S's stack as location ids into b->frames[0 .. *N): LEAF (its own address), then
 * the callers of recorded stack STACK_ID (none when 0; stack_callers()). *MISSING when the
 * input never gave STACK_ID: the sample counts, its callers are unknown (the stack is marked
 * *TRUNCATED). */
static int sample_frames(struct builder *b, const struct hwprof_rec_sample *s, uint32_t leaf,
			 uint32_t stack_id, uint32_t *n, bool *truncated, bool *missing)
{
	struct in_stack *st = NULL;
	uint32_t k, nr = 0;
	int ret;

	*n = 1;
	*truncated = *missing = false;
	if (stack_id && u32_map_get(&b->in_stack_ids, stack_id, &k)) {
		st = &b->in_stacks[k];
		nr = st->nr;
		*truncated = st->truncated;
	} else if (stack_id) {
		/* Refused or never written. */
		*missing = *truncated = true;
	}
	if (nr + 1 > b->cap_frames) {
		uint32_t *v = realloc(b->frames, (nr + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		b->frames = v;
		b->cap_frames = nr + 1;
	}
	b->frames[0] = leaf;
	if (!st)
		return 0;
	ret = stack_callers(b, st, s->pid, s->time);
	if (ret < 0)
		return ret;
	if (st->nloc) /* in_locs is NULL while every stack is empty */
		memcpy(b->frames + 1, b->in_locs + st->first, st->nloc * sizeof(*b->frames));
	*n += st->nloc;
	return 0;
}

int builder_add_sample(struct builder *b, const struct hwprof_rec_sample *s, uint32_t stack_id)
{
	bool shown = (int)s->event == b->input_event, truncated, missing;
	uint64_t off;
	uint32_t dso, leaf, n, ev;
	int ret;

	if (s->event < b->input_nevents)
		b->p->event_samples[b->input_map[s->event]]++;
	/* Other sampling events' samples go to the value vector only: rows show one event, the
	 * periods of others being in other units. profile_load() counts them and says so. */
	if (!shown && (s->event >= b->input_nevents || !b->input_sampling[s->event]))
		return 0;
	ev = b->input_map[s->event];
	if (shown) {
		b->p->samples_read++;
		b->input_samples++;
		b->input_period += (double)s->period;
		if (b->pids.n || b->tids.n) {
			seen_id(b->seen_pids, &b->nseen_pids, &b->more_pids, s->pid);
			seen_id(b->seen_tids, &b->nseen_tids, &b->more_tids, s->tid);
		}
	}
	if (!filter_id(&b->pids, s->pid) || !filter_id(&b->tids, s->tid))
		return 0;
	if (b->comms.n) {
		const char *c = comm_of(b, s->tid);
		if (!c)
			c = comm_of(b, s->pid);
		if (!filter_str(&b->comms, c))
			return 0;
	}
	locate(b, s->pid, s->ip, s->time, s->kernel, &dso, &off, NULL, NULL);
	ret = shown ? agg_add(&b->agg, dso, off, s->period, &leaf)
		    : agg_intern(&b->agg, dso, off, &leaf);
	if (ret == 0 && shown && s->addr && b->opt->data)
		ret = data_sample(&b->data, s, leaf);
	if (ret < 0 || (shown && !stack_id))
		return ret;
	ret = sample_frames(b, s, leaf, stack_id, &n, &truncated, &missing);
	if (ret < 0)
		return ret;
	if (!shown)
		return stack_table_add(&b->ev_stacks[ev], b->frames, n, truncated, 1,
				       (double)s->period);
	b->missing_stack += missing;
	return stack_table_add(&b->stacks, b->frames, n, truncated, 1, (double)s->period);
}

int builder_add_stack(struct builder *b, uint32_t id, const uint64_t *ips, uint32_t nr,
		      uint32_t nr_kernel, bool truncated)
{
	struct in_stack *st;

	if (!id)
		return -EINVAL;
	if (hwprof_grow((void **)&b->in_stacks, &b->cap_in_stacks, b->nin_stacks + 1,
			sizeof(*b->in_stacks)) < 0)
		return -ENOMEM;
	/* in_ips and in_locs share one capacity: grown together by hand. */
	if (b->nin_ips + nr > b->cap_in_ips) {
		size_t cap = b->cap_in_ips ? b->cap_in_ips : 4096;
		uint64_t *v;
		uint32_t *locs;
		while (cap < b->nin_ips + nr)
			cap *= 2;
		v = realloc(b->in_ips, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		b->in_ips = v;
		locs = realloc(b->in_locs, cap * sizeof(*locs));
		if (!locs)
			return -ENOMEM;
		b->in_locs = locs;
		b->cap_in_ips = cap;
	}
	st = &b->in_stacks[b->nin_stacks];
	*st = (struct in_stack){.first = b->nin_ips,
				.nr = nr,
				.nr_kernel = nr_kernel < nr ? nr_kernel : nr,
				.truncated = truncated};
	if (nr)
		memcpy(b->in_ips + b->nin_ips, ips, nr * sizeof(*ips));
	b->nin_ips += nr;
	/* An id given twice: the later stack stands for it, as the reader gave them. */
	return u32_map_set(&b->in_stack_ids, id, (uint32_t)b->nin_stacks++);
}

/* MMAP M of anonymous memory. With a JIT's map for its process (jitmap.h), the mapping
 * belongs to a DSO named by the map file, whose offsets are the process's own addresses, and
 * whose symbols are the map's; without one, to the anonymous DSO as any other. Returns 0 or
 * -ENOMEM. */
static int add_jit_mmap(struct builder *b, const struct hwprof_rec_mmap *m)
{
	char path[4096], name[64];
	struct dso *d;
	int id, r;

	if (!jitmap_locate(b->input, m->pid, path, sizeof(path))) {
		id = dso_table_get(&b->dsos, b->p->strings, m->filename ? m->filename : "", NULL, 0,
				   NULL);
		return id < 0 ? id
			      : maps_mmap(b->maps, m->pid, m->start, m->len, m->pgoff, (uint32_t)id,
					  m->time);
	}
	/* Named as the JIT wrote it, wherever the copy read is. */
	snprintf(name, sizeof(name), "/tmp/perf-%" PRIu32 ".map", m->pid);
	id = dso_table_get(&b->dsos, b->p->strings, name, NULL, 0, NULL);
	if (id < 0)
		return id;
	d = &b->dsos.v[id];
	if (d->state == DSO_UNCHECKED) {
		d->state = DSO_PSEUDO; /* no ELF file to open */
		r = jitmap_read(path, &d->jit);
		if (r == -ENOMEM)
			return r;
		if (r < 0 && add_warning(b->p, "%s: %s: its JIT code shows as addresses", path,
					 strerror(-r)) < 0)
			return -ENOMEM;
	}
	return maps_mmap(b->maps, m->pid, m->start, m->len, m->start, (uint32_t)id, m->time);
}

/* MMAP M: the mapping of a DSO (by its name and build-id), of a JIT's code, or of data for
 * data.h. Returns 0 or -ENOMEM. */
static int add_mmap(struct builder *b, const struct hwprof_rec_mmap *m)
{
	const uint8_t *build_id = m->build_id;
	size_t build_id_size = m->build_id_size;
	bool other = false;
	int id;

	/* The kernel gives the vDSO no build-id: on the host that recorded, it is the
	 * image report runs with (vdso.h), which dso_check() then opens. */
	if (!build_id_size && b->vdso_id_size && m->filename && !strcmp(m->filename, "[vdso]")) {
		build_id = b->vdso_id;
		build_id_size = b->vdso_id_size;
	}
	/* Data mappings are data.h's; code ones tell it the span of their image. */
	if (b->input_data) {
		int r = b->opt->data ? data_mmap(&b->data, b->p->strings, m) : 0;
		if (r < 0 || !(m->prot & PROT_EXEC))
			return r;
	}
	if (jitmap_anon(m->filename))
		return add_jit_mmap(b, m);
	id = dso_table_get(&b->dsos, b->p->strings, m->filename ? m->filename : "", build_id,
			   build_id_size, &other);
	if (id < 0)
		return id;
	dso_set_identity(&b->dsos.v[id], m);
	if (other && add_warning(b->p,
				 "%s: %s different builds of it (build-ids differ); each "
				 "build's samples are kept apart",
				 m->filename,
				 b->ninputs > 1 ? "the inputs hold" : "the recording holds") < 0)
		return -ENOMEM;
	return maps_mmap(b->maps, m->pid, m->start, m->len, m->pgoff, (uint32_t)id, m->time);
}

/* COMM C: the thread's name (for --comm), an exec's new address space, and the names seen
 * for --comm's error. Returns 0 or -ENOMEM. */
static int add_comm(struct builder *b, const struct hwprof_rec_comm *c)
{
	const char *comm = strpool_intern(b->p->strings, c->comm ? c->comm : "");
	size_t i;

	if (!comm)
		return -ENOMEM;
	if (c->exec && c->pid == c->tid) {
		maps_exec(b->maps, c->pid, c->time);
		data_exec(&b->data, c->pid, c->time);
	}
	for (i = 0; i < b->nseen_comms && b->seen_comms[i] != comm; i++)
		;
	if (i == b->nseen_comms && i < SEEN_MAX)
		b->seen_comms[b->nseen_comms++] = comm;
	else if (i == b->nseen_comms)
		b->more_comms = true;
	return b->comms.n ? set_comm(b, c->tid, comm) : 0;
}

/* FORK T: the child takes its parent's name, data mappings and address space. Returns 0 or
 * -ENOMEM. */
static int add_fork(struct builder *b, const struct hwprof_rec_task *t)
{
	b->input_tasks++;
	if (b->comms.n) {
		const char *parent = comm_of(b, t->ptid);
		if (parent && set_comm(b, t->tid, parent) < 0)
			return -ENOMEM;
	}
	if (data_fork(&b->data, t->pid, t->ppid, t->time) < 0)
		return -ENOMEM;
	return maps_fork(b->maps, t->pid, t->ppid, t->time);
}

int builder_add(struct builder *b, const struct hwprof_record *rec)
{
	switch (rec->type) {
	case HWPROF_REC_SAMPLE:
		return builder_add_sample(b, &rec->sample, rec->sample.stack_id);
	case HWPROF_REC_STACK:
		return builder_add_stack(b, rec->stack.id, rec->stack.ips, rec->stack.nr,
					 rec->stack.nr_kernel, rec->stack.truncated);
	case HWPROF_REC_MMAP:
		return add_mmap(b, &rec->mmap);
	case HWPROF_REC_COMM:
		return add_comm(b, &rec->comm);
	case HWPROF_REC_FORK:
		return add_fork(b, &rec->task);
	case HWPROF_REC_LOST:
		b->input_lost += rec->lost.lost;
		return 0;
	case HWPROF_REC_THROTTLE:
		b->input_throttles++;
		return 0;
	case HWPROF_REC_EXIT:
	case HWPROF_REC_UNTHROTTLE:
		return 0;
	}
	return 0;
}

/* Adds C to the profile's counted totals: summed per event name over the inputs that counted
 * it (value, time enabled and time running, so the multiplexing ratio is of the whole run);
 * p->count_inputs says how many did. */
static int add_count(struct builder *b, const struct hwprof_file_count *c)
{
	struct profile *p = b->p;
	struct hwprof_file_trailer *t = &p->trailer;
	bool counted = c->counted && c->running_ns;
	uint32_t k;

	for (k = 0; k < t->ncounts && strcmp(t->counts[k].event, c->event); k++)
		;
	if (k == t->ncounts) {
		if (hwprof_grow((void **)&t->counts, &b->cap_counts, k + 1, sizeof(*c)) < 0 ||
		    hwprof_grow((void **)&p->count_inputs, &b->cap_count_inputs, k + 1,
				sizeof(*p->count_inputs)) < 0)
			return -ENOMEM;
		t->counts[k] = *c;
		p->count_inputs[k] = counted;
		t->ncounts++;
		return 0;
	}
	if (!counted)
		return 0;
	if (!p->count_inputs[k]) {
		t->counts[k] = *c;
	} else {
		t->counts[k].value += c->value;
		t->counts[k].enabled_ns += c->enabled_ns;
		t->counts[k].running_ns += c->running_ns;
	}
	p->count_inputs[k]++;
	return 0;
}

/* Adds the input's SAMPLED totals (TRAILER may be NULL) to the profile's, per event name: a
 * total is known when every input that samples the event knows it. */
static void add_sampled(struct builder *b, const struct hwprof_file_trailer *trailer)
{
	for (uint32_t i = 0; i < b->input_nevents; i++) {
		uint32_t k = b->input_map[i];
		const struct hwprof_file_sampled *e =
		    trailer && trailer->sampled ? &trailer->sampled[i] : NULL;
		struct hwprof_file_sampled *to = &b->p->trailer.sampled[k];

		if (!b->input_sampling[i])
			continue;
		b->sampled_inputs[k]++;
		if (e && e->count_known) {
			b->count_inputs[k]++;
			to->count += e->count;
		}
		if (e && e->lost_known) {
			b->lost_inputs[k]++;
			to->lost += e->lost;
		}
		to->count_known = b->count_inputs[k] == b->sampled_inputs[k];
		to->lost_known = b->lost_inputs[k] == b->sampled_inputs[k];
	}
}

/* Samples the kernel dropped with no record of it (an old kernel without PERF_FORMAT_LOST,
 * a child's drops no LOST record announced) still leave a trace with a fixed period (-c): the
 * event counted more events than its samples and lost samples stand for. Each task on each CPU may
 * end with part of a period not sampled yet, hence the slack. Warns (and makes the profile partial)
 * when more than that is missing. Returns 0 or -ENOMEM. */
static int check_accounted(struct builder *b, const struct hwprof_file_trailer *trailer)
{
	const struct hwprof_file_event *ev = &b->input_shown;
	const struct hwprof_file_sampled *e;
	uint32_t nsampling = b->input_nsampling;
	uint64_t lost;
	double period, accounted, slack, missing;

	if (!trailer || !trailer->sampled || b->input_event < 0)
		return 0;
	e = &trailer->sampled[b->input_event];
	/* Fixed periods only: in frequency mode the kernel retunes the period. A clock event
	 * (cpu-clock, task-clock) restarts its timer at each switch-in even with -c, so its
	 * samples x period falls short of its count without any sample dropped. */
	if (!e->count_known || !ev->sampling || ev->freq || (nsampling > 1 && !e->lost_known))
		return 0;
	if (ev->type == PERF_TYPE_SOFTWARE &&
	    (ev->config == PERF_COUNT_SW_CPU_CLOCK || ev->config == PERF_COUNT_SW_TASK_CLOCK))
		return 0;
	/* One sampling event: every LOST record is its own. */
	lost = e->lost_known ? e->lost : 0;
	if (nsampling == 1 && trailer->lost > lost)
		lost = trailer->lost;
	period = (double)ev->period_or_freq;
	if (period <= 0)
		return 0;
	accounted = b->input_period + (double)lost * period;
	slack =
	    period * (double)(b->input_ncpus ? b->input_ncpus : 1) * (double)(1 + b->input_tasks);
	missing = (double)e->count - accounted;
	if (missing <= slack)
		return 0;
	b->p->partial = true;
	return add_warning(b->p,
			   "%s: '%s' counted %" PRIu64 " events, but its %" PRIu64
			   " samples and %" PRIu64 " lost samples stand for %.0f: about %.0f "
			   "samples are missing, dropped with no record of it%s; shares may be "
			   "biased (record with a larger -m or a larger -c / lower -F)",
			   b->input, ev->name, e->count, b->input_samples, lost, accounted,
			   missing / period,
			   trailer->throttles ? " or not taken while sampling was throttled" : "");
}

int builder_end_input(struct builder *b, const struct hwprof_file_trailer *trailer,
		      enum hwprof_read_status status, const char *msg)
{
	struct profile *p = b->p;
	struct hwprof_file_trailer *t = &p->trailer;

	if (b->missing_stack) {
		p->partial = true;
		if (add_warning(p,
				"%s: %" PRIu64 " samples name a stack the file does not hold; "
				"shown without their callers",
				b->input, b->missing_stack) < 0)
			return -ENOMEM;
	}
	if (status == HWPROF_READ_NOMEM)
		return -ENOMEM;
	if (status != HWPROF_READ_OK) {
		p->partial = true;
		if (add_warning(p, "%s: %s", b->input, msg ? msg : "file cut short") < 0)
			return -ENOMEM;
	}
	add_sampled(b, trailer);
	if (check_accounted(b, trailer) < 0)
		return -ENOMEM;
	if (!trailer) {
		p->lost_partial = true;
		t->lost += b->input_lost;
		t->throttles += b->input_throttles;
		return 0;
	}
	t->samples += trailer->samples;
	t->lost += trailer->lost;
	t->throttles += trailer->throttles;
	t->duration_ns += trailer->duration_ns;
	if (!p->have_trailer) {
		p->have_trailer = true;
		t->exit_status = trailer->exit_status;
		memcpy(t->note, trailer->note, sizeof(t->note));
		t->note[sizeof(t->note) - 1] = '\0';
	}
	for (uint32_t i = 0; trailer->counts && i < trailer->ncounts; i++)
		if (add_count(b, &trailer->counts[i]) < 0)
			return -ENOMEM;
	return 0;
}

/* ---- finish: symbolize the distinct addresses --------------------------------------------- */

/* A warning for the profile, made in a symbolization thread: kept with its DSO's job and
 * added in DSO order afterwards, so the output does not depend on which thread ran first. */
static int job_warning(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int job_warning(char **out, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(out, fmt, ap);
	va_end(ap);
	if (ret < 0) {
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The warning for D (SAMPLES of TOTAL) when it has no DWARF (HAS_DWARF false, WHY says why).
 * Returns 0 or -ENOMEM. */
static int warn_no_dwarf(const struct dso *d, bool has_dwarf, const char *why, uint64_t samples,
			 uint64_t total, char **warning)
{
	/* Only DSOs that matter get a warning: libc without debug info is normal, and the
	 * kernel's vDSO has none to install. A DSO only another event sampled (SAMPLES 0 of
	 * the shown event, which may have none at all) does not. */
	if (!has_dwarf && samples && samples * 100 >= total && strcmp(d->path, "[vdso]"))
		return job_warning(warning,
				   "%s: no debug info, %" PRIu64 " samples shown by symbol only "
				   "(%s; build with -g, install its debug package, or give "
				   "--debug-dir)",
				   d->path, samples, why);
	return 0;
}

/* What one DSO's symbolization found wanting, for its warnings. */
struct dso_notes {
	uint64_t shadowed; /* samples whose line a discarded function hides */
	uint64_t no_dwo;   /* samples whose split DWARF file is missing */
	const char *dwo;   /* the first such file (interned) */
};

/* One DSO job's inline chains, until build_tables() makes them the profile's lines. */
struct chain_buf {
	struct sym_frame *v;
	size_t n, cap;
};

/* Appends the N frames F to C as LOC's chain (loc->first_line: their index in C for now).
 * Returns 0 or -ENOMEM. */
static int keep_chain(struct chain_buf *c, const struct sym_frame *f, int n,
		      struct profile_loc *loc)
{
	if (n <= 0)
		return 0;
	if (hwprof_grow((void **)&c->v, &c->cap, c->n + (size_t)n, sizeof(*c->v)) < 0)
		return -ENOMEM;
	memcpy(c->v + c->n, f, (size_t)n * sizeof(*f));
	loc->first_line = (uint32_t)c->n;
	loc->nlines = (uint32_t)n;
	c->n += (size_t)n;
	return 0;
}

/* Whether R, an address resolved by its symbol only, may be in the focus function: its
 * symbol or linkage name match it (clones and parameter lists aside, funcname.h). An address
 * without a symbol is not: in libc those are PLT slots, which have no DWARF either, and
 * reading libc's DWARF to learn that was most of the cost. (A function that only the DWARF
 * names is not found in a focused profile: annotate then loads it whole.) */
static bool in_focus(const struct builder *b, const struct sym_result *r)
{
	return (r->function && fn_query_match(&b->focus, r->function) != FN_MATCH_NONE) ||
	       (r->chain[0].linkage &&
		fn_query_match(&b->focus, r->chain[0].linkage) != FN_MATCH_NONE);
}

/* Resolves E into LOC, its inline chain into CHAINS, through CACHE (may be NULL) first; adds
 * E's samples to NOTES when its line could not be told from a discarded function's
 * (dwarf_index.h), or its split DWARF is missing. */
static int resolve(struct builder *b, const struct agg_entry *e, struct profile_loc *loc,
		   const struct kallsyms *ks, struct symcache *cache, struct dso_notes *notes,
		   struct chain_buf *chains)
{
	struct dso *d = &b->dsos.v[e->dso];
	struct sym_result r;
	uint64_t vaddr;

	memset(loc, 0, sizeof(*loc));
	loc->dso = d->path;
	loc->addr = e->offset;
	loc->offset = e->offset;
	loc->samples = e->samples;
	loc->period = e->period;
	loc->unknown = true;
	loc->mapping = e->dso;
	if (d->jit) {
		loc->function = strpool_intern(b->p->strings, jitmap_find(d->jit, e->offset));
		loc->unknown = !loc->function;
		struct sym_frame j = {.function = loc->function};
		return loc->function ? keep_chain(chains, &j, 1, loc) : 0;
	}
	if (e->dso == DSO_ID_KERNEL) {
		loc->function = strpool_intern(b->p->strings, kallsyms_find(ks, e->offset));
		loc->unknown = !loc->function;
		struct sym_frame k = {.function = loc->function, .linkage = loc->function};
		return loc->function ? keep_chain(chains, &k, 1, loc) : 0;
	}
	if (d->state != DSO_OK || !dso_offset_to_vaddr(d, e->offset, &vaddr))
		return 0;
	loc->addr = vaddr;
	if (b->focused || b->lazy)
		dso_sym_lookup_symbol(d, vaddr, b->p->strings, &r);
	/* Lazy: the symbol's function, its lines when profile_resolve() asks; an address
	 * without a symbol now, as its function may be the DWARF's only. */
	if (b->lazy && r.function)
		b->pending[e - b->agg.v] = true;
	else if ((!b->focused || in_focus(b, &r)) &&
		 !symcache_get(cache, vaddr, b->p->strings, &r)) {
		if (dso_sym_lookup(d, vaddr, b->opt->inline_mode, b->p->strings, &r) < 0 ||
		    (cache && symcache_put(cache, vaddr, &r) < 0))
			return -ENOMEM;
	}
	loc_set_result(loc, &r);
	if (r.shadowed)
		notes->shadowed += e->samples;
	if (r.missing_dwo) {
		notes->no_dwo += e->samples;
		if (!notes->dwo)
			notes->dwo = r.missing_dwo;
	}
	return keep_chain(chains, r.chain, r.nchain, loc);
}

static int by_period(const void *a, const void *b)
{
	const struct profile_loc *x = a, *y = b;

	if (x->period != y->period)
		return x->period < y->period ? 1 : -1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	if (x->dso != y->dso)
		return strcmp(x->dso, y->dso);
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The profile's stacks from b->stacks: a sample recorded without a stack is a stack of its
 * own address alone, so every sample is in exactly one stack; a stack whose sampled address
 * --dso leaves out is left out as its sample is. */
static int finish_stacks(struct builder *b)
{
	struct profile *p = b->p;
	uint64_t *samples = calloc(b->agg.n + 1, sizeof(*samples));
	double *period = calloc(b->agg.n + 1, sizeof(*period));
	size_t keep = 0, nids = 0;
	int ret = -ENOMEM;

	if (!samples || !period)
		goto out;
	for (size_t i = 0; i < b->stacks.n; i++) {
		const struct stack_entry *e = &b->stacks.v[i];
		samples[b->stacks.ids[e->first]] += e->samples;
		period[b->stacks.ids[e->first]] += e->period;
	}
	for (size_t k = 0; k < b->agg.n; k++) {
		uint32_t id = (uint32_t)k;
		const struct agg_entry *a = &b->agg.v[k];
		if (a->samples > samples[k] &&
		    stack_table_add(&b->stacks, &id, 1, false, a->samples - samples[k],
				    a->period - period[k]) < 0)
			goto out;
	}
	p->stacks = calloc(b->stacks.n, sizeof(*p->stacks));
	p->stack_locs = malloc(b->stacks.nids * sizeof(*p->stack_locs));
	if (!p->stacks || !p->stack_locs)
		goto out;
	for (size_t i = 0; i < b->stacks.n; i++) {
		const struct stack_entry *e = &b->stacks.v[i];
		const uint32_t *ids = b->stacks.ids + e->first;
		if (!filter_dso(&b->dso_filter, p->locations[ids[0]].dso))
			continue;
		memcpy(p->stack_locs + nids, ids, e->n * sizeof(*ids));
		p->stacks[keep++] = (struct profile_stack){.locs = p->stack_locs + nids,
							   .n = e->n,
							   .truncated = e->truncated,
							   .samples = e->samples,
							   .period = e->period};
		if (e->truncated)
			p->truncated_samples += e->samples;
		nids += e->n;
	}
	p->nstacks = keep;
	ret = 0;
out:
	free(samples);
	free(period);
	return ret;
}

/* Whether the samples at location ID pass --dso: a stack by its leaf (values.h), as
 * finish_stacks() keeps the shown event's, and data samples (data.h) as their code samples. */
static bool keep_location(void *ctx, uint32_t id)
{
	struct builder *b = ctx;

	return filter_dso(&b->dso_filter, b->p->locations[id].dso);
}

/* data_finish()'s questions: the ELF image mapped as code at PATH, opened (data.h). */
static struct dso *data_dso(void *ctx, const char *path)
{
	struct builder *b = ctx;
	char why[768];
	bool has_dwarf;

	for (size_t i = DSO_ID_KERNEL + 1; i < b->dsos.n; i++) {
		struct dso *d = &b->dsos.v[i];
		if (strcmp(d->path, path))
			continue;
		/* Checked but not opened: its code addresses were all answered by the cache. */
		if ((d->state == DSO_UNCHECKED && dso_check(d, why, sizeof(why)) < 0) ||
		    (d->state == DSO_OK && !d->sym &&
		     dso_sym_open(d, b->opt->debug_dirs, b->opt->ndebug_dirs, &has_dwarf, why,
				  sizeof(why)) < 0))
			d->state = d->state == DSO_OK ? DSO_NOT_ELF : d->state;
		if (d->state == DSO_OK && d->sym)
			return d;
	}
	return NULL;
}

/* A filter value that matched nothing is a typo more often than an empty answer. */
static int check_filters(struct builder *b, char *err, size_t errlen)
{
	const char *seen_dsos[SEEN_MAX];
	size_t nd = 0;
	bool more_dsos = false, more;
	struct filter *fs[] = {&b->pids, &b->tids, &b->comms, &b->dso_filter};
	char seen[512];

	for (size_t k = 0; k < b->agg.n && !more_dsos; k++) {
		const char *d = b->dsos.v[b->agg.v[k].dso].path;
		size_t i;
		for (i = 0; i < nd && seen_dsos[i] != d; i++)
			;
		if (i < nd)
			continue;
		if (nd < SEEN_MAX)
			seen_dsos[nd++] = d;
		else
			more_dsos = true;
	}
	for (size_t f = 0; f < sizeof(fs) / sizeof(fs[0]); f++) {
		for (size_t i = 0; i < fs[f]->n; i++) {
			if (fs[f]->hits[i])
				continue;
			if (fs[f] == &b->pids) {
				list_ids(seen, sizeof(seen), b->seen_pids, b->nseen_pids);
				more = b->more_pids;
			} else if (fs[f] == &b->tids) {
				list_ids(seen, sizeof(seen), b->seen_tids, b->nseen_tids);
				more = b->more_tids;
			} else if (fs[f] == &b->comms) {
				list_strs(seen, sizeof(seen), b->seen_comms, b->nseen_comms);
				more = b->more_comms;
			} else {
				list_strs(seen, sizeof(seen), seen_dsos, nd);
				more = more_dsos;
			}
			/* "..." only when the list was cut: it is read as "and others". */
			snprintf(err, errlen, "%s '%s': no sample has it (the input%s: %s%s)",
				 fs[f]->option, fs[f]->v[i], b->ninputs > 1 ? "s hold" : " holds",
				 seen[0] ? seen : "nothing to match",
				 seen[0] && more ? ", ..." : "");
			return -EINVAL;
		}
	}
	return 0;
}

/* One DSO's share of the symbolization, done by whichever thread takes it. */
struct dso_job {
	uint32_t dso;
	size_t first, n; /* its entries: order[first .. first + n) */
	char *warning;	 /* malloc'd, or NULL */
	struct dso_notes notes;
	struct chain_buf chains; /* its locations' inline chains */
	int err;		 /* 0 or -ENOMEM */
};

struct sym_jobs {
	struct builder *b;
	const struct kallsyms *ks;
	const uint64_t *dso_samples;
	uint64_t total;
	size_t *order;		  /* indexes into b->agg.v, grouped by DSO */
	struct profile_loc *locs; /* indexed like b->agg.v */
	struct dso_job *v;	  /* by DSO id */
	size_t *schedule;	  /* job indexes, most samples first */
	size_t n;
	size_t nv; /* entries of V: the DSOs when the jobs were made (keep_code moves them) */
};

/* Whether CACHE answers every address of D's entries V[ORDER[FIRST .. FIRST + N)). */
static bool cached_all(struct symcache *cache, const struct dso *d, const struct agg_entry *v,
		       const size_t *order, size_t first, size_t n)
{
	uint64_t vaddr;

	for (size_t i = first; i < first + n; i++)
		if (dso_offset_to_vaddr(d, v[order[i]].offset, &vaddr) &&
		    !symcache_has(cache, vaddr))
			return false;
	return true;
}

/* Checks D against the recording and opens its symbols, unless its cache (*CACHE, opened
 * here when the options allow) answers all of JOB's addresses. Returns 0 or -ENOMEM. */
static int open_dso(struct builder *b, struct dso *d, const struct sym_jobs *w,
		    const struct dso_job *job, struct symcache **cache, char **warning)
{
	char why[768];
	bool has_dwarf = false, lazy_open;
	uint64_t samples = w->dso_samples[job->dso], total = w->total;
	int r;

	if (dso_check(d, why, sizeof(why)) < 0)
		return job_warning(warning,
				   "%s; its %" PRIu64 " samples are shown as '[unknown] "
				   "%s+0xOFFSET', not attributed to the file's lines now "
				   "(record again to profile the current build)",
				   why, samples, d->path);
	/* A focused or lazy profile reads little DWARF and is not cached. */
	if (b->opt->use_cache && !b->focused && !b->lazy &&
	    (*cache =
		 symcache_open(d, b->opt->inline_mode, b->opt->debug_dirs, b->opt->ndebug_dirs)) &&
	    cached_all(*cache, d, b->agg.v, w->order, job->first, job->n))
		return 0;
	/* Focused, a DSO's DWARF is read by its first lookup that needs it, if any; lazy, too
	 * when it has too few samples for warn_no_dwarf() to warn (libc's compressed debug
	 * file is inflated whole when opened). */
	lazy_open = b->focused || (b->lazy && samples * 100 < total);
	r = dso_sym_open(d, b->opt->debug_dirs, b->opt->ndebug_dirs, lazy_open ? NULL : &has_dwarf,
			 why, sizeof(why));
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		d->state = DSO_NOT_ELF;
		return job_warning(warning, "%s; its samples are shown as '[unknown]'", why);
	}
	return lazy_open ? 0 : warn_no_dwarf(d, has_dwarf, why, samples, total, warning);
}

static void symbolize_dso(void *ctx, size_t k)
{
	struct sym_jobs *w = ctx;
	struct dso_job *job = &w->v[w->schedule[k]];
	struct builder *b = w->b;
	struct dso *d = &b->dsos.v[job->dso];
	struct symcache *cache = NULL;
	bool damaged;
	char why[768];

	if (job->dso > DSO_ID_KERNEL && d->state != DSO_PSEUDO)
		job->err = open_dso(b, d, w, job, &cache, &job->warning);
	for (size_t i = job->first; i < job->first + job->n && !job->err; i++)
		job->err = resolve(b, &b->agg.v[w->order[i]], &w->locs[w->order[i]], w->ks, cache,
				   &job->notes, &job->chains);
	/* Without DWARF at all, warn_no_dwarf() has said why already (explain_no_dwarf()). */
	damaged = !job->err && dso_sym_dwarf_damaged(d, why, sizeof(why));
	if (damaged && !job->warning)
		job->err = job_warning(&job->warning,
				       "%s; %" PRIu64 " samples of %s may lack their lines "
				       "(reinstall its debug package, or give --debug-dir)",
				       why, w->dso_samples[job->dso], d->path);
	/* A damaged file's answers are not kept: the next report says why again. */
	symcache_close(cache, job->err || damaged ? NULL : d);
	if (b->focused && !job->err && !job->warning) {
		if (dso_sym_dwarf_missing(d, why, sizeof(why)))
			job->err = warn_no_dwarf(d, false, why, w->dso_samples[job->dso], w->total,
						 &job->warning);
	}
}

static int by_job_samples(const void *a, const void *b, void *ctx)
{
	const struct sym_jobs *w = ctx;
	uint64_t x = w->dso_samples[w->v[*(const size_t *)a].dso];
	uint64_t y = w->dso_samples[w->v[*(const size_t *)b].dso];

	return x < y ? 1 : x > y ? -1 : 0;
}

/* One warning for D's split DWARF that libdw did not find: the .dwo named, and the .dwp
 * package beside D when there is one (libdw reads packages from 0.190 on). */
static int warn_missing_dwo(struct builder *b, const struct dso *d, const struct dso_notes *n)
{
	char dwp[4096];
	bool package;

	snprintf(dwp, sizeof(dwp), "%s.dwp", d->path);
	package = access(dwp, F_OK) == 0;
	/* libdw also refuses a .dwo whose dwo_id is not the skeleton's: one from another build. */
	if (access(n->dwo, F_OK) == 0)
		return add_warning(
		    b->p,
		    "%s: its split DWARF %s is from another build (its dwo_id differs): "
		    "inline frames unknown for %" PRIu64 " samples, and "
		    "--inline=caller shows no line for them (rebuild, or put back the "
		    ".dwo of this build)",
		    d->path, n->dwo, n->no_dwo);
	return add_warning(b->p,
			   "%s: its split DWARF %s is missing%s%s%s: inline frames unknown for "
			   "%" PRIu64 " samples, and --inline=caller shows no line for them (%s)",
			   d->path, n->dwo, package ? " (" : "", package ? dwp : "",
			   package ? " is a DWARF package, which this libdw cannot read)" : "",
			   n->no_dwo,
			   package ? "keep the .dwo files the compiler wrote"
				   : "put the .dwo files back where the compiler wrote them, or "
				     "rebuild");
}

/* Symbolizes every distinct address into W->locs, one job per DSO, DSOs in parallel. */
static int symbolize_all(struct sym_jobs *w)
{
	struct builder *b = w->b;
	size_t *start = calloc(b->dsos.n + 1, sizeof(*start));
	int ret = 0;

	w->order = malloc((b->agg.n ? b->agg.n : 1) * sizeof(*w->order));
	w->v = calloc(b->dsos.n, sizeof(*w->v));
	w->nv = b->dsos.n;
	w->schedule = malloc(b->dsos.n * sizeof(*w->schedule));
	if (!start || !w->order || !w->v || !w->schedule) {
		free(start);
		return -ENOMEM;
	}
	/* A counting sort of the entries by DSO. */
	for (size_t k = 0; k < b->agg.n; k++)
		start[b->agg.v[k].dso + 1]++;
	for (size_t i = 0; i < b->dsos.n; i++)
		start[i + 1] += start[i];
	for (size_t i = 0; i < b->dsos.n; i++)
		w->v[i] = (struct dso_job){.dso = (uint32_t)i, .first = start[i]};
	for (size_t k = 0; k < b->agg.n; k++) {
		struct dso_job *job = &w->v[b->agg.v[k].dso];
		w->order[job->first + job->n++] = k;
	}
	for (size_t i = 0; i < b->dsos.n; i++)
		if (w->v[i].n)
			w->schedule[w->n++] = i;
	/* The biggest DSO first, so that the small ones fill the other threads' time. */
	qsort_r(w->schedule, w->n, sizeof(*w->schedule), by_job_samples, w);
	jobs_run(w->n, symbolize_dso, w);
	for (size_t i = 0; i < b->dsos.n; i++) {
		enum dso_state st = b->dsos.v[i].state;
		if (w->v[i].err)
			ret = w->v[i].err;
		/* Rebuilt or deleted since the recording: its samples have no lines, the
		 * profile is partial (docs/exit-codes.md). */
		if (w->v[i].n && (st == DSO_MISSING || st == DSO_MISMATCH))
			b->p->partial = true;
		if (w->v[i].warning && add_warning(b->p, "%s", w->v[i].warning) < 0)
			ret = -ENOMEM;
		if (w->v[i].n && b->dsos.v[i].file &&
		    profile_push_line(
			&b->p->notes, &b->p->nnotes, &b->p->cap_notes,
			"%s: the build that ran was read from perf's build-id cache, %s (the path "
			"no longer holds it)",
			b->dsos.v[i].path, b->dsos.v[i].file) < 0)
			ret = -ENOMEM;
		if (w->v[i].notes.shadowed &&
		    add_warning(b->p,
				"%s: %" PRIu64 " samples shown by function only: their lines "
				"cannot be told from those of code the linker discarded "
				"(--gc-sections resolved its debug info to address 0; link "
				"without --gc-sections to see them)",
				b->dsos.v[i].path, w->v[i].notes.shadowed) < 0)
			ret = -ENOMEM;
		if (w->v[i].notes.no_dwo && warn_missing_dwo(b, &b->dsos.v[i], &w->v[i].notes) < 0)
			ret = -ENOMEM;
	}
	free(start);
	return ret;
}

static void sym_jobs_release(struct sym_jobs *w)
{
	for (size_t i = 0; w->v && i < w->nv; i++) {
		free(w->v[i].warning);
		free(w->v[i].chains.v);
	}
	free(w->v);
	free(w->order);
	free(w->schedule);
}

/* The mappings (one per DSO), the functions (each distinct one once) and every location's
 * inline chain as lines, from the symbolization jobs' chains: done here, on one thread, so
 * that the function ids do not depend on which thread ran first. */
static int build_tables(struct builder *b, const struct sym_jobs *w)
{
	struct profile *p = b->p;
	struct fn_table fns;
	size_t nlines = 0;

	p->mappings = calloc(b->dsos.n ? b->dsos.n : 1, sizeof(*p->mappings));
	if (!p->mappings)
		return -ENOMEM;
	p->nmappings = b->dsos.n;
	for (size_t i = 0; i < b->dsos.n; i++) {
		const struct dso *d = &b->dsos.v[i];
		struct profile_mapping *m = &p->mappings[i];
		m->file = d->path;
		m->build_id_size = d->build_id_size;
		memcpy(m->build_id, d->build_id, sizeof(m->build_id));
		m->bias_known = d->state == DSO_OK && d->nloads;
		if (m->bias_known)
			m->bias = (int64_t)(d->loads[0].vaddr - d->loads[0].offset);
		for (size_t k = 0; m->bias_known && k < d->nloads; k++) {
			const struct dso_load *l = &d->loads[k];
			if (!k || l->vaddr < m->start)
				m->start = l->vaddr;
			if (!k || l->vaddr + l->memsz > m->limit)
				m->limit = l->vaddr + l->memsz;
		}
	}
	for (size_t i = 0; i < b->dsos.n; i++)
		nlines += w->v[i].chains.n;
	p->lines = malloc((nlines ? nlines : 1) * sizeof(*p->lines));
	if (!p->lines || fn_table_init(&fns) < 0)
		return -ENOMEM;
	if (p->lazy)
		p->lazy->lines_cap = nlines ? nlines : 1;
	/* Each DSO's locations, in the order its job resolved them: the lines of a location
	 * are back to back. */
	for (size_t i = 0; i < b->dsos.n; i++) {
		const struct dso_job *job = &w->v[i];
		for (size_t k = job->first; k < job->first + job->n; k++) {
			struct profile_loc *loc = &p->locations[w->order[k]];
			const struct sym_frame *f =
			    loc->nlines ? job->chains.v + loc->first_line : NULL;
			if (lines_append(p, &fns, f, loc->nlines, loc) < 0) {
				fn_table_release(&fns);
				return -ENOMEM;
			}
		}
	}
	p->functions = fns.v;
	p->nfunctions = fns.n;
	fns.v = NULL;
	fn_table_release(&fns);
	return 0;
}

/* Reads the kernel's symbols into KS for the kernel samples (--kallsyms, else
 * /proc/kallsyms); a file that gives none is a warning of the profile. Returns 0 or
 * -ENOMEM. */
static int load_kernel_symbols(struct builder *b, struct kallsyms *ks)
{
	const char *path = b->opt->kallsyms ? b->opt->kallsyms : "/proc/kallsyms";
	char why[160];
	int r = kallsyms_load(ks, path, why, sizeof(why)), w = 0;

	if (r == -ENOMEM)
		return -ENOMEM;
	/* Root is advised to run as root only if it is not: kptr_restrict 2 hides the
	 * addresses from root too. A file that is no kallsyms gets no kernel advice. */
	if (r == -EACCES || (!r && ks->hidden && !ks->n))
		w = add_warning(b->p, "%s: %s; kernel samples are shown as [kernel] (%s)", path,
				r ? why : "addresses hidden",
				geteuid() ? "run report as root or lower kernel.kptr_restrict"
					  : "lower kernel.kptr_restrict");
	else if (r < 0 || !ks->n)
		w = add_warning(b->p,
				"%s: %s; kernel samples are shown as [kernel] (give "
				"--kallsyms /proc/kallsyms or a copy of it)",
				path, r ? why : "no kernel text symbol in it");
	return w < 0 ? -ENOMEM : 0;
}

/* Allocates the profile's locations (every aggregated address, and the sampled ones) and,
 * when its lines are read lazily, what that needs. Returns 0 or -ENOMEM. */
static int alloc_locations(struct builder *b)
{
	struct profile *p = b->p;

	p->locations = calloc(b->agg.n ? b->agg.n : 1, sizeof(*p->locations));
	p->locs = calloc(b->agg.n ? b->agg.n : 1, sizeof(*p->locs));
	if (!p->locations || !p->locs)
		return -ENOMEM;
	p->nlocations = b->agg.n;
	/* Stacks name their call sites' lines in every view: such a profile is read whole. */
	b->lazy = b->opt->lazy_lines && b->opt->keep_code && !b->focused && !b->stacks.n;
	if (b->lazy) {
		if (!(p->lazy = calloc(1, sizeof(*p->lazy))) ||
		    !(p->lazy->pending = calloc(b->agg.n ? b->agg.n : 1, sizeof(bool))))
			return -ENOMEM;
		p->lazy->mode = b->opt->inline_mode;
		b->pending = p->lazy->pending;
	}
	return 0;
}

/* The filters on symbolized names: the sampled locations they keep become p->locs, hottest
 * first, and the profile's totals. A caller's address (no samples of its own) is a location
 * of the stacks only. */
static void keep_sampled_locs(struct builder *b)
{
	struct profile *p = b->p;
	size_t keep = 0;

	for (size_t k = 0; k < b->agg.n; k++) {
		struct profile_loc *loc = &p->locations[k];
		loc->id = (uint32_t)k;
		if (!loc->samples || !filter_dso(&b->dso_filter, loc->dso))
			continue;
		p->samples += loc->samples;
		p->period += loc->period;
		p->locs[keep++] = *loc;
	}
	p->nlocs = keep;
	qsort(p->locs, p->nlocs, sizeof(*p->locs), by_period);
}

/* Writes into ERR that no input sampled --event, with the events they sampled. */
static void say_event_unsampled(const struct builder *b, char *err, size_t errlen)
{
	const struct hwprof_file_header *h = &b->p->header;
	char names[512];
	const char *v[SEEN_MAX];
	size_t n = 0;

	for (uint32_t i = 0; i < h->nevents && n < SEEN_MAX; i++)
		if (h->events[i].sampling)
			v[n++] = h->events[i].name;
	list_strs(names, sizeof(names), v, n);
	snprintf(err, errlen,
		 "--event '%s': no input sampled it (sampled: %s%s; give one of "
		 "those)",
		 b->opt->event, n ? names : "none", n == SEEN_MAX ? ", ..." : "");
}

int builder_finish(struct builder *b, struct profile **out, char *err, size_t errlen)
{
	struct profile *p = b->p;
	struct kallsyms ks = {0};
	struct sym_jobs w = {.b = b};
	uint64_t *dso_samples = NULL, total = 0;
	int ret = -ENOMEM;

	*out = NULL;
	dso_samples = calloc(b->dsos.n, sizeof(*dso_samples));
	if (!dso_samples)
		goto out;
	for (size_t k = 0; k < b->agg.n; k++) {
		dso_samples[b->agg.v[k].dso] += b->agg.v[k].samples;
		total += b->agg.v[k].samples;
	}
	if (dso_samples[DSO_ID_KERNEL] && load_kernel_symbols(b, &ks) < 0)
		goto out;
	if (alloc_locations(b) < 0)
		goto out;
	w = (struct sym_jobs){
	    .b = b, .ks = &ks, .dso_samples = dso_samples, .total = total, .locs = p->locations};
	if (symbolize_all(&w) < 0 || build_tables(b, &w) < 0)
		goto out;
	keep_sampled_locs(b);
	if (b->stacks.n && finish_stacks(b) < 0)
		goto out;
	if (values_build(p, b->ev_stacks, b->nev_stacks, keep_location, b) < 0)
		goto out;
	if (data_finish(&b->data, p, data_dso, b, keep_location) < 0)
		goto out;
	ret = check_filters(b, err, errlen);
	if (ret == 0 && b->opt->event && !b->shown_set) {
		say_event_unsampled(b, err, errlen);
		ret = -EINVAL;
	}
	if (ret < 0)
		goto out;
	/* The files stay open for code.h: annotate's instruction view looks up every address
	 * of a function in the line table the symbolization decoded already. */
	if (b->opt->keep_code) {
		ret = -ENOMEM;
		if (!(p->dsos = malloc(sizeof(*p->dsos))))
			goto out;
		*p->dsos = b->dsos;
		memset(&b->dsos, 0, sizeof(b->dsos));
		ret = 0;
	}
	*out = p;
	b->p = NULL;
out:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	sym_jobs_release(&w);
	kallsyms_release(&ks);
	free(dso_samples);
	return ret;
}

void builder_free(struct builder *b)
{
	if (!b)
		return;
	if (b->focused)
		fn_query_release(&b->focus);
	profile_free(b->p);
	dso_table_release(&b->dsos);
	agg_release(&b->agg);
	maps_free(b->maps);
	data_release(&b->data);
	filter_release(&b->pids);
	filter_release(&b->tids);
	filter_release(&b->comms);
	filter_release(&b->dso_filter);
	u32_map_release(&b->comm_of);
	free(b->tid_comms);
	free(b->input_map);
	u32_map_release(&b->in_stack_ids);
	free(b->in_stacks);
	free(b->in_ips);
	free(b->in_locs);
	stack_table_release(&b->stacks);
	for (uint32_t i = 0; i < b->nev_stacks; i++)
		stack_table_release(&b->ev_stacks[i]);
	free(b->ev_stacks);
	free(b->frames);
	free(b->sampled_inputs);
	free(b->count_inputs);
	free(b->lost_inputs);
	free(b->input_sampling);
	free(b);
}
