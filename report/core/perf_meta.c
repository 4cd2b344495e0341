/* perf_meta.c - a perf.data recording's events and feature sections (perf_meta.h).
 *
 * Layouts (tools/perf/Documentation/perf.data-file-format.txt):
 *   string       u32 len, then len bytes, NUL-padded (len counts the padding)
 *   string list  u32 nr, then nr strings
 *   NRCPUS       u32 available, u32 online
 *   EVENT_DESC   u32 nr, u32 attr_size, then per event: attr (attr_size bytes), u32 nr_ids,
 *                string name, u64 ids[nr_ids]
 *   SAMPLE_TIME  u64 first, u64 last
 *   BUILD_ID     build-id records back to back: perf_event_header, s32 pid, u8 build_id[24]
 *                (bytes 0..19 the id; with misc bit 15 byte 20 is its size, else 20), the
 *                file name NUL-terminated up to the record's size
 */
#include "perf_meta.h"
#include "grow.h"
#include "profile.h"

#include "hwprof/event.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* perf's flag for a build-id record whose byte 20 holds the id's size. */
#define BUILD_ID_MISC_SIZE (1u << 15)

struct rd {
	const unsigned char *p, *end;
	bool bad;
};

static uint32_t rd_u32(struct rd *r)
{
	uint32_t v = 0;

	if (r->end - r->p < 4)
		r->bad = true;
	else
		memcpy(&v, r->p, 4), r->p += 4;
	return v;
}

static uint64_t rd_u64(struct rd *r)
{
	uint64_t v = 0;

	if (r->end - r->p < 8)
		r->bad = true;
	else
		memcpy(&v, r->p, 8), r->p += 8;
	return v;
}

/* A perf string into BUF (LEN bytes, NUL-terminated, cut to fit). */
static void rd_str(struct rd *r, char *buf, size_t len)
{
	uint32_t n = rd_u32(r);
	size_t k;

	if (r->bad || n > (size_t)(r->end - r->p)) {
		r->bad = true;
		buf[0] = '\0';
		return;
	}
	k = strnlen((const char *)r->p, n);
	if (k >= len)
		k = len - 1;
	memcpy(buf, r->p, k);
	buf[k] = '\0';
	r->p += n;
}

int perf_meta_add_attr(struct perf_meta *m, const unsigned char *attr, size_t attr_len,
		       const unsigned char *ids, size_t nids)
{
	struct perf_event_info *ev;
	uint32_t size;

	if (attr_len < PERF_ATTR_SIZE_VER0 || m->nev >= UINT16_MAX)
		return -EBADMSG;
	memcpy(&size, attr + offsetof(struct perf_event_attr, size), 4);
	if (!size)
		size = PERF_ATTR_SIZE_VER0;
	if (size < PERF_ATTR_SIZE_VER0 || size > attr_len)
		return -EBADMSG;
	if (hwprof_grow((void **)&m->ev, &m->capev, m->nev + 1, sizeof(*m->ev)) < 0)
		return -ENOMEM;
	ev = &m->ev[m->nev];
	memset(ev, 0, sizeof(*ev));
	/* An older attr is zero-extended (the fields it lacks are off); a newer one's fields
	 * past this struct are not known here and are left out. */
	memcpy(&ev->attr, attr, size < sizeof(ev->attr) ? size : sizeof(ev->attr));
	ev->attr.size = sizeof(ev->attr);
	if (nids) {
		uint64_t *v = realloc(m->ids, (m->nids + nids) * sizeof(*v));
		uint16_t *e = v ? realloc(m->id_ev, (m->nids + nids) * sizeof(*e)) : NULL;
		if (v)
			m->ids = v;
		if (!e)
			return -ENOMEM;
		m->id_ev = e;
		memcpy(m->ids + m->nids, ids, nids * 8);
		for (size_t i = 0; i < nids; i++)
			e[m->nids + i] = (uint16_t)m->nev;
		m->nids += nids;
	}
	m->nev++;
	return 0;
}

int perf_meta_event_of(const struct perf_meta *m, uint64_t id)
{
	for (size_t i = 0; i < m->nids; i++)
		if (m->ids[i] == id)
			return m->id_ev[i];
	return -1;
}

/* EVENT_DESC: each name goes to the event that has its first id, else to the event of its
 * rank (a file whose events carry no ids). */
static int event_desc(struct perf_meta *m, struct rd *r)
{
	uint32_t nr = rd_u32(r), attr_size = rd_u32(r);

	for (uint32_t i = 0; i < nr && !r->bad; i++) {
		char name[192];
		uint32_t nids;
		int k = -1;

		if (attr_size > (size_t)(r->end - r->p))
			return -EBADMSG;
		r->p += attr_size;
		nids = rd_u32(r);
		rd_str(r, name, sizeof(name));
		if (r->bad || nids > (size_t)(r->end - r->p) / 8)
			return -EBADMSG;
		if (nids) {
			uint64_t id;
			memcpy(&id, r->p, 8);
			k = perf_meta_event_of(m, id);
		}
		if (k < 0 && i < m->nev)
			k = (int)i;
		r->p += (size_t)nids * 8;
		if (k >= 0 && name[0]) {
			snprintf(m->ev[k].name, sizeof(m->ev[k].name), "%s", name);
			m->ev[k].named = true;
		}
	}
	return r->bad ? -EBADMSG : 0;
}

static int cmdline(struct perf_meta *m, struct rd *r)
{
	uint32_t nr = rd_u32(r);
	char buf[4096];

	/* Each string takes at least its 4-byte length: NR is bounded by the section. */
	if (r->bad || nr > (size_t)(r->end - r->p) / 4 || m->argv)
		return -EBADMSG;
	m->argv = calloc(nr ? nr : 1, sizeof(*m->argv));
	if (!m->argv)
		return -ENOMEM;
	for (uint32_t i = 0; i < nr; i++) {
		rd_str(r, buf, sizeof(buf));
		if (r->bad)
			return -EBADMSG;
		m->argv[i] = strdup(buf);
		if (!m->argv[i])
			return -ENOMEM;
		m->argc++;
	}
	return 0;
}

int perf_meta_build_id(struct perf_meta *m, const unsigned char *p, size_t n)
{
	const size_t name_off = 8 + 4 + 24;
	struct perf_event_header h;
	struct perf_build_id *b;
	size_t k;

	if (n < name_off)
		return -EBADMSG;
	memcpy(&h, p, sizeof(h));
	k = strnlen((const char *)p + name_off, n - name_off);
	if (k == n - name_off || !k)
		return -EBADMSG;
	if (hwprof_grow((void **)&m->bids, &m->capbids, m->nbids + 1, sizeof(*b)) < 0)
		return -ENOMEM;
	b = &m->bids[m->nbids];
	b->size = (h.misc & BUILD_ID_MISC_SIZE) ? p[12 + 20] : 20;
	if (!b->size || b->size > 20)
		return -EBADMSG;
	memcpy(b->id, p + 12, b->size);
	b->filename = strndup((const char *)p + name_off, k);
	if (!b->filename)
		return -ENOMEM;
	m->nbids++;
	return 0;
}

static int build_ids(struct perf_meta *m, const unsigned char *p, size_t n)
{
	while (n) {
		struct perf_event_header h;
		int ret;

		if (n < sizeof(h))
			return -EBADMSG;
		memcpy(&h, p, sizeof(h));
		if (h.size < sizeof(h) || h.size > n)
			return -EBADMSG;
		ret = perf_meta_build_id(m, p, h.size);
		if (ret < 0)
			return ret;
		p += h.size;
		n -= h.size;
	}
	return 0;
}

const struct perf_build_id *perf_meta_find_build_id(const struct perf_meta *m, const char *filename)
{
	for (size_t i = 0; i < m->nbids; i++)
		if (!strcmp(m->bids[i].filename, filename))
			return &m->bids[i];
	return NULL;
}

int perf_meta_feature(struct perf_meta *m, unsigned feat, const unsigned char *p, size_t n)
{
	struct rd r = {p, p + n, false};
	int ret = 0;

	switch (feat) {
	case PERF_FEAT_HOSTNAME:
		rd_str(&r, m->hostname, sizeof(m->hostname));
		break;
	case PERF_FEAT_OSRELEASE:
		rd_str(&r, m->osrelease, sizeof(m->osrelease));
		break;
	case PERF_FEAT_CPUDESC:
		rd_str(&r, m->cpudesc, sizeof(m->cpudesc));
		break;
	case PERF_FEAT_NRCPUS:
		rd_u32(&r);
		m->ncpus = rd_u32(&r);
		break;
	case PERF_FEAT_CMDLINE:
		ret = cmdline(m, &r);
		break;
	case PERF_FEAT_EVENT_DESC:
		ret = event_desc(m, &r);
		break;
	case PERF_FEAT_SAMPLE_TIME:
		m->first_time = rd_u64(&r);
		m->last_time = rd_u64(&r);
		break;
	case PERF_FEAT_BUILD_ID:
		ret = build_ids(m, p, n);
		break;
	default:
		break;
	}
	return ret ? ret : r.bad ? -EBADMSG : 0;
}

/* perf's options that take their value as the next word (perf-record(1), perf(1)); an
 * option missing here makes its value look like the command, never a crash. */
static const char *const value_options[] = {
    "--event",
    "--filter",
    "--pid",
    "--tid",
    "--realtime",
    "--cpu",
    "--count",
    "--output",
    "--freq",
    "--mmap-pages",
    "--call-graph",
    "--cgroup",
    "--uid",
    "--branch-filter",
    "--clockid",
    "--max-size",
    "--affinity",
    "--mmap-flush",
    "--control",
    "--delay",
    "--switch-output-event",
    "--num-thread-synthesize",
    "--buildid-dir",
    "--exec-path",
    "--debugfs-dir",
    "--type",
    "--ldlat",
    "--proc-map-timeout",
    "--switch-max-files",
    "--synth",
    "--pfm-events",
    "--setup-filter",
};
static const char short_value_options[] = "ecoFpmtrCGujkD";

/* Whether option word W takes the next word as its value. */
static bool takes_next(const char *w)
{
	if (w[1] == '-') {
		if (strchr(w, '='))
			return false;
		for (size_t i = 0; i < sizeof(value_options) / sizeof(value_options[0]); i++)
			if (!strcmp(w, value_options[i]))
				return true;
		return false;
	}
	/* A bundle such as -ag or -ae: the first letter with a value takes the rest of the
	 * word, or the next word when it is last. */
	for (size_t i = 1; w[i]; i++)
		if (strchr(short_value_options, w[i]))
			return !w[i + 1];
	return false;
}

size_t perf_cmdline_target(char *const *argv, size_t argc)
{
	size_t i = 1;

	if (!argc || !argv[0] || strncmp(path_base(argv[0]), "perf", 4))
		return 0;
	/* Up to "record", over perf's own options and a command such as mem or c2c with
	 * theirs (whose letters are not record's: no value is skipped, none is "record"). */
	while (i < argc && argv[i] && strcmp(argv[i], "record"))
		i++;
	if (i >= argc)
		return argc;
	for (i++; i < argc && argv[i] && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--"))
			return i + 1;
		if (takes_next(argv[i]))
			i++;
	}
	return i < argc ? i : argc;
}

int perf_meta_header(struct perf_meta *m)
{
	struct hwprof_file_header *h = &m->h;

	free(m->hev);
	m->hev = calloc(m->nev ? m->nev : 1, sizeof(*m->hev));
	if (!m->hev)
		return -ENOMEM;
	memset(h, 0, sizeof(*h));
	snprintf(h->hostname, sizeof(h->hostname), "%s", m->hostname);
	snprintf(h->kernel, sizeof(h->kernel), "%s", m->osrelease);
	snprintf(h->cpu_model, sizeof(h->cpu_model), "%s", m->cpudesc);
	h->ncpus = m->ncpus;
	h->argc = m->argv ? m->argc : 0;
	h->argv = m->argv;
	h->nevents = m->nev;
	h->events = m->hev;
	for (uint32_t i = 0; i < m->nev; i++) {
		struct perf_event_info *ev = &m->ev[i];
		const struct perf_event_attr *a = &ev->attr;
		struct hwprof_file_event *e = &m->hev[i];

		if (!ev->named &&
		    hwprof_event_name_of(a->type, a->config, ev->name, sizeof(ev->name)) < 0)
			snprintf(ev->name, sizeof(ev->name), "type-%" PRIu32 "/config=0x%" PRIx64,
				 a->type, (uint64_t)a->config);
		snprintf(e->name, sizeof(e->name), "%s", ev->name);
		e->type = a->type;
		e->config = a->config;
		e->config1 = a->config1;
		e->config2 = a->config2;
		/* perf's tracking event (dummy) never samples: not an event to show. */
		e->sampling = (a->freq || a->sample_period) &&
			      !(a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY);
		e->freq = a->freq;
		e->period_or_freq = a->sample_period;
		e->precise_requested = e->precise_obtained = (uint8_t)a->precise_ip;
		e->exclude_user = a->exclude_user;
		e->exclude_kernel = a->exclude_kernel;
		e->exclude_hv = a->exclude_hv;
		/* perf record -d (and the events that carry one): samples with a data address,
		 * whose data mappings attr.mmap_data adds. */
		if (e->sampling && (a->sample_type & PERF_SAMPLE_ADDR))
			h->data = true;
	}
	return 0;
}

void perf_meta_release(struct perf_meta *m)
{
	for (uint32_t i = 0; m->argv && i < m->argc; i++)
		free(m->argv[i]);
	free(m->argv);
	for (size_t i = 0; i < m->nbids; i++)
		free(m->bids[i].filename);
	free(m->bids);
	free(m->ev);
	free(m->ids);
	free(m->id_ev);
	free(m->hev);
	memset(m, 0, sizeof(*m));
}
