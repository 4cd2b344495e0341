/* sampler.c - open the sampling events per CPU and map their rings (see sampler.h). */
#include "sampler.h"
#include "host.h"
#include "textfmt.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hwprof/sys.h"

/* PERF_SAMPLE_PERIOD only in frequency mode: see decode_ctx.fixed_period for why. */
#define SAMPLE_TYPE_FIXED                                                                          \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_CPU)
#define SAMPLE_TYPE(cfg)                                                                           \
	(SAMPLE_TYPE_FIXED | ((cfg)->freq ? PERF_SAMPLE_PERIOD : 0) |                              \
	 ((cfg)->callchain ? PERF_SAMPLE_CALLCHAIN : 0) |                                          \
	 ((cfg)->stack_user ? PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER : 0) |                \
	 ((cfg)->data ? PERF_SAMPLE_ADDR : 0) |                                                    \
	 ((cfg)->data && (cfg)->data_mem ? PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT : 0))

int sampler_online_cpus(int **out)
{
	char buf[4096];
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	size_t len = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	int *cpus = NULL, n;

	if (f)
		fclose(f);
	buf[len] = 0;
	n = hwprof_cpulist_parse(buf, &cpus);
	if (n == -ENOMEM)
		return n;
	if (n < 0) {
		long conf = sysconf(_SC_NPROCESSORS_CONF);
		n = conf > 0 ? (int)conf : 1;
		cpus = calloc((size_t)n, sizeof(*cpus));
		if (!cpus)
			return -ENOMEM;
		for (int i = 0; i < n; i++)
			cpus[i] = i;
	}
	*out = cpus;
	return n;
}

static void fill_attr(struct perf_event_attr *attr, const struct hwprof_event *ev,
		      const struct sampler_config *cfg, bool sideband, bool build_id,
		      bool format_lost)
{
	hwprof_event_to_attr(ev, attr);
	attr->sample_type = SAMPLE_TYPE(cfg);
	if (cfg->callchain) {
		attr->sample_max_stack = cfg->max_stack;
		/* An event that does not count the kernel has no kernel part to walk. */
		attr->exclude_callchain_kernel = attr->exclude_kernel;
		attr->exclude_callchain_user = cfg->callchain_kernel_only;
	}
	if (cfg->stack_user) {
		attr->sample_regs_user = cfg->regs_user;
		attr->sample_stack_user = cfg->stack_user;
	}
	if (cfg->freq) {
		attr->freq = 1;
		attr->sample_freq = cfg->freq;
	} else {
		attr->sample_period = cfg->period;
	}
	attr->disabled = 1;
	attr->enable_on_exec = cfg->enable_on_exec;
	attr->inherit = !cfg->system_wide; /* a CPU-wide event already sees every task */
	/* For read(2) only (no PERF_SAMPLE_READ): time_running is the target's CPU time, LOST
	 * the samples the kernel dropped on a full ring, announced by a LOST record or not. */
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			    (format_lost ? PERF_FORMAT_LOST : 0);
	attr->sample_id_all = 1;
	/* Times comparable with clock_gettime(CLOCK_MONOTONIC): merge.h needs "now". */
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	/* Wake the reader when a quarter of the ring is full, not at every sample. */
	attr->watermark = 1;
	attr->wakeup_watermark = (uint32_t)(cfg->pages * (size_t)sysconf(_SC_PAGESIZE) / 4);
	if (sideband) {
		attr->mmap = 1;
		attr->mmap2 = 1;
		attr->mmap_data = cfg->data;
		attr->comm = 1;
		attr->comm_exec = 1;
		attr->task = 1;
		attr->build_id = build_id;
	}
}

static void file_event(struct hwprof_file_event *f, const struct hwprof_event *ev,
		       const struct perf_event_attr *attr, int requested, int obtained)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", ev->spec);
	f->type = attr->type;
	f->config = attr->config;
	f->config1 = attr->config1;
	f->config2 = attr->config2;
	f->sampling = true;
	f->freq = attr->freq;
	f->period_or_freq = attr->sample_period; /* a union with sample_freq */
	f->precise_requested = (uint8_t)requested;
	f->precise_obtained = (uint8_t)obtained;
	f->precise_max = ev->precise_max;
	f->exclude_user = attr->exclude_user;
	f->exclude_kernel = attr->exclude_kernel;
	f->exclude_hv = attr->exclude_hv;
}

/* Opens event EV on CPU for PID. The first open of an event runs the precise step-down and
 * learns whether the kernel takes attr.build_id; later CPUs reuse what it found. */
static int open_one(struct sampler *s, size_t e, const struct hwprof_event *ev,
		    const struct sampler_config *cfg, pid_t pid, int cpu, bool first_cpu)
{
	struct perf_event_attr attr;
	int fd, requested, obtained = 0;

	fill_attr(&attr, ev, cfg, e == 0, e == 0 && s->kernel_build_id, s->format_lost);
	if (first_cpu) {
		/* The step-down leaves attr at the level that opened. */
		requested = attr.precise_ip;
		fd = hwprof_event_open(&attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC, &obtained);
		if (fd == -EINVAL && s->format_lost) {
			/* Kernels before 6.0 refuse PERF_FORMAT_LOST: LOST records only. */
			fill_attr(&attr, ev, cfg, e == 0, e == 0 && s->kernel_build_id, false);
			fd =
			    hwprof_event_open(&attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC, &obtained);
			if (fd >= 0)
				s->format_lost = false;
		}
		if (fd < 0 && e == 0 && s->kernel_build_id) {
			/* Kernels before 5.12 refuse the build_id bit: read notes ourselves. */
			fill_attr(&attr, ev, cfg, true, false, s->format_lost);
			fd =
			    hwprof_event_open(&attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC, &obtained);
			if (fd >= 0)
				s->kernel_build_id = false;
		}
		if (fd >= 0)
			file_event(&s->fev[e], ev, &attr, requested, obtained);
		return fd;
	}
	attr.precise_ip = s->fev[e].precise_obtained;
	return hwprof_sys()->perf_event_open(&attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

size_t sampler_min_pages(uint32_t stack_user)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), need, pages = 8;

	if (!stack_user)
		return pages;
	need = 2 * ((size_t)stack_user + page);
	while (pages * page < need)
		pages *= 2;
	return pages;
}

static int map_ring(struct sampler *s, struct sampler_cpu *c, char *err, size_t errlen)
{
	const struct hwprof_sys *sys = hwprof_sys();
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int e = 0;

	for (;;) {
		c->map_len = (s->pages + 1) * page;
		c->map = sys->mmap(c->fd, c->map_len, &e);
		if (c->map || e != EPERM || s->pages <= s->min_pages)
			break;
		/* Over the locked-memory allowance: a smaller ring still records. */
		s->pages /= 2;
	}
	if (!c->map && e == EPERM) {
		/* At the floor: a smaller -m would lose the samples, or be refused. */
		hwprof_msgf(err, errlen, e,
			    "mmap of the ring buffer (%zu pages) on CPU %d: %m: over the "
			    "locked-memory limit even at the smallest ring that holds the samples "
			    "(raise ulimit -l or kernel.perf_event_mlock_kb%s)",
			    s->pages, c->cpu,
			    s->min_pages > 8 ? ", or give a smaller dwarf size" : "");
		return -e;
	}
	if (!c->map) {
		hwprof_msgf(err, errlen, e,
			    "mmap of the ring buffer (%zu pages) on CPU %d: %m (try a smaller -m)",
			    s->pages, c->cpu);
		return -e;
	}
	if (ring_init(&c->ring, c->map, c->map_len, page) < 0) {
		snprintf(err, errlen, "ring buffer of CPU %d has an unexpected layout", c->cpu);
		return -EINVAL;
	}
	return 0;
}

/* The CPUs to sample, in a new array *CPUS: cfg->cpus, else every online one. Returns their
 * count or -ENOMEM. */
static int sampler_cpus(const struct sampler_config *cfg, int **cpus)
{
	if (!cfg->cpus)
		return sampler_online_cpus(cpus);
	*cpus = malloc(cfg->ncpus * sizeof(**cpus));
	if (!*cpus)
		return -ENOMEM;
	memcpy(*cpus, cfg->cpus, cfg->ncpus * sizeof(**cpus));
	return (int)cfg->ncpus;
}

/* Sizes S for NEVENTS events on NCPUS CPUs and NPIDS tasks and allocates its arrays, every
 * file descriptor -1. Returns 0 or -ENOMEM with ERR set. */
static int sampler_alloc(struct sampler *s, size_t nevents, size_t ncpus, size_t npids,
			 const struct sampler_config *cfg, char *err, size_t errlen)
{
	size_t nfds = ncpus * npids * nevents;

	s->nevents = nevents;
	s->ncpus = ncpus;
	s->npids = npids;
	s->pages = cfg->pages;
	s->min_pages = sampler_min_pages(cfg->stack_user);
	s->kernel_build_id = true;
	s->format_lost = true;
	s->fev = calloc(nevents, sizeof(*s->fev));
	s->cpus = calloc(ncpus, sizeof(*s->cpus));
	s->fds = malloc(nfds * sizeof(*s->fds));
	s->ids = calloc(nfds, sizeof(*s->ids));
	s->idx = calloc(nfds, sizeof(*s->idx));
	if (!s->fev || !s->cpus || !s->fds || !s->ids || !s->idx) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < nfds; i++)
		s->fds[i] = -1;
	return 0;
}

/* Makes FD, event E (EV) on CPU SC, write to SC's ring (mapping it for SC's first one) and
 * notes its id for the decoder. Returns 0 or -errno with ERR set. */
static int attach_fd(struct sampler *s, struct sampler_cpu *sc, int fd, size_t e,
		     const struct hwprof_event *ev, char *err, size_t errlen)
{
	const struct hwprof_sys *sys = hwprof_sys();
	uint64_t id = 0;
	int ret;

	if (sc->fd < 0) {
		sc->fd = fd;
		ret = map_ring(s, sc, err, errlen);
	} else {
		ret = sys->ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)sc->fd);
		if (ret < 0)
			hwprof_msgf(err, errlen, ret, "%s: PERF_EVENT_IOC_SET_OUTPUT: %m",
				    ev->spec);
	}
	if (ret < 0)
		return ret;
	ret = sys->ioctl(fd, PERF_EVENT_IOC_ID, (unsigned long)&id);
	if (ret < 0) {
		hwprof_msgf(err, errlen, ret, "%s: PERF_EVENT_IOC_ID: %m", ev->spec);
		return ret;
	}
	s->ids[s->nids] = id;
	s->idx[s->nids++] = (uint16_t)e;
	return 0;
}

/* Opens file descriptor I of S: its CPU, task and event follow from I (CPU-major), the CPU
 * from CPUS, the task from PIDS. Returns 0 (a thread that ended meanwhile is left out) or
 * -errno with ERR set. */
static int open_fd(struct sampler *s, size_t i, const struct hwprof_event_list *list,
		   const struct sampler_config *cfg, const pid_t *pids, const int *cpus, char *err,
		   size_t errlen)
{
	size_t npids = s->npids;
	size_t c = i / (npids * list->n), t = i / list->n % npids, e = i % list->n;
	struct sampler_cpu *sc = &s->cpus[c];
	const struct hwprof_event *ev = &list->ev[e];
	char advice[256];
	int fd;

	if (t == 0 && e == 0) {
		sc->cpu = cpus[c];
		sc->fd = -1;
	}
	fd = open_one(s, e, ev, cfg, pids[t], sc->cpu, c == 0 && t == 0);
	if (fd == -ESRCH && t > 0)
		return 0; /* a thread of an attached process ended meanwhile */
	if (fd < 0) {
		hwprof_open_advice(ev, -fd, advice, sizeof(advice));
		snprintf(err, errlen, "%s: %s", ev->spec, advice);
		return fd;
	}
	s->fds[i] = fd;
	return attach_fd(s, sc, fd, e, ev, err, errlen);
}

/* Sets up S's decoder for what CFG records. Returns 0 or -ENOMEM with ERR set. */
static int setup_decode(struct sampler *s, const struct sampler_config *cfg, char *err,
			size_t errlen)
{
	s->decode.sample_type = SAMPLE_TYPE(cfg);
	s->decode.max_stack = cfg->callchain ? cfg->max_stack : 0;
	if (cfg->callchain && !(s->decode.stack = calloc(1, sizeof(*s->decode.stack))))
		goto nomem;
	s->decode.regs_user = cfg->stack_user ? cfg->regs_user : 0;
	if (cfg->stack_user && !(s->decode.ustack = calloc(1, sizeof(*s->decode.ustack))))
		goto nomem;
	s->decode.fixed_period = cfg->freq ? 0 : cfg->period;
	s->decode.data_mmaps = cfg->data;
	s->decode.ids = s->ids;
	s->decode.events = s->idx;
	s->decode.nids = s->nids;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

int sampler_open(struct sampler *s, const struct hwprof_event_list *list,
		 const struct sampler_config *cfg, const pid_t *pids, size_t npids, char *err,
		 size_t errlen)
{
	static const pid_t every_task = -1;
	int *cpus = NULL, n, ret;

	memset(s, 0, sizeof(*s));
	if (cfg->system_wide) {
		pids = &every_task;
		npids = 1;
	}
	n = sampler_cpus(cfg, &cpus);
	if (n < 0) {
		snprintf(err, errlen, "out of memory");
		return n;
	}
	ret = sampler_alloc(s, list->n, (size_t)n, npids, cfg, err, errlen);
	for (size_t i = 0; ret == 0 && i < s->ncpus * npids * list->n; i++)
		ret = open_fd(s, i, list, cfg, pids, cpus, err, errlen);
	if (ret == 0)
		ret = setup_decode(s, cfg, err, errlen);
	free(cpus);
	if (ret < 0)
		sampler_close(s);
	return ret;
}

static void ioctl_all(struct sampler *s, unsigned long request)
{
	for (size_t i = 0; s->fds && i < s->ncpus * s->npids * s->nevents; i++)
		if (s->fds[i] >= 0)
			hwprof_sys()->ioctl(s->fds[i], request, 0);
}

void sampler_enable(struct sampler *s)
{
	ioctl_all(s, PERF_EVENT_IOC_ENABLE);
}

void sampler_disable(struct sampler *s)
{
	ioctl_all(s, PERF_EVENT_IOC_DISABLE);
}

/* Event E's read(2) values summed over its per-CPU and per-thread fds into SUM: value,
 * time_enabled, time_running, lost (0 without PERF_FORMAT_LOST). Returns 0 or -errno. */
static int read_sum(const struct sampler *s, size_t e, uint64_t sum[4])
{
	size_t len = (s->format_lost ? 4 : 3) * sizeof(uint64_t);

	memset(sum, 0, 4 * sizeof(*sum));
	for (size_t i = e; s->fds && i < s->ncpus * s->npids * s->nevents; i += s->nevents) {
		uint64_t v[4] = {0};
		ssize_t n;

		if (s->fds[i] < 0)
			continue;
		n = hwprof_sys()->read(s->fds[i], v, len);
		if (n < 0)
			return (int)n;
		if (n != (ssize_t)len)
			return -EIO;
		for (int k = 0; k < 4; k++)
			sum[k] += v[k];
	}
	return 0;
}

int sampler_running_ns(const struct sampler *s, uint64_t *ns)
{
	uint64_t v[4];
	int ret = read_sum(s, 0, v);

	if (ret < 0)
		return ret;
	*ns = v[2];
	return 0;
}

int sampler_read_totals(const struct sampler *s, struct hwprof_file_sampled *out)
{
	uint64_t v[4];

	memset(out, 0, s->nevents * sizeof(*out));
	for (size_t e = 0; e < s->nevents; e++) {
		int ret = read_sum(s, e, v);

		if (ret < 0)
			return ret;
		out[e] = (struct hwprof_file_sampled){
		    .count_known = true,
		    .count = v[0],
		    .lost_known = s->format_lost,
		    .lost = v[3],
		};
	}
	return 0;
}

void sampler_close(struct sampler *s)
{
	const struct hwprof_sys *sys = hwprof_sys();

	for (size_t c = 0; s->cpus && c < s->ncpus; c++) {
		if (s->cpus[c].map)
			sys->munmap(s->cpus[c].map, s->cpus[c].map_len);
		ring_release(&s->cpus[c].ring);
	}
	for (size_t i = 0; s->fds && i < s->ncpus * s->npids * s->nevents; i++)
		if (s->fds[i] >= 0)
			sys->close(s->fds[i]);
	free(s->fev);
	free(s->cpus);
	free(s->fds);
	free(s->ids);
	free(s->idx);
	free(s->decode.stack);
	free(s->decode.ustack);
	memset(s, 0, sizeof(*s));
}
