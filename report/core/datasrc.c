/* datasrc.c - PERF_SAMPLE_DATA_SRC decoded (datasrc.h). Field positions and values are the
 * PERF_MEM_*_SHIFT and PERF_MEM_* macros of linux/perf_event.h, not written down again. */
#include "datasrc.h"

#include <linux/perf_event.h>
#include <string.h>

#define FIELD(v, name, bits) (((v) >> PERF_MEM_##name##_SHIFT) & ((1u << (bits)) - 1))

/* mem_lvl_num, set by newer kernels and AMD IBS beside (or instead of) the mem_lvl bits. */
static enum data_level from_lvl_num(unsigned num, bool remote)
{
	switch (num) {
	case PERF_MEM_LVLNUM_L1:
		return DATA_LVL_L1;
	case PERF_MEM_LVLNUM_L2:
		return DATA_LVL_L2;
	case PERF_MEM_LVLNUM_L3:
		return DATA_LVL_L3;
	case PERF_MEM_LVLNUM_L4:
		return DATA_LVL_L4;
	case PERF_MEM_LVLNUM_LFB:
		return DATA_LVL_LFB;
	case PERF_MEM_LVLNUM_ANY_CACHE:
		return remote ? DATA_LVL_REMOTE_CACHE : DATA_LVL_ANY_CACHE;
	case PERF_MEM_LVLNUM_RAM:
		return remote ? DATA_LVL_REMOTE_RAM : DATA_LVL_LOCAL_RAM;
	case PERF_MEM_LVLNUM_PMEM:
		return DATA_LVL_PMEM;
	case PERF_MEM_LVLNUM_CXL:
		return DATA_LVL_CXL;
	case PERF_MEM_LVLNUM_IO:
		return DATA_LVL_IO;
	default: /* 0 (not set), NA, and numbers this version does not know */
		return DATA_LVL_UNKNOWN;
	}
}

/* The older mem_lvl bits: the nearest level named wins. */
static enum data_level from_lvl(unsigned lvl)
{
	static const struct {
		unsigned bit;
		enum data_level level;
	} order[] = {
	    {PERF_MEM_LVL_L1, DATA_LVL_L1},
	    {PERF_MEM_LVL_LFB, DATA_LVL_LFB},
	    {PERF_MEM_LVL_L2, DATA_LVL_L2},
	    {PERF_MEM_LVL_L3, DATA_LVL_L3},
	    {PERF_MEM_LVL_LOC_RAM, DATA_LVL_LOCAL_RAM},
	    {PERF_MEM_LVL_REM_RAM1, DATA_LVL_REMOTE_RAM},
	    {PERF_MEM_LVL_REM_RAM2, DATA_LVL_REMOTE_RAM},
	    {PERF_MEM_LVL_REM_CCE1, DATA_LVL_REMOTE_CACHE},
	    {PERF_MEM_LVL_REM_CCE2, DATA_LVL_REMOTE_CACHE},
	    {PERF_MEM_LVL_IO, DATA_LVL_IO},
	    {PERF_MEM_LVL_UNC, DATA_LVL_UNCACHED},
	};

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (lvl & order[i].bit)
			return order[i].level;
	return DATA_LVL_UNKNOWN;
}

void data_src_decode(uint64_t v, struct data_src *out)
{
	unsigned op = FIELD(v, OP, 5), lvl = FIELD(v, LVL, 14), snoop = FIELD(v, SNOOP, 5);
	unsigned lock = FIELD(v, LOCK, 2), tlb = FIELD(v, TLB, 7), num = FIELD(v, LVLNUM, 4);
	bool remote = FIELD(v, REMOTE, 1) == PERF_MEM_REMOTE_REMOTE;

	memset(out, 0, sizeof(*out));
	if (!v)
		return;
	out->load = op & PERF_MEM_OP_LOAD;
	out->store = op & PERF_MEM_OP_STORE;
	out->prefetch = op & PERF_MEM_OP_PFETCH;
	out->level = from_lvl_num(num, remote);
	if (out->level == DATA_LVL_UNKNOWN)
		out->level = from_lvl(lvl);
	out->hit = lvl & PERF_MEM_LVL_HIT;
	out->miss = lvl & PERF_MEM_LVL_MISS;
	out->hops = (int)FIELD(v, HOPS, 3);
	out->snoop_hitm = snoop & PERF_MEM_SNOOP_HITM;
	out->locked = lock & PERF_MEM_LOCK_LOCKED;
	if (tlb & PERF_MEM_TLB_MISS)
		out->tlb = DATA_TLB_MISS;
	else if (tlb & PERF_MEM_TLB_HIT)
		out->tlb = DATA_TLB_HIT;
}

const char *data_level_name(enum data_level l)
{
	static const char *const names[DATA_NLEVELS] = {
	    [DATA_LVL_UNKNOWN] = "-",
	    [DATA_LVL_L1] = "L1",
	    [DATA_LVL_LFB] = "LFB",
	    [DATA_LVL_L2] = "L2",
	    [DATA_LVL_L3] = "L3",
	    [DATA_LVL_L4] = "L4",
	    [DATA_LVL_ANY_CACHE] = "cache",
	    [DATA_LVL_REMOTE_CACHE] = "remote cache",
	    [DATA_LVL_LOCAL_RAM] = "local DRAM",
	    [DATA_LVL_REMOTE_RAM] = "remote DRAM",
	    [DATA_LVL_PMEM] = "PMEM",
	    [DATA_LVL_CXL] = "CXL",
	    [DATA_LVL_IO] = "I/O",
	    [DATA_LVL_UNCACHED] = "uncached",
	};

	return (unsigned)l < DATA_NLEVELS ? names[l] : "-";
}

const char *data_tlb_name(enum data_tlb t)
{
	return t == DATA_TLB_HIT ? "TLB hit" : t == DATA_TLB_MISS ? "TLB miss" : "-";
}
