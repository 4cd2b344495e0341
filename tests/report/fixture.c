/* fixture.c - tests/report's shared helpers (see fixture.h). */
#include "fixture.h"
#include "core/inflate.h"
#include "rows_data.h"

#include <criterion/criterion.h>

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

void tmp_path(char *buf, size_t len, const char *name)
{
	static int seq;

	snprintf(buf, len, "%s/rpt-%d-%d-%s", need_env("RPT_TMP"), (int)getpid(), seq++, name);
}

int run(char *const argv[])
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	status = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	cr_assert(status == 0, "spawn %s: %s", argv[0], strerror(status));
	cr_assert(waitpid(pid, &status, 0) == pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void record(const char *out, const char *prog, const char *arg)
{
	char *argv[] = {(char *)need_env("HWPROF"),
			"record",
			"-e",
			"page-faults",
			"-c",
			"1",
			"-o",
			(char *)out,
			"--",
			(char *)prog,
			(char *)arg,
			NULL};

	cr_assert_eq(run(argv), 0, "hwprof record of %s failed", prog);
}

struct profile *load_opts(struct profile_options *o)
{
	struct profile *p = NULL;
	char err[1024] = "";
	int ret = profile_load(&p, o, err, sizeof(err));

	cr_assert_eq(ret, 0, "profile_load: %s", err);
	return p;
}

struct profile *load1(const char *path, enum inline_mode mode)
{
	const char *in[] = {path};
	struct profile_options o = {.inputs = in, .ninputs = 1, .inline_mode = mode};

	return load_opts(&o);
}

bool ends_with(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);

	return s && a >= b && !strcmp(s + a - b, suffix) && (a == b || s[a - b - 1] == '/');
}

uint64_t samples_at(const struct profile *p, const char *src, int line, const char *fn,
		    const char *into)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->nlocs; i++) {
		const struct profile_loc *l = &p->locs[i];
		if (!ends_with(l->file, src) || (line && l->line != line))
			continue;
		if (fn && (!l->function || strcmp(l->function, fn)))
			continue;
		if (into && (into[0] ? !l->inlined_into || strcmp(l->inlined_into, into)
				     : l->inlined_into != NULL))
			continue;
		n += l->samples;
	}
	return n;
}

uint64_t samples_of_dso(const struct profile *p, const char *dso)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->nlocs; i++)
		if (!strcmp(p->locs[i].dso, dso))
			n += p->locs[i].samples;
	return n;
}

bool has_warning(const struct profile *p, const char *a, const char *b)
{
	for (size_t i = 0; i < p->nwarnings; i++)
		if (strstr(p->warnings[i], a) && (!b || strstr(p->warnings[i], b)))
			return true;
	return false;
}

static struct hwprof_file_event synth_event = {
    .name = "page-faults",
    .type = 1,
    .config = 2,
    .sampling = true,
    .period_or_freq = 1,
};

void begin(struct builder *b, const char *name)
{
	struct hwprof_file_header h = {.major = 1, .nevents = 1, .events = &synth_event};

	cr_assert_eq(builder_begin_input(b, name, &h), 0);
}

void add_samples(struct builder *b, uint32_t pid, uint32_t tid, uint64_t t, uint64_t ip, int n,
		 bool kernel)
{
	struct hwprof_record r = {.type = HWPROF_REC_SAMPLE};

	r.sample = (struct hwprof_rec_sample){
	    .pid = pid, .tid = tid, .time = t, .ip = ip, .period = 1, .kernel = kernel};
	for (int i = 0; i < n; i++)
		cr_assert_eq(builder_add(b, &r), 0);
}

struct profile *finish(struct builder *b, char *err, size_t len, int want)
{
	struct profile *p = NULL;

	cr_assert_eq(builder_end_input(b, NULL, HWPROF_READ_OK, NULL), 0);
	cr_assert_eq(builder_finish(b, &p, err, len), want, "%s", err);
	builder_free(b);
	return p;
}

const struct profile_row *data_row_named(const struct profile_row *rows, size_t n,
					 const char *label)
{
	char buf[512];

	for (size_t i = 0; i < n; i++)
		if (!strcmp(row_data_label(&rows[i], buf, sizeof(buf)), label))
			return &rows[i];
	return NULL;
}

void build_id_dir(const char *prog, const char *name, char *dir, size_t dirlen, char *file,
		  size_t filelen)
{
	const unsigned char *id;
	char hex[41], sub[PATH_MAX];
	int fd = open(prog, O_RDONLY);
	Elf *e;
	ssize_t n;

	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	n = dwelf_elf_gnu_build_id(e, (const void **)&id);
	cr_assert(n > 2 && n <= 20, "%s has no build-id", prog);
	for (ssize_t i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	elf_end(e);
	close(fd);
	tmp_path(dir, dirlen, name);
	cr_assert(mkdir(dir, 0755) == 0, "%s: %s", dir, strerror(errno));
	snprintf(sub, sizeof(sub), "%s/.build-id", dir);
	cr_assert(mkdir(sub, 0755) == 0);
	snprintf(sub, sizeof(sub), "%s/.build-id/%.2s", dir, hex);
	cr_assert(mkdir(sub, 0755) == 0);
	snprintf(file, filelen, "%s/%s.debug", sub, hex + 2);
}

void build_id_dir_remove(const char *dir, const char *file)
{
	char sub[PATH_MAX];
	const char *slash = strrchr(file, '/');

	unlink(file);
	snprintf(sub, sizeof(sub), "%.*s", (int)(slash - file), file);
	rmdir(sub);
	snprintf(sub, sizeof(sub), "%s/.build-id", dir);
	rmdir(sub);
	rmdir(dir);
}

const char *zstd_debug_file(void)
{
	const char *path = need_env("RPT_DWARF_DEBUGZSTD");

	if (!inflate_has_zstd(path))
		cr_skip_test(
		    "objcopy here cannot compress with zstd (binutils 2.40 and later can)");
	return path;
}

void self_exe(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	cr_assert(n > 0 && (size_t)n < len - 1, "readlink /proc/self/exe");
	buf[n] = '\0';
}

/* A load-latency event, as Intel's mem-loads (this host cannot record one). */
static struct hwprof_file_event mem_event = {
    .name = "cpu/mem-loads,ldlat=30/P", .type = 4, .sampling = true, .period_or_freq = 1000};

void begin_data(struct builder *b)
{
	struct hwprof_file_header h = {
	    .major = 1, .nevents = 1, .events = &mem_event, .data = true};

	cr_assert_eq(builder_begin_input(b, "mem.hwprof", &h), 0);
}

void data_map(struct builder *b, uint64_t start, uint64_t len, uint64_t pgoff, const char *name,
	      uint32_t prot)
{
	struct hwprof_record r = {.type = HWPROF_REC_MMAP};

	r.mmap = (struct hwprof_rec_mmap){.pid = 9,
					  .tid = 9,
					  .time = 1,
					  .start = start,
					  .len = len,
					  .pgoff = pgoff,
					  .prot = prot,
					  .flags = MAP_PRIVATE,
					  .filename = name};
	cr_assert_eq(builder_add(b, &r), 0);
}

void mem_sample(struct builder *b, uint64_t ip, uint64_t addr, uint64_t src, uint64_t w)
{
	struct hwprof_record r = {.type = HWPROF_REC_SAMPLE};

	r.sample = (struct hwprof_rec_sample){.pid = 9,
					      .tid = 9,
					      .time = 10,
					      .ip = ip,
					      .period = 1000,
					      .addr = addr,
					      .data_src = src,
					      .weight = w};
	cr_assert_eq(builder_add(b, &r), 0);
}
