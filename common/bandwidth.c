/* bandwidth.c - the host's memory-controller events; see bandwidth.h. */
#include "bandwidth.h"

#include "host.h"
#include "pmu.h"
#include "hwprof/event.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* AMD's DRAM channel events on the data fabric, per Zen generation. Source: the "DRAM Channel
 * Controller Request Types: Requests with Data (64B)" events dram_channel_data_controller_0..7
 * of Linux's tools/perf/pmu-events/arch/x86/amdzen1, amdzen2 and amdzen3 data-fabric.json
 * (from AMD's PPRs for family 17h and 19h; perf's nps1_die_to_dram metric sums them, scale
 * 6.1e-5 MiB: 64 bytes a count): umask 0x38, event 0x07 + 0x40 per controller. Zen 4 and
 * later count DRAM beats with other codes, not listed here. */
static const unsigned zen_dram_events[] = {0x07, 0x47, 0x87, 0xc7, 0x107, 0x147, 0x187, 0x1c7};

/* Whether AMD family FAMILY, model MODEL is Zen 1, 2 or 3 (family 17h; family 19h models
 * 00-0Fh Milan, 20-2Fh Vermeer, 40-5Fh Rembrandt and Cezanne), the generations of the
 * table above. */
static bool zen_known(unsigned family, unsigned model)
{
	if (family == 0x17)
		return true;
	return family == 0x19 && (model <= 0x0f || (model >= 0x20 && model <= 0x2f) ||
				  (model >= 0x40 && model <= 0x5f));
}

double bw_unit_bytes(const char *unit)
{
	static const struct {
		const char *u;
		double b;
	} units[] = {
	    {"B", 1},		{"bytes", 1}, {"KiB", 1024.0},	     {"KB", 1e3},
	    {"MiB", 1048576.0}, {"MB", 1e6},  {"GiB", 1073741824.0}, {"GB", 1e9},
	};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].u))
			return units[i].b;
	return 0;
}

double bw_bytes(const struct hwprof_event *ev, double value, double bytes_per_count)
{
	double b = bw_unit_bytes(ev->unit);

	return value * (b > 0 ? b : bytes_per_count);
}

static bool has_event(const char *pmu, const char *name)
{
	char rel[160], buf[256];

	snprintf(rel, sizeof(rel), "events/%s", name);
	return pmu_read(pmu, rel, buf, sizeof(buf)) == 0;
}

static void add(struct bw_plan *p, enum bw_dir dir, const char *fmt, const char *pmu,
		const char *event)
{
	struct bw_event *e;

	if (p->n >= sizeof(p->ev) / sizeof(*p->ev))
		return;
	e = &p->ev[p->n++];
	snprintf(e->spec, sizeof(e->spec), fmt, pmu, event);
	e->dir = dir;
	e->bytes_per_count = 64;
}

/* The box number of "uncore_imc_N", or -1 for another name. */
static int imc_box(const char *name)
{
	const char *d = name + strlen("uncore_imc_");
	char *end;
	long n;

	if (strncmp(name, "uncore_imc_", strlen("uncore_imc_")) || *d < '0' || *d > '9')
		return -1;
	n = strtol(d, &end, 10);
	return *end || n > 4096 ? -1 : (int)n;
}

static int cmp_box(const void *a, const void *b)
{
	return imc_box(*(char *const *)a) - imc_box(*(char *const *)b);
}

/* Intel servers: every uncore_imc_N with cas_count_read, in box order. */
static int plan_server(struct bw_plan *p, char **pmus, size_t n, char *why, size_t len)
{
	char *boxes[512];
	size_t nb = 0;

	for (size_t i = 0; i < n && nb < sizeof(boxes) / sizeof(*boxes); i++)
		if (imc_box(pmus[i]) >= 0)
			boxes[nb++] = pmus[i];
	if (!nb)
		return -ENOENT;
	qsort(boxes, nb, sizeof(*boxes), cmp_box);
	p->source = "uncore_imc_N";
	p->split = true;
	for (size_t i = 0; i < nb; i++) {
		if (!has_event(boxes[i], "cas_count_read")) {
			snprintf(why, len,
				 "%s has no events/cas_count_read in %s/bus/event_source/devices "
				 "(name its CAS events with -e)",
				 boxes[i], hwprof_sysfs_root());
			return -EOPNOTSUPP;
		}
		add(p, BW_READ, "%s/%s/", boxes[i], "cas_count_read");
		if (has_event(boxes[i], "cas_count_write"))
			add(p, BW_WRITE, "%s/%s/", boxes[i], "cas_count_write");
		else
			p->split = false;
		p->boxes++;
	}
	return 0;
}

/* Intel clients: the free-running uncore_imc counters. */
static int plan_client(struct bw_plan *p, char *why, size_t len)
{
	if (!pmu_exists("uncore_imc"))
		return -ENOENT;
	if (!has_event("uncore_imc", "data_reads") || !has_event("uncore_imc", "data_writes")) {
		snprintf(why, len,
			 "uncore_imc has no events/data_reads and data_writes in "
			 "%s/bus/event_source/devices (name its events with -e uncore_imc/.../)",
			 hwprof_sysfs_root());
		return -EOPNOTSUPP;
	}
	p->source = "uncore_imc";
	p->split = true;
	p->boxes = 1;
	add(p, BW_READ, "%s/%s/", "uncore_imc", "data_reads");
	add(p, BW_WRITE, "%s/%s/", "uncore_imc", "data_writes");
	return 0;
}

/* AMD: the data fabric's DRAM channel events of a known Zen generation. */
static int plan_amd(struct bw_plan *p, char *why, size_t len)
{
	char vendor[64] = "", term[64];
	unsigned family = 0, model = 0;

	if (!pmu_exists("amd_df"))
		return -ENOENT;
	if (hwprof_host_cpu_id(vendor, sizeof(vendor), &family, &model) < 0 ||
	    strcmp(vendor, "AuthenticAMD") || !zen_known(family, model)) {
		snprintf(why, len,
			 "the DRAM events of amd_df on %s family %xh model %xh are not known to "
			 "hwprof (it knows those of Zen 1, 2 and 3: family 17h, 19h models "
			 "00-0Fh, 20-2Fh, 40-5Fh; name them with -e amd_df/event=...,umask=.../)",
			 vendor[0] ? vendor : "a CPU of unknown vendor", family, model);
		return -EOPNOTSUPP;
	}
	p->source = "amd_df";
	p->split = false;
	p->boxes = 1;
	for (size_t i = 0; i < sizeof(zen_dram_events) / sizeof(*zen_dram_events); i++) {
		snprintf(term, sizeof(term), "event=0x%x,umask=0x38", zen_dram_events[i]);
		add(p, BW_ANY, "%s/%s/", "amd_df", term);
	}
	return 0;
}

int bw_plan_host(struct bw_plan *plan, char *why, size_t len)
{
	char **pmus;
	size_t n;
	int r;

	memset(plan, 0, sizeof(*plan));
	why[0] = '\0';
	if (pmu_list(&pmus, &n) < 0)
		n = 0, pmus = NULL;
	r = plan_server(plan, pmus, n, why, len);
	pmu_names_free(pmus, n);
	if (r == -ENOENT)
		r = plan_client(plan, why, len);
	if (r == -ENOENT)
		r = plan_amd(plan, why, len);
	if (r == -ENOENT)
		snprintf(why, len,
			 "no memory-controller PMU (uncore_imc_N, uncore_imc or amd_df) in "
			 "%s/bus/event_source/devices",
			 hwprof_sysfs_root());
	if (r < 0)
		memset(plan->ev, 0, sizeof(plan->ev)), plan->n = 0;
	return r;
}
