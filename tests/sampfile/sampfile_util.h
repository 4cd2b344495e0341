/* sampfile_util.h - helpers shared by the sample-file tests and the speed/size tool:
 * a header with every field set to a real value, synthetic sample streams shaped like real
 * recordings, and decoding a whole file into an array. */
#ifndef HWPROF_TEST_SAMPFILE_UTIL_H
#define HWPROF_TEST_SAMPFILE_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/sampfile.h"

/* A deterministic generator (xorshift64*), so every run checks the same data. */
static inline uint64_t tu_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

/* Roughly normal noise with standard deviation SIGMA (sum of 4 uniforms). */
static inline int64_t tu_noise(uint64_t *s, int64_t sigma)
{
	int64_t sum = 0;

	for (int i = 0; i < 4; i++)
		sum += (int64_t)(tu_rand(s) % 2001) - 1000;
	return sum * sigma / 1155; /* stddev of the sum is ~1155 */
}

/* Fills H with three events and a command line, every field non-zero where it can be. The
 * strings are static: do not call hwprof_header_release() on it. */
static inline void tu_header(struct hwprof_file_header *h)
{
	static char *argv[] = {"./workload", "--pages", "20000", "arg with spaces", "", "é"};
	static struct hwprof_file_event ev[3] = {
	    {.name = "LLC-load-misses:P",
	     .type = 3,
	     .config = 0x10002,
	     .sampling = true,
	     .period_or_freq = 10007,
	     .precise_requested = 3,
	     .precise_obtained = 2,
	     .precise_max = true,
	     .exclude_kernel = true},
	    {.name = "cycles",
	     .type = 0,
	     .config = 0,
	     .config1 = 7,
	     .config2 = 9,
	     .period_or_freq = 0,
	     .exclude_hv = true},
	    {.name = "cpu/event=0x3c,umask=0x1/u",
	     .type = 4,
	     .config = 0x13c,
	     .config1 = 0xdeadbeef,
	     .config2 = UINT64_MAX,
	     .sampling = true,
	     .freq = true,
	     .period_or_freq = 4000,
	     .precise_requested = 1,
	     .precise_obtained = 1,
	     .exclude_kernel = true,
	     .exclude_hv = true},
	};

	memset(h, 0, sizeof(*h));
	h->major = HWPROF_FILE_MAJOR;
	h->minor = HWPROF_FILE_MINOR;
	strcpy(h->hostname, "build-host-7");
	strcpy(h->kernel, "6.18.0-1-amd64");
	strcpy(h->cpu_model, "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz");
	h->ncpus = 40;
	h->start_time_ns = 1764547200123456789ull;
	h->argc = sizeof(argv) / sizeof(argv[0]);
	h->argv = argv;
	h->system_wide = true;
	strcpy(h->cpus, "0-3,8");
	h->nevents = 3;
	h->events = ev;
}

/* cpu-clock at 4 kHz on one thread in a hot loop: a 250 us period with timer jitter, the IP
 * on one of a few instructions of a short loop, a rare migration. */
static inline void tu_cpu_clock(struct hwprof_rec_sample *s, size_t n, uint64_t seed)
{
	uint64_t t = 9541118371249ull, ip0 = 0x56428f17a150ull;

	for (size_t i = 0; i < n; i++) {
		t += 250000 + (uint64_t)tu_noise(&seed, 3000);
		s[i] = (struct hwprof_rec_sample){
		    .pid = 10050,
		    .tid = 10050,
		    .time = t,
		    .period = 250000,
		    .ip = ip0 + 3 * (tu_rand(&seed) % 14),
		    .cpu = (i / 400) % 2,
		    .event = 0,
		};
	}
}

/* page-faults with period 1 over a 20000-page loop: nearly every fault on the same store,
 * ~1.4 us apart, a few on other instructions (libc, the kernel). */
static inline void tu_page_faults(struct hwprof_rec_sample *s, size_t n, uint64_t seed)
{
	uint64_t t = 9543228494965ull;

	for (size_t i = 0; i < n; i++) {
		uint64_t r = tu_rand(&seed) % 1000;
		t += 1400 + (uint64_t)tu_noise(&seed, 150);
		s[i] = (struct hwprof_rec_sample){
		    .pid = 10054,
		    .tid = 10054,
		    .time = t,
		    .period = 1,
		    .cpu = 1,
		    .ip = r < 995 ? 0x55b44931b169ull : 0x7f3a12345000ull + r * 64,
		};
	}
}

/* A hardware event in frequency mode (-F 4000): the kernel retunes the period at each timer
 * tick (perf_event_open(2): sample_freq), so it changes every ~16 samples by a few percent; the
 * time between samples follows the event rate, the IP spreads over a 4 KiB hot region. */
static inline void tu_freq(struct hwprof_rec_sample *s, size_t n, uint64_t seed)
{
	uint64_t t = 1000000000ull, period = 600000;

	for (size_t i = 0; i < n; i++) {
		t += 250000 + (uint64_t)tu_noise(&seed, 10000);
		if (i % 16 == 0)
			period = (uint64_t)((int64_t)period + tu_noise(&seed, 18000));
		s[i] = (struct hwprof_rec_sample){
		    .pid = 77,
		    .tid = 78,
		    .time = t,
		    .period = period,
		    .cpu = 0,
		    .event = 2,
		    .ip = 0x401000ull + tu_rand(&seed) % 4096,
		};
	}
}

#endif
