/* test_dmi.c - SMBIOS type-17 memory devices from hand-made raw records (DMTF DSP0134
 * "Memory Device" offsets), in a fixture <sysfs>/firmware/dmi/entries tree. */
#include "dmi.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A type-17 record of SMBIOS 3.x length 0x28: WIDTH bits, SIZE (the WORD at 0x0C), rated
 * SPEED at 0x15, configured CONF at 0x20, the locator as string 1. Returns its length. */
static size_t dimm(uint8_t *r, unsigned width, unsigned size, unsigned speed, unsigned conf,
		   const char *loc)
{
	memset(r, 0, 0x28);
	r[0] = 17;
	r[1] = 0x28;
	r[0x0A] = width & 0xff;
	r[0x0B] = width >> 8;
	r[0x0C] = size & 0xff;
	r[0x0D] = size >> 8;
	r[0x10] = 1;
	r[0x15] = speed & 0xff;
	r[0x16] = speed >> 8;
	r[0x20] = conf & 0xff;
	r[0x21] = conf >> 8;
	strcpy((char *)r + 0x28, loc);
	return 0x28 + strlen(loc) + 2; /* the string, its NUL and the set's closing NUL */
}

static char root[PATH_MAX];

static void put(int n, const uint8_t *r, size_t len)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/firmware", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/firmware/dmi", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/firmware/dmi/entries", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/firmware/dmi/entries/17-%d", root, n);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/firmware/dmi/entries/17-%d/raw", root, n);
	f = fopen(path, "wb");
	cr_assert_not_null(f);
	fwrite(r, 1, len, f);
	fclose(f);
}

static void new_root(void)
{
	snprintf(root, sizeof(root), "/tmp/hwprof-dmi-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	setenv("HWPROF_SYSFS_ROOT", root, 1);
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
Test(dmi, six_channel_server_peak, .init = new_root)
{
	uint8_t r[128];
	struct dmi_memory m;
	char loc[16];

	for (int i = 0; i < 6; i++) {
		snprintf(loc, sizeof(loc), "CPU0_DIMM_%c1", 'A' + i);
		put(i, r, dimm(r, 64, 32768, 3200, 2933, loc));
	}
	put(6, r, dimm(r, 0xFFFF, 0, 0, 0, "CPU0_DIMM_A2"));
	put(7, r, dimm(r, 0xFFFF, 0, 0, 0, "CPU0_DIMM_B2"));
	cr_assert_eq(dmi_memory_read(&m), 0);
	cr_assert_eq(m.n, 6);
	cr_assert_eq(m.empty, 2);
	cr_assert_float_eq(m.peak_bps, 6 * 2933e6 * 8, 1);
}

Test(dmi, unknown_when_missing_or_speedless, .init = new_root)
{
	uint8_t r[128];
	struct dmi_memory m;

	cr_assert_eq(dmi_memory_read(&m), -ENOENT, "no entries exported");
	put(0, r, dimm(r, 64, 8192, 0, 0, "DIMM0")); /* a VM's table: no speed */
	cr_assert_eq(dmi_memory_read(&m), -ENODATA);
	cr_assert_eq(m.n, 1);
	cr_assert_eq(m.peak_bps, 0);
}
