/* dmi.h - the memory a platform has, from its SMBIOS memory-device records (type 17), for
 * the peak DRAM bandwidth next to a measured one (internal to libhwprof and `hwprof stat`).
 *
 * The kernel exports each SMBIOS structure as <sysfs>/firmware/dmi/entries/T-N/raw (root
 * only; <sysfs> is hwprof_sysfs_root(), so tests use fixture trees). Type 17 layout (DMTF
 * DSP0134 "Memory Device"): 0x0A data width in bits (WORD; 0xFFFF unknown), 0x0C size (WORD;
 * 0 no module installed, 0xFFFF unknown, bit 15 set: KiB units else MiB, 0x7FFF: the DWORD
 * extended size in MiB at 0x1C), 0x10 device locator (string number), 0x11 bank locator
 * (string number), 0x15 speed in MT/s
 * (WORD, 0 unknown), 0x20 configured memory speed in MT/s (SMBIOS 2.7, WORD); the strings
 * follow the formatted area. Functions return 0 or -errno and never print.
 */
#ifndef HWPROF_DMI_H
#define HWPROF_DMI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One populated memory device (DIMM). */
struct dmi_dimm {
	char locator[64];    /* "DIMM_A1", "" when none */
	char bank[64];	     /* the bank locator: "P0 CHANNEL A", "BANK 0", "" when none */
	unsigned speed_mts;  /* configured speed, else the rated speed; 0 unknown */
	unsigned width_bits; /* data width (64 for a DDR4 DIMM without ECC bits) */
	uint64_t size_mib;
	unsigned channel; /* the memory channel it is on: an index into dmi_memory's channels */
};

struct dmi_memory {
	struct dmi_dimm dimm[64];
	size_t n;	 /* populated devices found */
	size_t empty;	 /* slots without a module */
	size_t channels; /* memory channels the DIMMs are on (dmi_memory_read()) */
	double peak_bps; /* sum over the channels of the fastest speed * the widest width / 8
			  * of their DIMMs, bytes per second; 0 when a DIMM's speed or width
			  * is unknown */
};

/* Decodes one type-17 record RAW (LEN bytes: formatted area and strings) into *D. Returns 1
 * for a populated device, 0 for an empty slot, -EINVAL for a record too short or not of
 * type 17. */
int dmi_dimm_parse(const uint8_t *raw, size_t len, struct dmi_dimm *d);

/* Reads every <sysfs>/firmware/dmi/entries/17-N/raw into *M, in the firmware's order, and
 * groups the DIMMs into channels: DIMMs that share a channel share its bandwidth. The
 * channel is read from the bank locator, else the locator: the text up to a "channel" word
 * and its id ("P0 CHANNEL A" of "P0 CHANNEL A"/"DIMM 1", "P0_Node0_Channel0" of
 * "P0_Node0_Channel0_Dimm1", "ChannelA" of "ChannelA-DIMM1"), else a DIMM word and one
 * letter before the slot number ("CPU0_DIMM_A" of "CPU0_DIMM_A2", "P1-DIMMA" of
 * "P1-DIMMA2"); a DIMM whose strings say neither (Dell's "A1") is a channel of its own. Returns 0;
 * -ENOENT when there are no type-17 entries (no SMBIOS table exported); -EACCES when they are
 * root's; -ENODATA when no device is populated or a populated one has no speed or width
 * (M->peak_bps 0). */
int dmi_memory_read(struct dmi_memory *m);

/* Reads dmidecode's text of the memory devices (`dmidecode -t 17`, dmidecode 3.x) from F into
 * *M, the same fields as dmi_memory_read() takes from the raw records: the "Memory Device"
 * blocks' "Data Width: 64 bits", "Size: 32 GB" ("No Module Installed": an empty slot),
 * "Locator:", "Bank Locator:", "Configured Memory Speed: 2933 MT/s" (dmidecode before 3.0:
 * "Configured Clock Speed: 2933 MHz") else "Speed: 3200 MT/s"; DIMMs grouped into channels
 * as there. Returns 0; -ENOENT when F holds no Memory Device; -ENODATA as
 * dmi_memory_read(). */
int dmi_memory_parse_text(FILE *f, struct dmi_memory *m);

/* The configuration the peak of M comes from, as one phrase into BUF (LEN bytes): the
 * channels by speed and width, then the DIMMs' locators: "6 x 2933 MT/s x 64 bit
 * (CPU0_DIMM_A1, CPU0_DIMM_B1, ...)" with one DIMM per channel, "2 channels x 3200 MT/s x 64
 * bit (3 DIMMs: P0 CHANNEL A DIMM 0, P0 CHANNEL A DIMM 1, P0 CHANNEL B DIMM 0)" (bank locator
 * and locator) when DIMMs share channels. */
void dmi_memory_describe(const struct dmi_memory *m, char *buf, size_t len);

#endif
