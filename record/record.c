/* record.c - `hwprof record`: sample a command into a sample file.
 *
 * Order of work, so that bad input fails before the target runs:
 *   options -> events parsed -> command found -> output file creatable -> target forked
 *   (waiting) -> sampling events opened per CPU on its pid, counting group beside them ->
 *   writer opened with the header -> target released (enable_on_exec starts the events at
 *   its exec) -> rings drained until it exits or a signal stops us -> trailer.
 */
#include "builtin.h"
#include "cli.h"

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attach.h"
#include "task.h"
#include "buildid.h"
#include "host.h"
#include "decode.h"
#include "hwprof/event.h"
#include "hwprof/hwprof.h"
#include "hwprof/sampfile.h"
#include "launch.h"
#include "merge.h"
#include "sampler.h"

struct record_options {
	const char *event;   /* -e; NULL: the best miss event the host has, else cpu-clock */
	long long period;    /* -c, events per sample; 0: frequency mode */
	long long freq;	     /* -F, Hz */
	long long pages;     /* -m, data pages per CPU ring */
	const char *output;  /* -o */
	const char *count;   /* --count; NULL: the default set of `hwprof stat` */
	bool no_count;	     /* --no-count */
	long long pid;	     /* -p: attach to this running process instead of a command */
	bool callchain;	     /* -g, --call-graph fp: each sample's callers */
	long long max_stack; /* --max-stack: callchain entries at most; 0: not given */
};

static const char usage_text[] =
    "usage: hwprof record [-e EVENT] [-c PERIOD | -F HZ] [-g] [--max-stack N] [-m PAGES]\n"
    "                     [-o FILE] [--count EVENTS | --no-count] [--] CMD [ARGS...]\n"
    "       hwprof record [OPTIONS] -p PID\n"
    "\n"
    "Runs CMD and samples it (threads and children included) into a sample file.\n"
    "\n"
    "  -e, --event EVENT    sampling event(s), perf spelling (default: LLC-load-misses:P,\n"
    "                       else cache-misses:P, else cpu-clock on hosts without a PMU)\n"
    "  -c, --period PERIOD  one sample every PERIOD events\n"
    "  -F, --freq HZ        about HZ samples per second (default 4000; the period varies)\n"
    "  -g                   record each sample's callers (call graph by frame pointers)\n"
    "      --call-graph fp  the same as -g\n"
    "      --max-stack N    callers kept at most, the sample's ip included (default 127,\n"
    "                       and at most kernel.perf_event_max_stack); deeper ones are cut\n"
    "                       and marked truncated\n"
    "  -m, --mmap-pages N   ring buffer data pages per CPU, a power of two (default 256)\n"
    "  -o, --output FILE    sample file (default hwprof.data; an existing one becomes\n"
    "                       FILE.old)\n"
    "      --count EVENTS   counting group recorded beside the samples (default as\n"
    "                       'hwprof stat')\n"
    "      --no-count       no counting group\n"
    "  -p, --pid PID        sample a running process (its threads, and the threads and\n"
    "                       children it creates) until it ends or ^C\n"
    "  -h, --help           this text\n"
    "\n"
    "Exit status: the command's own (128+N when it was killed by signal N; 127 when it\n"
    "could not be executed; 0 with -p); 2 when recording failed, 64 for a usage error.\n";

/* Set by the signal handlers; read after ppoll() returns (the signals are blocked otherwise). */
static volatile sig_atomic_t got_stop, got_child;

static void on_stop(int sig)
{
	got_stop = sig;
}

static void on_child(int sig)
{
	(void)sig;
	got_child = 1;
}

/* Everything one recording owns; freed by record_cleanup(). */
struct recording {
	struct record_options opt;
	char **argv; /* the command */
	struct hwprof_event_list events;
	struct hwprof_event_list counts;
	struct sampler sampler;
	/* The counting groups: GROUPS[0] on pids[0] (inherited by what it starts), with -p one
	 * more per other thread of the process, summed when read; NGROUPS 0: no counting. */
	struct hwprof_group **groups;
	size_t ngroups;
	struct hwprof_file_header header;
	struct hwprof_writer *writer;
	struct launch target;
	pid_t *pids; /* what the events are opened on: the target, or -p's threads */
	size_t npids;
	int pidfd; /* -p: readable when the process ends; else -1 */
	struct merge merge;
	bool owned_argv;  /* ARGV was read from /proc (-p) and is ours to free */
	bool created;	  /* the output file is ours to remove on failure */
	int out_fd;	  /* the output, opened and locked by prepare_output; -1 once the
			   * writer owns it */
	bool renamed_old; /* FILE was renamed to FILE.old */
	/* tallies */
	uint64_t samples, lost, throttles, bad;
	uint64_t stacks_truncated; /* samples whose callchain was cut */
	pid_t *forked; /* processes the FORK records announced and no EXIT record ended */
	size_t nforked, forked_cap;
	int write_err; /* first -errno of the writer */
	struct {
		char path[4096];
		uint8_t id[20];
		int size;
	} bid_cache[32];
	unsigned bid_next;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* -F above kernel.perf_event_max_sample_rate is refused by the kernel with a bare EINVAL:
 * that limit is the bound, named as such. Without it, 10 MHz is beyond any kernel's. */
static long long parse_freq(const char *arg)
{
	long long max = hwprof_max_sample_rate();

	if (max <= 0)
		return cli_parse_num("-F", arg, 1, 10000000);
	return cli_parse_num_why("-F", arg, 1, max,
				 "the kernel's limit in Hz, kernel.perf_event_max_sample_rate; "
				 "lower -F, use -c, or raise that limit");
}

static void parse_options(struct record_options *o, int argc, char **argv)
{
	static const char short_options[] = "+e:c:F:gm:o:p:h";
	enum { OPT_COUNT = 256, OPT_NO_COUNT, OPT_CALL_GRAPH, OPT_MAX_STACK };
	static const struct option longopts[] = {
	    {"event", required_argument, NULL, 'e'},
	    {"period", required_argument, NULL, 'c'},
	    {"count-period", required_argument, NULL, 'c'},
	    {"freq", required_argument, NULL, 'F'},
	    {"mmap-pages", required_argument, NULL, 'm'},
	    {"output", required_argument, NULL, 'o'},
	    {"count", required_argument, NULL, OPT_COUNT},
	    {"no-count", no_argument, NULL, OPT_NO_COUNT},
	    {"call-graph", required_argument, NULL, OPT_CALL_GRAPH},
	    {"max-stack", required_argument, NULL, OPT_MAX_STACK},
	    {"pid", required_argument, NULL, 'p'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	/* '+': stop at the command, so its own options are not ours. */
	while ((c = getopt_long(argc, argv, short_options, longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			o->event = optarg;
			break;
		case 'c':
			o->period = cli_parse_num("-c", optarg, 1, INT64_MAX);
			break;
		case 'F':
			o->freq = parse_freq(optarg);
			break;
		case 'm':
			o->pages = cli_parse_num("-m", optarg, 1, 1 << 20);
			if (o->pages & (o->pages - 1))
				die_usage(
				    "-m %s: not a power of two (try -m %lld)", optarg,
				    1ll << (63 - __builtin_clzll((unsigned long long)o->pages)));
			break;
		case 'o':
			if (!*optarg)
				die_usage("-o '': empty file name");
			o->output = optarg;
			break;
		case OPT_COUNT:
			o->count = optarg;
			break;
		case OPT_NO_COUNT:
			o->no_count = true;
			break;
		case 'p':
			o->pid = cli_parse_num("-p", optarg, 1, INT32_MAX);
			break;
		case 'g':
			o->callchain = true;
			break;
		case OPT_CALL_GRAPH:
			if (!strcmp(optarg, "fp"))
				o->callchain = true;
			else if (!strncmp(optarg, "dwarf", 5) && (!optarg[5] || optarg[5] == ','))
				die_usage("--call-graph %s: not supported yet (use -g: frame "
					  "pointers; build with -fno-omit-frame-pointer)",
					  optarg);
			else
				die_usage("--call-graph '%s': unknown mode (fp, as -g)", optarg);
			break;
		case OPT_MAX_STACK:
			o->max_stack = cli_parse_num("--max-stack", optarg, 1, HWPROF_STACK_MAX);
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(EXIT_OK);
		default:
			cli_bad_option(argv, short_options, longopts);
		}
	}
	if (o->period && o->freq)
		die_usage("-c %lld and -F %lld exclude each other: sample by period or by "
			  "frequency",
			  o->period, o->freq);
	if (o->count && o->no_count)
		die_usage("--count and --no-count exclude each other");
	if (o->max_stack && !o->callchain)
		die_usage("--max-stack %lld: no call graph to cut (add -g)", o->max_stack);
}

/* attr.sample_max_stack above kernel.perf_event_max_stack fails the open with EOVERFLOW
 * (perf_event_open(2)); perf's default is 127 entries. Returns the limit to ask for. */
static uint16_t max_stack(long long asked)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "re");
	long long max = 0;

	if (f) {
		if (fscanf(f, "%lld", &max) != 1)
			max = 0;
		fclose(f);
	}
	if (asked && max > 0 && asked > max)
		die_usage("--max-stack %lld: above the kernel's limit of %lld (lower it, or raise "
			  "kernel.perf_event_max_stack)",
			  asked, max);
	if (!asked)
		asked = max > 0 && max < 127 ? max : 127;
	return (uint16_t)asked;
}

/* Whether another process holds the lock of the existing regular file PATH: a record writing
 * it. Two records into one file would interleave their blocks into a corrupt file. */
static bool output_busy(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), busy;
	struct stat st;

	if (fd < 0)
		return false;
	busy = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) < 0 &&
	       errno == EWOULDBLOCK;
	close(fd); /* releases the lock it may have taken */
	return busy;
}

static int output_error(const char *path, int err)
{
	if (err == EMFILE || err == ENFILE)
		return error_errno(err, "%s: %m (raise 'ulimit -n')", path);
	if (err == EWOULDBLOCK)
		return error("%s: another 'hwprof record' is writing it (choose another file with "
			     "-o)",
			     path);
	return error_errno(err, "%s: %m (choose a writable path with -o)", path);
}

/* Whether PATH is a regular file starting with the ELF magic: `-o ./prog` would move a
 * program aside to prog.old, and a stale `prog` would be a sample file. */
static bool is_elf(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	unsigned char m[SELFMAG];
	struct stat st;
	bool elf;

	if (fd < 0)
		return false;
	elf = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && read(fd, m, SELFMAG) == SELFMAG &&
	      !memcmp(m, ELFMAG, SELFMAG);
	close(fd);
	return elf;
}

/* Moves an existing FILE to FILE.old (as perf does) and creates FILE, so that an unwritable
 * path is reported before the target runs. A regular file stays locked (flock) while this
 * record writes it (r->out_fd goes to the writer). */
static int prepare_output(struct recording *r)
{
	const char *path = r->opt.output;
	struct stat st;
	char old[4200];
	int fd, e;

	if (output_busy(path))
		return output_error(path, EWOULDBLOCK);
	if (is_elf(path))
		return error("%s: an ELF file (a program or library), not a sample file: not "
			     "replaced (choose another file with -o)",
			     path);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		snprintf(old, sizeof(old), "%s.old", path);
		if (rename(path, old) < 0)
			return error("%s: cannot rename to %s: %m (choose another file with -o)",
				     path, old);
		r->renamed_old = true;
	} else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		return error("%s: is a directory (name a file with -o)", path);
	} else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
		/* A FIFO would block until a reader comes; a socket cannot be opened. */
		return error("%s: not a regular file (name a file with -o)", path);
	}
	/* Truncated only once locked: a record that started meanwhile keeps its file. */
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || fstat(fd, &st) < 0) {
		e = errno;
		goto fail;
	}
	if (S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) < 0) {
		e = errno;
		goto fail;
	}
	if (S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0) {
		e = errno;
		goto fail;
	}
	/* Only a regular file of ours may be removed when recording fails: never a device
	 * such as /dev/null or /dev/full. */
	r->created = S_ISREG(st.st_mode);
	r->out_fd = fd;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	/* The previous file back, unless another record holds the name now. */
	if (r->renamed_old && e != EWOULDBLOCK) {
		rename(old, path);
		r->renamed_old = false;
	}
	return output_error(path, e);
}

/* Parses SPEC into LIST, or exits with a usage error naming it. */
static void parse_events(const char *spec, struct hwprof_event_list *list)
{
	char err[256] = "";
	int ret = hwprof_events_parse(spec, list, err, sizeof(err));

	if (ret < 0 && *err)
		die_usage("%s", err);
	if (ret < 0) {
		errno = -ret;
		die_usage("%m");
	}
}

/* Opens the sampling events: the user's, or the first default that the host opens. */
static int open_sampling(struct recording *r, const struct sampler_config *cfg)
{
	static const char *const defaults[] = {"LLC-load-misses:P", "cache-misses:P"};
	char err[512] = "";
	int ret;

	if (r->opt.event) {
		ret =
		    sampler_open(&r->sampler, &r->events, cfg, r->pids, r->npids, err, sizeof(err));
		return ret < 0 ? error("%s", err) : 0;
	}
	if (hwprof_host_has_pmu()) {
		for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
			parse_events(defaults[i], &r->events);
			if (!sampler_open(&r->sampler, &r->events, cfg, r->pids, r->npids, err,
					  sizeof(err)))
				return 0;
			hwprof_events_free(&r->events);
		}
		note("no miss event opens on this host (%s); sampling cpu-clock", err);
	} else {
		note("the host exposes no hardware PMU (virtualized?): sampling cpu-clock instead "
		     "of LLC-load-misses");
	}
	parse_events("cpu-clock", &r->events);
	ret = sampler_open(&r->sampler, &r->events, cfg, r->pids, r->npids, err, sizeof(err));
	return ret < 0 ? error("%s", err) : 0;
}

static void report_precision(const struct recording *r)
{
	for (size_t i = 0; i < r->sampler.nevents; i++) {
		const struct hwprof_file_event *f = &r->sampler.fev[i];
		const struct hwprof_event *ev = &r->events.ev[i];

		if (f->precise_obtained < f->precise_requested)
			note("%s: precise_ip %u refused, sampling with precise_ip %u", f->name,
			     f->precise_requested, f->precise_obtained);
		if (hwprof_event_is_hw(ev) && f->precise_obtained == 0)
			warning("%s samples with precise_ip 0: expect skid (the sampled IP lands "
				"some instructions after the one that caused the event; %s)",
				f->name,
				f->precise_requested ? "this host takes no precise level for it"
						     : "try a :P modifier");
	}
}

/* cpu-clock and task-clock count nanoseconds, and the kernel raises a sample period below
 * 10000 ns to 10000 (perf_swevent_init_hrtimer): -c 1 is not one sample per event. */
static void note_clock_period(const struct recording *r)
{
	if (!r->opt.period || r->opt.period >= 10000)
		return;
	for (size_t i = 0; i < r->sampler.nevents; i++) {
		const struct hwprof_file_event *f = &r->sampler.fev[i];

		if (f->type == PERF_TYPE_SOFTWARE && (f->config == PERF_COUNT_SW_CPU_CLOCK ||
						      f->config == PERF_COUNT_SW_TASK_CLOCK)) {
			note(
			    "-c %lld: %s periods are in ns; the kernel's minimum is about 10000 ns "
			    "(10 µs): give -c 10000 or more, or a rate with -F",
			    r->opt.period, f->name);
			return;
		}
	}
}

/* A counting group of thread PIDS[I] of -p did not open (-ERR): closes every group opened, so
 * that no total short of some threads is written. Fatal for a --count the user gave. */
static int counting_threads_failed(struct recording *r, const char *spec, size_t i, int err)
{
	const char *way = err == -EMFILE ? " (raise 'ulimit -n': each thread needs a file "
					   "descriptor per counted event)"
					 : "";

	for (size_t g = 0; g < r->ngroups; g++)
		hwprof_group_close(r->groups[g]);
	r->ngroups = 0;
	if (r->opt.count)
		return error_errno(err, "--count %s: thread %d of -p %d: %m%s", spec,
				   (int)r->pids[i], (int)r->pids[0], way);
	warning_errno(err,
		      "counting group %s not opened for thread %d of -p %d: %m; recording "
		      "samples only%s",
		      spec, (int)r->pids[i], (int)r->pids[0], way);
	return 0;
}

/* Opens the counting group beside the samples. The default set is best effort; a set the
 * user asked for must open. */
static int open_counting(struct recording *r)
{
	const char *spec = r->opt.count;
	int ret;

	if (r->opt.no_count)
		return 0;
	if (!spec) /* `hwprof stat`'s set: kernel work counted with :uk where allowed */
		spec = hwprof_count_default_spec(hwprof_host_has_pmu());
	if (!r->opt.count)
		parse_events(spec, &r->counts);
	r->groups = xcalloc(r->npids, sizeof(*r->groups));
	ret = hwprof_group_open_list(&r->groups[0], &r->counts, r->pids[0], -1,
				     HWPROF_GROUP_INHERIT |
					 (r->pidfd < 0 ? HWPROF_GROUP_ENABLE_ON_EXEC : 0));
	if (ret < 0) {
		const char *why = hwprof_strerror_last();

		if (r->opt.count)
			return *why ? error("--count %s: %s", spec, why)
				    : error_errno(ret, "--count %s: %m", spec);
		if (*why)
			warning("counting group %s not opened: %s (recording samples only)", spec,
				why);
		else
			warning_errno(
			    ret, "counting group %s not opened: %m (recording samples only)", spec);
		return 0;
	}
	/* With -p, inherit reaches only the threads a counted thread creates from now on: the
	 * threads that already exist get a group each, summed when read. A thread that ended
	 * in between (ESRCH) has nothing to count; any other failure would leave totals short
	 * of some threads' work, so the file gets no counted totals at all. */
	r->ngroups = 1;
	for (size_t i = 1; r->pidfd >= 0 && i < r->npids; i++) {
		ret = hwprof_group_open_list(&r->groups[r->ngroups], &r->counts, r->pids[i], -1,
					     HWPROF_GROUP_INHERIT);
		if (ret == 0)
			r->ngroups++;
		else if (ret != -ESRCH)
			return counting_threads_failed(r, spec, i, ret);
	}
	return 0;
}

static int fill_header(struct recording *r)
{
	size_t nc = r->ngroups ? r->counts.n : 0;
	int argc = 0, ret;

	ret = hwprof_header_init(&r->header);
	if (ret < 0)
		return error_errno(ret, "host facts for the file header: %m");
	while (r->argv[argc])
		argc++;
	r->header.argc = (uint32_t)argc;
	r->header.argv = xcalloc((size_t)argc + 1, sizeof(char *));
	for (int i = 0; i < argc; i++)
		r->header.argv[i] = xstrdup(r->argv[i]);
	r->header.nevents = (uint32_t)(r->sampler.nevents + nc);
	r->header.events = xcalloc(r->header.nevents, sizeof(*r->header.events));
	memcpy(r->header.events, r->sampler.fev, r->sampler.nevents * sizeof(*r->sampler.fev));
	for (size_t i = 0; i < nc; i++) {
		const struct hwprof_event *ev = hwprof_group_event(r->groups[0], i);
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

/* The kernel leaves the build-id out of MMAP2 when it could not read it without faulting. */
static void fill_build_id(struct recording *r, struct hwprof_rec_mmap *m)
{
	unsigned i, n = sizeof(r->bid_cache) / sizeof(r->bid_cache[0]);
	int size;

	if (m->build_id_size || m->filename[0] != '/')
		return;
	for (i = 0; i < n; i++) {
		if (!strcmp(r->bid_cache[i].path, m->filename)) {
			size = r->bid_cache[i].size;
			goto found;
		}
	}
	i = r->bid_next++ % n;
	snprintf(r->bid_cache[i].path, sizeof(r->bid_cache[i].path), "%s", m->filename);
	size = r->bid_cache[i].size = buildid_read(m->filename, r->bid_cache[i].id);
found:
	if (size > 0) {
		m->build_id_size = (uint8_t)size;
		memcpy(m->build_id, r->bid_cache[i].id, (size_t)size);
	}
}

/* The mapped file's size, mtime, device and inode from stat(2) now: report compares them with
 * the file it opens when no build-id can tell a rebuild. A file replaced since it was mapped
 * (another inode than MMAP2's) is not the one mapped: its facts stay MMAP2's. The device is
 * stat(2)'s, as report will see it: on overlayfs MMAP2 names the layer's device. */
static void fill_identity(struct hwprof_rec_mmap *m)
{
	struct stat st;

	if (m->filename[0] != '/' || stat(m->filename, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	if (m->ino_known && m->ino != st.st_ino)
		return;
	m->ino_known = true;
	m->dev_major = major(st.st_dev);
	m->dev_minor = minor(st.st_dev);
	m->ino = st.st_ino;
	m->stat_known = true;
	m->size = (uint64_t)st.st_size;
	m->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
}

/* Keeps the set of processes (not threads) the target started and that have not ended, for
 * the note on descendants still running when the target exits. A FORK whose pid differs from
 * its ppid is a new process; an EXIT with pid == tid ends one. */
static void track_process(struct recording *r, const struct hwprof_record *rec)
{
	const struct hwprof_rec_task *t = &rec->task;
	pid_t pid = (pid_t)t->pid;

	if (rec->type == HWPROF_REC_FORK) {
		if (t->pid == t->ppid)
			return;
		if (r->nforked == r->forked_cap) {
			r->forked_cap = r->forked_cap ? 2 * r->forked_cap : 16;
			r->forked = xrealloc(r->forked, r->forked_cap * sizeof(*r->forked));
		}
		r->forked[r->nforked++] = pid;
		return;
	}
	if (t->pid != t->tid)
		return;
	for (size_t i = 0; i < r->nforked; i++) {
		if (r->forked[i] == pid) {
			r->forked[i] = r->forked[--r->nforked];
			return;
		}
	}
}

/* Whether PID is a process that still runs (not a zombie left for its new parent). */
static bool process_alive(pid_t pid)
{
	return !hwprof_task_gone(pid);
}

/* One perf record from a ring: translated, tallied, queued for the time-ordered write. */
static int on_ring_record(const struct perf_event_header *h, size_t len, void *arg)
{
	struct recording *r = arg;
	struct hwprof_record rec;
	int ret = decode_record(&r->sampler.decode, h, len, &rec);

	if (ret < 0) {
		r->bad++;
		return 0;
	}
	if (ret == 0)
		return 0;
	switch (rec.type) {
	case HWPROF_REC_SAMPLE: {
		const struct decode_stack *st = r->sampler.decode.stack;
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
		r->stacks_truncated += st->truncated;
		break;
	}
	case HWPROF_REC_LOST:
		r->lost += rec.lost.lost;
		break;
	case HWPROF_REC_THROTTLE:
		r->throttles++;
		break;
	case HWPROF_REC_MMAP:
		if (!r->sampler.kernel_build_id || !rec.mmap.build_id_size)
			fill_build_id(r, &rec.mmap);
		fill_identity(&rec.mmap);
		break;
	default:
		break;
	}
	ret = merge_add(&r->merge, &rec);
	return ret < 0 ? ret : 0;
}

static int emit(const struct hwprof_record *rec, void *arg)
{
	struct recording *r = arg;
	int ret = hwprof_writer_add(r->writer, rec);

	if (ret < 0) {
		if (!r->write_err)
			r->write_err = ret;
		return ret;
	}
	if (rec->type == HWPROF_REC_SAMPLE)
		r->samples++;
	/* In time order here, after the merge: a child's EXIT drained from its CPU's ring
	 * before its FORK from the parent's would leave the pid tracked for good. With -p,
	 * nothing of it is ours to end or to wait for. */
	else if ((rec->type == HWPROF_REC_FORK || rec->type == HWPROF_REC_EXIT) && r->pidfd < 0)
		track_process(r, rec);
	return 0;
}

/* The output failed with -ERR after the header: the blocks written before are whole and
 * report reads them as a file cut short, so the file is kept (never lost data). */
static int write_failed(struct recording *r, int err)
{
	const char *way = err == -ENOSPC   ? "free some space or choose another -o"
			  : err == -EFBIG  ? "raise 'ulimit -f' or choose another -o"
			  : err == -EDQUOT ? "raise the disk quota or choose another -o"
					   : "choose another -o";

	r->created = false;
	return error_errno(err,
			   "%s: %m: recording stopped; the samples written before are kept, read "
			   "as cut short (%s)",
			   r->opt.output, way);
}

/* Drains every ring, then writes what is older than the start of this round. */
static int drain(struct recording *r, bool final)
{
	/* Stamped-to-published delay of a kernel record is far below this margin. */
	const uint64_t margin = 20 * 1000000ull;
	uint64_t start = now_ns(), upto;
	long ret;

	for (size_t c = 0; c < r->sampler.ncpus; c++) {
		ret = ring_drain(&r->sampler.cpus[c].ring, on_ring_record, r);
		if (ret < 0 && r->write_err)
			return write_failed(r, r->write_err);
		if (ret < 0)
			return error_errno((int)ret, "reading the ring buffer of CPU %d: %m",
					   r->sampler.cpus[c].cpu);
	}
	upto = final ? UINT64_MAX : start > margin ? start - margin : 0;
	ret = merge_flush(&r->merge, upto, emit, r);
	if (ret < 0 && r->write_err)
		return write_failed(r, r->write_err);
	if (ret < 0)
		return error_errno((int)ret, "ordering the records: %m");
	return 0;
}

/* Sends SIG to the target and what it started: its own group, or (sharing hwprof's group on
 * a terminal) the launched process and the descendants the FORK records named. A stopped
 * process (SIGSTOP) is continued so that it can take the signal. Returns whether any of them
 * was still there. */
static bool signal_target(struct recording *r, int sig)
{
	bool any = launch_kill(&r->target, sig) == 0;

	if (sig && sig != SIGKILL)
		launch_kill(&r->target, SIGCONT);
	if (r->target.pgid > 0)
		return any;
	for (size_t i = 0; i < r->nforked; i++) {
		/* Still in hwprof's group: a pid whose EXIT record was lost and which was
		 * reused by an unrelated process must not be signalled. */
		if (!process_alive(r->forked[i]) || getpgid(r->forked[i]) != getpgrp())
			continue;
		any = true;
		if (sig) {
			kill(r->forked[i], sig);
			if (sig != SIGKILL)
				kill(r->forked[i], SIGCONT);
		}
	}
	return any;
}

/* Passes a stop signal on to the launched target: a terminal's ^C reached it too, so it gets
 * a moment to go by itself first; in the end SIGKILL. */
static void stop_target(struct recording *r, uint64_t *stop_at, int *forwarded)
{
	uint64_t t = now_ns();

	if (!*stop_at)
		*stop_at = t;
	if (!*forwarded && t - *stop_at > 100000000ull) {
		signal_target(r, got_stop);
		*forwarded = 1;
	} else if (*forwarded == 1 && t - *stop_at > 3000000000ull) {
		signal_target(r, SIGKILL);
		*forwarded = 2;
	}
}

/* Reaps the launched target without blocking. Returns true when it has ended (*WSTATUS set).
 * Stops of the target are left to the shell's job control (it shares hwprof's group on a
 * terminal) or to whoever stopped it. */
static bool reap_target(struct recording *r, int *wstatus)
{
	int st = 0;
	pid_t w = waitpid(r->target.pid, &st, WNOHANG);

	if (w == r->target.pid) {
		*wstatus = st;
		/* Reaped: the pid may be reused at once, so nothing signals it any more. */
		r->target.pid = -1;
		return true;
	}
	return w < 0 && errno == ECHILD;
}

/* Drains the rings until the target ends (reaped into *WSTATUS) or, with -p, until the
 * process ends or a stop signal. After a stop signal, also until the rest of the target's
 * process group has ended: what ignores the signal gets SIGKILL with the rest 3 s later.
 * Returns 0 or -1 after an error message. */
static int record_loop(struct recording *r, const sigset_t *unblocked, int *wstatus)
{
	size_t n = r->sampler.ncpus;
	struct pollfd *pfd = xcalloc(n + 1, sizeof(*pfd));
	uint64_t last_flush = now_ns(), stop_at = 0;
	int forwarded = 0, ret = 0;
	bool reaped = false;

	for (size_t i = 0; i < n; i++) {
		pfd[i].fd = r->sampler.cpus[i].fd;
		pfd[i].events = POLLIN;
	}
	pfd[n].fd = r->pidfd;
	pfd[n].events = POLLIN;
	for (;;) {
		struct timespec ts = {0, (got_stop ? 50 : 500) * 1000000L};
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
		if (now_ns() - last_flush > 1000000000ull) {
			hwprof_writer_flush(r->writer);
			last_flush = now_ns();
		}
		if (r->pidfd >= 0) {
			if (attached_gone || got_stop)
				break;
			continue;
		}
		got_child = 0;
		if (!reaped)
			reaped = reap_target(r, wstatus);
		/* Without a stop signal, what the target leaves running is not ours to end. After
		 * the SIGKILL nothing of the group runs on: only zombies an init that does not reap
		 * (a container's) may keep the group, and kill(2) still finds them. */
		if (reaped && (!got_stop || forwarded == 2 || !signal_target(r, 0)))
			break;
		if (got_stop)
			stop_target(r, &stop_at, &forwarded);
	}
	free(pfd);
	return ret;
}

/* Adds the counts of a -p thread's group to SUM: value, time_enabled and time_running add up
 * over threads as they do over the children that inherit. */
static int add_thread_counts(struct hwprof_group *g, struct hwprof_count *sum, size_t n)
{
	struct hwprof_count *c = xcalloc(n, sizeof(*c));
	int ret = hwprof_group_read(g, c, n);

	for (size_t i = 0; ret == 0 && i < n; i++) {
		sum[i].value += c[i].value;
		sum[i].enabled_ns += c[i].enabled_ns;
		sum[i].running_ns += c[i].running_ns;
		sum[i].counted |= c[i].counted;
	}
	free(c);
	return ret;
}

static void read_counts(struct recording *r, struct hwprof_file_trailer *t)
{
	size_t n = r->ngroups ? hwprof_group_size(r->groups[0]) : 0;
	struct hwprof_count *c;
	int ret;

	if (!n)
		return;
	c = xcalloc(n, sizeof(*c));
	t->counts = xcalloc(n, sizeof(*t->counts));
	t->ncounts = (uint32_t)n;
	ret = hwprof_group_read(r->groups[0], c, n);
	for (size_t g = 1; ret == 0 && g < r->ngroups; g++)
		ret = add_thread_counts(r->groups[g], c, n);
	if (ret < 0)
		warning_errno(ret, "reading the counting group: %m (counts not recorded)");
	for (size_t i = 0; i < n; i++) {
		const struct hwprof_event *ev = hwprof_group_event(r->groups[0], i);
		struct hwprof_file_count *fc = &t->counts[i];

		snprintf(fc->event, sizeof(fc->event), "%s", ev->spec);
		fc->scale = ev->scale ? ev->scale : 1.0;
		snprintf(fc->unit, sizeof(fc->unit), "%s", hwprof_event_unit(ev));
		if (ret < 0)
			continue;
		fc->counted = c[i].counted;
		fc->value = c[i].value;
		fc->enabled_ns = c[i].enabled_ns;
		fc->running_ns = c[i].running_ns;
		/* Stored as not counted, never as a 0 that says nothing; the file has no room
		 * for the reason, so it is said here. */
		const char *why = c[i].counted ? NULL : hwprof_count_why_not(ev);
		if (why)
			note("%s: not counted (%s)", ev->spec, why);
	}
	free(c);
}

/* The CPU time of the target in ns: task-clock of the counting group (threads and every
 * child, inherited), else the time the first sampling event ran; 0 when unknown. */
static uint64_t target_cpu_ns(const struct recording *r, const struct hwprof_file_trailer *t)
{
	uint64_t ns = 0;

	for (uint32_t i = 0; r->ngroups && i < t->ncounts; i++) {
		const struct hwprof_event *ev = hwprof_group_event(r->groups[0], i);
		const struct hwprof_file_count *fc = &t->counts[i];
		struct hwprof_count c = {
		    .value = fc->value, .enabled_ns = fc->enabled_ns, .running_ns = fc->running_ns};

		if (ev->type != PERF_TYPE_SOFTWARE || ev->config != PERF_COUNT_SW_TASK_CLOCK)
			continue;
		if (!fc->counted || !fc->value)
			break;
		/* Scaled as hwprof stat does when the event was multiplexed. */
		hwprof_count_scale(&c, 1.0);
		return c.counted ? (uint64_t)c.scaled : 0;
	}
	return sampler_running_ns(&r->sampler, &ns) < 0 ? 0 : ns;
}

/* -F asks the kernel for HZ samples per second the event runs, i.e. per CPU-second of the
 * target: a wall-clock rate is compared to it only when the CPU time is unknown. */
static void print_summary(const struct recording *r, const struct hwprof_file_trailer *t)
{
	struct stat st;
	double secs = (double)t->duration_ns / 1e9, bytes = 0;
	double cpu_secs = (double)target_cpu_ns(r, t) / 1e9;
	const struct hwprof_file_event *f = &r->sampler.fev[0];
	char rate[128], per_sample[32];

	if (stat(r->opt.output, &st) == 0)
		bytes = (double)st.st_size;
	if (cpu_secs > 0 && f->freq)
		snprintf(rate, sizeof(rate),
			 "%.0f samples per CPU-s (asked %llu Hz) over %.2f s (%.2f CPU-s)",
			 (double)r->samples / cpu_secs, (unsigned long long)f->period_or_freq, secs,
			 cpu_secs);
	else if (cpu_secs > 0)
		snprintf(rate, sizeof(rate), "%.0f samples per CPU-s over %.2f s (%.2f CPU-s)",
			 (double)r->samples / cpu_secs, secs, cpu_secs);
	else
		snprintf(rate, sizeof(rate), "%.0f samples/s over %.2f s",
			 secs > 0 ? (double)r->samples / secs : 0.0, secs);
	/* Undefined without samples: "0.0" would read as a measured size. */
	if (r->samples)
		snprintf(per_sample, sizeof(per_sample), "%.1f", bytes / (double)r->samples);
	else
		snprintf(per_sample, sizeof(per_sample), "-");
	fprintf(stderr,
		"hwprof record: %llu samples, %llu lost, %llu throttles, %s bytes/sample, %s, "
		"%s (%.0f KiB)\n",
		(unsigned long long)r->samples, (unsigned long long)r->lost,
		(unsigned long long)r->throttles, per_sample, rate, r->opt.output, bytes / 1024);
	if (r->opt.callchain)
		fprintf(
		    stderr,
		    "hwprof record: call graph (frame pointers, --max-stack %lld): %llu samples "
		    "with a truncated stack\n",
		    r->opt.max_stack, (unsigned long long)r->stacks_truncated);
	if (!r->samples && r->pidfd >= 0)
		warning("no samples (PID %d was recorded for %.2f s; it may have been idle then, "
			"else lower -c or raise -F)",
			(int)r->opt.pid, secs);
	else if (!r->samples && f->type == PERF_TYPE_SOFTWARE &&
		 (f->config == PERF_COUNT_SW_CPU_CLOCK || f->config == PERF_COUNT_SW_TASK_CLOCK) &&
		 cpu_secs < 0.01)
		/* A clock event samples running code only: a higher rate cannot help a command
		 * that sleeps. */
		warning(
		    "no samples (the command ran %.2f s but used %.3f CPU-s: %s samples running "
		    "code only; record a run that computes, or count it with 'hwprof stat')",
		    secs, cpu_secs, f->name);
	else if (!r->samples)
		warning("no samples (the command ran %.2f s; lower -c or raise -F)", secs);
	if (r->lost)
		warning("%llu samples lost: the ring buffer filled up (try a larger -m, a larger "
			"-c or a lower -F)",
			(unsigned long long)r->lost);
	if (r->throttles == 1)
		warning("sampling was throttled once: the kernel capped the sample rate "
			"(kernel.perf_event_max_sample_rate; try a lower -F or a larger -c)");
	else if (r->throttles)
		warning("sampling was throttled %llu times: the kernel capped the sample rate "
			"(kernel.perf_event_max_sample_rate; try a lower -F or a larger -c)",
			(unsigned long long)r->throttles);
	if (r->bad)
		warning("%llu malformed records from the kernel were skipped",
			(unsigned long long)r->bad);
}

static void record_cleanup(struct recording *r, bool failed)
{
	if (r->target.pid > 0) {
		launch_kill(&r->target, SIGKILL);
		launch_abort(&r->target);
	}
	free(r->forked);
	if (r->writer)
		hwprof_writer_close(r->writer, NULL);
	r->writer = NULL;
	if (r->pidfd >= 0)
		close(r->pidfd);
	free(r->pids);
	if (r->owned_argv) {
		for (char **a = r->argv; *a; a++)
			free(*a);
		free(r->argv);
	}
	for (size_t i = 0; i < r->ngroups; i++)
		hwprof_group_close(r->groups[i]);
	free(r->groups);
	sampler_close(&r->sampler);
	merge_free(&r->merge);
	hwprof_header_release(&r->header);
	hwprof_events_free(&r->events);
	hwprof_events_free(&r->counts);
	if (r->out_fd >= 0)
		close(r->out_fd);
	if (failed && r->created) {
		unlink(r->opt.output);
		if (r->renamed_old) {
			char old[4200];
			snprintf(old, sizeof(old), "%s.old", r->opt.output);
			rename(old, r->opt.output);
		}
	}
}

/* Without -p: checks the command and the output, then forks the target (waiting). */
static int setup_launch(struct recording *r)
{
	char msg[PATH_MAX + 256];
	int ret = launch_check(r->argv[0]);

	if (ret) {
		return error_status(EXIT_NOT_EXECUTED, "%s",
				    launch_strerror(r->argv[0], ret, msg, sizeof(msg)));
	}
	/* prepare_output() would move the program aside and leave an empty file to exec. */
	if (launch_is_program(r->argv[0], r->opt.output)) {
		error("-o %s is the program being recorded (choose another file with -o)",
		      r->opt.output);
		return EXIT_USAGE;
	}
	if (prepare_output(r) < 0)
		return EXIT_FATAL;
	ret = launch_prepare(&r->target, r->argv);
	if (ret < 0) {
		return error_errno_status(EXIT_FATAL, ret, "starting %s: %m%s", r->argv[0],
					  ret == -EMFILE || ret == -ENFILE ? " (raise 'ulimit -n')"
									   : "");
	}
	r->npids = 1;
	r->pids = xcalloc(1, sizeof(*r->pids));
	r->pids[0] = r->target.pid;
	return 0;
}

/* With -p: the process's threads and command line, and a pidfd to see it end. */
static int setup_attach(struct recording *r)
{
	pid_t pid = (pid_t)r->opt.pid;
	struct attach_target t;
	char **argv = NULL, why[256];
	bool zombie;
	int n;

	/* Causes the kernel would answer with a bare EACCES, or with nothing at all: a kernel
	 * thread opens fine and never gives a user-space sample. */
	n = attach_inspect(pid, &t);
	if (n == 0 && t.kthread)
		return error("PID %d (%s) is a kernel thread: hwprof record samples user "
			     "space (choose a user process; 'hwprof stat -p %d' counts its CPU "
			     "time)",
			     (int)pid, t.comm, (int)pid),
		       EXIT_FATAL;
	if (n == 0 && attach_denied(pid, &t, why, sizeof(why)))
		return error_status(EXIT_FATAL, "-p %d: %s", (int)pid, why);
	zombie = n == 0 && t.state == 'Z';
	n = attach_threads(pid, &r->pids);
	if (n == -ESRCH)
		return error_status(EXIT_FATAL,
				    "-p %d: no such process (see 'ps' for running processes)",
				    (int)pid);
	if (n < 0)
		return error_errno_status(EXIT_FATAL, n,
					  "-p %d: %m (see 'ps' for running processes)", (int)pid);
	r->npids = (size_t)n;
	/* The kernel opens events on a zombie and they never fire. A leader that called
	 * pthread_exit() is a zombie too, but its other threads still run. */
	if (n == 1 && zombie)
		return error_status(EXIT_FATAL,
				    "-p %d (%s): a zombie (defunct): it has exited and waits for "
				    "its parent to reap it, so it cannot be sampled (choose a "
				    "running process)",
				    (int)pid, t.comm);
	n = attach_cmdline(pid, &argv);
	if (n < 0)
		return error_errno_status(EXIT_FATAL, n, "-p %d: reading its command line: %m",
					  (int)pid);
	r->argv = argv;
	r->owned_argv = true;
	r->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (r->pidfd < 0)
		return error_status(EXIT_FATAL, "-p %d: pidfd_open: %m", (int)pid);
	if (prepare_output(r) < 0)
		return EXIT_FATAL;
	return 0;
}

static int synth_record(struct hwprof_record *rec, void *arg)
{
	struct recording *r = arg;

	if (rec->type == HWPROF_REC_MMAP) {
		fill_build_id(r, &rec->mmap);
		fill_identity(&rec->mmap);
	}
	return merge_add(&r->merge, rec);
}

/* Starts the events: releases the launched target, or describes the attached process and
 * enables them. Returns 0, or the exit status after an error message. */
static int start(struct recording *r)
{
	char msg[PATH_MAX + 256];
	int ret;

	if (r->pidfd >= 0) {
		ret = attach_synthesize(r->pids[0], r->pids, r->npids, now_ns(), synth_record, r);
		if (ret < 0)
			return error_errno_status(EXIT_FATAL, ret, "-p %d: reading /proc: %m",
						  (int)r->pids[0]);
		sampler_enable(&r->sampler);
		for (size_t i = 0; i < r->ngroups; i++)
			hwprof_group_enable(r->groups[i]);
		return 0;
	}
	ret = launch_go(&r->target);
	if (ret) {
		ret = ret < 0 ? -ret : ret;
		return error_status(EXIT_NOT_EXECUTED, "%s",
				    launch_strerror(r->argv[0], ret, msg, sizeof(msg)));
	}
	return 0;
}

static void block_signals(sigset_t *unblocked)
{
	struct sigaction sa = {0};
	sigset_t block;

	/* Signals arrive only inside ppoll(), so the flags are never missed. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP); /* the terminal closed: stop as for SIGTERM, file complete */
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, unblocked);
	sigdelset(unblocked, SIGINT);
	sigdelset(unblocked, SIGTERM);
	sigdelset(unblocked, SIGHUP);
	sigdelset(unblocked, SIGCHLD);
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL);
}

/* A daemon-like target (fork, exit, the child runs on) ends the recording when the launched
 * process exits: say that its descendants were not followed to their end. Not after a stop
 * signal: the target's group was ended on purpose, and what it SIGKILLed may still be on its
 * way out. */
static void note_descendants(const struct recording *r)
{
	size_t n = 0;

	if (r->pidfd >= 0 || got_stop)
		return;
	for (size_t i = 0; i < r->nforked; i++)
		n += process_alive(r->forked[i]);
	if (n)
		note("%zu descendant process%s of %s %s still running when it exited: recorded "
		     "up to then only (make the command wait for them)",
		     n, n == 1 ? "" : "es", r->argv[0], n == 1 ? "was" : "were");
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
		warning("reading the sampling events' own totals: %s (lost samples no LOST record "
			"announced are not known)",
			strerror(-ret));
		return 0;
	}
	for (size_t e = 0; e < r->sampler.nevents; e++)
		lost += sampled[e].lost;
	if (lost <= r->lost)
		return 0;
	rec.lost.time = now_ns();
	rec.lost.lost = lost - r->lost;
	rec.lost.cpu = UINT32_MAX;
	ret = hwprof_writer_add(r->writer, &rec);
	if (ret < 0) {
		r->write_err = ret;
		return -1;
	}
	r->lost = lost;
	return 0;
}

/* After the loop: the last records, the counts, the trailer. Returns 0 or -1. */
static int finish(struct recording *r, int wstatus, uint64_t t0)
{
	struct hwprof_file_trailer trailer = {.exit_status = INT32_MIN};
	int ret;

	sampler_disable(&r->sampler);
	trailer.duration_ns = now_ns() - t0;
	if (drain(r, true) < 0)
		return -1;
	trailer.sampled = xcalloc(r->header.nevents, sizeof(*trailer.sampled));
	if (write_unannounced_lost(r, trailer.sampled) < 0) {
		free(trailer.sampled);
		return write_failed(r, r->write_err);
	}
	read_counts(r, &trailer);
	trailer.samples = r->samples;
	trailer.lost = r->lost;
	trailer.throttles = r->throttles;
	if (r->pidfd < 0)
		trailer.exit_status =
		    WIFSIGNALED(wstatus) ? -WTERMSIG(wstatus) : WEXITSTATUS(wstatus);
	if (got_stop)
		snprintf(trailer.note, sizeof(trailer.note), "stopped by %s", strsignal(got_stop));
	ret = hwprof_writer_close(r->writer, &trailer);
	r->writer = NULL;
	free(trailer.sampled);
	if (ret < 0) {
		free(trailer.counts);
		return write_failed(r, ret);
	}
	print_summary(r, &trailer);
	free(trailer.counts);
	note_descendants(r);
	return 0;
}

int cmd_record(int argc, char **argv)
{
	static struct recording rec; /* large (build-id cache); one per process */
	struct recording *r = &rec;
	struct sampler_config cfg;
	sigset_t unblocked;
	uint64_t t0;
	int wstatus = 0, status = EXIT_FATAL;

	memset(r, 0, sizeof(*r));
	r->target.pid = -1;
	r->target.go_fd = r->target.err_fd = -1;
	r->pidfd = -1;
	r->out_fd = -1;
	r->opt = (struct record_options){
	    .pages = 256,
	    .output = "hwprof.data",
	};
	parse_options(&r->opt, argc, argv);
	if (!strcmp(r->opt.output, "-"))
		die_usage("-o -: the samples go to a file, not to standard output (name one with "
			  "-o, e.g. -o hwprof.data)");
	if (r->opt.pid && optind < argc)
		die_usage("-p %lld and a command exclude each other: attach, or launch",
			  r->opt.pid);
	if (!r->opt.pid && optind >= argc)
		die_usage("no command to record (hwprof record [OPTIONS] -- CMD [ARGS...])");
	r->argv = argv + optind;
	if (!r->opt.period && !r->opt.freq) {
		long long max = hwprof_max_sample_rate();
		r->opt.freq = max > 0 && max < 4000 ? max : 4000;
	}
	if (r->opt.callchain)
		r->opt.max_stack = max_stack(r->opt.max_stack);
	if (r->opt.event)
		parse_events(r->opt.event, &r->events);
	if (r->opt.count)
		parse_events(r->opt.count, &r->counts);
	launch_adjust_limits();
	status = r->opt.pid ? setup_attach(r) : setup_launch(r);
	if (status)
		goto out;
	status = EXIT_FATAL;
	cfg = (struct sampler_config){
	    .period = (uint64_t)r->opt.period,
	    .freq = (uint64_t)r->opt.freq,
	    .pages = (size_t)r->opt.pages,
	    .enable_on_exec = r->pidfd < 0,
	    .callchain = r->opt.callchain,
	    .max_stack = (uint16_t)r->opt.max_stack,
	};
	if (open_sampling(r, &cfg) < 0 || open_counting(r) < 0)
		goto out;
	if (r->sampler.pages < (size_t)r->opt.pages)
		warning("ring buffer reduced to %zu pages per CPU (locked-memory limit, "
			"kernel.perf_event_mlock_kb)",
			r->sampler.pages);
	report_precision(r);
	note_clock_period(r);
	if (fill_header(r) < 0)
		goto out;
	r->header.stacks = r->opt.callchain;
	status = hwprof_writer_open_fd(&r->writer, r->out_fd, &r->header);
	r->out_fd = -1;
	if (status < 0) {
		output_error(r->opt.output, -status);
		status = EXIT_FATAL;
		goto out;
	}
	block_signals(&unblocked);
	t0 = now_ns();
	status = start(r);
	if (status || record_loop(r, &unblocked, &wstatus) < 0)
		goto out;
	r->target.pid = -1; /* reaped */
	if (r->pidfd < 0)
		launch_restore_tty(&r->target, wstatus); /* before the summary is printed */
	if (finish(r, wstatus, t0) < 0) {
		status = EXIT_FATAL;
		goto out;
	}
	record_cleanup(r, false);
	if (r->pidfd >= 0)
		return EXIT_OK;
	/* Stopped by a signal: end as the target did, so that the shell sees the ^C. */
	if (got_stop)
		launch_die_like(got_stop, wstatus);
	return launch_exit_status(wstatus);
out:
	if (!status)
		status = EXIT_FATAL;
	record_cleanup(r, true);
	return status;
}
