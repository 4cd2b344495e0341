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
