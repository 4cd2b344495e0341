/* fuzz_perf.c - libFuzzer target for the perf.data producer (report/core/input_perf.c) and
 * the loader behind it.
 *
 * Build (as fuzz_report.c):
 *   CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined \
 *     -Db_lundef=false -Dc_args=-fsanitize=fuzzer-no-link
 *   meson compile -C build-fuzz tests/report/fuzz_perf
 * Run: build-fuzz/tests/report/fuzz_perf -max_total_time=300 CORPUS_DIR
 * Seed the corpus with real perf.data files (a 0 byte, then the file).
 *
 * perf.data has no checksums, so raw bytes reach every decoder; still, most random headers
 * fail early. The first input byte picks the mode: 0 (mod 4) the rest is the file as is; 1 the
 * rest is the data section of a valid file with one event (sample_type with READ and
 * CALLCHAIN, sample_id_all) and its features; 2 the same in the pipe layout; 3 a valid file
 * with two events told apart by PERF_SAMPLE_IDENTIFIER. In modes 1 to 3, bit 2 of that byte
 * zstd-compresses the data into two COMPRESSED records first (perf record -z), so that the
 * fuzzed records get through the decompression.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "profile.h"
#include "perf_writer.h"

static int memfd = -1;
static char path[64], kallsyms[64];
static struct pw file, data;

static void init(void)
{
	static const char ks[] = "ffffffff81000000 T _stext\nffffffff81001000 t clear_page\n";
	int kfd;

	memfd = memfd_create("hwprof-fuzz-perf", 0);
	kfd = memfd_create("hwprof-fuzz-kallsyms", 0);
	if (memfd < 0 || kfd < 0 || write(kfd, ks, sizeof(ks) - 1) != sizeof(ks) - 1)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	snprintf(kallsyms, sizeof(kallsyms), "/proc/self/fd/%d", kfd);
	unsetenv("DEBUGINFOD_URLS"); /* no network from a fuzzer */
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	const uint64_t t = PW_SAMPLE_TYPE | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN;
	struct pw_event ev[2] = {
	    {.attr = pw_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 1, t),
	     .id = 7,
	     .name = "page-faults"},
	    {.attr = pw_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, t),
	     .id = 9,
	     .name = "cpu-clock"},
	};
	const char *inputs[1] = {path};
	struct profile_options o = {
	    .inputs = inputs, .ninputs = 1, .kallsyms = kallsyms, .data = true};
	struct profile *p = NULL;
	char err[1024] = "";
	unsigned mode;

	if (memfd < 0)
		init();
	if (size < 1)
		return 0;
	mode = in[0] & 3;
	data.len = 0;
	if (in[0] & 4) {
		struct pw raw = {.p = (uint8_t *)in + 1, .len = size - 1};
		pw_compressed(&data, &raw, 2);
	} else {
		pw_put(&data, in + 1, size - 1);
	}
	ev[1].attr.freq = 1;
	ev[1].attr.sample_freq = 4000;
	if (mode == 3)
		for (int i = 0; i < 2; i++)
			ev[i].attr.sample_type |= PERF_SAMPLE_IDENTIFIER;
	if (mode == 0) {
		file.len = 0;
		pw_put(&file, in + 1, size - 1);
	} else if (mode == 2) {
		pw_pipe(&file, ev, 1, &data);
	} else {
		pw_file(&file, ev, mode == 3 ? 2 : 1, &data);
	}
	if (ftruncate(memfd, 0) || pwrite(memfd, file.p, file.len, 0) != (ssize_t)file.len)
		abort();
	if (profile_load(&p, &o, err, sizeof(err)) < 0) {
		if (!err[0] || strchr(err, '\n'))
			abort(); /* every failure names its cause, in one line */
		return 0;
	}
	if (p->samples > p->samples_read)
		abort();
	profile_free(p);
	return 0;
}
