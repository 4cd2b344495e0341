/* test_sampfile.c - the sample file: round trip of every record type and header field, many
 * threads, frequency mode, files cut at every byte, every bit flipped, random bytes, version
 * checks, and the bytes per sample on realistic data. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hwprof/sampfile.h"
#include "crc32.h"
#include "hwprof/event.h"
#include "sampfile_format.h"
#include "sampfile_util.h"
#include "varint.h"

/* ---- helpers ---- */

/* For loops of thousands of checks: criterion sends every passing cr_assert to its runner,
 * which made the every-bit test take seconds; this one speaks only when it fails. */
#define check(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond))                                                                       \
			cr_assert_fail(__VA_ARGS__);                                               \
	} while (0)

struct recs {
	struct hwprof_record *r;
	size_t n, cap;
};

static void recs_push(struct recs *l, const struct hwprof_record *rec)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->r = realloc(l->r, l->cap * sizeof(*l->r));
		check(l->r, "out of memory");
	}
	struct hwprof_record *d = &l->r[l->n++];
	*d = *rec;
	if (rec->type == HWPROF_REC_MMAP)
		d->mmap.filename = strdup(rec->mmap.filename);
	if (rec->type == HWPROF_REC_COMM)
		d->comm.comm = strdup(rec->comm.comm);
	if (rec->type == HWPROF_REC_STACK) {
		uint64_t *ips = malloc((rec->stack.nr + 1) * sizeof(*ips));
		check(ips, "out of memory");
		memcpy(ips, rec->stack.ips, rec->stack.nr * sizeof(*ips));
		d->stack.ips = ips;
	}
}

static void recs_free(struct recs *l)
{
	for (size_t i = 0; i < l->n; i++) {
		if (l->r[i].type == HWPROF_REC_MMAP)
			free((char *)l->r[i].mmap.filename);
		if (l->r[i].type == HWPROF_REC_COMM)
			free((char *)l->r[i].comm.comm);
		if (l->r[i].type == HWPROF_REC_STACK)
			free((uint64_t *)l->r[i].stack.ips);
	}
	free(l->r);
	*l = (struct recs){0};
}

static bool rec_eq(const struct hwprof_record *a, const struct hwprof_record *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case HWPROF_REC_MMAP: {
		const struct hwprof_rec_mmap *x = &a->mmap, *y = &b->mmap;
		return x->pid == y->pid && x->tid == y->tid && x->time == y->time &&
		       x->start == y->start && x->len == y->len && x->pgoff == y->pgoff &&
		       x->prot == y->prot && x->flags == y->flags &&
		       x->build_id_size == y->build_id_size &&
		       !memcmp(x->build_id, y->build_id, x->build_id_size) &&
		       !strcmp(x->filename, y->filename) && x->ino_known == y->ino_known &&
		       x->dev_major == y->dev_major && x->dev_minor == y->dev_minor &&
		       x->ino == y->ino && x->stat_known == y->stat_known && x->size == y->size &&
		       x->mtime_ns == y->mtime_ns;
	}
	case HWPROF_REC_COMM:
		return a->comm.pid == b->comm.pid && a->comm.tid == b->comm.tid &&
		       a->comm.time == b->comm.time && a->comm.exec == b->comm.exec &&
		       !strcmp(a->comm.comm, b->comm.comm);
	case HWPROF_REC_FORK:
	case HWPROF_REC_EXIT:
		return !memcmp(&a->task, &b->task, sizeof(a->task));
	case HWPROF_REC_SAMPLE: {
		const struct hwprof_rec_sample *x = &a->sample, *y = &b->sample;
		return x->pid == y->pid && x->tid == y->tid && x->cpu == y->cpu &&
		       x->time == y->time && x->ip == y->ip && x->period == y->period &&
		       x->event == y->event && x->kernel == y->kernel &&
		       x->stack_id == y->stack_id && x->addr == y->addr &&
		       x->data_src == y->data_src && x->weight == y->weight;
	}
	case HWPROF_REC_STACK: {
		const struct hwprof_rec_stack *x = &a->stack, *y = &b->stack;
		return x->id == y->id && x->nr == y->nr && x->nr_kernel == y->nr_kernel &&
		       x->truncated == y->truncated &&
		       (!x->nr || !memcmp(x->ips, y->ips, x->nr * sizeof(*x->ips)));
	}
	case HWPROF_REC_LOST:
	case HWPROF_REC_THROTTLE:
	case HWPROF_REC_UNTHROTTLE:
		return a->lost.time == b->lost.time && a->lost.lost == b->lost.lost &&
		       a->lost.cpu == b->lost.cpu;
	}
	return false;
}

static char *tmp_path(void)
{
	char *p = strdup("/tmp/hwprof-sampfile-XXXXXX");
	int fd = mkstemp(p);

	cr_assert(fd >= 0);
	close(fd);
	return p;
}

static void write_bytes(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	check(fd >= 0, "open %s", path);
	check(write(fd, buf, len) == (ssize_t)len, "write %s", path);
	close(fd);
}

static uint8_t *read_bytes(const char *path, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	cr_assert(fd >= 0);
	cr_assert(fstat(fd, &st) == 0);
	uint8_t *b = malloc((size_t)st.st_size + 1);
	cr_assert_eq(read(fd, b, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

static void write_file(const char *path, const struct hwprof_file_header *h,
		       const struct hwprof_record *recs, size_t n,
		       const struct hwprof_file_trailer *t)
{
	struct hwprof_writer *w;

	cr_assert_eq(hwprof_writer_open(&w, path, h), 0);
	for (size_t i = 0; i < n; i++) {
		const struct hwprof_rec_stack *k = &recs[i].stack;
		uint32_t id = 0;
		if (recs[i].type != HWPROF_REC_STACK) {
			cr_assert_eq(hwprof_writer_add(w, &recs[i]), 0, "record %zu", i);
			continue;
		}
		/* A STACK in the list carries the id the writer must give it. */
		cr_assert_eq(
		    hwprof_writer_add_stack(w, k->ips, k->nr, k->nr_kernel, k->truncated, &id), 0);
		cr_assert_eq(id, k->id, "record %zu: stack id %u, expected %u", i, id, k->id);
	}
	cr_assert_eq(hwprof_writer_close(w, t), 0);
}

/* Opens PATH and decodes every record into OUT. Returns the open result; *ST the status. */
static int read_all(const char *path, struct recs *out, enum hwprof_read_status *st,
		    struct hwprof_reader **keep)
{
	struct hwprof_reader *r;
	struct hwprof_record rec;
	char err[256];
	int ret = hwprof_reader_open(&r, path, err, sizeof(err));

	if (ret) {
		check(err[0], "an error comes with a message");
		return ret;
	}
	while (hwprof_reader_next(r, &rec) == 1)
		recs_push(out, &rec);
	check(hwprof_reader_next(r, &rec) == 0, "the end stays the end");
	const char *msg = NULL;
	*st = hwprof_reader_status(r, &msg);
	if (*st == HWPROF_READ_CORRUPT)
		check(strstr(msg, "the file is damaged") && strstr(msg, "at byte"), "%s", msg);
	else if (*st == HWPROF_READ_TRUNCATED)
		check(strstr(msg, "cut short") && strstr(msg, "missing"), "%s", msg);
	else
		check(!msg, "OK comes without a message");
	if (keep)
		*keep = r;
	else
		hwprof_reader_close(r);
	return 0;
}

static void assert_header_eq(const struct hwprof_file_header *a, const struct hwprof_file_header *b)
{
	cr_assert_eq(a->major, HWPROF_FILE_MAJOR);
	cr_assert_eq(a->minor, HWPROF_FILE_MINOR);
	cr_assert_str_eq(a->hostname, b->hostname);
	cr_assert_str_eq(a->kernel, b->kernel);
	cr_assert_str_eq(a->cpu_model, b->cpu_model);
	cr_assert_eq(a->ncpus, b->ncpus);
	cr_assert_eq(a->start_time_ns, b->start_time_ns);
	cr_assert_eq(a->system_wide, b->system_wide);
	cr_assert_str_eq(a->cpus, b->cpus);
	cr_assert_eq(a->argc, b->argc);
	for (uint32_t i = 0; i < a->argc; i++)
		cr_assert_str_eq(a->argv[i], b->argv[i]);
	cr_assert_eq(a->nevents, b->nevents);
	for (uint32_t i = 0; i < a->nevents; i++) {
		const struct hwprof_file_event *x = &a->events[i], *y = &b->events[i];
		cr_assert_str_eq(x->name, y->name);
		cr_assert_eq(x->type, y->type);
		cr_assert_eq(x->config, y->config);
		cr_assert_eq(x->config1, y->config1);
		cr_assert_eq(x->config2, y->config2);
		cr_assert_eq(x->sampling, y->sampling);
		cr_assert_eq(x->freq, y->freq);
		cr_assert_eq(x->period_or_freq, y->period_or_freq);
		cr_assert_eq(x->precise_requested, y->precise_requested);
		cr_assert_eq(x->precise_obtained, y->precise_obtained);
		cr_assert_eq(x->precise_max, y->precise_max);
		cr_assert_eq(x->exclude_user, y->exclude_user);
		cr_assert_eq(x->exclude_kernel, y->exclude_kernel);
		cr_assert_eq(x->exclude_hv, y->exclude_hv);
	}
}

/* One of every record type with real-looking values, samples of two threads in between. */
static size_t sample_records(struct hwprof_record *r)
{
	size_t n = 0;
	static const uint8_t bid[20] = {0x4b, 0x1c, 0x9e, 0x02, 0xa7, 0x5d, 0x33, 0x81, 0x10, 0xfe,
					0x6a, 0x77, 0x01, 0x92, 0xc4, 0x58, 0xee, 0x2f, 0x90, 0x0d};

	r[n++] = (struct hwprof_record){
	    .type = HWPROF_REC_COMM,
	    .comm = {.pid = 4242, .tid = 4242, .time = 1000, .exec = true, .comm = "workload"}};
	r[n] = (struct hwprof_record){.type = HWPROF_REC_MMAP,
				      .mmap = {.pid = 4242,
					       .tid = 4242,
					       .time = 1100,
					       .start = 0x555555554000ull,
					       .len = 0x2000,
					       .pgoff = 0x1000,
					       .prot = 5,
					       .flags = 2,
					       .build_id_size = 20,
					       .filename = "/usr/local/bin/workload"}};
	memcpy(r[n++].mmap.build_id, bid, 20);
	r[n++] = (struct hwprof_record){.type = HWPROF_REC_MMAP,
					.mmap = {.pid = 4242,
						 .tid = 4242,
						 .time = 1200,
						 .start = 0x7ffff7dd0000ull,
						 .len = 0x180000,
						 .pgoff = 0,
						 .prot = 5,
						 .flags = 2,
						 .filename = "/lib/x86_64-linux-gnu/libc.so.6",
						 .ino_known = true,
						 .dev_major = 259,
						 .dev_minor = 3,
						 .ino = 1837462,
						 .stat_known = true,
						 .size = 1922136,
						 .mtime_ns = 1740000000123456789ull}};
	r[n++] = (struct hwprof_record){
	    .type = HWPROF_REC_FORK,
	    .task = {.pid = 4242, .ppid = 4242, .tid = 4243, .ptid = 4242, .time = 1300}};
	for (int i = 0; i < 6; i++) {
		r[n++] = (struct hwprof_record){
		    .type = HWPROF_REC_SAMPLE,
		    .sample = {.pid = 4242,
			       .tid = 4242 + (i & 1),
			       .cpu = (uint32_t)i % 3,
			       .time = 2000 + 250000ull * (uint64_t)i,
			       .ip = 0x555555555139ull + (uint64_t)(i % 2) * 7,
			       .period = 10007,
			       .event = (uint16_t)(i == 4 ? 2 : 0),
			       .kernel = i == 5}};
	}
	r[n++] = (struct hwprof_record){.type = HWPROF_REC_LOST,
					.lost = {.time = 900000, .lost = 17, .cpu = 1}};
	r[n++] =
	    (struct hwprof_record){.type = HWPROF_REC_THROTTLE, .lost = {.time = 910000, .cpu = 0}};
	r[n++] = (struct hwprof_record){.type = HWPROF_REC_UNTHROTTLE,
					.lost = {.time = 920000, .cpu = 0}};
	r[n++] = (struct hwprof_record){.type = HWPROF_REC_SAMPLE,
					.sample = {.pid = 4242,
						   .tid = 4243,
						   .cpu = 1,
						   .time = 2000000,
						   .ip = 0xffffffff816049adull,
						   .period = 10007,
						   .kernel = true}};
	r[n++] = (struct hwprof_record){
	    .type = HWPROF_REC_EXIT,
	    .task = {.pid = 4242, .ppid = 4242, .tid = 4243, .ptid = 4242, .time = 3000000}};
	return n;
}

static struct hwprof_file_count tu_counts[2] = {
    {.event = "cycles",
     .counted = true,
     .value = 123456789012ull,
     .enabled_ns = 2000000000ull,
     .running_ns = 1500000000ull,
     .scale = 1.0},
    {.event = "power/energy-pkg/",
     .counted = false,
     .value = 0,
     .enabled_ns = 5,
     .running_ns = 0,
     .scale = 2.3283064365386962890625e-10,
     .unit = "Joules"},
};

/* Per event of tu_header(): the first sampling event with both totals, the counting member
 * without (not written), the third with its count only (a kernel before 6.0). */
static struct hwprof_file_sampled tu_sampled[3] = {
    {.count_known = true, .count = 70049, .lost_known = true, .lost = 17},
    {0},
    {.count_known = true, .count = UINT64_MAX},
};

static const struct hwprof_file_trailer tu_trailer = {.samples = 7,
						      .sampled = tu_sampled,
						      .lost = 17,
						      .throttles = 1,
						      .duration_ns = 2000123456ull,
						      .exit_status = -9,
						      .ncounts = 2,
						      .counts = tu_counts,
						      .note = "stopped by SIGINT"};

/* ---- round trip ---- */

Test(sampfile, round_trip_every_record_and_field)
{
	struct hwprof_file_header h;
	struct hwprof_record in[32];
	struct recs out = {0};
	enum hwprof_read_status st;
	struct hwprof_reader *r;
	char *path = tmp_path();
	size_t n;

	tu_header(&h);
	n = sample_records(in);
	write_file(path, &h, in, n, &tu_trailer);
	cr_assert_eq(read_all(path, &out, &st, &r), 0);
	cr_assert_eq(st, HWPROF_READ_OK);
	assert_header_eq(hwprof_reader_header(r), &h);
	cr_assert_eq(out.n, n);

	/* Per thread, the order of samples among themselves and against other records holds;
	 * with two threads sharing the stretch between FORK and LOST, samples come out grouped
	 * by thread. */
	size_t seen[2] = {0};
	for (size_t i = 0; i < n; i++) {
		bool found = false;
		for (size_t j = 0; j < out.n && !found; j++)
			found = rec_eq(&in[i], &out.r[j]);
		cr_assert(found, "record %zu (type %d) read back", i, in[i].type);
		if (in[i].type == HWPROF_REC_SAMPLE && in[i].sample.tid <= 4243 &&
		    in[i].sample.time < 2000000)
			seen[in[i].sample.tid - 4242]++;
	}
	cr_assert_eq(seen[0] + seen[1], 6);
	cr_assert_eq(out.r[0].type, HWPROF_REC_COMM);
	cr_assert_eq(out.r[4].type, HWPROF_REC_SAMPLE);
	cr_assert_eq(out.r[4].sample.tid, 4242);
	cr_assert_eq(out.r[7].sample.tid, 4243);
	cr_assert_eq(out.r[10].type, HWPROF_REC_LOST);
	cr_assert_eq(out.r[n - 1].type, HWPROF_REC_EXIT);

	const struct hwprof_file_trailer *t = hwprof_reader_trailer(r);
	cr_assert(t);
	cr_assert_eq(t->samples, 7);
	cr_assert_eq(t->lost, 17);
	cr_assert_eq(t->throttles, 1);
	cr_assert_eq(t->duration_ns, 2000123456ull);
	cr_assert_eq(t->exit_status, -9);
	cr_assert_str_eq(t->note, "stopped by SIGINT");
	cr_assert_eq(t->ncounts, 2);
	for (int i = 0; i < 2; i++) {
		cr_assert_str_eq(t->counts[i].event, tu_counts[i].event);
		cr_assert_eq(t->counts[i].counted, tu_counts[i].counted);
		cr_assert_eq(t->counts[i].value, tu_counts[i].value);
		cr_assert_eq(t->counts[i].enabled_ns, tu_counts[i].enabled_ns);
		cr_assert_eq(t->counts[i].running_ns, tu_counts[i].running_ns);
		cr_assert_eq(t->counts[i].scale, tu_counts[i].scale);
		cr_assert_str_eq(t->counts[i].unit, tu_counts[i].unit);
	}
	cr_assert(t->sampled);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(t->sampled[i].count_known, tu_sampled[i].count_known, "event %d", i);
		cr_assert_eq(t->sampled[i].count, tu_sampled[i].count, "event %d", i);
		cr_assert_eq(t->sampled[i].lost_known, tu_sampled[i].lost_known, "event %d", i);
		cr_assert_eq(t->sampled[i].lost, tu_sampled[i].lost, "event %d", i);
	}
	hwprof_reader_close(r);
	recs_free(&out);
	unlink(path);
	free(path);
}

Test(sampfile, no_trailer_reads_as_cut_short)
{
	struct hwprof_file_header h;
	struct hwprof_record in[32];
	struct recs out = {0};
	enum hwprof_read_status st;
	struct hwprof_reader *r;
	const char *msg;
	char *path = tmp_path();
	size_t n;

	tu_header(&h);
	n = sample_records(in);
	write_file(path, &h, in, n, NULL);
	cr_assert_eq(read_all(path, &out, &st, &r), 0);
	cr_assert_eq(st, HWPROF_READ_TRUNCATED);
	cr_assert_eq(out.n, n);
	cr_assert_null(hwprof_reader_trailer(r));
	hwprof_reader_status(r, &msg);
	cr_assert(strstr(msg, "trailer missing"), "message: %s", msg);
	cr_assert(strstr(msg, "7 samples"), "message: %s", msg);
	hwprof_reader_close(r);
	recs_free(&out);
	unlink(path);
	free(path);
}

Test(sampfile, header_init_reads_this_host)
{
	struct hwprof_file_header h;
	struct utsname u;
	struct timespec ts;
	char host[65] = "";

	cr_assert_eq(hwprof_header_init(&h), 0);
	clock_gettime(CLOCK_REALTIME, &ts);
	uname(&u);
	gethostname(host, sizeof(host) - 1);
	cr_assert_str_eq(h.hostname, host);
	cr_assert_str_eq(h.kernel, u.release);
	cr_assert_eq(h.ncpus, (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
	cr_assert_eq(h.major, HWPROF_FILE_MAJOR);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	cr_assert(h.start_time_ns <= now && now - h.start_time_ns < 5000000000ull);

	/* The model name line of /proc/cpuinfo, where there is one. */
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10))
			continue;
		char *v = strchr(line, ':') + 2;
		v[strcspn(v, "\n")] = 0;
		cr_assert_str_eq(h.cpu_model, v);
		break;
	}
	if (f)
		fclose(f);
	cr_assert(h.cpu_model[0]);
	cr_assert_null(h.argv);
	cr_assert_null(h.events);
	hwprof_header_release(&h);
	hwprof_header_release(NULL);
}

/* ---- many threads, frequency mode ---- */

Test(sampfile, many_threads_interleaved)
{
	enum { NTHREADS = 97, NREC = 120000 };
	struct hwprof_file_header h;
	struct hwprof_record *in = calloc(NREC, sizeof(*in));
	struct recs out = {0};
	enum hwprof_read_status st;
	uint64_t seed = 42, last_time[NTHREADS] = {0};
	char *path = tmp_path();
	size_t nother = 0;

	tu_header(&h);
	for (size_t i = 0; i < NREC; i++) {
		uint32_t k = (uint32_t)(tu_rand(&seed) % NTHREADS);
		if (tu_rand(&seed) % 5000 == 0) {
			in[i] = (struct hwprof_record){.type = HWPROF_REC_COMM,
						       .comm = {.pid = 100,
								.tid = 100 + k,
								.time = last_time[k],
								.comm = "worker"}};
			nother++;
			continue;
		}
		last_time[k] += 100000 + tu_rand(&seed) % 1000;
		in[i] = (struct hwprof_record){.type = HWPROF_REC_SAMPLE,
					       .sample = {.pid = 100 + k % 3,
							  .tid = 100 + k,
							  .cpu = k % 2,
							  .time = last_time[k],
							  .ip = 0x401000 + tu_rand(&seed) % 256,
							  .period = 250000,
							  .event = (uint16_t)(k % 3)}};
	}
	write_file(path, &h, in, NREC, &tu_trailer);
	check((read_all(path, &out, &st, NULL)) == (0), "(read_all(path, &out, &st, NULL)) == (0)");
	check((st) == (HWPROF_READ_OK), "(st) == (HWPROF_READ_OK)");
	check((out.n) == (NREC), "(out.n) == (NREC)");

	/* Each thread's samples in order, and each sample on the same side of every other
	 * record as it was given: compare per thread (sample, records before it) sequences. */
	size_t *pos = calloc(NTHREADS, sizeof(*pos)), others_in = 0, others_out = 0;
	size_t *before_in = calloc(NREC, sizeof(*before_in));
	size_t **idx = calloc(NTHREADS, sizeof(*idx)), *cnt = calloc(NTHREADS, sizeof(*cnt));
	for (size_t k = 0; k < NTHREADS; k++)
		idx[k] = calloc(NREC, sizeof(size_t));
	for (size_t i = 0; i < NREC; i++) {
		if (in[i].type != HWPROF_REC_SAMPLE) {
			others_in++;
			continue;
		}
		size_t k = in[i].sample.tid - 100;
		before_in[i] = others_in;
		idx[k][cnt[k]++] = i;
	}
	for (size_t j = 0; j < out.n; j++) {
		const struct hwprof_record *o = &out.r[j];
		if (o->type != HWPROF_REC_SAMPLE) {
			others_out++;
			check((o->type) == (HWPROF_REC_COMM), "(o->type) == (HWPROF_REC_COMM)");
			continue;
		}
		size_t k = o->sample.tid - 100;
		check((pos[k]) < (cnt[k]), "(pos[k]) < (cnt[k])");
		size_t i = idx[k][pos[k]++];
		check(rec_eq(o, &in[i]), "thread %zu sample %zu", k, pos[k] - 1);
		check((before_in[i]) == (others_out), "sample stays between the same records");
	}
	check((others_out) == (nother), "(others_out) == (nother)");
	for (size_t k = 0; k < NTHREADS; k++) {
		check((pos[k]) == (cnt[k]), "(pos[k]) == (cnt[k])");
		free(idx[k]);
	}
	free(idx);
	free(cnt);
	free(pos);
	free(before_in);
	free(in);
	recs_free(&out);
	unlink(path);
	free(path);
}

Test(sampfile, freq_mode_and_extreme_values)
{
	enum { N = 20000 };
	struct hwprof_file_header h;
	struct hwprof_record *in = calloc(N, sizeof(*in));
	struct hwprof_rec_sample *s = calloc(N, sizeof(*s));
	struct recs out = {0};
	enum hwprof_read_status st;
	uint64_t seed = 7;
	char *path = tmp_path();

	tu_header(&h);
	tu_freq(s, N, 99);
	for (size_t i = 0; i < N; i++) {
		in[i] = (struct hwprof_record){.type = HWPROF_REC_SAMPLE, .sample = s[i]};
		switch (tu_rand(&seed) % 16) { /* values a delta coder can get wrong */
		case 0:
			in[i].sample.ip = UINT64_MAX;
			break;
		case 1:
			in[i].sample.ip = 0;
			break;
		case 2:
			in[i].sample.time = 0;
			break; /* backwards in time */
		case 3:
			in[i].sample.time = UINT64_MAX;
			break;
		case 4:
			in[i].sample.period = 0;
			break;
		case 5:
			in[i].sample.period = UINT64_MAX;
			break;
		case 6:
			in[i].sample.cpu = UINT32_MAX;
			break;
		case 7:
			in[i].sample.kernel = true;
			in[i].sample.ip |= 0xffffffff80000000ull;
			break;
		case 8:
			in[i].sample.event = 1;
			break;
		case 9:
			in[i].sample.pid = UINT32_MAX;
			in[i].sample.tid = UINT32_MAX;
			break;
		default:
			break;
		}
	}
	write_file(path, &h, in, N, &tu_trailer);
	check((read_all(path, &out, &st, NULL)) == (0), "(read_all(path, &out, &st, NULL)) == (0)");
	check((st) == (HWPROF_READ_OK), "(st) == (HWPROF_READ_OK)");
	check((out.n) == (N), "(out.n) == (N)");
	/* Two threads (78 and UINT32_MAX): compare each thread's sequence. */
	size_t a = 0, b = 0;
	for (size_t j = 0; j < N; j++) {
		bool other = out.r[j].sample.tid == UINT32_MAX;
		size_t *p = other ? &b : &a;
		while (*p < N && (in[*p].sample.tid == UINT32_MAX) != other)
			(*p)++;
		check((*p) < (N), "(*p) < (N)");
		check(rec_eq(&out.r[j], &in[*p]), "sample %zu", *p);
		(*p)++;
	}
	free(in);
	free(s);
	recs_free(&out);
	unlink(path);
	free(path);
}

/* ---- cut, flipped, random ---- */

/* The byte offsets where the records of a file written by write_file end, and how many
 * decoded records each yields. */
struct frame_map {
	size_t header_end; /* end of the SF_HEADER_END record */
	size_t nframes;
	size_t end[256];
	size_t yields[256];
};

static void map_frames(const uint8_t *b, size_t len, struct frame_map *m)
{
	size_t pos = SF_PREAMBLE_SIZE;

	m->nframes = 0;
	m->header_end = 0;
	while (pos < len) {
		uint8_t type = b[pos];
		uint32_t l = sf_get_u32(b + pos + 1);
		const uint8_t *body = b + pos + SF_FRAME_HEAD, *q = body;
		uint64_t v = 0;
		size_t yields = 0;
		pos += SF_FRAME_HEAD + l + SF_FRAME_TAIL;
		if (type == SF_SAMPLES || type == SF_SAMPLES_EXT || type == SF_STACKS) {
			for (int i = 0; i < (type == SF_STACKS ? 2 : 3); i++)
				cr_assert(!varint_get(&q, body + l, &v));
			yields = (size_t)v;
		} else if (type >= SF_MMAP && type < SF_COUNT) {
			yields = 1;
		}
		if (type == SF_HEADER_END)
			m->header_end = pos;
		cr_assert_lt(m->nframes, 256);
		m->end[m->nframes] = pos;
		m->yields[m->nframes++] = yields;
	}
	cr_assert_eq(pos, len);
}

/* Stacks of the workload in sample_records() (ids in the order stack_records() adds them):
 * a user chain, one with a kernel part and the same outer callers, a truncated deep one
 * (recursion), an empty one, and one added after a FORK. */
static const uint64_t stk_user[] = {0x555555555213ull, 0x555555555307ull, 0x7ffff7df1d90ull,
				    0x555555555065ull};
static const uint64_t stk_kernel[] = {0xffffffff8110a2c4ull, 0xffffffff81e0012bull,
				      0x555555555418ull,     0x555555555307ull,
				      0x7ffff7df1d90ull,     0x555555555065ull};
static uint64_t stk_deep[40];
static const uint64_t stk_child[] = {0x555555555500ull, 0x7ffff7e8a123ull};

/* sample_records() with stacks: STACK records before the samples that use them, samples of
 * both threads referring to them, one sample with no stack first (a 1.0 block that the next
 * sample, with a stack, must end). */
static size_t stack_records(struct hwprof_record *r)
{
	size_t n = 0;

	for (int i = 0; i < 40; i++)
		stk_deep[i] = 0x555555555600ull + (i == 39 ? 0x40 : 0x13);
	r[n++] = (struct hwprof_record){
	    .type = HWPROF_REC_COMM,
	    .comm = {.pid = 4242, .tid = 4242, .time = 1000, .exec = true, .comm = "workload"}};
	r[n++] = (struct hwprof_record){.type = HWPROF_REC_MMAP,
					.mmap = {.pid = 4242,
						 .tid = 4242,
						 .time = 1100,
						 .start = 0x555555554000ull,
						 .len = 0x2000,
						 .prot = 5,
						 .flags = 2,
						 .filename = "/usr/local/bin/workload"}};
	r[n++] = (struct hwprof_record){
	    .type = HWPROF_REC_FORK,
	    .task = {.pid = 4242, .ppid = 4242, .tid = 4243, .ptid = 4242, .time = 1300}};
	r[n++] = (struct hwprof_record){
	    .type = HWPROF_REC_SAMPLE,
	    .sample = {
		.pid = 4242, .tid = 4242, .time = 1500, .ip = 0x555555555100ull, .period = 1}};
	r[n++] = (struct hwprof_record){.type = HWPROF_REC_STACK,
					.stack = {.id = 1, .nr = 4, .ips = stk_user}};
	r[n++] =
	    (struct hwprof_record){.type = HWPROF_REC_STACK,
				   .stack = {.id = 2, .nr = 6, .nr_kernel = 2, .ips = stk_kernel}};
	r[n++] = (struct hwprof_record){
	    .type = HWPROF_REC_STACK,
	    .stack = {.id = 3, .nr = 40, .truncated = true, .ips = stk_deep}};
	r[n++] = (struct hwprof_record){.type = HWPROF_REC_STACK, .stack = {.id = 4, .nr = 0}};
	static const uint32_t ids[] = {1, 2, 1, 0, 3, 4, 2, 1};
	for (int i = 0; i < 8; i++) {
		r[n++] = (struct hwprof_record){
		    .type = HWPROF_REC_SAMPLE,
		    .sample = {.pid = 4242,
			       .tid = 4242 + (i & 1),
			       .cpu = (uint32_t)i % 2,
			       .time = 2000 + 250000ull * (uint64_t)i,
			       .ip = i == 1 ? 0xffffffff8110a100ull : 0x555555555139ull,
			       .period = 1,
			       .kernel = i == 1,
			       .stack_id = ids[i],
			       /* data fields: a stride, a repeat, none, and a weight */
			       .addr = i == 3 ? 0 : 0x555555558000ull + 0x40ull * (uint64_t)(i / 2),
			       .data_src = i < 4 ? 0x68100142ull : 0,
			       .weight = i == 5 ? 312 : 0}};
	}
	r[n++] = (struct hwprof_record){.type = HWPROF_REC_LOST,
					.lost = {.time = 900000, .lost = 3, .cpu = 1}};
	r[n++] = (struct hwprof_record){.type = HWPROF_REC_STACK,
					.stack = {.id = 5, .nr = 2, .ips = stk_child}};
	for (int i = 0; i < 3; i++)
		r[n++] = (struct hwprof_record){.type = HWPROF_REC_SAMPLE,
						.sample = {.pid = 4242,
							   .tid = 4243,
							   .time = 3000000 + (uint64_t)i,
							   .ip = 0x555555555501ull,
							   .period = 1,
							   .stack_id = i == 1 ? 1 : 5}};
	r[n++] = (struct hwprof_record){
	    .type = HWPROF_REC_EXIT,
	    .task = {.pid = 4242, .ppid = 4242, .tid = 4243, .ptid = 4242, .time = 4000000}};
	return n;
}

/* A small file of every record type (with STACKS: stack_records()), its bytes and its decoded
 * records. */
static uint8_t *small_file_of(size_t *len, struct recs *all, struct frame_map *m, bool stacks)
{
	struct hwprof_file_header h;
	struct hwprof_record in[64];
	enum hwprof_read_status st;
	char *path = tmp_path();

	tu_header(&h);
	h.stacks = stacks;
	h.data = stacks;
	write_file(path, &h, in, stacks ? stack_records(in) : sample_records(in), &tu_trailer);
	uint8_t *b = read_bytes(path, len);
	cr_assert_eq(read_all(path, all, &st, NULL), 0);
	cr_assert_eq(st, HWPROF_READ_OK);
	map_frames(b, *len, m);
	unlink(path);
	free(path);
	return b;
}

static uint8_t *small_file(size_t *len, struct recs *all, struct frame_map *m)
{
	return small_file_of(len, all, m, false);
}

static void cut_at_every_byte(bool stacks)
{
	struct recs all = {0};
	struct frame_map m;
	size_t len;
	uint8_t *b = small_file_of(&len, &all, &m, stacks);
	char *path = tmp_path();

	for (size_t cut = 0; cut <= len; cut++) {
		struct recs out = {0};
		enum hwprof_read_status st = HWPROF_READ_OK;
		struct hwprof_reader *r = NULL;

		write_bytes(path, b, cut);
		int ret = read_all(path, &out, &st, &r);
		if (cut == 0) {
			check((ret) == (-ENODATA), "(ret) == (-ENODATA)");
			continue;
		}
		if (cut < m.header_end) {
			check((ret) == (-EBADMSG), "cut at %zu: %d", cut, ret);
			continue;
		}
		check((ret) == (0), "cut at %zu", cut);
		size_t expect = 0;
		for (size_t f = 0; f < m.nframes && m.end[f] <= cut; f++)
			expect += m.yields[f];
		check((out.n) == (expect), "cut at %zu: %zu records, expected %zu", cut, out.n,
		      expect);
		for (size_t i = 0; i < out.n; i++)
			check(rec_eq(&out.r[i], &all.r[i]), "cut at %zu, record %zu", cut, i);
		if (cut == len) {
			check((st) == (HWPROF_READ_OK), "(st) == (HWPROF_READ_OK)");
			check(hwprof_reader_trailer(r), "hwprof_reader_trailer(r)");
		} else {
			const char *msg;
			check((st) == (HWPROF_READ_TRUNCATED), "cut at %zu", cut);
			check(!(hwprof_reader_trailer(r)), "!(hwprof_reader_trailer(r))");
			hwprof_reader_status(r, &msg);
			check(strstr(msg, "cut short") && strstr(msg, "missing"), "%s", msg);
		}
		hwprof_reader_close(r);
		recs_free(&out);
	}
	recs_free(&all);
	free(b);
	unlink(path);
	free(path);
}

static void every_bit_flipped(bool stacks)
{
	struct recs all = {0};
	struct frame_map m;
	size_t len;
	uint8_t *b = small_file_of(&len, &all, &m, stacks);
	char *path = tmp_path();

	/* The stacks variant: the header is the same as the other's, flip only the body. */
	for (size_t bit = stacks ? m.header_end * 8 : 0; bit < len * 8; bit++) {
		struct recs out = {0};
		enum hwprof_read_status st = HWPROF_READ_OK;

		b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		write_bytes(path, b, len);
		b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		int ret = read_all(path, &out, &st, NULL);
		if (ret) {
			check(ret == -EBADMSG || ret == -EPROTO || ret == -EPROTONOSUPPORT,
			      "bit %zu: %d", bit, ret);
			check((bit / 8) < (m.header_end), "bit %zu outside the header", bit);
			continue;
		}
		/* Never a wrong record: what was read is a prefix of the original. */
		check((out.n) <= (all.n), "(out.n) <= (all.n)");
		for (size_t i = 0; i < out.n; i++)
			check(rec_eq(&out.r[i], &all.r[i]), "bit %zu, record %zu", bit, i);
		check((st) != (HWPROF_READ_OK), "bit %zu flipped unnoticed", bit);
		recs_free(&out);
	}
	recs_free(&all);
	free(b);
	unlink(path);
	free(path);
}

Test(sampfile, cut_at_every_byte)
{
	cut_at_every_byte(false);
}

Test(sampfile, cut_at_every_byte_with_stacks)
{
	cut_at_every_byte(true);
}

Test(sampfile, every_bit_flipped)
{
	every_bit_flipped(false);
}

Test(sampfile, every_bit_flipped_with_stacks)
{
	every_bit_flipped(true);
}

/* Frames BODY as a record of TYPE with a correct CRC at P; returns the bytes. */
static size_t frame(uint8_t *p, uint8_t type, const uint8_t *body, uint32_t len)
{
	p[0] = type;
	sf_put_u32(p + 1, len);
	memcpy(p + SF_FRAME_HEAD, body, len);
	sf_put_u32(p + SF_FRAME_HEAD + len, hwprof_crc32(0, p, SF_FRAME_HEAD + len));
	return SF_FRAME_HEAD + len + SF_FRAME_TAIL;
}

Test(sampfile, random_bytes)
{
	struct recs all = {0};
	struct frame_map m;
	size_t len;
	uint8_t *good = small_file(&len, &all, &m);
	uint8_t *b = malloc(65536);
	uint64_t seed = 1234;
	char *path = tmp_path();

	for (int iter = 0; iter < 1500; iter++) {
		struct recs out = {0};
		enum hwprof_read_status st;
		size_t n = 1 + tu_rand(&seed) % 3000;
		for (size_t i = 0; i < n; i++)
			b[i] = (uint8_t)tu_rand(&seed);
		switch (iter % 3) {
		case 0: /* pure noise */
			break;
		case 1: /* a valid header, then noise */
			memcpy(b, good, m.header_end);
			n += m.header_end;
			for (size_t i = m.header_end; i < n; i++)
				b[i] = (uint8_t)tu_rand(&seed);
			break;
		case 2: { /* a valid header, then well-framed records of random bodies, so the
			   * decoders themselves see garbage past the CRC */
			static const uint8_t tys[] = {
			    SF_MMAP,	SF_COMM,     SF_FORK,	     SF_EXIT,	 SF_SAMPLES,
			    SF_LOST,	SF_THROTTLE, SF_COUNT,	     SF_SUMMARY, SF_HOST,
			    SF_SAMPLED, SF_STACKS,   SF_SAMPLES_EXT, 99};
			uint8_t body[512];
			size_t pos = m.header_end;
			memcpy(b, good, m.header_end);
			for (int k = 0; k < 20; k++) {
				uint32_t bl = (uint32_t)(tu_rand(&seed) % sizeof(body));
				for (uint32_t i = 0; i < bl; i++)
					body[i] = (uint8_t)(tu_rand(&seed) % (k & 1 ? 256 : 4));
				pos += frame(b + pos, tys[tu_rand(&seed) % sizeof(tys)], body, bl);
			}
			n = pos;
			break;
		}
		}
		write_bytes(path, b, n);
		int ret = read_all(path, &out, &st, NULL);
		if (iter % 3 == 0)
			check((ret) != (0), "noise opened as a sample file");
		else
			check((ret) == (0), "(ret) == (0)");
		recs_free(&out);
	}
	recs_free(&all);
	free(good);
	free(b);
	unlink(path);
	free(path);
}

/* ---- open errors, versions, forward compatibility ---- */

static int open_err(const char *path, char *err, size_t len)
{
	struct hwprof_reader *r = NULL;
	int ret = hwprof_reader_open(&r, path, err, len);

	cr_assert(ret != 0 || r);
	hwprof_reader_close(r);
	return ret;
}

Test(sampfile, open_errors)
{
	char err[256], *path = tmp_path();

	cr_assert_eq(open_err("/nonexistent/hwprof.data", err, sizeof(err)), -ENOENT);
	cr_assert_str_eq(err, "/nonexistent/hwprof.data: no such file");
	cr_expect_eq(hwprof_see_last(), HWPROF_SEE_RECORDING);
	/* The one way to the text (hwprof/event.h), with or without an ERR buffer. */
	cr_assert_str_eq(hwprof_strerror_last(), "/nonexistent/hwprof.data: no such file");
	cr_assert_eq(open_err("/nonexistent/other.data", NULL, 0), -ENOENT);
	cr_assert_str_eq(hwprof_strerror_last(), "/nonexistent/other.data: no such file");
	write_bytes(path, "", 0);
	cr_assert_eq(open_err(path, err, sizeof(err)), -ENODATA);
	cr_assert(strstr(err, "empty file"), "%s", err);
	write_bytes(path, "#!/bin/sh\necho hello\n", 21);
	cr_assert_eq(open_err(path, err, sizeof(err)), -EPROTO);
	cr_assert(strstr(err, "not a hwprof sample file"), "%s", err);
	write_bytes(path, SF_MAGIC, 5);
	cr_assert_eq(open_err(path, err, sizeof(err)), -EBADMSG);
	cr_assert(strstr(err, "cut short"), "%s", err);
	cr_assert_eq(open_err("/tmp", err, sizeof(err)), -EISDIR);
	cr_assert(strstr(err, "/tmp: cannot read"), "%s", err);
	/* A NULL message buffer is fine. */
	cr_assert_eq(open_err("/nonexistent/hwprof.data", NULL, 0), -ENOENT);
	unlink(path);
	free(path);
}

/* A pipe whose writer (a child) sends HEAD then FILL bytes of BYTE (forever when FILL is
 * SIZE_MAX) until the reader closes it. Returns the read end; *PID is the writer. */
static int pipe_of(const void *head, size_t head_len, int byte, size_t fill, pid_t *pid)
{
	int fds[2];

	cr_assert_eq(pipe(fds), 0);
	*pid = fork();
	cr_assert(*pid >= 0);
	if (*pid == 0) {
		static char chunk[1 << 16];
		close(fds[0]);
		memset(chunk, byte, sizeof(chunk));
		if (head_len && write(fds[1], head, head_len) != (ssize_t)head_len)
			_exit(1);
		while (fill) {
			size_t n = fill < sizeof(chunk) ? fill : sizeof(chunk);
			if (write(fds[1], chunk, n) < 0)
				_exit(0);
			if (fill != SIZE_MAX)
				fill -= n;
		}
		_exit(0);
	}
	close(fds[1]);
	return fds[0];
}

/* pid is read after the call's arguments are evaluated: pipe_of() sets it in the same call. */
static int open_pipe_err(int fd, const pid_t *pid, char *err, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/fd/%d", fd);
	int ret = open_err(path, err, len);
	close(fd);
	waitpid(*pid, NULL, 0);
	return ret;
}

/* `report -i /dev/urandom` was said to start "with text" one time in three: bytes of 0x80
 * and above passed as text one by one. Text is well-formed UTF-8 without control bytes. */
Test(sampfile, random_bytes_are_not_text)
{
	static const unsigned char random8[] = {0xb5, 0xe3, 0x9a, 0xff, 0xfe, 0xc8, 0xd1, 0x80};
	static const char utf8[] = "# caf\xc3\xa9 \xe2\x80\x94 notes\n";
	char err[320], *path = tmp_path();

	write_bytes(path, random8, sizeof(random8));
	cr_assert_eq(open_err(path, err, sizeof(err)), -EPROTO);
	cr_expect(strstr(err, "it starts with binary data, not the hwprof magic"), "%s", err);
	write_bytes(path, utf8, sizeof(utf8) - 1);
	cr_assert_eq(open_err(path, err, sizeof(err)), -EPROTO);
	cr_expect(strstr(err, "it starts with text, not the hwprof magic"), "%s", err);
	unlink(path);
	free(path);
}

/* `report -i /dev/zero` and `yes | report -i -` read everything before looking at the magic
 * (14 GB in 24 s): a stream is refused at its first bytes, and what it may hold is capped. */
Test(sampfile, streams_are_checked_first_and_capped, .timeout = 30)
{
	char err[320];
	pid_t pid;

	cr_assert_eq(open_err("/dev/zero", err, sizeof(err)), -EPROTO);
	cr_expect(strstr(err, "/dev/zero: not a hwprof sample file (a character device; it starts "
			      "with binary data, not the hwprof magic"),
		  "%s", err);
	cr_assert_eq(open_pipe_err(pipe_of(NULL, 0, 'y', SIZE_MAX, &pid), &pid, err, sizeof(err)),
		     -EPROTO);
	cr_expect(strstr(err, "(a pipe; it starts with text, not the hwprof magic"), "%s", err);
	cr_assert_eq(open_pipe_err(pipe_of(NULL, 0, 0, 0, &pid), &pid, err, sizeof(err)), -ENODATA);
	cr_expect(strstr(err, "a pipe that gave no bytes"), "%s", err);
	/* A /proc file says its size is 0 but is not empty. */
	cr_assert_eq(open_err("/proc/self/maps", err, sizeof(err)), -EPROTO);
	cr_expect(strstr(err, "/proc/self/maps: not a hwprof sample file (it starts with text"),
		  "%s", err);

	/* A real recording through a pipe still reads. The cap (1 GiB) is checked by
	 * tests/cli/bad_input.py: a gigabyte through a pipe is slow under the sanitizers. */
	struct recs all = {0};
	struct frame_map m;
	size_t len;
	uint8_t *b = small_file(&len, &all, &m);
	cr_assert_eq(open_pipe_err(pipe_of(b, len, 0, 0, &pid), &pid, err, sizeof(err)), 0, "%s",
		     err);
	recs_free(&all);
	free(b);
}

/* Writes LEN bytes B to PATH and reads them back, keeping the reader in *R. */
static int read_all_keep(const uint8_t *b, size_t len, const char *path, struct recs *out,
			 enum hwprof_read_status *st, struct hwprof_reader **r)
{
	write_bytes(path, b, len);
	return read_all(path, out, st, r);
}

/* The small file with its preamble edited (CRC fixed up) and a record inserted. */
static void edited(const char *path, uint16_t major, uint16_t minor, uint32_t incompat,
		   const uint8_t *extra, size_t extra_len)
{
	struct recs all = {0};
	struct frame_map m;
	size_t len;
	uint8_t *b = small_file(&len, &all, &m);
	uint8_t *o = malloc(len + extra_len);

	sf_put_u16(b + SF_OFF_MAJOR, major);
	sf_put_u16(b + SF_OFF_MINOR, minor);
	sf_put_u32(b + SF_OFF_INCOMPAT, incompat);
	sf_put_u32(b + SF_PREAMBLE_SIZE - 4, hwprof_crc32(0, b, SF_PREAMBLE_SIZE - 4));
	/* EXTRA goes after the third body record (a COMM and two MMAPs before it). */
	size_t at = m.end[m.nframes - 1];
	for (size_t f = 0; f < m.nframes; f++)
		if (m.end[f] > m.header_end) {
			at = m.end[f + 2];
			break;
		}
	memcpy(o, b, at);
	if (extra_len)
		memcpy(o + at, extra, extra_len);
	memcpy(o + at + extra_len, b + at, len - at);
	write_bytes(path, o, len + extra_len);
	free(o);
	free(b);
	recs_free(&all);
}

Test(sampfile, newer_major_refused)
{
	char err[256], *path = tmp_path();

	edited(path, HWPROF_FILE_MAJOR + 1, 3, 0, NULL, 0);
	cr_assert_eq(open_err(path, err, sizeof(err)), -EPROTONOSUPPORT);
	cr_assert(strstr(err, "version 2.3 (written by a newer hwprof; upgrade"), "%s", err);
	edited(path, HWPROF_FILE_MAJOR, 0, 1u << 7, NULL, 0);
	cr_assert_eq(open_err(path, err, sizeof(err)), -EPROTONOSUPPORT);
	cr_assert(strstr(err, "newer hwprof; upgrade"), "%s", err);
	unlink(path);
	free(path);
}

Test(sampfile, newer_minor_unknown_records_skipped)
{
	struct recs all = {0}, out = {0};
	struct frame_map m;
	enum hwprof_read_status st;
	struct hwprof_reader *r;
	size_t len;
	uint8_t *b = small_file(&len, &all, &m), extra[64];
	char *path = tmp_path();
	static const uint8_t body[] = "a record type of hwprof 1.9";

	free(b);
	size_t n = frame(extra, 200, body, sizeof(body));
	edited(path, HWPROF_FILE_MAJOR, 9, 0, extra, n);
	cr_assert_eq(read_all(path, &out, &st, &r), 0);
	cr_assert_eq(hwprof_reader_header(r)->minor, 9);
	cr_assert_eq(st, HWPROF_READ_OK);
	cr_assert_eq(out.n, all.n);
	for (size_t i = 0; i < out.n; i++)
		cr_assert(rec_eq(&out.r[i], &all.r[i]), "record %zu", i);
	hwprof_reader_close(r);
	recs_free(&out);

	/* A known record with a field appended by a newer minor: the known fields still read. */
	uint8_t fork[32];
	size_t fl = 0;
	for (int i = 0; i < 5; i++)
		fl += varint_put(fork + fl, 1000 + (uint64_t)i);
	fl += varint_put(fork + fl, 123456); /* the new field */
	n = frame(extra, SF_FORK, fork, (uint32_t)fl);
	edited(path, HWPROF_FILE_MAJOR, 1, 0, extra, n);
	cr_assert_eq(read_all(path, &out, &st, NULL), 0);
	cr_assert_eq(st, HWPROF_READ_OK);
	cr_assert_eq(out.n, all.n + 1);
	cr_assert_eq(out.r[3].type, HWPROF_REC_FORK);
	cr_assert_eq(out.r[3].task.pid, 1000);
	cr_assert_eq(out.r[3].task.time, 1004);
	recs_free(&out);
	recs_free(&all);
	unlink(path);
	free(path);
}

/* Records as format 1.0 wrote them read with the 1.1 fields unknown: an MMAP ending at its
 * file name, a trailer without SAMPLED records. A SAMPLED record for an event that does not
 * sample is damage. */
Test(sampfile, format_1_0_records_read_without_identity)
{
	struct recs all = {0}, out = {0};
	struct frame_map m;
	enum hwprof_read_status st;
	struct hwprof_reader *r;
	size_t len, bl = 0, n;
	uint8_t *b = small_file(&len, &all, &m), body[64], extra[96];
	char *path = tmp_path();
	static const char name[] = "/opt/old/lib.so";

	free(b);
	for (int i = 0; i < 8; i++)
		bl += varint_put(body + bl, 100 + (uint64_t)i);
	body[bl++] = 0; /* no build-id */
	bl += varint_put(body + bl, sizeof(name) - 1);
	memcpy(body + bl, name, sizeof(name) - 1);
	bl += sizeof(name) - 1;
	n = frame(extra, SF_MMAP, body, (uint32_t)bl);
	edited(path, HWPROF_FILE_MAJOR, 0, 0, extra, n);
	cr_assert_eq(read_all(path, &out, &st, &r), 0);
	cr_assert_eq(st, HWPROF_READ_OK);
	cr_assert_eq(out.n, all.n + 1);
	cr_assert_eq(out.r[3].type, HWPROF_REC_MMAP);
	cr_assert_str_eq(out.r[3].mmap.filename, name);
	cr_assert_eq(out.r[3].mmap.start, 103);
	cr_assert_not(out.r[3].mmap.ino_known);
	cr_assert_not(out.r[3].mmap.stat_known);
	cr_assert_eq(out.r[3].mmap.ino, 0);
	hwprof_reader_close(r);
	recs_free(&out);

	/* Event 1 of tu_header() is a counting-group member. */
	bl = varint_put(body, 1);
	body[bl++] = SF_SAMPLED_COUNT;
	bl += varint_put(body + bl, 5);
	bl += varint_put(body + bl, 0);
	n = frame(extra, SF_SAMPLED, body, (uint32_t)bl);
	edited(path, HWPROF_FILE_MAJOR, 1, 0, extra, n);
	cr_assert_eq(read_all(path, &out, &st, NULL), 0);
	cr_assert_eq(st, HWPROF_READ_CORRUPT);
	recs_free(&out);
	recs_free(&all);
	unlink(path);
	free(path);
}

/* A whole recording with bytes appended: it reads as OK, every record as written, and the
 * reader says how many bytes follow the trailer (it does not read them). */
Test(sampfile, bytes_after_the_trailer_are_counted_not_read)
{
	struct recs all = {0}, out = {0};
	struct frame_map m;
	enum hwprof_read_status st;
	struct hwprof_reader *r;
	size_t len;
	uint8_t *b = small_file(&len, &all, &m), *o = malloc(len + 5000);
	char *path = tmp_path();

	cr_assert_eq(read_all_keep(b, len, path, &out, &st, &r), 0);
	cr_assert_eq(hwprof_reader_trailing_bytes(r), 0);
	hwprof_reader_close(r);
	recs_free(&out);
	memcpy(o, b, len);
	memset(o + len, 'J', 5000);
	cr_assert_eq(read_all_keep(o, len + 5000, path, &out, &st, &r), 0);
	cr_assert_eq(st, HWPROF_READ_OK);
	cr_assert_eq(out.n, all.n);
	cr_assert_not_null(hwprof_reader_trailer(r));
	cr_assert_eq(hwprof_reader_trailing_bytes(r), 5000);
	hwprof_reader_close(r);
	recs_free(&out);
	recs_free(&all);
	free(o);
	free(b);
	unlink(path);
	free(path);
}

/* ---- writer errors ---- */

Test(sampfile, writer_errors)
{
	struct hwprof_file_header h;
	struct hwprof_writer *w;
	struct hwprof_record s = {.type = HWPROF_REC_SAMPLE,
				  .sample = {.pid = 1, .tid = 1, .event = 3}};
	char *path = tmp_path();

	tu_header(&h);
	cr_assert_eq(hwprof_writer_open(&w, "/nonexistent/dir/hwprof.data", &h), -ENOENT);
	cr_assert_null(w);
	cr_assert_eq(hwprof_writer_open_fd(&w, -1, &h), -EBADF);
	cr_assert_null(w);
	/* A read-only fd: the header's write fails, and the writer closed the fd it owned. */
	int ro = open("/dev/null", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(ro, 0);
	cr_assert_eq(hwprof_writer_open_fd(&w, ro, &h), -EBADF);
	cr_assert_null(w);
	cr_assert_eq(fcntl(ro, F_GETFD), -1, "fd left open");
	/* Only against the real device: where /dev/full is missing, O_CREAT would make a file. */
	struct stat st;
	if (stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode))
		cr_assert_eq(hwprof_writer_open(&w, "/dev/full", &h), -ENOSPC);
	else
		cr_log_warn("/dev/full is not a character device here: ENOSPC case not checked");
	cr_assert_eq(hwprof_writer_open(&w, path, &h), 0);
	cr_assert_eq(hwprof_writer_add(w, &s), -EINVAL, "event index beyond the header's");
	struct hwprof_record bad = {.type = (enum hwprof_rec_type)99};
	cr_assert_eq(hwprof_writer_add(w, &bad), -EINVAL);
	cr_assert_gt(hwprof_writer_bytes(w), SF_PREAMBLE_SIZE);
	cr_assert_eq(hwprof_writer_close(w, NULL), 0);
	cr_assert_eq(hwprof_writer_close(NULL, NULL), 0);
	unlink(path);
	free(path);
}

/* ---- size ---- */

static double bytes_per_sample(void (*gen)(struct hwprof_rec_sample *, size_t, uint64_t), size_t n)
{
	struct hwprof_file_header h;
	struct hwprof_rec_sample *s = calloc(n, sizeof(*s));
	struct hwprof_writer *w;
	struct stat st0, st1;
	char *path = tmp_path();

	tu_header(&h);
	gen(s, n, 5);
	cr_assert_eq(hwprof_writer_open(&w, path, &h), 0);
	cr_assert_eq(stat(path, &st0), 0);
	for (size_t i = 0; i < n; i++) {
		struct hwprof_record r = {.type = HWPROF_REC_SAMPLE, .sample = s[i]};
		cr_assert_eq(hwprof_writer_add(w, &r), 0);
	}
	cr_assert_eq(hwprof_writer_close(w, NULL), 0);
	cr_assert_eq(stat(path, &st1), 0);
	free(s);
	unlink(path);
	free(path);
	/* Samples only: the header is written at open. */
	return (double)(st1.st_size - st0.st_size) / (double)n;
}

Test(sampfile, under_8_bytes_per_sample)
{
	double cpu = bytes_per_sample(tu_cpu_clock, 40000);
	double pf = bytes_per_sample(tu_page_faults, 20000);
	double fq = bytes_per_sample(tu_freq, 40000);

	cr_log_info("bytes/sample: cpu-clock 4 kHz %.2f, page-faults -c 1 %.2f, freq mode %.2f",
		    cpu, pf, fq);
	cr_assert_lt(cpu, 8.0, "cpu-clock: %.2f bytes/sample", cpu);
	cr_assert_lt(pf, 8.0, "page-faults: %.2f bytes/sample", pf);
	cr_assert_lt(fq, 8.0, "freq mode: %.2f bytes/sample", fq);
}

/* A recording killed after a flush: what was flushed reads back, the rest is reported. */
Test(sampfile, flushed_file_reads_while_writer_open)
{
	struct hwprof_file_header h;
	struct hwprof_writer *w;
	struct recs out = {0};
	enum hwprof_read_status st;
	struct hwprof_reader *r;
	const char *msg;
	char *path = tmp_path();

	tu_header(&h);
	cr_assert_eq(hwprof_writer_open(&w, path, &h), 0);
	for (uint64_t i = 0; i < 1000; i++) {
		struct hwprof_record s = {.type = HWPROF_REC_SAMPLE,
					  .sample = {.pid = 9,
						     .tid = 9 + (uint32_t)(i % 4),
						     .time = 1000 * i,
						     .ip = 0x401000 + i % 5,
						     .period = 1}};
		cr_assert_eq(hwprof_writer_add(w, &s), 0);
		if (i == 599)
			cr_assert_eq(hwprof_writer_flush(w), 0);
	}
	cr_assert_eq(read_all(path, &out, &st, &r), 0);
	cr_assert_eq(st, HWPROF_READ_TRUNCATED);
	cr_assert_eq(out.n, 600);
	hwprof_reader_status(r, &msg);
	cr_assert(strstr(msg, "600 samples") && strstr(msg, "trailer missing"), "%s", msg);
	hwprof_reader_close(r);
	recs_free(&out);
	cr_assert_eq(hwprof_writer_close(w, &tu_trailer), 0);
	cr_assert_eq(read_all(path, &out, &st, NULL), 0);
	cr_assert_eq(st, HWPROF_READ_OK);
	cr_assert_eq(out.n, 1000);
	recs_free(&out);
	unlink(path);
	free(path);
}

Test(sampfile, impossible_counted_totals_read_as_damaged)
{
	static const struct {
		uint64_t value, enabled, running;
		double scale;
		const char *why;
	} bad[] = {
	    {1000, 1000000, 5000000, 1.0, "time_running beyond time_enabled"},
	    {1000, 1000, 1000, -1.0, "no positive number"},
	    {1000, 1000, 1000, NAN, "no positive number"},
	    {1000, 1000, 1000, INFINITY, "no positive number"},
	    {UINT64_MAX, UINT64_MAX, 1, 1e300, "too large to scale"},
	};
	struct hwprof_file_header h;
	struct hwprof_record in[32];
	size_t n;

	tu_header(&h);
	n = sample_records(in);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hwprof_file_count c = {.event = "task-clock",
					      .counted = true,
					      .value = bad[i].value,
					      .enabled_ns = bad[i].enabled,
					      .running_ns = bad[i].running,
					      .scale = bad[i].scale};
		struct hwprof_file_trailer t = {.samples = 7, .counts = &c, .ncounts = 1};
		struct recs out = {0};
		enum hwprof_read_status st;
		struct hwprof_reader *r;
		const char *msg;
		char *path = tmp_path();

		write_file(path, &h, in, n, &t);
		cr_assert_eq(read_all(path, &out, &st, &r), 0);
		cr_assert_eq(st, HWPROF_READ_CORRUPT, "case %zu", i);
		hwprof_reader_status(r, &msg);
		cr_assert(strstr(msg, bad[i].why), "case %zu: %s", i, msg);
		cr_assert_eq(out.n, n, "the samples before are read");
		hwprof_reader_close(r);
		recs_free(&out);
		unlink(path);
		free(path);
	}
	/* A tick of overshoot, as some kernels report, is no damage. */
	struct hwprof_file_count ok = {.event = "task-clock",
				       .counted = true,
				       .value = 5,
				       .enabled_ns = 1000000,
				       .running_ns = 1000100,
				       .scale = 1.0};
	struct hwprof_file_trailer t = {.samples = 7, .counts = &ok, .ncounts = 1};
	struct recs out = {0};
	enum hwprof_read_status st;
	char *path = tmp_path();

	write_file(path, &h, in, n, &t);
	cr_assert_eq(read_all(path, &out, &st, NULL), 0);
	cr_assert_eq(st, HWPROF_READ_OK);
	recs_free(&out);
	unlink(path);
	free(path);
}

/* ---- stacks (1.1) ---- */

Test(sampfile, stacks_round_trip)
{
	struct hwprof_file_header h;
	struct hwprof_record in[64];
	struct recs out = {0};
	enum hwprof_read_status st;
	struct hwprof_reader *r;
	char *path = tmp_path();

	/* Once announced in the header, once not: then the writer's first stack sets the
	 * preamble's bit afterwards. */
	for (int announce = 0; announce < 2; announce++) {
		tu_header(&h);
		h.stacks = announce;
		size_t n = stack_records(in);
		write_file(path, &h, in, n, &tu_trailer);
		size_t len;
		uint8_t *b = read_bytes(path, &len);
		cr_assert_eq(sf_get_u32(b + SF_OFF_INCOMPAT),
			     SF_INCOMPAT_STACKS | SF_INCOMPAT_DATA);
		cr_assert_eq(sf_get_u16(b + SF_OFF_MINOR), HWPROF_FILE_MINOR);
		free(b);
		cr_assert_eq(read_all(path, &out, &st, &r), 0);
		cr_assert_eq(st, HWPROF_READ_OK);
		cr_assert(hwprof_reader_header(r)->stacks);
		cr_assert_eq(out.n, n);
		for (size_t i = 0; i < n; i++) {
			bool found = false;
			for (size_t j = 0; j < out.n && !found; j++)
				found = rec_eq(&in[i], &out.r[j]);
			cr_assert(found, "record %zu (type %d) read back", i, in[i].type);
		}
		/* Every STACK before the first sample that refers to it, ids in order. */
		uint32_t defined = 0, with_stack = 0;
		for (size_t j = 0; j < out.n; j++) {
			if (out.r[j].type == HWPROF_REC_STACK)
				cr_assert_eq(out.r[j].stack.id, ++defined);
			if (out.r[j].type == HWPROF_REC_SAMPLE) {
				cr_assert_leq(out.r[j].sample.stack_id, defined, "record %zu", j);
				with_stack += out.r[j].sample.stack_id != 0;
			}
		}
		cr_assert_eq(defined, 5);
		cr_assert_eq(with_stack, 10);
		hwprof_reader_close(r);
		recs_free(&out);
	}
	unlink(path);
	free(path);
}

Test(sampfile, stacks_interned_by_content)
{
	struct hwprof_file_header h;
	struct hwprof_writer *w;
	uint64_t a[3] = {0x401000, 0x402000, 0x403000}, b[3] = {0x401000, 0x402000, 0x403001};
	uint32_t id[6];
	char *path = tmp_path();

	tu_header(&h);
	h.stacks = true;
	cr_assert_eq(hwprof_writer_open(&w, path, &h), 0);
	cr_assert_eq(hwprof_writer_add_stack(w, a, 3, 0, false, &id[0]), 0);
	cr_assert_eq(hwprof_writer_add_stack(w, b, 3, 0, false, &id[1]), 0);
	cr_assert_eq(hwprof_writer_add_stack(w, a, 3, 0, false, &id[2]), 0);
	cr_assert_eq(hwprof_writer_add_stack(w, a, 3, 1, false, &id[3]), 0); /* kernel part */
	cr_assert_eq(hwprof_writer_add_stack(w, a, 3, 0, true, &id[4]), 0);  /* truncated */
	cr_assert_eq(hwprof_writer_add_stack(w, a, 2, 0, false, &id[5]), 0);
	cr_assert_eq(id[0], 1);
	cr_assert_eq(id[1], 2);
	cr_assert_eq(id[2], 1, "the same content, the same id");
	cr_assert_eq(id[3], 3);
	cr_assert_eq(id[4], 4);
	cr_assert_eq(id[5], 5);
	/* Many distinct stacks: the table grows, the ids stay. */
	for (uint32_t i = 0; i < 5000; i++) {
		uint64_t s[2] = {0x500000 + i, 0x401000};
		uint32_t k, k2;
		cr_assert_eq(hwprof_writer_add_stack(w, s, 2, 0, false, &k), 0);
		cr_assert_eq(k, 6 + i);
		cr_assert_eq(hwprof_writer_add_stack(w, s, 2, 0, false, &k2), 0);
		cr_assert_eq(k2, k);
	}
	cr_assert_eq(hwprof_writer_close(w, &tu_trailer), 0);

	struct recs out = {0};
	enum hwprof_read_status st;
	cr_assert_eq(read_all(path, &out, &st, NULL), 0);
	cr_assert_eq(st, HWPROF_READ_OK);
	cr_assert_eq(out.n, 5005);
	cr_assert_eq(out.r[2].stack.nr_kernel, 1);
	cr_assert(out.r[3].stack.truncated);
	cr_assert_eq(out.r[4999 + 5].stack.ips[0], 0x500000 + 4999);
	cr_assert_eq(out.r[4999 + 5].stack.ips[1], 0x401000);
	recs_free(&out);
	unlink(path);
	free(path);
}

Test(sampfile, stack_writer_errors)
{
	struct hwprof_file_header h;
	struct hwprof_writer *w;
	static uint64_t ips[HWPROF_STACK_MAX + 1];
	uint32_t id = 99;
	char *path = tmp_path();

	tu_header(&h);
	h.stacks = true;
	cr_assert_eq(hwprof_writer_open(&w, path, &h), 0);
	cr_assert_eq(hwprof_writer_add_stack(w, ips, HWPROF_STACK_MAX + 1, 0, false, &id), -EINVAL);
	cr_assert_eq(hwprof_writer_add_stack(w, ips, 2, 3, false, &id), -EINVAL);
	cr_assert_eq(id, 99);
	struct hwprof_record s = {.type = HWPROF_REC_SAMPLE,
				  .sample = {.pid = 1, .tid = 1, .stack_id = 1}};
	cr_assert_eq(hwprof_writer_add(w, &s), -EINVAL, "a stack id the writer did not give");
	struct hwprof_record k = {.type = HWPROF_REC_STACK,
				  .stack = {.id = 1, .nr = 1, .ips = ips}};
	cr_assert_eq(hwprof_writer_add(w, &k), -EINVAL, "stacks go through add_stack");
	cr_assert_eq(hwprof_writer_add_stack(w, ips, HWPROF_STACK_MAX, 0, false, &id), 0);
	cr_assert_eq(id, 1);
	cr_assert_eq(hwprof_writer_add(w, &s), 0);
	cr_assert_eq(hwprof_writer_close(w, NULL), 0);

	/* Not announced, on a pipe: the preamble cannot be fixed afterwards. */
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	h.stacks = false;
	cr_assert_eq(hwprof_writer_open_fd(&w, fds[1], &h), 0);
	cr_assert_eq(hwprof_writer_add_stack(w, ips, 1, 0, false, &id), -EINVAL);
	cr_assert_eq(hwprof_writer_close(w, NULL), 0);
	close(fds[0]);
	unlink(path);
	free(path);
}

/* The header of a stacks file, then RECS framed by hand (correct CRCs, so the decoders see
 * them): how far does the read get? */
static enum hwprof_read_status read_crafted(const uint8_t *recs, size_t rlen, struct recs *out,
					    const char **msg_out)
{
	static char msg[512];
	struct recs all = {0};
	struct frame_map m;
	size_t len;
	uint8_t *b = small_file_of(&len, &all, &m, true);
	char *path = tmp_path();
	struct hwprof_reader *r;
	enum hwprof_read_status st;
	const char *msg_r;

	b = realloc(b, m.header_end + rlen);
	memcpy(b + m.header_end, recs, rlen);
	write_bytes(path, b, m.header_end + rlen);
	cr_assert_eq(read_all(path, out, &st, &r), 0);
	hwprof_reader_status(r, &msg_r);
	snprintf(msg, sizeof(msg), "%s", msg_r ? msg_r : "");
	*msg_out = msg;
	hwprof_reader_close(r);
	recs_free(&all);
	free(b);
	unlink(path);
	free(path);
	return st;
}

/* Appends varints to a body. */
static uint32_t body_of(uint8_t *b, int n, const uint64_t *v)
{
	uint32_t len = 0;

	for (int i = 0; i < n; i++)
		len += (uint32_t)varint_put(b + len, v[i]);
	return len;
}

Test(sampfile, corrupt_stack_tables_refused)
{
	static const struct {
		const char *what;
		int nstk; /* varints of a STACKS body (0: none) */
		uint64_t stk[12];
		int nsmp; /* varints of a SAMPLES_EXT body after it (0: none) */
		uint64_t smp[8];
		size_t good;	  /* records read before the damage */
		const char *says; /* in the message; NULL: reads OK up to the missing trailer */
	} cases[] = {
	    /* the well-formed base: stack 1 = {0x1000, 0x2000}, a sample on it */
	    {"good", 8, {1, 1, 0, 2, 0, 0, 0x2000, 0x2000}, 5, {7, 7, 1, 1, 2}, 2, NULL},
	    {"sample before its stack", 0, {0}, 5, {7, 7, 1, 1, 2}, 0, "stack id"},
	    {"stack id past the table",
	     8,
	     {1, 1, 0, 2, 0, 0, 0x2000, 0x2000},
	     5,
	     {7, 7, 1, 1, 4},
	     1,
	     "stack id"},
	    {"unknown sample field",
	     8,
	     {1, 1, 0, 2, 0, 0, 0x2000, 0x2000},
	     5,
	     {7, 7, 1, 0x11, 2}, /* STACK and a bit after every known one */
	     1,
	     "sample fields"},
	    {"first id skips one",
	     8,
	     {2, 1, 0, 2, 0, 0, 0x2000, 0x2000},
	     0,
	     {0},
	     0,
	     "first stack id"},
	    {"stack deeper than the limit",
	     6,
	     {1, 1, 0, HWPROF_STACK_MAX + 1, 0, 0},
	     0,
	     {0},
	     0,
	     "depths"},
	    {"kernel part over the depth",
	     8,
	     {1, 1, 0, 2, 3, 0, 0x2000, 0x2000},
	     0,
	     {0},
	     0,
	     "depths"},
	    {"shares more than the stack before",
	     8,
	     {1, 1, 0, 2, 0, 1, 0x2000, 0},
	     0,
	     {0},
	     0,
	     "depths"},
	    {"unknown stack flag", 8, {1, 1, 2, 2, 0, 0, 0x2000, 0x2000}, 0, {0}, 0, "depths"},
	    {"entries cut", 7, {1, 1, 0, 2, 0, 0, 0x2000}, 0, {0}, 0, "stack entry"},
	    {"bytes after the last stack",
	     9,
	     {1, 1, 0, 2, 0, 0, 0x2000, 0x2000, 5},
	     0,
	     {0},
	     0,
	     "after its last stack"},
	    /* two stacks announced, one whole: the first is handed out, then the damage */
	    {"second stack cut", 10, {1, 2, 0, 2, 0, 0, 0x2000, 0x2000, 0, 9}, 0, {0}, 1, "stack"},
	    {"zero stacks", 2, {1, 0}, 0, {0}, 0, "stack count"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t recs[256], body[128];
		size_t rl = 0;
		struct recs out = {0};
		const char *msg;

		if (cases[i].nstk) {
			/* flags are single bytes: varints below 128 are the same byte */
			uint32_t bl = body_of(body, cases[i].nstk, cases[i].stk);
			rl += frame(recs + rl, SF_STACKS, body, bl);
		}
		if (cases[i].nsmp) {
			uint32_t bl = body_of(body, cases[i].nsmp, cases[i].smp);
			/* one sample: flags 0, ip delta 0x40 (zigzag 0x80), time dd 0x7f, then the
			 * stack id delta given last in smp */
			uint8_t tail = body[bl - 1];
			bl--;
			body[bl++] = 0;
			body[bl++] = 0x80;
			body[bl++] = 0x01;
			body[bl++] = 0x7f;
			body[bl++] = tail;
			rl += frame(recs + rl, SF_SAMPLES_EXT, body, bl);
		}
		enum hwprof_read_status st = read_crafted(recs, rl, &out, &msg);
		cr_assert_eq(out.n, cases[i].good, "%s: %zu records read", cases[i].what, out.n);
		if (!cases[i].says) {
			cr_assert_eq(st, HWPROF_READ_TRUNCATED, "%s: %s", cases[i].what, msg);
			cr_assert_eq(out.r[0].stack.nr, 2);
			cr_assert_eq(out.r[0].stack.ips[0], 0x1000);
			cr_assert_eq(out.r[0].stack.ips[1], 0x2000);
			cr_assert_eq(out.r[1].sample.stack_id, 1);
			cr_assert_eq(out.r[1].sample.ip, 0x40);
		} else {
			cr_assert_eq(st, HWPROF_READ_CORRUPT, "%s: %s", cases[i].what, msg);
			cr_assert(strstr(msg, cases[i].says), "%s: %s", cases[i].what, msg);
		}
		if (cases[i].good >= 1 && cases[i].nstk)
			cr_assert_eq(out.r[0].type, HWPROF_REC_STACK, "%s", cases[i].what);
		recs_free(&out);
	}
}

/* Files of the previous format versions, written by the writers of hwprof 1.0 and 1.1 (the
 * records of sample_records(), checked in): every field they had still reads, the ones they
 * did not have read as unknown. */
static void reads_old_format(unsigned minor)
{
	struct hwprof_file_header h;
	struct hwprof_record in[32];
	struct recs out = {0};
	enum hwprof_read_status st;
	struct hwprof_reader *r;
	char path[4096];

	snprintf(path, sizeof(path), "%s/v1.%u.hwprof", getenv("SAMPFILE_DATA"), minor);
	tu_header(&h);
	size_t n = sample_records(in);
	for (size_t i = 0; i < n && minor < 1; i++) {
		if (in[i].type != HWPROF_REC_MMAP)
			continue;
		struct hwprof_rec_mmap *m = &in[i].mmap;
		m->ino_known = m->stat_known = false;
		m->dev_major = m->dev_minor = 0;
		m->ino = m->size = m->mtime_ns = 0;
	}
	cr_assert_eq(read_all(path, &out, &st, &r), 0);
	cr_assert_eq(st, HWPROF_READ_OK);
	const struct hwprof_file_header *g = hwprof_reader_header(r);
	cr_assert_eq(g->major, 1);
	cr_assert_eq(g->minor, minor);
	cr_assert_not(g->stacks);
	cr_assert_str_eq(g->hostname, h.hostname);
	cr_assert_str_eq(g->cpu_model, h.cpu_model);
	cr_assert_eq(g->nevents, 3);
	cr_assert_str_eq(g->events[2].name, h.events[2].name);
	cr_assert_eq(g->events[2].period_or_freq, 4000);
	cr_assert_eq(g->argc, h.argc);
	cr_assert_not(g->system_wide, "no target byte before 1.4: not system-wide");
	cr_assert_str_eq(g->cpus, "");
	cr_assert_eq(out.n, n);
	for (size_t i = 0; i < n; i++) {
		bool found = false;
		for (size_t j = 0; j < out.n && !found; j++)
			found = rec_eq(&in[i], &out.r[j]);
		cr_assert(found, "1.%u: record %zu (type %d) read back", minor, i, in[i].type);
	}
	for (size_t j = 0; j < out.n; j++)
		if (out.r[j].type == HWPROF_REC_SAMPLE)
			cr_assert_eq(out.r[j].sample.stack_id, 0);
	cr_assert_eq(hwprof_reader_trailer(r)->samples, 7);
	cr_assert_eq(hwprof_reader_trailer(r)->exit_status, -9);
	hwprof_reader_close(r);
	recs_free(&out);
}

Test(sampfile, reads_format_1_0)
{
	reads_old_format(0);
}

Test(sampfile, reads_format_1_1)
{
	reads_old_format(1);
}

/* A -g recording's shape: cpu-clock samples in a hot loop reached through two call paths
 * (1:3), 12 callers deep, and a spread of 400 rarer stacks. */
Test(sampfile, stacks_under_12_bytes_per_sample)
{
	enum { N = 40000 };
	struct hwprof_file_header h;
	struct hwprof_rec_sample *s = calloc(N, sizeof(*s));
	struct hwprof_writer *w;
	struct stat st0, st1;
	uint64_t seed = 9, ips[12];
	char *path = tmp_path();

	tu_header(&h);
	h.stacks = true;
	tu_cpu_clock(s, N, 5);
	cr_assert_eq(hwprof_writer_open(&w, path, &h), 0);
	cr_assert_eq(stat(path, &st0), 0);
	for (size_t i = 0; i < N; i++) {
		uint64_t r = tu_rand(&seed) % 100;
		for (int d = 0; d < 12; d++)
			ips[d] = 0x56428f17a000ull + (uint64_t)d * 0x1a3;
		if (r < 24)
			ips[0] += 0x40; /* the other call site */
		else if (r < 28)
			ips[1] += tu_rand(&seed) % 400;
		struct hwprof_record rec = {.type = HWPROF_REC_SAMPLE, .sample = s[i]};
		cr_assert_eq(hwprof_writer_add_stack(w, ips, 12, 0, false, &rec.sample.stack_id),
			     0);
		cr_assert_eq(hwprof_writer_add(w, &rec), 0);
	}
	cr_assert_eq(hwprof_writer_close(w, NULL), 0);
	cr_assert_eq(stat(path, &st1), 0);
	double bps = (double)(st1.st_size - st0.st_size) / N;
	cr_log_info("bytes/sample with stacks: %.2f", bps);
	cr_assert_lt(bps, 12.0, "%.2f bytes/sample", bps);
	free(s);
	unlink(path);
	free(path);
}

/* Data fields (1.3): strided, repeated and random addresses, data sources and weights, samples
 * without them among those with them, announced in the header or flagged by the first. */
Test(sampfile, data_fields_round_trip)
{
	enum { N = 3000 };
	struct hwprof_file_header h;
	struct hwprof_record *in = calloc(N, sizeof(*in));
	struct recs out = {0};
	enum hwprof_read_status st;
	struct hwprof_reader *r;
	uint64_t seed = 3;
	char *path = tmp_path();

	for (size_t i = 0; i < N; i++) {
		uint64_t x = tu_rand(&seed);
		in[i] = (struct hwprof_record){
		    .type = HWPROF_REC_SAMPLE,
		    .sample = {.pid = 50,
			       .tid = 50 + (uint32_t)(i % 3),
			       .time = 1000 + 700 * (uint64_t)i,
			       .ip = 0x401000 + (x % 4) * 8,
			       .period = 1,
			       .addr = i % 7 == 0   ? 0
				       : i % 5 == 0 ? x
						    : 0x7f0000000000ull + 4096 * (uint64_t)i,
			       .data_src = i > 1000 && i % 3 ? 0x1a100142ull + (x % 2) : 0,
			       .weight = i > 2000 ? x % 1000 : 0}};
	}
	for (int announce = 0; announce < 2; announce++) {
		tu_header(&h);
		h.data = announce;
		write_file(path, &h, in, N, &tu_trailer);
		size_t len;
		uint8_t *b = read_bytes(path, &len);
		cr_assert_eq(sf_get_u32(b + SF_OFF_INCOMPAT), SF_INCOMPAT_DATA);
		free(b);
		cr_assert_eq(read_all(path, &out, &st, &r), 0);
		cr_assert_eq(st, HWPROF_READ_OK);
		cr_assert(hwprof_reader_header(r)->data);
		cr_assert_eq(out.n, N);
		/* Per thread, in order. */
		size_t next[3] = {0, 1, 2};
		for (size_t j = 0; j < out.n; j++) {
			uint32_t t = out.r[j].sample.tid - 50;
			cr_assert_lt(t, 3);
			check(rec_eq(&out.r[j], &in[next[t]]), "sample %zu of thread %u", next[t],
			      t);
			next[t] += 3;
		}
		hwprof_reader_close(r);
		recs_free(&out);
	}
	/* Without data fields the file stays a 1.2 one: no feature bit, SAMPLES blocks. */
	for (size_t i = 0; i < N; i++)
		in[i].sample.addr = in[i].sample.data_src = in[i].sample.weight = 0;
	tu_header(&h);
	write_file(path, &h, in, N, &tu_trailer);
	size_t len;
	uint8_t *b = read_bytes(path, &len);
	cr_assert_eq(sf_get_u32(b + SF_OFF_INCOMPAT), 0);
	free(b);
	free(in);
	unlink(path);
	free(path);
}

/* A 1.3 reader knows the data fields' mask bits; a block with a bit past them, or a stride or
 * same-source flag on a block's first sample, is refused. */
Test(sampfile, corrupt_data_fields_refused)
{
	struct hwprof_file_header h;
	char *path = tmp_path();
	static const struct {
		uint8_t mask, flags;
		const char *why;
	} bad[] = {
	    {SF_F_KNOWN + 1, 0, "unknown mask bit"},
	    {SF_F_ADDR, SF_S_ADDR_STRIDE, "stride on the first sample"},
	    {SF_F_ADDR | SF_F_DATA_SRC, SF_S_SRC_SAME, "same source on the first sample"},
	    {SF_F_STACK, SF_S_ADDR_STRIDE, "stride flag without SF_F_ADDR"},
	};

	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		tu_header(&h);
		h.data = true;
		write_file(path, &h, NULL, 0, NULL);
		size_t len;
		uint8_t *b = read_bytes(path, &len);
		/* One EXT block of one sample: pid 1, tid 1, n 1, mask, flags, ip 9, time 5 and
		 * the mask's fields (stack 0, addr 0, src 1). */
		uint8_t body[16], *p = body;
		*p++ = 1, *p++ = 1, *p++ = 1, *p++ = bad[k].mask, *p++ = bad[k].flags;
		*p++ = 18, *p++ = 10;
		if (bad[k].mask & SF_F_STACK)
			*p++ = 0;
		if ((bad[k].mask & SF_F_ADDR) && !(bad[k].flags & SF_S_ADDR_STRIDE))
			*p++ = 0;
		if ((bad[k].mask & SF_F_DATA_SRC) && !(bad[k].flags & SF_S_SRC_SAME))
			*p++ = 1;
		b = realloc(b, len + 64);
		len += frame(b + len, SF_SAMPLES_EXT, body, (uint32_t)(p - body));
		write_bytes(path, b, len);
		free(b);
		struct recs out = {0};
		enum hwprof_read_status st;
		struct hwprof_reader *r;
		cr_assert_eq(read_all(path, &out, &st, &r), 0);
		cr_assert_eq(st, HWPROF_READ_CORRUPT, "%s", bad[k].why);
		cr_assert_eq(out.n, 0, "%s", bad[k].why);
		hwprof_reader_close(r);
		recs_free(&out);
	}
	unlink(path);
	free(path);
}

/* record --data on page faults: the faulting addresses of a page-by-page loop (a stride) with
 * 0.5 % elsewhere, the goal <= 4 bytes per sample more than without. */
Test(sampfile, data_adds_under_4_bytes_per_sample)
{
	enum { N = 20000 };
	struct hwprof_rec_sample *s = calloc(N, sizeof(*s));
	uint64_t seed = 17;
	double bytes[2];

	tu_page_faults(s, N, 2);
	for (int with = 0; with < 2; with++) {
		struct hwprof_file_header h;
		struct hwprof_writer *w;
		struct stat st0, st1;
		char *path = tmp_path();

		tu_header(&h);
		h.data = with;
		cr_assert_eq(hwprof_writer_open(&w, path, &h), 0);
		cr_assert_eq(stat(path, &st0), 0);
		for (size_t i = 0; i < N; i++) {
			struct hwprof_record r = {.type = HWPROF_REC_SAMPLE, .sample = s[i]};
			if (with)
				r.sample.addr = s[i].ip == 0x55b44931b169ull
						    ? 0x55b44a000000ull + 4096 * (uint64_t)i
						    : 0x7ffd00000000ull + tu_rand(&seed) % 0x100000;
			cr_assert_eq(hwprof_writer_add(w, &r), 0);
		}
		cr_assert_eq(hwprof_writer_close(w, NULL), 0);
		cr_assert_eq(stat(path, &st1), 0);
		bytes[with] = (double)(st1.st_size - st0.st_size) / N;
		unlink(path);
		free(path);
	}
	cr_log_info("page-faults bytes/sample: %.2f, with --data %.2f", bytes[0], bytes[1]);
	cr_assert_lt(bytes[1] - bytes[0], 4.0, "%.2f -> %.2f bytes/sample", bytes[0], bytes[1]);
	free(s);
}
