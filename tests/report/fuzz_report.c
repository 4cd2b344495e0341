/* fuzz_report.c - libFuzzer target for the whole report path: the reader, the model
 * (MMAP/FORK/exec replay, filters, symbolization of the DSOs the records name), the rows of
 * each sort and the three outputs.
 *
 * Build (every library instrumented for coverage, only this file linked with libFuzzer):
 *   CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined \
 *     -Db_lundef=false -Dc_args=-fsanitize=fuzzer-no-link
 *   meson compile -C build-fuzz tests/report/fuzz_report
 * Run: build-fuzz/tests/report/fuzz_report -max_total_time=600 CORPUS_DIR
 * Seed the corpus with real recordings (a 0 byte, then the file): their MMAP records name
 * binaries of this host, so the symbolizer sees real DWARF.
 *
 * The first input byte picks the mode as in fuzz_reader.c: even, the rest is the file as is;
 * odd, the rest is [type][len][body] chunks framed with correct CRCs after a valid header.
 * Bits 1-3 pick the inline mode and the sort keys, so that every row grouping is reached.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rows.h"
#include "output.h"
#include "../sampfile/fuzz_frames.h"

static int memfd = -1;
static char path[64], kallsyms[64];
static uint8_t *header; /* preamble + header records of a valid file */
static size_t header_len;
static uint8_t *buf;
static size_t buf_cap;
static FILE *sink;

static void init(void)
{
	static const char ks[] = "ffffffff81000000 T _stext\nffffffff81001000 t clear_page\n";
	int kfd;

	fuzz_valid_header(false, &header, &header_len);
	memfd = memfd_create("hwprof-fuzz", 0);
	kfd = memfd_create("hwprof-fuzz-kallsyms", 0);
	if (memfd < 0 || kfd < 0 || write(kfd, ks, sizeof(ks) - 1) != sizeof(ks) - 1)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	snprintf(kallsyms, sizeof(kallsyms), "/proc/self/fd/%d", kfd);
	sink = fopen("/dev/null", "w");
	if (!sink)
		abort();
	unsetenv("DEBUGINFOD_URLS"); /* no network from a fuzzer */
}

/* The rows of P under KEYS in each output; every row's share in 0..1, summing to at most 1. */
static void outputs(const struct profile *p, const enum profile_key *keys, size_t nkeys,
		    enum inline_mode mode)
{
	struct output_opts oo = {.keys = keys, .nkeys = nkeys, .inline_mode = mode};
	struct profile_row *rows = NULL;
	size_t nrows = 0;
	double sum = 0;

	if (profile_rows(p, keys, nkeys, &rows, &nrows) < 0)
		abort();
	for (size_t i = 0; i < nrows; i++) {
		if (!(rows[i].share >= 0 && rows[i].share <= 1.000001))
			abort();
		sum += rows[i].share;
	}
	if (sum > 1.0001)
		abort();
	output_text(sink, p, rows, nrows, &oo);
	output_csv(sink, p, rows, nrows, &oo);
	output_json(sink, p, rows, nrows, &oo);
	output_pprof(sink, p, rows, nrows, &oo);
	free(rows);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum profile_key sorts[4][2] = {{PROFILE_KEY_LINE},
						     {PROFILE_KEY_FUNCTION},
						     {PROFILE_KEY_DSO},
						     {PROFILE_KEY_FUNCTION, PROFILE_KEY_LINE}};
	const char *inputs[1] = {path};
	struct profile *p = NULL;
	char err[1024] = "";
	size_t len = 0;

	if (memfd < 0)
		init();
	if (size < 1)
		return 0;
	if (data[0] & 1)
		len = fuzz_frame(header, header_len, data + 1, size - 1, &buf, &buf_cap);
	else
		fuzz_put(&buf, &buf_cap, &len, data + 1, size - 1);
	if (ftruncate(memfd, 0) || pwrite(memfd, buf, len, 0) != (ssize_t)len)
		abort();

	enum inline_mode mode = data[0] & 2 ? INLINE_CALLER : INLINE_CALLEE;
	unsigned sort = (data[0] >> 2) & 3;
	struct profile_options o = {.inputs = inputs,
				    .ninputs = 1,
				    .inline_mode = mode,
				    .kallsyms = kallsyms,
				    .data = true};
	if (profile_load(&p, &o, err, sizeof(err)) < 0) {
		if (!err[0])
			abort(); /* every failure names its cause */
		return 0;
	}
	if (p->samples > p->samples_read)
		abort();
	outputs(p, sorts[sort], sort == 3 ? 2 : 1, mode);
	profile_free(p);
	return 0;
}
