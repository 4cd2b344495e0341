/* test_stat_bandwidth.c - `hwprof stat --bandwidth -a` in-process against the fake kernel and
 * fixture trees (tests/fake/fixture.h): an Intel server with 2 and with 6 IMC boxes, an
 * Intel client, an AMD Zen 2 data fabric and a Zen 4 one whose events hwprof does not know,
 * with and without SMBIOS memory devices. Counts are set per box, so the sums are exact:
 * bytes = CAS x 64 (the boxes' .scale, 6.103515625e-5 MiB = 2^-14 MiB, is exact in binary). */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "cli.h"
#include "fake_kernel.h"
#include "fixture.h"

static char out[PATH_MAX];

static void quiet_stderr(void)
{
	cr_redirect_stderr();
}

/* The counts of the run: N server boxes of types 20.., box I with (I+1) * READ CAS read and
 * (I+1) * WRITE written; or, with AMD, controller I of amd_df (type 30) with (I+1) * READ
 * beats. */
struct counts {
	int boxes;
	bool amd;
	uint64_t read, write;
};
static struct counts counts;

/* amd_df's DRAM channel events of Zen 1-3 (event codes; umask 0x38), as perf's amdzen2
 * data-fabric.json lists dram_channel_data_controller_0..7. */
static const unsigned zen_codes[] = {0x07, 0x47, 0x87, 0xc7, 0x107, 0x147, 0x187, 0x1c7};

static void set_counts(void)
{
	for (int i = 0; i < counts.boxes; i++) {
		fake_kernel_set_count(20 + (uint32_t)i, 0x0304, (uint64_t)(i + 1) * counts.read);
		fake_kernel_set_count(20 + (uint32_t)i, 0x0c04, (uint64_t)(i + 1) * counts.write);
	}
	for (int i = 0; counts.amd && i < 8; i++) {
		/* amd_df's format: event config:0-7,32-35, umask config:8-15. */
		uint64_t config =
		    (zen_codes[i] & 0xff) | 0x38ull << 8 | (uint64_t)(zen_codes[i] >> 8) << 32;
		fake_kernel_set_count(30, config, (uint64_t)(i + 1) * counts.read);
	}
}

/* Runs `hwprof stat --bandwidth -a -f FORMAT -o OUT -- sleep 0.05` on the fake kernel of a
 * privileged user with the counts above; returns the exit status, and the output in
 * *TEXT (NULL on failure). */
static int run_bw(const char *format, char **text)
{
	char *argv[] = {"stat", "--bandwidth", "-a",   "-f", (char *)format, "-o", out,
			"--",	"sleep",       "0.05", NULL};
	struct fake_kernel_config cfg = fake_kernel_defaults();
	int rc;

	snprintf(out, sizeof(out), "%s/out", fixture_root());
	cfg.privileged = true;
	cfg.nr_counters = 64; /* no multiplexing: each box has counters of its own */
	fake_kernel_install(&cfg);
	set_counts();
	cli_set_prefix("hwprof stat");
	optind = 0;
	rc = cmd_stat(10, argv);
	*text = rc == 0 ? fixture_slurp(out) : NULL;
	return rc;
}

/* The number after "KEY": in JSON TEXT (the first one). */
static double json_number(const char *text, const char *key)
{
	char k[64];
	const char *at;
	double v;

	snprintf(k, sizeof(k), "\"%s\": ", key);
	at = strstr(text, k);
	cr_assert_not_null(at, "%s in %s", key, text);
	cr_assert_eq(sscanf(at + strlen(k), "%lf", &v), 1, "%s in %s", key, text);
	return v;
}

/* A server of N boxes with the counts of set_counts(). */
static void server(int n, uint64_t read, uint64_t write)
{
	fixture_new();
	fixture_intel_server_imc(n, 20);
	counts.boxes = n;
	counts.amd = false;
	counts.read = read;
	counts.write = write;
}

/* Six DDR4-2933 DIMMs, one per channel, and an empty slot: 6 x 2933e6 x 8 = 140.784 GB/s. */
static void six_dimms(void)
{
	uint8_t r[256];
	char loc[32];

	for (int i = 0; i < 6; i++) {
		snprintf(loc, sizeof(loc), "CPU0_DIMM_%c1", 'A' + i);
		fixture_dimm(i, 2933, loc, NULL);
	}
	fixture_dmi_put(6, r, fixture_dimm_record(r, 0xFFFF, 0, 0, 0, "CPU0_DIMM_A2", NULL));
}

Test(bandwidth, six_boxes_summed_against_the_peak, .fini = fixture_remove)
{
	char *json;
	size_t opened = 0;
	double el, rd, wr;

	server(6, 1000000, 500000);
	six_dimms();
	cr_assert_eq(run_bw("json", &json), 0);
	/* 21e6 CAS read x 64 B, 10.5e6 CAS written x 64 B. */
	cr_assert_eq(json_number(json, "read_bytes"), 1344000000.0, "%s", json);
	cr_assert_eq(json_number(json, "write_bytes"), 672000000.0, "%s", json);
	cr_assert_eq(json_number(json, "bytes"), 2016000000.0, "%s", json);
	cr_assert_eq(json_number(json, "boxes"), 6, "%s", json);
	cr_assert_not_null(strstr(json, "\"source\": \"uncore_imc_N\""), "%s", json);
	cr_assert_float_eq(json_number(json, "peak_gbps"), 140.784, 1e-9, "%s", json);
	el = json_number(json, "elapsed_s");
	rd = json_number(json, "read_gbps");
	wr = json_number(json, "write_gbps");
	cr_assert_float_eq(rd, 1.344 / el, 1e-6 * rd, "%s", json);
	cr_assert_float_eq(wr, 0.672 / el, 1e-6 * wr, "%s", json);
	cr_assert_float_eq(json_number(json, "peak_pct"), 100 * 2.016 / el / 140.784, 1e-6, "%s",
			   json);
	cr_assert_not_null(strstr(json, "\"peak_from\": \"6 x 2933 MT/s x 64 bit (CPU0_DIMM_A1, "
					"CPU0_DIMM_B1, CPU0_DIMM_C1, CPU0_DIMM_D1, CPU0_DIMM_E1, "
					"CPU0_DIMM_F1)\""),
			   "%s", json);
	cr_assert_not_null(strstr(json, "\"peak_unknown\": null"), "%s", json);
	/* No per-box bandwidth metric beside the sum. */
	cr_assert_null(strstr(json, "cas_count_read/ bandwidth"), "%s", json);
	for (size_t i = 0; i < fake_kernel_nopens(); i++) {
		const struct fake_kernel_open *o = fake_kernel_open_log(i);
		if (o->attr.type < 20 || o->attr.type > 25 || o->result < 0)
			continue;
		cr_assert_eq(o->pid, -1);
		cr_assert_eq(o->cpu, 0, "on the CPU of the box's cpumask only");
		opened++;
	}
	cr_assert_eq(opened, 24, "12 events probed once, then opened once: %zu", opened);
	fake_kernel_uninstall();
}

/* Two boxes, text: the line as documented, its numbers consistent with the counts. */
Test(bandwidth, two_boxes_text_line, .fini = fixture_remove)
{
	const char *line;
	double r, w, t, p, pct;
	char *text;

	server(2, 3000000, 1000000); /* box 0: 3e6 / 1e6, box 1: 6e6 / 2e6 */
	fixture_dimm(0, 3200, "DIMM_A1", "P0 CHANNEL A");
	fixture_dimm(1, 3200, "DIMM_B1", "P0 CHANNEL B");
	cr_assert_eq(run_bw("text", &text), 0);
	line = strstr(text, " memory bandwidth (2 boxes uncore_imc_N): read ");
	cr_assert_not_null(line, "%s", text);
	cr_assert_eq(sscanf(line,
			    " memory bandwidth (2 boxes uncore_imc_N): read %lf GB/s + write "
			    "%lf GB/s = %lf of %lf GB/s peak (%lf%%)",
			    &r, &w, &t, &p, &pct),
		     5, "%s", line);
	/* 9e6 x 64 B read, 3e6 x 64 B written: three times as much read, to the rounding. Each
	 * figure is printed to 0.1, so off by up to 0.05: r against 3 w by up to 0.2, t against
	 * r + w by up to 0.15 (8.3 + 2.8 against 11.0 is a run with these exact rates). */
	cr_assert_float_eq(r, 3 * w, 0.2 + 1e-9, "%s", line);
	cr_assert_float_eq(t, r + w, 0.15 + 1e-9, "%s", line);
	cr_assert_float_eq(p, 51.2, 1e-9, "2 x 3200 MT/s x 8 B: %s", line);
	cr_assert_float_eq(pct, 100 * t / p, 1, "%s", line);
	cr_assert_not_null(
	    strstr(text, " peak from SMBIOS: 2 x 3200 MT/s x 64 bit (DIMM_A1, DIMM_B1)\n"), "%s",
	    text);
	cr_assert_not_null(strstr(text, "uncore_imc_1/cas_count_write/"), "%s", text);
	fake_kernel_uninstall();
}

Test(bandwidth, peak_unknown_without_smbios, .fini = fixture_remove)
{
	char *text;

	server(2, 1000, 1000);
	cr_assert_eq(run_bw("text", &text), 0);
	cr_assert_not_null(strstr(text, " GB/s, peak unknown (no SMBIOS memory-device records "
					"(type 17) in "),
			   "%s", text);
	cr_assert_eq(run_bw("json", &text), 0);
	cr_assert_not_null(strstr(text, "\"peak_gbps\": null"), "%s", text);
	cr_assert_not_null(strstr(text, "\"peak_unknown\": \"no SMBIOS"), "%s", text);
	fake_kernel_uninstall();
}

/* Where /sys/firmware/dmi is not readable (no entries in the tree), dmidecode's text is the
 * peak's second source: the board of tests/common/data/dmidecode-t17.txt, 2 channels at
 * 2933 MT/s. */
Test(bandwidth, peak_from_dmidecode, .fini = fixture_remove)
{
	char data[PATH_MAX];
	char *text;

	server(2, 1000, 1000);
	snprintf(data, sizeof(data), "%s/dmidecode-t17.txt", getenv("HWPROF_TEST_DATA"));
	fixture_dmidecode(data);
	cr_assert_eq(run_bw("json", &text), 0);
	cr_assert_float_eq(json_number(text, "peak_gbps"), 2 * 2.933 * 8, 1e-9, "%s", text);
	cr_assert_not_null(strstr(text, "\"peak_source\": \"dmidecode -t 17\""), "%s", text);
	cr_assert_eq(run_bw("text", &text), 0);
	cr_assert_not_null(strstr(text, " peak from dmidecode -t 17: 2 channels x 2933 MT/s x 64 "
					"bit (3 DIMMs: P0 CHANNEL A DIMM 0, "),
			   "%s", text);
	fake_kernel_uninstall();
}

Test(bandwidth, csv_rows, .fini = fixture_remove)
{
	char *text;

	server(2, 1000, 1000);
	six_dimms();
	cr_assert_eq(run_bw("csv", &text), 0);
	cr_assert_not_null(strstr(text, "\nbandwidth read,"), "%s", text);
	cr_assert_not_null(strstr(text, "\nbandwidth write,"), "%s", text);
	cr_assert_not_null(strstr(text, "\nbandwidth peak,140.784,,,,,GB/s,true,true\n"), "%s",
			   text);
	fake_kernel_uninstall();
}

/* An Intel client: the free-running data_reads and data_writes of uncore_imc (type 15,
 * event 0x01 and 0x02), 64 bytes a count by their .scale. */
Test(bandwidth, client_free_running, .fini = fixture_remove)
{
	char *text;

	fixture_new();
	fixture_intel_client_imc(15);
	fixture_dimm(0, 2666, "ChannelA-DIMM0", "BANK 0");
	counts = (struct counts){0};
	cr_assert_eq(run_bw("json", &text), 0);
	/* Without a count of its own each event reads the fake kernel's default, 1000000. */
	cr_assert_eq(json_number(text, "read_bytes"), 64000000.0, "%s", text);
	cr_assert_eq(json_number(text, "write_bytes"), 64000000.0, "%s", text);
	cr_assert_not_null(strstr(text, "\"source\": \"uncore_imc\""), "%s", text);
	cr_assert_float_eq(json_number(text, "peak_gbps"), 21.328, 1e-9, "%s", text);
	fake_kernel_uninstall();
}

/* AMD Zen 2 (family 17h model 31h): the 8 DRAM channel events of amd_df, 64 bytes each,
 * reads and writes together. */
Test(bandwidth, amd_zen2_data_fabric, .fini = fixture_remove)
{
	char *json;
	size_t opened = 0;

	fixture_new();
	fixture_amd_df(30);
	fixture_cpuinfo("AuthenticAMD", 23, 49, "AMD EPYC 7B12 64-Core Processor");
	for (int i = 0; i < 8; i++) {
		char loc[16];
		snprintf(loc, sizeof(loc), "DIMM_%c0", 'A' + i);
		fixture_dimm(i, 3200, loc, NULL);
	}
	counts = (struct counts){.amd = true, .read = 100000};
	cr_assert_eq(run_bw("json", &json), 0);
	/* 36e5 beats x 64 B, not split. */
	cr_assert_eq(json_number(json, "bytes"), 230400000.0, "%s", json);
	cr_assert_not_null(strstr(json, "\"read_bytes\": null"), "%s", json);
	cr_assert_not_null(strstr(json, "\"source\": \"amd_df\""), "%s", json);
	cr_assert_float_eq(json_number(json, "peak_gbps"), 204.8, 1e-9, "8 x 3200e6 x 8: %s", json);
	for (size_t i = 0; i < fake_kernel_nopens(); i++)
		opened += fake_kernel_open_log(i)->attr.type == 30 &&
			  fake_kernel_open_log(i)->result >= 0;
	cr_assert_eq(opened, 16, "8 probed, 8 counted: %zu", opened);
	cr_assert_eq(run_bw("text", &json), 0);
	cr_assert_not_null(strstr(json, " memory bandwidth (amd_df): read and write "), "%s", json);
	cr_assert_not_null(strstr(json, " (amd_df counts reads and writes together)\n"), "%s",
			   json);
	fake_kernel_uninstall();
}

/* Runs --bandwidth expecting it to fail (exit 2) with one line on stderr; returns the line. */
static const char *failure_line(void)
{
	static char buf[4096];
	char *text;
	FILE *err;

	cr_assert_eq(run_bw("text", &text), EXIT_FATAL);
	fflush(stderr);
	err = cr_get_redirected_stderr();
	cr_assert_geq(fread(buf, 1, sizeof(buf) - 1, err), 0);
	cr_assert_eq(strchr(buf, '\n'), buf + strlen(buf) - 1, "one line: %s", buf);
	return buf;
}

/* AMD Zen 4 (family 19h model 11h): its data-fabric codes differ and are not in hwprof's
 * table: refused with the reason, no guess. */
Test(bandwidth, amd_zen4_refused_with_reason, .init = quiet_stderr, .fini = fixture_remove)
{
	const char *line;

	fixture_new();
	fixture_amd_df(30);
	fixture_cpuinfo("AuthenticAMD", 25, 17, "AMD EPYC 9654 96-Core Processor");
	line = failure_line();
	cr_assert_not_null(strstr(line,
				  "hwprof stat: error: --bandwidth: the DRAM events of "
				  "amd_df on AuthenticAMD family 19h model 11h are not known"),
			   "%s", line);
	cr_assert_eq(fake_kernel_nopens(), 0, "nothing opened: %zu", fake_kernel_nopens());
	fake_kernel_uninstall();
}

/* No memory controller (this host): one line naming the cause and what works here. */
Test(bandwidth, no_controller_one_line, .init = quiet_stderr, .fini = fixture_remove)
{
	const char *line;

	fixture_new();
	fixture_put("bus/event_source/devices/software/type", "1\n");
	line = failure_line();
	cr_assert_not_null(strstr(line, "--bandwidth: no memory-controller PMU (uncore_imc_N, "
					"uncore_imc or amd_df) in "),
			   "%s", line);
	cr_assert_not_null(strstr(line, "what works here: software events"), "%s", line);
	fake_kernel_uninstall();
}

Test(bandwidth, needs_a, .init = quiet_stderr, .fini = fixture_remove, .exit_code = 64)
{
	char *argv[] = {"stat", "--bandwidth", "--", "true", NULL};

	fixture_new();
	fixture_intel_server_imc(2, 20);
	fake_kernel_install(NULL);
	cli_set_prefix("hwprof stat");
	optind = 0;
	cmd_stat(4, argv);
}
