#!/usr/bin/env python3
"""hwprof stat end to end on the real kernel (software events): exact page faults, -r spread
on known inputs, JSON and CSV that parse with exactly the documented fields, exit status
passthrough, bad input with one line and a non-zero exit.

usage: stat_cli.py HWPROF TOUCH_RUNS
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

HWPROF, TOUCH = sys.argv[1], sys.argv[2]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def stat(*args):
    p = subprocess.run([HWPROF, "stat", *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "out.json")

    # Exact: N fresh pages -> page-faults within 2% of N above the program's own baseline.
    def faults(pages):
        rc, _, err = stat("-e", "page-faults", "--format", "json", "-o", out, "--", TOUCH,
                          str(pages))
        check(rc == 0, f"touch_runs {pages}: rc {rc}: {err}")
        return json.load(open(out))["events"][0]["mean"]

    base, n = faults(0), 8000
    got = faults(n) - base
    check(abs(got - n) <= n * 0.02, f"page-faults for {n} pages: {got} (baseline {base})")
    print(f"page-faults: {got:.0f} above baseline for {n} pages")

    # -r spread on known inputs: runs touch 1000, 2000, 3000 pages (+ the same baseline).
    state = os.path.join(tmp, "state")
    rc, _, err = stat("-r", "3", "-e", "page-faults,task-clock", "--format", "json", "-o", out,
                      "--", TOUCH, "1000", state)
    check(rc == 0, f"-r 3: rc {rc}: {err}")
    doc = json.load(open(out))
    check(sorted(doc) == ["command", "cpu", "events", "metrics", "runs"], f"keys {sorted(doc)}")
    check(doc["runs"] == 3, "runs")
    check(doc["command"] == f"{TOUCH} 1000 {state}", f"command {doc['command']}")
    check(isinstance(doc["cpu"], str) and doc["cpu"], "cpu model")
    fields = ["counted", "event", "max", "mean", "min", "running_pct", "stddev_pct", "unit"]
    for e in doc["events"]:
        check(sorted(e) == fields, f"event keys {sorted(e)}")
    pf = doc["events"][0]
    check(pf["event"] == "page-faults" and pf["counted"] is True, "page-faults counted")
    sd = pf["stddev_pct"] * pf["mean"] / 100
    check(abs(sd - 1000) <= 30, f"stddev {sd:.1f}, expected 1000 (sample stddev of +0/1000/2000)")
    check(abs((pf["max"] - pf["min"]) - 2000) <= 40, f"max - min {pf['max'] - pf['min']}")
    check(abs(pf["mean"] - pf["min"] - 1000) <= 20, f"mean - min {pf['mean'] - pf['min']}")
    check(pf["running_pct"] == 100, "software events are never multiplexed")
    check(doc["events"][1]["unit"] == "ns", "task-clock in ns")
    print(f"-r 3: mean {pf['mean']:.0f} stddev {pf['stddev_pct']:.2f}% "
          f"min {pf['min']:.0f} max {pf['max']:.0f}")

    # CSV with the same columns.
    rc, _, err = stat("-r", "2", "-e", "page-faults,cpu-migrations", "--format", "csv", "-o",
                      out, "--", TOUCH, "10")
    rows = list(csv.DictReader(open(out)))
    check(rc == 0, f"csv rc {rc} {err}")
    check(list(rows[0]) == ["event", "mean", "stddev_pct", "min", "max", "running_pct", "unit",
                            "counted"], f"csv columns {list(rows[0])}")
    check(rows[0]["event"] == "page-faults" and float(rows[0]["mean"]) > 10, "csv values")

    # Text: command, CPU, the PMU note on hosts without one.
    rc, text, err = stat("--", "true")
    check(rc == 0, f"text rc {rc}")
    check("Performance counter stats for 'true'" in text and "CPU:" in text, text)
    check("page-faults" in text and "task-clock" in text, "default software set")
    if "no hardware PMU" not in err:
        print("note: this host has a PMU (no software-default note expected)")

    # Exit status passes through.
    rc, _, _ = stat("-e", "page-faults", "-o", "/dev/null", "--", "sh", "-c", "exit 7")
    check(rc == 7, f"exit 7 -> {rc}")
    rc, _, _ = stat("-e", "page-faults", "-o", "/dev/null", "--", "sh", "-c", "kill -TERM $$")
    check(rc == 128 + 15, f"SIGTERM -> {rc}")

    # Bad input: one line naming the cause (usage errors add the --help hint), non-zero exit.
    dead = subprocess.Popen(["true"])
    dead.wait()
    for args, want_rc, needle in [
        (["-r", "0", "true"], 64, "-r '0'"),
        (["-p", str(dead.pid)], 2, "no such process"),
        (["-e", "cyclez", "true"], 64, "cyclez"),
        (["-e", "{page-faults", "true"], 64, "{"),
        (["-e", "cpu/event=zz/", "true"], None, "cpu/event=zz/"),
        (["-e", "nosuchpmu/foo/", "true"], None, "nosuchpmu"),
        (["--format", "xml", "true"], 64, "xml"),
        (["-e", "page-faults", "--", "/nonexistent/cmd"], 2, "/nonexistent/cmd"),
    ]:
        rc, _, err = stat(*args)
        lines = [l for l in err.splitlines() if "try 'hwprof stat --help'" not in l]
        check(rc != 0 and (want_rc is None or rc == want_rc), f"{args}: rc {rc}")
        check(len(lines) == 1 and needle in lines[0], f"{args}: stderr {err!r}")

# For real as `nobody` (when we can drop privileges): -a refused at perf_event_paranoid >= 1,
# with the level and the fix named in one line.
try:
    import pwd
    pwd.getpwnam("nobody")
    paranoid = int(open("/proc/sys/kernel/perf_event_paranoid").read())
    can_drop = os.geteuid() == 0
except (KeyError, OSError, ValueError):
    can_drop = False
if not can_drop or paranoid < 1:
    print("skip: -a as nobody (not root, no user nobody, or perf_event_paranoid < 1)")
else:
    p = subprocess.run([HWPROF, "stat", "-a", "-e", "page-faults", "--", "true"], user="nobody",
                       capture_output=True, text=True, timeout=60)
    lines = p.stderr.splitlines()
    check(p.returncode == 2, f"-a as nobody: rc {p.returncode}")
    check(len(lines) == 1 and f"perf_event_paranoid is {paranoid}" in lines[0]
          and "-a" in lines[0] and "CAP_PERFMON" in lines[0], f"-a as nobody: {p.stderr!r}")

if failures:
    print(f"{len(failures)} failed")
    sys.exit(1)
print("ok")
