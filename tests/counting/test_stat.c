/* test_stat.c - `hwprof stat` (record/stat.c) run in-process against the fake kernel and
 * fixture sysfs trees: what the same command computes on machines with a PMU (IPC, miss
 * rates, MPKI with their formulas), the multiplexing warning, uncore scaling and bandwidth,
 * and the -a permission message. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "cli.h"
#include "fake_kernel.h"
#include "fixture.h"
#include "hwprof/event.h"

/* An Intel-like machine: core PMU "cpu" with 4 counters, uncore_imc on CPU 0. */
static void intel_fixture(void)
{
	fixture_new();
	fixture_pmu("cpu", 4, NULL);
	fixture_put("bus/event_source/devices/cpu/caps/num_counters", "4\n");
	fixture_put("bus/event_source/devices/cpu/caps/max_precise", "3\n");
	fixture_pmu("uncore_imc", 13, "0");
	fixture_pmu_event("uncore_imc", "cas_count_read", "event=0x04,umask=0x03", "6.103515625e-5",
			  "MiB");
}

/* Removes the fixture tree after each test (.fini). */
static void cleanup(void)
{
	fixture_remove();
}

static void quiet_stderr(void)
{
	cr_redirect_stderr();
}

/* What the command wrote to the redirected stderr (quiet_stderr()), in a static buffer. */
static const char *stderr_text(void)
{
	static char buf[4096];
	FILE *err;

	fflush(stderr);
	err = cr_get_redirected_stderr();
	cr_assert_geq(fread(buf, 1, sizeof(buf) - 1, err), 0);
	return buf;
}

static int run_stat(int argc, char **argv)
{
	cli_set_prefix("hwprof stat");
	optind = 0; /* as hwprof.c does before each subcommand (getopt starts afresh) */
	return cmd_stat(argc, argv);
}

Test(stat, pmu_machine_metrics_with_formulas, .fini = cleanup)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	char out[128];
	char *argv[] = {"stat", "--format", "json", "-o", out, "--", "true", NULL};
	char *json;

	intel_fixture();
	snprintf(out, sizeof(out), "%s/out.json", fixture_root());
	cfg.nr_counters = 8; /* no multiplexing here */
	fake_kernel_install(&cfg);
	fake_kernel_set_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 3000000);
	fake_kernel_set_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 2000000);
	fake_kernel_set_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 600000);
	fake_kernel_set_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 60000);
	fake_kernel_set_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 300000);
	fake_kernel_set_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 9000);
	cr_assert_eq(run_stat(7, argv), 0);
	json = fixture_slurp(out);
	/* The default set on a PMU machine, each with its exact count. */
	cr_assert_not_null(strstr(json, "\"event\": \"instructions:u\", \"mean\": 3000000,"), "%s",
			   json);
	cr_assert_not_null(strstr(json, "\"event\": \"cycles:u\", \"mean\": 2000000,"), "%s", json);
	cr_assert_not_null(strstr(json, "\"name\": \"IPC\", \"value\": 1.5, \"formula\": "
					"\"instructions / cycles = 3000000 / 2000000\""),
			   "%s", json);
	cr_assert_not_null(strstr(json, "\"name\": \"LLC miss rate\", \"value\": 0.1,"), "%s",
			   json);
	cr_assert_not_null(strstr(json, "\"name\": \"branch miss rate\", \"value\": 0.03,"), "%s",
			   json);
	cr_assert_not_null(strstr(json, "\"name\": \"cache-misses MPKI\", \"value\": 20,"), "%s",
			   json);
	cr_assert_not_null(strstr(json, "\"name\": \"branch-misses MPKI\", \"value\": 3,"), "%s",
			   json);
	/* Launched with enable_on_exec + inherit on the leader, never enabled by ioctl before. */
	for (size_t i = 0; i < fake_kernel_nopens(); i++) {
		const struct fake_kernel_open *o = fake_kernel_open_log(i);
		if (o->pid > 0 && o->group_fd < 0) {
			cr_assert(o->attr.enable_on_exec);
			cr_assert(o->attr.inherit);
		}
	}
	fake_kernel_uninstall();
}

Test(stat, multiplexing_warned_and_flagged, .init = quiet_stderr, .fini = cleanup)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	char out[128];
	char *argv[] = {"stat",
			"-e",
			"instructions,cycles,branches,branch-misses,cache-misses,"
			"cache-references",
			"-o",
			out,
			"--",
			"true",
			NULL};
	char *text;

	intel_fixture();
	snprintf(out, sizeof(out), "%s/out.txt", fixture_root());
	cfg.nr_counters = 4;
	fake_kernel_install(&cfg);
	fake_kernel_set_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 3000000);
	cr_assert_eq(run_stat(7, argv), 0);
	text = fixture_slurp(out);
	/* 4 counters for 6 events: each counted 66.7% of the time, scaled back. */
	cr_assert_not_null(strstr(text, "multiplexed: counted 66.7% of the time (< 90%)"), "%s",
			   text);
	cr_assert_not_null(strstr(text, "2,999,999"), "instructions scaled back: %s", text);
	fflush(stderr);
	cr_assert_stderr_neq_str("");
	fake_kernel_uninstall();
}

Test(stat, multiplexing_warning_text, .init = quiet_stderr, .fini = cleanup)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	char *argv[] = {
	    "stat", "-e",	 "instructions,cycles,branches,branch-misses,cache-misses",
	    "-o",   "/dev/null", "--",
	    "true", NULL};
	const char *buf;

	intel_fixture();
	fake_kernel_install(&cfg);
	cr_assert_eq(run_stat(7, argv), 0);
	buf = stderr_text();
	cr_assert_not_null(strstr(buf, "5 hardware events but the PMU has 4 counters"), "%s", buf);
	cr_assert_not_null(strstr(buf, "multiplex"), "%s", buf);
	fake_kernel_uninstall();
}

Test(stat, uncore_scale_unit_bandwidth_on_its_cpu, .fini = cleanup)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	char out[128];
	char *argv[] = {"stat",	    "-a",   "-e", "uncore_imc/cas_count_read/",
			"--format", "json", "-o", out,
			"--",	    "true", NULL};
	char *json;
	size_t opens = 0;

	intel_fixture();
	snprintf(out, sizeof(out), "%s/out.json", fixture_root());
	cfg.privileged = true;
	fake_kernel_install(&cfg);
	/* 16384000 CAS of 64 bytes = 1000 MiB. */
	fake_kernel_set_count(13, 0x0304, 16384000);
	cr_assert_eq(run_stat(10, argv), 0);
	json = fixture_slurp(out);
	cr_assert_not_null(strstr(json, "\"mean\": 1000,"), "%s", json);
	cr_assert_not_null(strstr(json, "\"unit\": \"MiB\""), "%s", json);
	{
		/* GB/s = 1000 MiB * 1048576 B / 1e9 / the elapsed time the formula shows. */
		const char *m = strstr(json, "\"name\": \"uncore_imc/cas_count_read/ bandwidth\"");
		const char *f = m ? strstr(m, "1000.00 MiB * 1048576 B / ") : NULL;
		double value, secs;
		cr_assert_not_null(f, "%s", json);
		cr_assert_eq(sscanf(strstr(m, "\"value\": "), "\"value\": %lf", &value), 1);
		cr_assert_eq(sscanf(f, "1000.00 MiB * 1048576 B / %lf s", &secs), 1);
		cr_assert_float_eq(value, 1000 * 1048576.0 / 1e9 / secs, value * 1e-3, "%s", json);
	}
	for (size_t i = 0; i < fake_kernel_nopens(); i++) {
		const struct fake_kernel_open *o = fake_kernel_open_log(i);
		if (o->attr.type == 13) {
			cr_assert_eq(o->cpu, 0, "only on the CPU of the PMU's cpumask");
			cr_assert_eq(o->pid, -1);
			opens++;
		}
	}
	cr_assert_eq(opens, 2, "probed once (probe_events()), then opened for the count");
	fake_kernel_uninstall();
}

Test(stat, uncore_without_a_refused, .init = quiet_stderr, .fini = cleanup)
{
	char *argv[] = {"stat", "-e", "uncore_imc/cas_count_read/", "--", "true", NULL};

	intel_fixture();
	fake_kernel_install(NULL);
	cr_assert_eq(run_stat(5, argv), EXIT_FATAL);
	fake_kernel_uninstall();
}

Test(stat, system_wide_refused_explains_paranoid, .init = quiet_stderr, .fini = cleanup)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	char *argv[] = {"stat", "-a", "-e", "cycles", "--", "true", NULL};
	const char *buf;

	intel_fixture();
	cfg.paranoid = 2;
	fake_kernel_install(&cfg);
	cr_assert_eq(run_stat(6, argv), EXIT_FATAL);
	buf = stderr_text();
	cr_assert_not_null(strstr(buf, "-a"), "%s", buf);
	cr_assert_not_null(strstr(buf, "CAP_PERFMON"), "%s", buf);
	cr_assert_not_null(strstr(buf, "perf_event_paranoid"), "%s", buf);
	cr_assert_eq(strchr(buf, '\n'), buf + strlen(buf) - 1, "one line: %s", buf);
	fake_kernel_uninstall();
}

Test(stat, old_kernel_noted, .init = quiet_stderr, .fini = cleanup)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	char *argv[] = {"stat", "-e", "{instructions,cycles}", "-o", "/dev/null", "--",
			"true", NULL};
	const char *buf;

	intel_fixture();
	cfg.old_kernel_inherit_group = true;
	fake_kernel_install(&cfg);
	cr_assert_eq(run_stat(7, argv), 0);
	buf = stderr_text();
	cr_assert_not_null(strstr(buf, "read one by one"), "%s", buf);
	fake_kernel_uninstall();
}

/* H F22: without a PMU and without leave to measure the kernel (perf_event_paranoid 2, not
 * privileged), the default set's context switches and migrations cannot count: "not counted"
 * with the reason, never 0; page-faults keeps its exact count. */
Test(stat, kernel_work_not_counted_with_the_reason, .init = quiet_stderr, .fini = cleanup)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	char out[128], json_out[128];
	char *argv[] = {"stat", "-o", out, "--", "true", NULL};
	char *argv_json[] = {"stat", "--format", "json", "-o", json_out, "--", "true", NULL};
	char *text;

	fixture_new();
	fixture_put("bus/event_source/devices/software/type", "1\n");
	snprintf(out, sizeof(out), "%s/out.txt", fixture_root());
	snprintf(json_out, sizeof(json_out), "%s/out.json", fixture_root());
	cfg.has_pmu = false;
	fake_kernel_install(&cfg);
	fake_kernel_set_count(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 4242);
	fake_kernel_set_count(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0);
	cr_assert_eq(run_stat(5, argv), 0);
	text = fixture_slurp(out);
	cr_assert_not_null(strstr(text, "<not counted>  context-switches:u       (kernel work; "
					"needs perf_event_paranoid <= 1 or CAP_PERFMON)"),
			   "%s", text);
	cr_assert_not_null(strstr(text, "<not counted>  cpu-migrations:u         (kernel work;"),
			   "%s", text);
	cr_assert_not_null(strstr(text, "4,242  page-faults"), "%s", text);
	cr_assert_eq(run_stat(7, argv_json), 0);
	text = fixture_slurp(json_out);
	cr_assert_not_null(strstr(text, "{\"event\": \"context-switches:u\", \"mean\": null, "),
			   "%s", text);
	cr_assert_not_null(strstr(text, "\"counted\": false, \"supported\": true, \"group\": 0}"),
			   "%s", text);
	fake_kernel_uninstall();
}

/* Issue 17: as perf stat, events the host cannot count are <not supported> and the others are
 * counted; only when none can be counted is it an error, naming every event. */
Test(stat, unsupported_events_shown_others_counted, .init = quiet_stderr, .fini = cleanup)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	char out[128];
	char *argv[] = {"stat", "-e",	"cycles,page-faults,{instructions,task-clock}",
			"-f",	"json", "-o",
			out,	"--",	"true",
			NULL};
	char *json;

	intel_fixture();
	snprintf(out, sizeof(out), "%s/out.json", fixture_root());
	cfg.has_pmu = false;
	fake_kernel_install(&cfg);
	fake_kernel_set_count(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 4242);
	fake_kernel_set_count(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 5000);
	cr_assert_eq(run_stat(9, argv), 0);
	json = fixture_slurp(out);
	cr_assert_not_null(strstr(json, "{\"event\": \"cycles:u\", \"mean\": null, \"stddev_pct\": "
					"null, \"min\": null, \"max\": null, \"running_pct\": 0, "
					"\"unit\": \"\", \"counted\": false, \"supported\": false, "
					"\"group\": 0}"),
			   "%s", json);
	cr_assert_not_null(strstr(json, "\"event\": \"page-faults:u\", \"mean\": 4242,"), "%s",
			   json);
	cr_assert_not_null(strstr(json, "\"event\": \"task-clock:u\", \"mean\": 5000,"), "%s",
			   json);
	cr_assert_not_null(strstr(json, "\"event\": \"instructions:u\", \"mean\": null,"), "%s",
			   json);
	/* One note for the two events with one reason, kept in the document. */
	cr_assert_not_null(strstr(json,
				  "\"kind\": \"note\", \"text\": \"cycles:u, instructions:u: not "
				  "supported on this host"),
			   "%s", json);
	fake_kernel_uninstall();
}

Test(stat, no_event_supported_is_one_error_naming_all, .init = quiet_stderr, .fini = cleanup)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	char *argv[] = {"stat", "-e", "cycles,r003c", "--", "true", NULL};
	const char *buf;

	intel_fixture();
	cfg.has_pmu = false;
	fake_kernel_install(&cfg);
	cr_assert_eq(run_stat(5, argv), EXIT_FATAL);
	buf = stderr_text();
	cr_assert_not_null(strstr(buf, "error: no event of the list can be counted here: cycles:u, "
				       "r003c:u: not supported on this host"),
			   "%s", buf);
	cr_assert_eq(strchr(buf, '\n'), buf + strlen(buf) - 1, "one line: %s", buf);
	fake_kernel_uninstall();
}

/* perf's spelling of a server's IMC boxes without the box number, uncore_imc/cas_count_read/,
 * stands for every box uncore_imc_0..N: each opened on its cpumask's CPU, the counts summed
 * into one row. */
Test(stat, uncore_pmu_without_number_expands_to_every_box, .fini = cleanup)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	char out[PATH_MAX];
	char *argv[] = {"stat", "-a",	"-e", "uncore_imc/cas_count_read/", "-f", "json", "-o", out,
			"--",	"true", NULL};
	struct hwprof_event_list l;
	char err[256], *json;
	size_t opens = 0;

	fixture_new();
	fixture_intel_server_imc(3, 20);
	cr_assert_eq(hwprof_events_parse("uncore_imc/cas_count_read/", &l, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(l.n, 3);
	for (size_t i = 0; i < 3; i++) {
		char box[32];
		snprintf(box, sizeof(box), "uncore_imc_%zu", i);
		cr_assert_str_eq(l.ev[i].pmu, box);
		cr_assert_eq(l.ev[i].type, 20 + i);
		cr_assert_eq(l.ev[i].config, 0x0304);
		cr_assert_str_eq(l.ev[i].spec, "uncore_imc/cas_count_read/");
		cr_assert_eq(l.ev[i].group, (int)i, "a group each");
	}
	hwprof_events_free(&l);
	cr_assert_eq(hwprof_events_parse("{uncore_imc/cas_count_read/,uncore_imc/cas_count_write/}",
					 &l, err, sizeof(err)),
		     -EINVAL);
	cr_assert_not_null(strstr(err, "stands for 3 PMUs (uncore_imc_0 .. uncore_imc_2)"), "%s",
			   err);

	snprintf(out, sizeof(out), "%s/out.json", fixture_root());
	cfg.privileged = true;
	cfg.nr_counters = 16;
	fake_kernel_install(&cfg);
	/* 16384 CAS = 1 MiB on box 0, 2 MiB on box 1, 4 MiB on box 2. */
	fake_kernel_set_count(20, 0x0304, 16384);
	fake_kernel_set_count(21, 0x0304, 2 * 16384);
	fake_kernel_set_count(22, 0x0304, 4 * 16384);
	cr_assert_eq(run_stat(10, argv), 0);
	json = fixture_slurp(out);
	cr_assert_not_null(strstr(json, "\"events\": [{\"event\": \"uncore_imc/cas_count_read/\", "
					"\"mean\": 7, "),
			   "one row, summed: %s", json);
	cr_assert_null(strstr(json, "}, {\"event\": \"uncore_imc/cas_count_read/\""), "%s", json);
	for (size_t i = 0; i < fake_kernel_nopens(); i++) {
		const struct fake_kernel_open *o = fake_kernel_open_log(i);
		if (o->attr.type >= 20 && o->attr.type <= 22 && o->result >= 0) {
			cr_assert_eq(o->cpu, 0);
			opens++;
		}
	}
	cr_assert_eq(opens, 6, "3 boxes probed, then counted: %zu", opens);
	fake_kernel_uninstall();
}

/* A vendor event the host cannot count is named with its code, so that the note says what
 * libpfm4 resolved it to (Intel SKL MEM_LOAD_RETIRED.L3_MISS: event D1H, umask 20H). */
Test(stat, vendor_event_not_supported_names_its_code, .init = quiet_stderr, .fini = cleanup)
{
	struct fake_kernel_config cfg = fake_kernel_defaults();
	char *argv[] = {"stat", "-e", "MEM_LOAD_RETIRED.L3_MISS", "--", "true", NULL};
	const char *buf;

	fixture_new();
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	cfg.has_pmu = false;
	fake_kernel_install(&cfg);
	cr_assert_eq(run_stat(5, argv), EXIT_FATAL);
	buf = stderr_text();
	cr_assert_not_null(strstr(buf, "MEM_LOAD_RETIRED.L3_MISS:u (skl raw 0x20d1): not supported "
				       "on this host"),
			   "%s", buf);
	fake_kernel_uninstall();
}
