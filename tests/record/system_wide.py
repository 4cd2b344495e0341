#!/usr/bin/env python3
"""`hwprof record -a` / `-C`: every task of the CPUs (suite 'record').

usage: system_wide.py HWPROF WL_PAGEFAULT WL_SRC_DIR SPIN [--case NAME]

Page faults are exact here: the workload's own line must have the same count recorded
system-wide as recorded alone. A process that ran before the recording started must be named
(its mappings come from /proc, not from the kernel). The cases that open CPU-wide events run
only where this process may (root, CAP_PERFMON or perf_event_paranoid <= 0), and are skipped
with the reason otherwise.
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from hwprof_test import check, hot_line, report_rows, run, run_cases  # noqa: E402

HWPROF, WL, SRC, SPIN = (os.path.abspath(a) for a in sys.argv[1:5])
PAGES = 3000


def may_open_cpu_wide():
    with open("/proc/sys/kernel/perf_event_paranoid") as f:
        paranoid = int(f.read())
    return os.geteuid() == 0 or paranoid <= 0, paranoid


def skip_unless_allowed(case):
    ok, paranoid = may_open_cpu_wide()
    if not ok:
        print(f"skip {case}: CPU-wide events need root, CAP_PERFMON or "
              f"perf_event_paranoid <= 0 (it is {paranoid})")
    return ok


def report(path, *args):
    """Report's stdout; exit 1 (partial) is taken when samples were lost, which a loaded host
    may cause system-wide, and said."""
    p = run([HWPROF, "report", "-i", path] + list(args), timeout=120)
    lost = p.returncode == 1 and ("were lost while recording" in p.stderr or
                                  "dropped with no record of it" in p.stderr)
    if lost:
        print("note: samples were lost system-wide (a busy host): " +
              p.stderr.strip().splitlines()[-1])
    check(f"report {' '.join(args)} exit 0", p.returncode == 0 or lost, p.stderr)
    check("report sanitizer-clean", "Sanitizer" not in p.stderr and
          "runtime error" not in p.stderr, p.stderr)
    return p.stdout


def line_samples(text, fileline):
    """The samples column of the row of FILELINE in report text, or 0."""
    for l in text.splitlines():
        f = l.split()
        if len(f) > 4 and f[4] == fileline:
            return int(f[3])
    return 0


def test_same_count_as_alone(d):
    if not skip_unless_allowed("same_count_as_alone"):
        return
    line = f"pagefault.c:{hot_line(os.path.join(SRC, 'pagefault.c'), 'fault')}"
    alone, wide = os.path.join(d, "alone.data"), os.path.join(d, "wide.data")
    ev = ["-e", "page-faults:u", "-c", "1"]
    p = run([HWPROF, "record", "-o", alone] + ev + ["--", WL, str(PAGES)], timeout=60)
    check("alone exit 0", p.returncode == 0, p.stderr)
    # Every task's faults at -c 1: large rings, so that a busy host loses none.
    p = run([HWPROF, "record", "-a", "-m", "4096", "-o", wide] + ev + ["--", WL, str(PAGES)],
            timeout=60)
    check("-a exit 0 (the command's status)", p.returncode == 0, p.stderr)
    check("-a sanitizer-clean", "Sanitizer" not in p.stderr and "runtime error" not in p.stderr,
          p.stderr)
    lost = re.search(r"(\d+) lost", p.stderr)
    n_alone = line_samples(report(alone, "--comm", os.path.basename(WL)), line)
    wide_report = run([HWPROF, "report", "-i", wide, "--comm", os.path.basename(WL)])
    n_wide = line_samples(report(wide, "--comm", os.path.basename(WL)), line)
    check("the hot line is the workload's pages", n_alone >= PAGES, n_alone)
    # Seen at load 14: the kernel counted a few dozen more faults than it sampled, with no
    # LOST record; report says so, and the count can then only be short.
    if (lost and int(lost.group(1))) or "dropped with no record" in wide_report.stderr:
        print(f"note: {lost.group(1)} samples lost system-wide: the count can only be short")
        check(f"{line}: no more system-wide than alone, and most", 0.5 * n_alone <= n_wide
              <= n_alone, f"alone {n_alone}, -a {n_wide}")
    else:
        check(f"{line}: the same count system-wide as alone", n_wide == n_alone,
              f"alone {n_alone}, -a {n_wide}")
    text = report(wide)
    check("header says system-wide", "# system-wide: every task on every CPU" in text, text[:600])
    check("header keeps the command", re.search(r"# command: \S*pagefault 3000", text),
          text[:600])
    j = json.loads(report(wide, "-f", "json"))
    check("JSON system_wide", j["header"].get("system_wide") is True and
          j["header"].get("cpus") == "", j["header"])


def test_running_before_is_named(d):
    if not skip_unless_allowed("running_before_is_named"):
        return
    out = os.path.join(d, "before.data")
    spin = subprocess.Popen([SPIN, "1500"])  # 1.5 s of CPU, running before record starts
    try:
        time.sleep(0.3)
        p = run([HWPROF, "record", "-a", "-e", "cpu-clock:u", "-o", out, "--", "sleep", "0.5"],
                timeout=60)
        check("record exit 0", p.returncode == 0, p.stderr)
    finally:
        spin.kill()
        spin.wait()
    text = report(out, "--comm", os.path.basename(SPIN), "--sort", "function,dso")
    rows = [l.split() for l in report_rows(text)]
    check("the spinning process was sampled", rows, text)
    if rows:
        check("its code is named from /proc/PID/maps, not [unknown]",
              rows[0][-2:] == ["main", os.path.basename(SPIN)], rows[0])


def test_cpu_list(d):
    if not skip_unless_allowed("cpu_list"):
        return
    if os.cpu_count() < 2:
        print("skip cpu_list: one CPU, nothing to leave out")
        return
    out = os.path.join(d, "cpu0.data")
    on0 = subprocess.Popen(["taskset", "-c", "0", SPIN, "1000"])
    on1 = subprocess.Popen(["taskset", "-c", "1", SPIN, "1000"])
    try:
        time.sleep(0.2)
        p = run([HWPROF, "record", "-C", "0", "-e", "cpu-clock:u", "-o", out, "--", "sleep",
                 "0.5"], timeout=60)
        check("-C 0 exit 0", p.returncode == 0, p.stderr)
    finally:
        for s in (on0, on1):
            s.kill()
            s.wait()
    text = report(out, "--pid", str(on0.pid))
    check("the process on CPU 0 is in", re.search(r"\s\d+\s.*main", text), text)
    p = run([HWPROF, "report", "-i", out, "--pid", str(on1.pid)])
    check("the process on CPU 1 is not", "no samples" in p.stderr or
          not re.search(r"\s\d+\s.*main", p.stdout), p.stdout + p.stderr)
    check("header names the CPUs", "# system-wide: every task on CPUs 0" in report(out),
          "header")


def test_until_interrupted(d):
    if not skip_unless_allowed("until_interrupted"):
        return
    out = os.path.join(d, "int.data")
    p = subprocess.Popen([HWPROF, "record", "-a", "-o", out], stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    check("-a without a command: exit 0 after ^C", p.returncode == 0, (p.returncode, err))
    check("the summary is printed", "samples," in err, err)
    r = run([HWPROF, "report", "-i", out])
    check("the file is whole", r.returncode == 0 and "cut short" not in r.stderr, r.stderr)
    check("no command in the header", "# command:" not in r.stdout and
          "# system-wide" in r.stdout, r.stdout[:500])


def test_bad_input(d):
    marker = os.path.join(d, "ran")
    touch = ["--", "/bin/sh", "-c", f"touch {marker}"]
    for name, args, want in [
        ("-C 4096", ["-C", "4096"], "CPU 4096 is not online"),
        ("-C 0-x", ["-C", "0-x"], "not a CPU list"),
        ("-C 1,1", ["-C", "1,1"], "not a CPU list"),
        ("-a -p", ["-a", "-p", "1"], "exclude each other"),
    ]:
        p = run([HWPROF, "record", "-o", os.path.join(d, "bad.data")] + args + touch)
        lines = [l for l in p.stderr.splitlines() if "--help'" not in l]
        check(f"{name}: usage error", p.returncode == 64, (p.returncode, p.stderr))
        check(f"{name}: one line naming the cause", len(lines) == 1 and want in lines[0],
              p.stderr)
        check(f"{name}: target not run", not os.path.exists(marker))


def test_denied_names_the_way_out(d):
    with open("/proc/sys/kernel/perf_event_paranoid") as f:
        paranoid = int(f.read())
    if os.geteuid() != 0 or paranoid <= 0:
        print("skip denied_names_the_way_out: needs root (to run as nobody) and "
              f"perf_event_paranoid > 0 (it is {paranoid})")
        return
    out = os.path.join(d, "nobody.data")
    os.chmod(d, 0o777)
    p = subprocess.run([HWPROF, "record", "-a", "-e", "page-faults", "-o", out, "--", "true"],
                       user="nobody", capture_output=True, text=True, timeout=30)
    err = [l for l in p.stderr.splitlines() if "error" in l]
    check("nobody: exit 2", p.returncode == 2, (p.returncode, p.stderr))
    check("nobody: one error naming paranoid and CAP_PERFMON", len(err) == 1 and
          "perf_event_paranoid" in err[0] and "CAP_PERFMON" in err[0] and "-a" in err[0],
          p.stderr)
    check("nobody: no file left", not os.path.exists(out))


with tempfile.TemporaryDirectory() as tmp:
    run_cases(globals(), tmp, label="system-wide")
