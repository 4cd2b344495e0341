/* stat_bandwidth.c - `hwprof stat --bandwidth`; see stat_bandwidth.h. */
#include "stat_bandwidth.h"

#include "cli.h"
#include "json.h"
#include "textfmt.h"
#include "hwprof/event.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

char *stat_bw_events(struct stat_bw *bw, const char *events)
{
	char why[512], *spec;
	size_t at;
	int r;

	memset(bw, 0, sizeof(*bw));
	r = bw_plan_host(&bw->plan, why, sizeof(why));
	if (r == -ENOENT) {
		error("--bandwidth: %s, so this host's memory traffic cannot be counted "
		      "(virtualized? a VM exposes none); %s",
		      why, cli_no_pmu_alternatives());
		return NULL;
	}
	if (r < 0) {
		error("--bandwidth: %s", why);
		return NULL;
	}
	spec = xstrdup(events ? events : "");
	at = strlen(spec);
	for (size_t i = 0; i < bw->plan.n; i++) {
		char *next = xasprintf("%s%s%s", spec, at ? "," : "", bw->plan.ev[i].spec);
		free(spec);
		spec = next;
		at = strlen(spec);
	}
	return spec;
}

void stat_bw_locate(struct stat_bw *bw, const struct hwprof_event_list *list)
{
	bw->first = list->n >= bw->plan.n ? list->n - bw->plan.n : 0;
}

/* Why dmi_memory_read() gave no peak (its R), into BW->peak_why. */
static void peak_unknown(struct stat_bw *bw, int r, const struct dmi_memory *m)
{
	const char *root = hwprof_sysfs_root();

	if (r == -EACCES)
		snprintf(bw->peak_why, sizeof(bw->peak_why),
			 "the SMBIOS memory-device records in %s/firmware/dmi/entries are "
			 "root's, and dmidecode -t 17 gave none: run as root",
			 root);
	else if (r == -ENODATA && !m->n)
		snprintf(bw->peak_why, sizeof(bw->peak_why),
			 "the SMBIOS records list no populated memory device");
	else if (r == -ENODATA)
		snprintf(bw->peak_why, sizeof(bw->peak_why),
			 "the SMBIOS records give no speed or data width for a DIMM (a VM's "
			 "table?)");
	else
		snprintf(bw->peak_why, sizeof(bw->peak_why),
			 "no SMBIOS memory-device records (type 17) in %s/firmware/dmi/entries, "
			 "and none from dmidecode -t 17",
			 root);
}

/* The second source of the peak, where /sys/firmware/dmi is not readable: dmidecode's text
 * (dmidecode has its own ways to the table: /sys/firmware/dmi/tables, /dev/mem). The program
 * is $HWPROF_DMIDECODE when set (tests), else dmidecode from $PATH. Returns what
 * dmi_memory_parse_text() does, or -ENOENT when it cannot be run or prints nothing. */
static int read_dmidecode(struct dmi_memory *m)
{
	const char *prog = getenv("HWPROF_DMIDECODE");
	char *cmd;
	FILE *f;
	int r;

	if (!prog || !*prog)
		prog = "dmidecode";
	if (strchr(prog, '\''))
		return -ENOENT; /* not quoted safely for the shell */
	cmd = xasprintf("'%s' -t 17 2>/dev/null", prog);
	f = popen(cmd, "r");
	free(cmd);
	if (!f)
		return -ENOENT;
	r = dmi_memory_parse_text(f, m);
	pclose(f);
	return r;
}

void stat_bw_finish(struct stat_bw *bw, const struct hwprof_event_list *list, const double *mean,
		    const bool *counted, double elapsed)
{
	struct dmi_memory *m = xcalloc(1, sizeof(*m));
	int r;

	bw->elapsed = elapsed;
	for (size_t i = 0; i < bw->plan.n && bw->first + i < list->n; i++) {
		const struct bw_event *e = &bw->plan.ev[i];
		size_t k = bw->first + i;
		double b;

		if (!counted[k])
			continue;
		bw->counted = true;
		b = bw_bytes(&list->ev[k], mean[k], e->bytes_per_count);
		if (e->dir == BW_READ)
			bw->read_bytes += b;
		else if (e->dir == BW_WRITE)
			bw->write_bytes += b;
		else
			bw->any_bytes += b;
	}
	bw->peak_source = "SMBIOS";
	r = dmi_memory_read(m);
	if (r == -EACCES || r == -ENOENT) {
		int t = read_dmidecode(m);
		if (t == 0 || t == -ENODATA) {
			r = t;
			bw->peak_source = "dmidecode -t 17";
		}
	}
	if (r == 0) {
		bw->peak_bps = m->peak_bps;
		dmi_memory_describe(m, bw->peak_from, sizeof(bw->peak_from));
	} else {
		peak_unknown(bw, r, m);
	}
	free(m);
}

static double gbps(const struct stat_bw *bw, double bytes)
{
	return bw->elapsed > 0 ? bytes / bw->elapsed / 1e9 : 0;
}

static double total_bytes(const struct stat_bw *bw)
{
	return bw->read_bytes + bw->write_bytes + bw->any_bytes;
}

/* "(6 x uncore_imc_N)" or "(amd_df)" into BUF. */
static const char *source_text(const struct stat_bw *bw, char *buf, size_t len)
{
	if (bw->plan.boxes > 1)
		snprintf(buf, len, "%zu boxes %s", bw->plan.boxes, bw->plan.source);
	else
		snprintf(buf, len, "%s", bw->plan.source);
	return buf;
}

void stat_bw_text(FILE *f, const struct stat_bw *bw)
{
	double t = gbps(bw, total_bytes(bw));
	char src[96];

	fprintf(f, "\n memory bandwidth (%s): ", source_text(bw, src, sizeof(src)));
	if (!bw->counted) {
		fputs("<not counted>\n", f);
		return;
	}
	if (bw->plan.split)
		fprintf(f, "read %.1f GB/s + write %.1f GB/s = %.1f", gbps(bw, bw->read_bytes),
			gbps(bw, bw->write_bytes), t);
	else
		fprintf(f, "read and write %.1f", t);
	if (bw->peak_bps > 0) {
		double pct = 100.0 * t * 1e9 / bw->peak_bps;
		fprintf(f, " of %.1f GB/s peak (%.*f%%)\n", bw->peak_bps / 1e9, pct < 10 ? 1 : 0,
			pct);
		fprintf(f, " peak from %s: ", bw->peak_source);
		hwprof_text_put(f, bw->peak_from);
		fputc('\n', f);
	} else {
		fputs(" GB/s, peak unknown (", f);
		hwprof_text_put(f, bw->peak_why);
		fputs(")\n", f);
	}
	if (!bw->plan.split)
		fprintf(f, " (%s counts reads and writes together)\n", bw->plan.source);
}

void stat_bw_json(struct hwprof_jw *j, const struct stat_bw *bw)
{
	bool ok = bw->counted, split = ok && bw->plan.split, peak = bw->peak_bps > 0;
	double t = total_bytes(bw);

	hwprof_jw_object(j, "bandwidth");
	hwprof_jw_str(j, "source", bw->plan.source);
	hwprof_jw_uint(j, "boxes", bw->plan.boxes);
	hwprof_jw_bool(j, "counted", ok);
	hwprof_jw_measured(j, "read_bytes", bw->read_bytes, split);
	hwprof_jw_measured(j, "write_bytes", bw->write_bytes, split);
	hwprof_jw_measured(j, "bytes", t, ok);
	hwprof_jw_measured(j, "read_gbps", gbps(bw, bw->read_bytes), split);
	hwprof_jw_measured(j, "write_gbps", gbps(bw, bw->write_bytes), split);
	hwprof_jw_measured(j, "gbps", gbps(bw, t), ok);
	hwprof_jw_measured(j, "peak_gbps", bw->peak_bps / 1e9, peak);
	hwprof_jw_measured(j, "peak_pct",
			   bw->elapsed > 0 && peak ? 100.0 * t / bw->elapsed / bw->peak_bps : 0,
			   ok && peak && bw->elapsed > 0);
	hwprof_jw_str(j, "peak_from", peak ? bw->peak_from : NULL);
	hwprof_jw_str(j, "peak_source", peak ? bw->peak_source : NULL);
	hwprof_jw_str(j, "peak_unknown", peak ? NULL : bw->peak_why);
	hwprof_jw_end(j);
}

/* One CSV row NAME: VALUE in UNIT, or an empty value when not VALID. */
static void csv_row(FILE *f, const char *name, double v, bool valid, const char *unit)
{
	hwprof_csv_str(f, name);
	if (valid)
		fprintf(f, ",%.15g,,,,,", v);
	else
		fputs(",,,,,,", f);
	hwprof_csv_str(f, unit);
	fprintf(f, ",%s,true\n", valid ? "true" : "false");
}

void stat_bw_csv(FILE *f, const struct stat_bw *bw)
{
	bool ok = bw->counted, split = ok && bw->plan.split, peak = bw->peak_bps > 0;

	csv_row(f, "bandwidth read", gbps(bw, bw->read_bytes), split, "GB/s");
	csv_row(f, "bandwidth write", gbps(bw, bw->write_bytes), split, "GB/s");
	csv_row(f, "bandwidth", gbps(bw, total_bytes(bw)), ok, "GB/s");
	csv_row(f, "bandwidth peak", bw->peak_bps / 1e9, peak, "GB/s");
}
