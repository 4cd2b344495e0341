/* test_dmi.c - SMBIOS type-17 memory devices from hand-made raw records (DMTF DSP0134
 * "Memory Device" offsets), in a fixture <sysfs>/firmware/dmi/entries tree. */
#include "dmi.h"
#include "fixture.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A type-17 record (fixture_dimm_record()) with the device locator LOC alone. */
static size_t dimm(uint8_t *r, unsigned width, unsigned size, unsigned speed, unsigned conf,
		   const char *loc)
{
	return fixture_dimm_record(r, width, size, speed, conf, loc, NULL);
}

static void new_root(void)
{
	fixture_new();
}

Test(dmi, parse_one_record)
{
	uint8_t r[128];
	struct dmi_dimm d;
	size_t n = dimm(r, 64, 16384, 3200, 2933, "DIMM_A1");

	cr_assert_eq(dmi_dimm_parse(r, n, &d), 1);
	cr_assert_eq(d.width_bits, 64);
	cr_assert_eq(d.size_mib, 16384);
	cr_assert_eq(d.speed_mts, 2933, "configured speed first");
	cr_assert_str_eq(d.locator, "DIMM_A1");
	n = dimm(r, 64, 0x8000 | 2048, 3200, 0, "X"); /* 2048 KiB; no configured speed */
	cr_assert_eq(dmi_dimm_parse(r, n, &d), 1);
	cr_assert_eq(d.size_mib, 2);
	cr_assert_eq(d.speed_mts, 3200);
	n = dimm(r, 0xFFFF, 0, 0, 0, "DIMM_B2");
	cr_assert_eq(dmi_dimm_parse(r, n, &d), 0, "an empty slot");
	r[0] = 16;
	cr_assert_eq(dmi_dimm_parse(r, n, &d), -EINVAL);
	cr_assert_eq(dmi_dimm_parse(r, 10, &d), -EINVAL);
}

/* A server with six DDR4-2933 DIMMs (one per channel) and two empty slots: 6 x 2933 MT/s x 8
 * bytes = 140.784 GB/s. */
Test(dmi, six_channel_server_peak, .init = new_root, .fini = fixture_remove)
{
	uint8_t r[128];
	struct dmi_memory m;
	char loc[16];

	for (int i = 0; i < 6; i++) {
		snprintf(loc, sizeof(loc), "CPU0_DIMM_%c1", 'A' + i);
		fixture_dmi_put(i, r, dimm(r, 64, 32768, 3200, 2933, loc));
	}
	fixture_dmi_put(6, r, dimm(r, 0xFFFF, 0, 0, 0, "CPU0_DIMM_A2"));
	fixture_dmi_put(7, r, dimm(r, 0xFFFF, 0, 0, 0, "CPU0_DIMM_B2"));
	cr_assert_eq(dmi_memory_read(&m), 0);
	cr_assert_eq(m.n, 6);
	cr_assert_eq(m.empty, 2);
	cr_assert_float_eq(m.peak_bps, 6 * 2933e6 * 8, 1);
}

Test(dmi, unknown_when_missing_or_speedless, .init = new_root, .fini = fixture_remove)
{
	uint8_t r[128];
	struct dmi_memory m;

	cr_assert_eq(dmi_memory_read(&m), -ENOENT, "no entries exported");
	fixture_dmi_put(0, r, dimm(r, 64, 8192, 0, 0, "DIMM0")); /* a VM's table: no speed */
	cr_assert_eq(dmi_memory_read(&m), -ENODATA);
	cr_assert_eq(m.n, 1);
	cr_assert_eq(m.peak_bps, 0);
}

/* DIMMs that share a channel share its bandwidth: the peak counts each channel once, at its
 * speed, grouped by the bank locator or locator strings the boards write. */
struct board {
	const char *loc, *bank;
};

static void channels_of(const struct board *b, size_t n, size_t want, const char *what)
{
	struct dmi_memory m;

	fixture_new();
	for (size_t i = 0; i < n; i++)
		fixture_dimm((int)i, 3200, b[i].loc, b[i].bank);
	cr_assert_eq(dmi_memory_read(&m), 0, "%s", what);
	cr_assert_eq(m.n, n, "%s", what);
	cr_assert_eq(m.channels, want, "%s: %zu channels", what, m.channels);
	cr_assert_float_eq(m.peak_bps, want * 3200e6 * 8, 1, "%s", what);
	fixture_remove();
}

Test(dmi, dimms_sharing_a_channel_count_once)
{
	static const struct board amd[] = {{"DIMM 0", "P0 CHANNEL A"},
					   {"DIMM 1", "P0 CHANNEL A"},
					   {"DIMM 0", "P0 CHANNEL B"},
					   {"DIMM 1", "P0 CHANNEL B"}};
	static const struct board supermicro[] = {{"P1-DIMMA1", "P0_Node0_Channel0_Dimm0"},
						  {"P1-DIMMA2", "P0_Node0_Channel0_Dimm1"},
						  {"P1-DIMMB1", "P0_Node0_Channel1_Dimm0"}};
	static const struct board client[] = {{"ChannelA-DIMM0", "BANK 0"},
					      {"ChannelA-DIMM1", "BANK 1"},
					      {"ChannelB-DIMM0", "BANK 2"},
					      {"ChannelB-DIMM1", "BANK 3"}};
	static const struct board intel[] = {{"CPU0_DIMM_A1", NULL},
					     {"CPU0_DIMM_A2", NULL},
					     {"CPU0_DIMM_B1", NULL},
					     {"CPU1_DIMM_A1", NULL}};
	/* Dell's A1..A4 say nothing of channels: each is counted as one. */
	static const struct board dell[] = {{"A1", "Not Specified"},
					    {"A2", "Not Specified"},
					    {"A3", "Not Specified"},
					    {"A4", "Not Specified"}};

	channels_of(amd, 4, 2, "AMD: bank locator P0 CHANNEL A/B, DIMM 0/1");
	channels_of(supermicro, 3, 2, "Supermicro: P0_Node0_Channel0_Dimm0");
	channels_of(client, 4, 2, "client: ChannelA-DIMM0");
	channels_of(intel, 4, 3, "Intel: CPU0_DIMM_A1, CPU0_DIMM_A2");
	channels_of(dell, 4, 4, "Dell: A1..A4");
}

Test(dmi, describe_names_channels)
{
	struct dmi_memory m;
	char buf[512];

	fixture_new();
	fixture_dimm(0, 3200, "DIMM 0", "P0 CHANNEL A");
	fixture_dimm(1, 3200, "DIMM 1", "P0 CHANNEL A");
	fixture_dimm(2, 3200, "DIMM 0", "P0 CHANNEL B");
	cr_assert_eq(dmi_memory_read(&m), 0);
	dmi_memory_describe(&m, buf, sizeof(buf));
	cr_assert_str_eq(buf, "2 channels x 3200 MT/s x 64 bit (3 DIMMs: P0 CHANNEL A DIMM 0, "
			      "P0 CHANNEL A DIMM 1, P0 CHANNEL B DIMM 0)");
	fixture_remove();
}

/* dmidecode's text of the same records, the peak's second source where /sys/firmware/dmi is
 * not readable: a board of dmidecode 3.4's format (data/dmidecode-t17.txt, path in
 * $HWPROF_TEST_DATA): two DIMMs on channel A, one on B, one empty slot, at 2933 MT/s. */
Test(dmi, dmidecode_text)
{
	char path[PATH_MAX], buf[512];
	struct dmi_memory m;
	FILE *f;

	snprintf(path, sizeof(path), "%s/dmidecode-t17.txt", getenv("HWPROF_TEST_DATA"));
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(dmi_memory_parse_text(f, &m), 0);
	fclose(f);
	cr_assert_eq(m.n, 3);
	cr_assert_eq(m.empty, 1);
	cr_assert_eq(m.channels, 2);
	cr_assert_eq(m.dimm[0].speed_mts, 2933, "the configured speed");
	cr_assert_eq(m.dimm[0].width_bits, 64, "the data width, not the total with ECC");
	cr_assert_eq(m.dimm[0].size_mib, 32768);
	cr_assert_str_eq(m.dimm[1].locator, "DIMM 1");
	cr_assert_str_eq(m.dimm[2].bank, "P0 CHANNEL B");
	cr_assert_float_eq(m.peak_bps, 2 * 2933e6 * 8, 1);
	dmi_memory_describe(&m, buf, sizeof(buf));
	cr_assert_str_eq(buf, "2 channels x 2933 MT/s x 64 bit (3 DIMMs: P0 CHANNEL A DIMM 0, "
			      "P0 CHANNEL A DIMM 1, P0 CHANNEL B DIMM 0)");

	f = fmemopen((char *)"# dmidecode 3.4\n", 16, "r");
	cr_assert_eq(dmi_memory_parse_text(f, &m), -ENOENT, "no Memory Device");
	fclose(f);
	f = fmemopen((char *)"Memory Device\n\tData Width: 64 bits\n\tSize: 8 GB\n"
			     "\tSpeed: Unknown\n",
		     63, "r");
	cr_assert_eq(dmi_memory_parse_text(f, &m), -ENODATA, "a DIMM without a speed");
	fclose(f);
}
