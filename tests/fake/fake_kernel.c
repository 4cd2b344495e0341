/* fake_kernel.c - the fake perf_event_open(2) kernel; the behaviour is specified in
 * fake_kernel.h. */
#include "fake_kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct fake_event {
	int fd;	    /* real fd of /dev/null; -1 once closed */
	int leader; /* fd of the group leader (own fd for a leader) */
	struct perf_event_attr attr;
	uint64_t id;
	bool enabled; /* counting now */
	bool counted; /* has counted since open or the last RESET */
};

struct fake_count {
	uint32_t type;
	uint64_t config;
	uint64_t value;
	bool has_value;
	uint64_t enabled_ns, running_ns;
	bool has_times;
	uint64_t lost; /* PERF_FORMAT_LOST of each event of this (type, config) */
};

struct fake_map {
	void *addr;
	size_t len;
};

static struct {
	struct fake_kernel_config cfg;
	struct fake_event *ev;
	size_t nev, capev;
	struct fake_kernel_open *opens;
	size_t nopens, capopens;
	struct fake_kernel_ioctl *ioctls;
	size_t nioctls, capioctls;
	struct fake_count *counts;
	size_t ncounts, capcounts;
	struct fake_map *maps;
	size_t nmaps, capmaps;
	uint64_t next_id;
} fk;

/* Grows *P (of *CAP elements of SIZE) to hold one more; aborts on ENOMEM (test code). */
static void grow(void **p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return;
	*cap = *cap ? *cap * 2 : 16;
	*p = realloc(*p, *cap * size);
	if (!*p)
		abort();
}

struct fake_kernel_config fake_kernel_defaults(void)
{
	return (struct fake_kernel_config){
	    .has_pmu = true,
	    .max_precise = 3,
	    .sw_max_precise = 3,
	    .precise_errno = EOPNOTSUPP,
	    .paranoid = 2,
	    .privileged = false,
	    .nr_counters = 4,
	    .group_counters_einval = true,
	    .old_kernel_inherit_group = false,
	    .max_fds = 1024,
	    .allow_mmap = false,
	    .default_count = 1000000,
	    .enabled_ns = 1000000000,
	};
}

static bool type_is_hw(uint32_t type)
{
	return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW ||
	       type >= PERF_TYPE_MAX;
}

static struct fake_event *find(int fd)
{
	for (size_t i = 0; i < fk.nev; i++)
		if (fk.ev[i].fd >= 0 && fk.ev[i].fd == fd)
			return &fk.ev[i];
	return NULL;
}

static struct fake_count *find_count(uint32_t type, uint64_t config, bool create)
{
	for (size_t i = 0; i < fk.ncounts; i++)
		if (fk.counts[i].type == type && fk.counts[i].config == config)
			return &fk.counts[i];
	if (!create)
		return NULL;
	grow((void **)&fk.counts, &fk.capcounts, fk.ncounts, sizeof(*fk.counts));
	struct fake_count *c = &fk.counts[fk.ncounts++];
	*c = (struct fake_count){.type = type, .config = config};
	return c;
}

static int nfds_open(void)
{
	int n = 0;
	for (size_t i = 0; i < fk.nev; i++)
		n += fk.ev[i].fd >= 0;
	return n;
}

static int nhw_open(void)
{
	int n = 0;
	for (size_t i = 0; i < fk.nev; i++)
		n += fk.ev[i].fd >= 0 && type_is_hw(fk.ev[i].attr.type);
	return n;
}

static int group_hw_members(int leader)
{
	int n = 0;
	for (size_t i = 0; i < fk.nev; i++)
		n +=
		    fk.ev[i].fd >= 0 && fk.ev[i].leader == leader && type_is_hw(fk.ev[i].attr.type);
	return n;
}

/* The checks of fake_kernel.h, in order; 0 when the open may succeed. */
static int check_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd)
{
	const struct fake_kernel_config *c = &fk.cfg;
	bool hw = type_is_hw(attr->type);

	if (nfds_open() >= c->max_fds)
		return -EMFILE;
	if (pid == -1 && cpu == -1)
		return -EINVAL;
	if (attr->size && (attr->size < PERF_ATTR_SIZE_VER0 || attr->size > sizeof(*attr))) {
		attr->size = sizeof(*attr);
		return -E2BIG;
	}
	if (!c->privileged) {
		if (c->paranoid >= 3)
			return -EACCES;
		if (c->paranoid >= 2 && !attr->exclude_kernel)
			return -EACCES;
		if (c->paranoid >= 1 && pid == -1 && cpu >= 0)
			return -EACCES;
	}
	if (pid > 0 && kill(pid, 0) < 0 && errno == ESRCH)
		return -ESRCH;
	if (c->old_kernel_inherit_group && attr->inherit && (attr->read_format & PERF_FORMAT_GROUP))
		return -EINVAL;
	if (c->old_kernel_no_format_lost && (attr->read_format & PERF_FORMAT_LOST))
		return -EINVAL;
	if (hw && !c->has_pmu)
		return -ENOENT;
	if ((int)attr->precise_ip > (hw ? c->max_precise : c->sw_max_precise))
		return -c->precise_errno;
	if (group_fd >= 0) {
		struct fake_event *l = find(group_fd);
		if (!l)
			return -EBADF;
		if (l->leader != l->fd)
			return -EINVAL;
		if (c->group_counters_einval && hw &&
		    group_hw_members(group_fd) + 1 > c->nr_counters)
			return -EINVAL;
	}
	return 0;
}

static int fake_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		     unsigned long flags)
{
	grow((void **)&fk.opens, &fk.capopens, fk.nopens, sizeof(*fk.opens));
	struct fake_kernel_open *log = &fk.opens[fk.nopens++];
	*log = (struct fake_kernel_open){
	    .attr = *attr, .pid = pid, .cpu = cpu, .group_fd = group_fd, .flags = flags};

	int r = check_open(attr, pid, cpu, group_fd);
	if (r == 0) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			r = -errno;
		} else {
			grow((void **)&fk.ev, &fk.capev, fk.nev, sizeof(*fk.ev));
			bool on = !attr->disabled || attr->enable_on_exec;
			fk.ev[fk.nev++] = (struct fake_event){
			    .fd = fd,
			    .leader = group_fd >= 0 ? group_fd : fd,
			    .attr = *attr,
			    .id = fk.next_id++,
			    .enabled = on,
			    .counted = on,
			};
			r = fd;
		}
	}
	log->result = r;
	return r;
}

static int apply_ioctl(struct fake_event *e, unsigned long request)
{
	switch (request) {
	case PERF_EVENT_IOC_ENABLE:
		e->enabled = e->counted = true;
		return 0;
	case PERF_EVENT_IOC_DISABLE:
		e->enabled = false;
		return 0;
	case PERF_EVENT_IOC_RESET:
		e->counted = e->enabled;
		return 0;
	}
	return -ENOTTY;
}

static int do_ioctl(int fd, unsigned long request, unsigned long arg)
{
	struct fake_event *e = find(fd);
	if (!e)
		return -EBADF;
	if (request == PERF_EVENT_IOC_ID) {
		if (!arg)
			return -EFAULT;
		memcpy((void *)arg, &e->id, sizeof(e->id));
		return 0;
	}
	if (request != PERF_EVENT_IOC_ENABLE && request != PERF_EVENT_IOC_DISABLE &&
	    request != PERF_EVENT_IOC_RESET)
		return -ENOTTY;
	if (!(arg & PERF_IOC_FLAG_GROUP))
		return apply_ioctl(e, request);
	/* The kernel applies a group ioctl to the leader's group. */
	int leader = e->leader;
	for (size_t i = 0; i < fk.nev; i++)
		if (fk.ev[i].fd >= 0 && fk.ev[i].leader == leader)
			apply_ioctl(&fk.ev[i], request);
	return 0;
}

static int fake_ioctl(int fd, unsigned long request, unsigned long arg)
{
	int r = do_ioctl(fd, request, arg);
	grow((void **)&fk.ioctls, &fk.capioctls, fk.nioctls, sizeof(*fk.ioctls));
	fk.ioctls[fk.nioctls++] =
	    (struct fake_kernel_ioctl){.fd = fd, .request = request, .arg = arg, .result = r};
	return r;
}

static void times_of(const struct fake_event *e, uint64_t *enabled, uint64_t *running)
{
	if (!e->counted) {
		*enabled = *running = 0;
		return;
	}
	const struct fake_count *c = find_count(e->attr.type, e->attr.config, false);
	if (c && c->has_times) {
		*enabled = c->enabled_ns;
		*running = c->running_ns;
		return;
	}
	*enabled = fk.cfg.enabled_ns;
	*running = *enabled;
	int h = nhw_open();
	if (type_is_hw(e->attr.type) && h > fk.cfg.nr_counters)
		*running = (uint64_t)((unsigned __int128)*enabled * fk.cfg.nr_counters / h);
}

static uint64_t value_of(const struct fake_event *e, uint64_t enabled, uint64_t running)
{
	if (!e->counted || enabled == 0)
		return 0;
	const struct fake_count *c = find_count(e->attr.type, e->attr.config, false);
	uint64_t count = c && c->has_value ? c->value : fk.cfg.default_count;
	return (uint64_t)((unsigned __int128)count * running / enabled);
}

/* Appends V to BUF at *POS when it fits; *POS always advances (to detect a short buffer). */
static void put(uint8_t *buf, size_t len, size_t *pos, uint64_t v)
{
	if (*pos + sizeof(v) <= len)
		memcpy(buf + *pos, &v, sizeof(v));
	*pos += sizeof(v);
}

static ssize_t fake_read(int fd, void *buf, size_t len)
{
	struct fake_event *e = find(fd);
	if (!e)
		return -EBADF;
	uint64_t rf = e->attr.read_format;
	size_t pos = 0;
	uint64_t en, run;

	if (!(rf & PERF_FORMAT_GROUP)) {
		times_of(e, &en, &run);
		put(buf, len, &pos, value_of(e, en, run));
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			put(buf, len, &pos, en);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			put(buf, len, &pos, run);
		if (rf & PERF_FORMAT_ID)
			put(buf, len, &pos, e->id);
		if (rf & PERF_FORMAT_LOST) {
			struct fake_count *c = find_count(e->attr.type, e->attr.config, false);
			put(buf, len, &pos, c ? c->lost : 0);
		}
		return pos <= len ? (ssize_t)pos : -ENOSPC;
	}

	struct fake_event *l = find(e->leader);
	if (!l)
		return -EBADF;
	uint64_t nr = 0;
	for (size_t i = 0; i < fk.nev; i++)
		nr += fk.ev[i].fd >= 0 && fk.ev[i].leader == l->fd;
	times_of(l, &en, &run);
	put(buf, len, &pos, nr);
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		put(buf, len, &pos, en);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		put(buf, len, &pos, run);
	/* The leader comes first: it was opened before its members. */
	for (size_t i = 0; i < fk.nev; i++) {
		struct fake_event *m = &fk.ev[i];
		if (m->fd < 0 || m->leader != l->fd)
			continue;
		put(buf, len, &pos, value_of(m, en, run));
		if (rf & PERF_FORMAT_ID)
			put(buf, len, &pos, m->id);
		if (rf & PERF_FORMAT_LOST)
			put(buf, len, &pos, 0);
	}
	return pos <= len ? (ssize_t)pos : -ENOSPC;
}

static void *fake_mmap(int fd, size_t len, int *err)
{
	if (!find(fd)) {
		*err = EBADF;
		return NULL;
	}
	if (!fk.cfg.allow_mmap) {
		*err = EINVAL;
		return NULL;
	}
	if (fk.cfg.mmap_max_len && len > fk.cfg.mmap_max_len) {
		*err = EPERM;
		return NULL;
	}
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		*err = errno;
		return NULL;
	}
	grow((void **)&fk.maps, &fk.capmaps, fk.nmaps, sizeof(*fk.maps));
	fk.maps[fk.nmaps++] = (struct fake_map){.addr = p, .len = len};
	return p;
}

static int fake_munmap(void *addr, size_t len)
{
	for (size_t i = 0; i < fk.nmaps; i++) {
		if (fk.maps[i].addr == addr) {
			fk.maps[i].addr = NULL;
			return munmap(addr, len) < 0 ? -errno : 0;
		}
	}
	return -EINVAL;
}

static int fake_close(int fd)
{
	struct fake_event *e = find(fd);
	if (!e)
		return close(fd) < 0 ? -errno : 0;
	e->fd = -1;
	return close(fd) < 0 ? -errno : 0;
}

const struct hwprof_sys fake_kernel_sys = {
    .perf_event_open = fake_open,
    .ioctl = fake_ioctl,
    .read = fake_read,
    .mmap = fake_mmap,
    .munmap = fake_munmap,
    .close = fake_close,
};

static void release_all(void)
{
	for (size_t i = 0; i < fk.nev; i++)
		if (fk.ev[i].fd >= 0)
			close(fk.ev[i].fd);
	for (size_t i = 0; i < fk.nmaps; i++)
		if (fk.maps[i].addr)
			munmap(fk.maps[i].addr, fk.maps[i].len);
	free(fk.ev);
	free(fk.opens);
	free(fk.ioctls);
	free(fk.counts);
	free(fk.maps);
	memset(&fk, 0, sizeof(fk));
}

/* The /proc that goes with the fake kernel (fake_kernel.h): its perf_event_paranoid, and
 * CapEff with CAP_PERFMON (bit 38) when privileged. */
static char proc_root[64];

int fake_proc_write(const char *root, int paranoid, unsigned long long capeff)
{
	char path[4200];
	FILE *f;

	static const char *const dirs[] = {"", "/sys", "/sys/kernel", "/self"};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return -errno;
	}
	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_paranoid", root);
	if (!(f = fopen(path, "w")))
		return -errno;
	fprintf(f, "%d\n", paranoid);
	fclose(f);
	snprintf(path, sizeof(path), "%s/self/status", root);
	if (!(f = fopen(path, "w")))
		return -errno;
	fprintf(f, "Name:\tfake\nCapEff:\t%016llx\n", capeff);
	fclose(f);
	return 0;
}

static void remove_proc(void)
{
	char path[192];
	static const char *const files[] = {
	    "sys/kernel/perf_event_paranoid", "self/status", "sys/kernel", "sys", "self", ""};

	if (!proc_root[0])
		return;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", proc_root, files[i]);
		remove(path);
	}
	if (getenv("HWPROF_PROC_ROOT") && !strcmp(getenv("HWPROF_PROC_ROOT"), proc_root))
		unsetenv("HWPROF_PROC_ROOT");
	proc_root[0] = '\0';
}

static void install_proc(void)
{
	const char *env = getenv("HWPROF_PROC_ROOT");

	if (env && (!proc_root[0] || strcmp(env, proc_root)))
		return; /* the test's own /proc fixture */
	static bool cleanup_set;

	if (!cleanup_set) /* a test that never uninstalls leaves no directory behind */
		cleanup_set = atexit(remove_proc) == 0;
	remove_proc();
	snprintf(proc_root, sizeof(proc_root), "/tmp/hwprof-fakeproc-XXXXXX");
	if (!mkdtemp(proc_root)) {
		proc_root[0] = '\0';
		return;
	}
	/* CAP_PERFMON is bit 38 of CapEff (capability(7)). */
	if (fake_proc_write(proc_root, fk.cfg.paranoid, fk.cfg.privileged ? 1ull << 38 : 0) < 0)
		return;
	setenv("HWPROF_PROC_ROOT", proc_root, 1);
}

void fake_kernel_install(const struct fake_kernel_config *cfg)
{
	release_all();
	fk.cfg = cfg ? *cfg : fake_kernel_defaults();
	fk.next_id = 1000;
	install_proc();
	hwprof_sys_set(&fake_kernel_sys);
}

void fake_kernel_uninstall(void)
{
	release_all();
	remove_proc();
	hwprof_sys_set(NULL);
}

void fake_kernel_set_count(uint32_t type, uint64_t config, uint64_t value)
{
	struct fake_count *c = find_count(type, config, true);
	c->value = value;
	c->has_value = true;
}

void fake_kernel_set_times(uint32_t type, uint64_t config, uint64_t enabled_ns, uint64_t running_ns)
{
	struct fake_count *c = find_count(type, config, true);
	c->enabled_ns = enabled_ns;
	c->running_ns = running_ns;
	c->has_times = true;
}

void fake_kernel_set_lost(uint32_t type, uint64_t config, uint64_t lost)
{
	find_count(type, config, true)->lost = lost;
}

size_t fake_kernel_nopens(void)
{
	return fk.nopens;
}

const struct fake_kernel_open *fake_kernel_open_log(size_t i)
{
	return i < fk.nopens ? &fk.opens[i] : NULL;
}

size_t fake_kernel_nioctls(void)
{
	return fk.nioctls;
}

const struct fake_kernel_ioctl *fake_kernel_ioctl_log(size_t i)
{
	return i < fk.nioctls ? &fk.ioctls[i] : NULL;
}

int fake_kernel_nfds_open(void)
{
	return nfds_open();
}

int fake_kernel_is_enabled(int fd)
{
	struct fake_event *e = find(fd);
	return e ? e->enabled : -1;
}

uint64_t fake_kernel_id(int fd)
{
	struct fake_event *e = find(fd);
	return e ? e->id : 0;
}
