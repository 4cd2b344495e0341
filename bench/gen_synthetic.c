/* gen_synthetic.c - writes a synthetic sample file of N samples for the report/annotate speed
 * benchmark, through the project's own writer (hwprof/sampfile.h).
 *
 * usage: gen_synthetic [--data] BINARY OUT [SAMPLES [DISTINCT]]
 *        defaults: 1000000 samples over 65536 distinct addresses
 *
 * The samples point into BINARY's .text, mapped the way the kernel's PERF_RECORD_MMAP2 would
 * show a PIE executable loaded at 0x555555554000 (one MMAP per executable PT_LOAD: start =
 * base + page-aligned p_vaddr, pgoff = page-aligned p_offset), with the file's build-id, so
 * the report really symbolizes them against the binary's DWARF. DISTINCT addresses are drawn
 * uniformly over .text; each sample picks one of them with Zipf weights (exponent 1.1), so a
 * few lines are hot and most are cold, as in a real profile. The event is cpu-clock at
 * 4000 Hz: one sample per 250 us of one thread, period 250000 ns.
 *
 * --data: a recording of `record --data` (format 1.3): the binary's data mappings as the ELF
 * loader makes them (its span from offset 0, its writable segment, the .bss past it), a 64 MiB
 * [heap] and a [stack], and a data address per sample: 40 % anywhere in the writable segment
 * (the binary's globals, resolved with its DWARF), 40 % anywhere in the heap, 20 % in the top
 * 64 KiB of the stack; nearly every sample touches a distinct address, the worst case of
 * report --sort data.
 *
 * Output: one line "gen_synthetic: N samples, D distinct addresses, B bytes" on stdout.
 * Exit 0, 2 on any error (with a message on stderr).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hwprof/sampfile.h"

#define LOAD_BASE 0x555555554000ULL
#define PAGE_MASK (~0xfffULL)
#define FREQ_HZ	  4000
#define PERIOD_NS (1000000000ULL / FREQ_HZ)
#define PID	  4242

/* What we need of the binary: its executable segments, .text and build-id. */
struct image {
	struct {
		uint64_t vaddr, offset, memsz;
	} exec[8];
	int nexec;
	uint64_t rw_vaddr, rw_offset, rw_filesz, rw_memsz; /* the writable PT_LOAD (--data) */
	uint64_t span;					   /* highest vaddr + memsz */
	uint64_t text_addr, text_size;
	uint8_t build_id[20];
	uint8_t build_id_size;
};

static int fail(const char *what, const char *why)
{
	fprintf(stderr, "gen_synthetic: %s: %s\n", what, why);
	return 2;
}

static void read_build_id(Elf_Scn *scn, struct image *im)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off;

	while (data && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((char *)data->d_buf + name_off, "GNU", 4) == 0 &&
		    nh.n_descsz <= sizeof(im->build_id)) {
			memcpy(im->build_id, (char *)data->d_buf + desc_off, nh.n_descsz);
			im->build_id_size = (uint8_t)nh.n_descsz;
		}
	}
}

/* Fills IM from PATH's program and section headers. Returns 0 or an exit status. */
static int read_image(const char *path, struct image *im)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 2;
	Elf *elf = NULL;
	size_t nphdr, shstrndx;
	Elf_Scn *scn = NULL;

	memset(im, 0, sizeof(*im));
	if (fd < 0)
		return fail(path, strerror(errno));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nphdr) != 0 ||
	    elf_getshdrstrndx(elf, &shstrndx) != 0) {
		rc = fail(path, "not an ELF file");
		goto out;
	}
	for (size_t i = 0; i < nphdr; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (ph.p_vaddr + ph.p_memsz > im->span)
			im->span = ph.p_vaddr + ph.p_memsz;
		if ((ph.p_flags & PF_W) && !im->rw_memsz) {
			im->rw_vaddr = ph.p_vaddr;
			im->rw_offset = ph.p_offset;
			im->rw_filesz = ph.p_filesz;
			im->rw_memsz = ph.p_memsz;
		}
		if (!(ph.p_flags & PF_X))
			continue;
		if (im->nexec == (int)(sizeof(im->exec) / sizeof(im->exec[0])))
			break;
		im->exec[im->nexec].vaddr = ph.p_vaddr;
		im->exec[im->nexec].offset = ph.p_offset;
		im->exec[im->nexec].memsz = ph.p_memsz;
		im->nexec++;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && strcmp(name, ".text") == 0) {
			im->text_addr = sh.sh_addr;
			im->text_size = sh.sh_size;
		} else if (sh.sh_type == SHT_NOTE) {
			read_build_id(scn, im);
		}
	}
	if (im->nexec == 0 || im->text_size == 0) {
		rc = fail(path, "no executable PT_LOAD or no .text section");
		goto out;
	}
	rc = 0;
out:
	elf_end(elf);
	close(fd);
	return rc;
}

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Cumulative Zipf(1.1) weights over N ranks, normalised to 1. Caller frees. */
static double *zipf_cdf(size_t n)
{
	double *cdf = malloc(n * sizeof(*cdf)), sum = 0;

	if (!cdf)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		sum += 1.0 / pow((double)(i + 1), 1.1);
		cdf[i] = sum;
	}
	for (size_t i = 0; i < n; i++)
		cdf[i] /= sum;
	return cdf;
}

static size_t pick(const double *cdf, size_t n, double u)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static long parse_count(const char *s, const char *name)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v <= 0 || v > 1000000000L) {
		fprintf(stderr, "gen_synthetic: %s '%s': not a positive number\n", name, s);
		exit(64);
	}
	return v;
}

#define HEAP_BYTES  (64ULL << 20)
#define STACK_TOP   0x7ffd00000000ULL
#define STACK_BYTES (8ULL << 20)

/* --data: the data mappings of a PIE at LOAD_BASE (fs/binfmt_elf.c: the span from offset 0,
 * the writable segment over it, the .bss past its file pages anonymous), a heap and a stack. */
static int data_mappings(struct hwprof_writer *w, const char *bin, const struct image *im,
			 uint64_t t0)
{
	uint64_t rw_start = im->rw_vaddr & PAGE_MASK;
	uint64_t rw_file_end = (im->rw_vaddr + im->rw_filesz + 0xfff) & PAGE_MASK;
	uint64_t rw_end = (im->rw_vaddr + im->rw_memsz + 0xfff) & PAGE_MASK;
	uint64_t span = (im->span + 0xfff) & PAGE_MASK;
	const struct {
		uint64_t start, end, pgoff;
		uint32_t prot;
		const char *name;
	} maps[] = {
	    {0, span, 0, PROT_READ, bin},
	    {rw_start, rw_file_end, im->rw_offset & PAGE_MASK, PROT_READ | PROT_WRITE, bin},
	    {rw_file_end, rw_end, 0, PROT_READ | PROT_WRITE, "//anon"},
	    {span + (16ULL << 20), span + (16ULL << 20) + HEAP_BYTES, 0, PROT_READ | PROT_WRITE,
	     "[heap]"},
	};
	struct hwprof_record rec;
	int err = 0;

	for (size_t i = 0; !err && i < sizeof(maps) / sizeof(maps[0]); i++) {
		if (maps[i].end <= maps[i].start)
			continue;
		memset(&rec, 0, sizeof(rec));
		rec.type = HWPROF_REC_MMAP;
		rec.mmap = (struct hwprof_rec_mmap){.pid = PID,
						    .tid = PID,
						    .time = t0,
						    .start = LOAD_BASE + maps[i].start,
						    .len = maps[i].end - maps[i].start,
						    .pgoff = maps[i].pgoff,
						    .prot = maps[i].prot,
						    .flags = MAP_PRIVATE,
						    .filename = maps[i].name};
		err = hwprof_writer_add(w, &rec);
	}
	if (!err) {
		memset(&rec, 0, sizeof(rec));
		rec.type = HWPROF_REC_MMAP;
		rec.mmap = (struct hwprof_rec_mmap){.pid = PID,
						    .tid = PID,
						    .time = t0,
						    .start = STACK_TOP - STACK_BYTES,
						    .len = STACK_BYTES,
						    .prot = PROT_READ | PROT_WRITE,
						    .flags = MAP_PRIVATE,
						    .filename = "[stack]"};
		err = hwprof_writer_add(w, &rec);
	}
	return err;
}

/* --data: sample I's data address (see the top of the file). */
static uint64_t data_addr(const struct image *im, uint64_t *seed)
{
	uint64_t r = next_rand(seed), span = (im->span + 0xfff) & PAGE_MASK;

	switch (r % 5) {
	case 0:
	case 1:
		return LOAD_BASE + im->rw_vaddr + (r >> 8) % im->rw_memsz;
	case 2:
	case 3:
		return LOAD_BASE + span + (16ULL << 20) + (r >> 8) % HEAP_BYTES;
	default:
		return STACK_TOP - 1 - (r >> 8) % 65536;
	}
}

/* The process's COMM (its exec) and the MMAPs of BIN's executable segments, at time T0.
 * Returns 0 or the writer's -errno. */
static int write_process(struct hwprof_writer *w, const char *bin, const struct image *im,
			 uint64_t t0)
{
	struct hwprof_record rec;
	int err;

	memset(&rec, 0, sizeof(rec));
	rec.type = HWPROF_REC_COMM;
	rec.comm = (struct hwprof_rec_comm){
	    .pid = PID, .tid = PID, .time = t0, .exec = true, .comm = "sqlite_driver"};
	err = hwprof_writer_add(w, &rec);
	for (int i = 0; !err && i < im->nexec; i++) {
		uint64_t start = im->exec[i].vaddr & PAGE_MASK;
		uint64_t end = (im->exec[i].vaddr + im->exec[i].memsz + 0xfff) & PAGE_MASK;

		memset(&rec, 0, sizeof(rec));
		rec.type = HWPROF_REC_MMAP;
		rec.mmap = (struct hwprof_rec_mmap){
		    .pid = PID,
		    .tid = PID,
		    .time = t0,
		    .start = LOAD_BASE + start,
		    .len = end - start,
		    .pgoff = im->exec[i].offset & PAGE_MASK,
		    .prot = PROT_READ | PROT_EXEC,
		    .flags = MAP_PRIVATE,
		    .build_id_size = im->build_id_size,
		    .filename = bin,
		};
		memcpy(rec.mmap.build_id, im->build_id, sizeof(rec.mmap.build_id));
		err = hwprof_writer_add(w, &rec);
	}
	return err;
}

/* NSAMPLES samples from T0 on, each on one of the NDISTINCT ADDRS picked by CDF (with DATA
 * a data address too), then the process's EXIT. Returns 0 or the writer's -errno. */
static int write_samples(struct hwprof_writer *w, const struct image *im, long nsamples,
			 const uint64_t *addrs, const double *cdf, size_t ndistinct, bool data,
			 uint64_t t0)
{
	struct hwprof_record rec;
	uint64_t seed = 0x2545f4914f6cdd1dULL;
	int err = 0;

	for (long i = 0; !err && i < nsamples; i++) {
		double u = (double)(next_rand(&seed) >> 11) / 9007199254740992.0;

		memset(&rec, 0, sizeof(rec));
		rec.type = HWPROF_REC_SAMPLE;
		rec.sample = (struct hwprof_rec_sample){
		    .pid = PID,
		    .tid = PID,
		    .cpu = (uint32_t)(i / 4096 % 2),
		    .time = t0 + (uint64_t)(i + 1) * PERIOD_NS,
		    .ip = LOAD_BASE + addrs[pick(cdf, ndistinct, u)],
		    .period = PERIOD_NS,
		    .event = 0,
		    .addr = data ? data_addr(im, &seed) : 0,
		};
		err = hwprof_writer_add(w, &rec);
	}
	if (err)
		return err;
	memset(&rec, 0, sizeof(rec));
	rec.type = HWPROF_REC_EXIT;
	rec.task = (struct hwprof_rec_task){.pid = PID,
					    .ppid = 1,
					    .tid = PID,
					    .ptid = 1,
					    .time = t0 + (uint64_t)(nsamples + 1) * PERIOD_NS};
	return hwprof_writer_add(w, &rec);
}

static int write_file(const char *bin, const char *out, const struct image *im, long nsamples,
		      const uint64_t *addrs, const double *cdf, size_t ndistinct, bool data)
{
	struct hwprof_file_header h;
	struct hwprof_file_event ev = {
	    .name = "cpu-clock",
	    .type = 1,	 /* PERF_TYPE_SOFTWARE */
	    .config = 0, /* PERF_COUNT_SW_CPU_CLOCK */
	    .sampling = true,
	    .freq = true,
	    .period_or_freq = FREQ_HZ,
	    .exclude_kernel = true,
	    .exclude_hv = true,
	};
	char *argv[] = {(char *)bin};
	struct hwprof_writer *w = NULL;
	struct hwprof_file_trailer tr = {0};
	uint64_t t0;
	int err;

	err = hwprof_header_init(&h);
	if (err)
		return fail("hwprof_header_init", strerror(-err));
	/* Filled by hand and not released: argv and events point at our own storage. */
	h.argc = 1;
	h.argv = argv;
	h.nevents = 1;
	h.events = &ev;
	h.data = data;
	t0 = h.start_time_ns;
	err = hwprof_writer_open(&w, out, &h);
	if (err)
		return fail(out, strerror(-err));

	err = write_process(w, bin, im, t0);
	if (!err && data)
		err = data_mappings(w, bin, im, t0);
	if (!err)
		err = write_samples(w, im, nsamples, addrs, cdf, ndistinct, data, t0);
	tr.samples = (uint64_t)nsamples;
	tr.duration_ns = (uint64_t)nsamples * PERIOD_NS;
	tr.exit_status = 0;
	if (err) {
		hwprof_writer_close(w, NULL);
		return fail(out, strerror(-err));
	}
	printf("gen_synthetic: %ld samples, %zu distinct addresses, %llu bytes\n", nsamples,
	       ndistinct, (unsigned long long)hwprof_writer_bytes(w));
	err = hwprof_writer_close(w, &tr);
	if (err)
		return fail(out, strerror(-err));
	return 0;
}

int main(int argc, char **argv)
{
	struct image im;
	long nsamples, ndistinct;
	uint64_t *addrs = NULL, seed = 0x9e3779b97f4a7c15ULL;
	double *cdf = NULL;
	char *bin;
	bool data = argc > 1 && !strcmp(argv[1], "--data");
	int rc;

	if (data) {
		argv++;
		argc--;
	}
	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: gen_synthetic [--data] BINARY OUT [SAMPLES [DISTINCT]]\n");
		return 64;
	}
	nsamples = argc > 3 ? parse_count(argv[3], "SAMPLES") : 1000000;
	ndistinct = argc > 4 ? parse_count(argv[4], "DISTINCT") : 65536;
	bin = realpath(argv[1], NULL);
	if (!bin)
		return fail(argv[1], strerror(errno));
	rc = read_image(bin, &im);
	if (rc)
		goto out;
	if ((uint64_t)ndistinct > im.text_size)
		ndistinct = (long)im.text_size;
	addrs = malloc((size_t)ndistinct * sizeof(*addrs));
	cdf = zipf_cdf((size_t)ndistinct);
	if (!addrs || !cdf) {
		rc = fail("allocation", strerror(ENOMEM));
		goto out;
	}
	for (long i = 0; i < ndistinct; i++)
		addrs[i] = im.text_addr + next_rand(&seed) % im.text_size;
	if (data && !im.rw_memsz) {
		rc = fail(bin, "no writable PT_LOAD for --data");
		goto out;
	}
	rc = write_file(bin, argv[2], &im, nsamples, addrs, cdf, (size_t)ndistinct, data);
out:
	free(cdf);
	free(addrs);
	free(bin);
	return rc;
}
