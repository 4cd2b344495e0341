/* datasrc.h - where a sampled memory access was served from: PERF_SAMPLE_DATA_SRC decoded.
 *
 * The value is union perf_mem_data_src (linux/perf_event.h): mem_op (bits 0-4), mem_lvl
 * (5-18), mem_snoop (19-23), mem_lock (24-25), mem_dtlb (26-32), mem_lvl_num (33-36),
 * mem_remote (37), mem_snoopx (38-39), mem_blk (40-42), mem_hops (43-45). Intel PEBS
 * (mem-loads, mem-stores) and AMD IBS (ibs_op) fill it; other events leave it 0 or
 * PERF_MEM_NA. The level is read as perf mem reads it: mem_lvl_num with mem_remote when the
 * kernel set it, else the first mem_lvl bit.
 */
#ifndef HWPROF_REPORT_CORE_DATASRC_H
#define HWPROF_REPORT_CORE_DATASRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where the data came from, nearest first. */
enum data_level {
	DATA_LVL_UNKNOWN, /* not given (0, PERF_MEM_LVL_NA, PERF_MEM_LVLNUM_NA) */
	DATA_LVL_L1,
	DATA_LVL_LFB, /* a line fill buffer (AMD: miss address buffer): a miss in flight */
	DATA_LVL_L2,
	DATA_LVL_L3,
	DATA_LVL_L4,
	DATA_LVL_ANY_CACHE,    /* some cache the PMU does not name */
	DATA_LVL_REMOTE_CACHE, /* another node's or socket's cache (REM_CCE1/2, remote
				* ANY_CACHE) */
	DATA_LVL_LOCAL_RAM,
	DATA_LVL_REMOTE_RAM, /* REM_RAM1/2, remote RAM */
	DATA_LVL_PMEM,
	DATA_LVL_CXL,
	DATA_LVL_IO,
	DATA_LVL_UNCACHED,
	DATA_NLEVELS,
};

/* The data TLB's part (mem_dtlb). */
enum data_tlb {
	DATA_TLB_UNKNOWN, /* not given */
	DATA_TLB_HIT,	  /* an L1 or L2 TLB hit */
	DATA_TLB_MISS,	  /* a miss: the page walker (WK) or the OS fault handler (OS) */
	DATA_NTLBS,
};

/* What one perf_mem_data_src says, as far as it says it. */
struct data_src {
	bool load, store, prefetch; /* mem_op (NA: all false) */
	enum data_level level;
	bool hit, miss;	 /* mem_lvl HIT / MISS at LEVEL (neither: not said) */
	int hops;	 /* mem_hops: 1 remote core of the node .. 4 remote board; 0 not said */
	bool snoop_hitm; /* mem_snoop HITM: the line was modified in another core's cache */
	bool locked;	 /* mem_lock LOCKED: a locked (atomic) access */
	enum data_tlb tlb;
};

/* Decodes V (the u64 of PERF_SAMPLE_DATA_SRC) into *OUT. V 0 decodes as nothing known. */
void data_src_decode(uint64_t v, struct data_src *out);

/* The level's name for a column: "L1", "LFB", "L2", "L3", "L4", "cache", "remote cache",
 * "local DRAM", "remote DRAM", "PMEM", "CXL", "I/O", "uncached", "-" for unknown. */
const char *data_level_name(enum data_level l);

/* "TLB hit", "TLB miss", "-". */
const char *data_tlb_name(enum data_tlb t);

#endif
