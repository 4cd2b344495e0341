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
import resource
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from hwprof_test import check, finish  # noqa: E402

HWPROF, TOUCH = os.path.abspath(sys.argv[1]), sys.argv[2]


def stat(*args):
    """rc, the counts, the messages: both are stderr (as perf stat, the counts go there and
    stdout stays the program's); with -f json the messages are inside the document."""
    p = subprocess.run([HWPROF, "stat", *args], capture_output=True, text=True, timeout=60)
    check(f"stat {args}: stdout is the program's: {p.stdout!r}", p.stdout == "" or "-o" in args)
    return p.returncode, p.stderr, p.stderr


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "out.json")

    # Exact: N fresh pages -> page-faults within 2% of N above the program's own baseline.
    def faults(pages):
        rc, _, err = stat("-e", "page-faults", "--format", "json", "-o", out, "--", TOUCH,
                          str(pages))
        check(f"touch_runs {pages}: rc {rc}: {err}", rc == 0)
        return json.load(open(out))["events"][0]["mean"]

    base, n = faults(0), 8000
    got = faults(n) - base
    check(f"page-faults for {n} pages: {got} (baseline {base})", abs(got - n) <= n * 0.02)
    print(f"page-faults: {got:.0f} above baseline for {n} pages")

    # -r spread on known inputs: runs touch 1000, 2000, 3000 pages (+ the same baseline).
    state = os.path.join(tmp, "state")
    rc, _, err = stat("-r", "3", "-e", "page-faults,task-clock", "--format", "json", "-o", out,
                      "--", TOUCH, "1000", state)
    check(f"-r 3: rc {rc}: {err}", rc == 0)
    doc = json.load(open(out))
    check(f"keys {sorted(doc)}",
          sorted(doc) == ["command", "cpu", "elapsed_s", "events", "interrupted", "messages",
                          "metrics", "runs", "sys_s", "system_wide", "user_s", "version"])
    check(f"version {doc.get('version')}", doc.get("version") == 2)
    check("runs", doc["runs"] == 3)
    check(f"command {doc['command']}", doc["command"] == [TOUCH, "1000", state])
    check("cpu model", isinstance(doc["cpu"], str) and doc["cpu"])
    fields = ["counted", "event", "group", "max", "mean", "min", "running_pct", "stddev_pct",
              "supported", "unit"]
    for e in doc["events"]:
        check(f"event keys {sorted(e)}", sorted(e) == fields)
    pf = doc["events"][0]
    check("page-faults counted", pf["event"] == "page-faults" and pf["counted"] is True)
    sd = pf["stddev_pct"] * pf["mean"] / 100
    check(f"stddev {sd:.1f}, expected 1000 (sample stddev of +0/1000/2000)", abs(sd - 1000) <= 30)
    check(f"max - min {pf['max'] - pf['min']}", abs((pf["max"] - pf["min"]) - 2000) <= 40)
    check(f"mean - min {pf['mean'] - pf['min']}", abs(pf["mean"] - pf["min"] - 1000) <= 20)
    check("software events are never multiplexed", pf["running_pct"] == 100)
    check("task-clock in ns", doc["events"][1]["unit"] == "ns")
    print(f"-r 3: mean {pf['mean']:.0f} stddev {pf['stddev_pct']:.2f}% "
          f"min {pf['min']:.0f} max {pf['max']:.0f}")

    # CSV with the same columns.
    rc, _, err = stat("-r", "2", "-e", "page-faults,cpu-migrations", "--format", "csv", "-o",
                      out, "--", TOUCH, "10")
    rows = list(csv.DictReader(open(out)))
    check(f"csv rc {rc} {err}", rc == 0)
    check(f"csv columns {list(rows[0])}", list(rows[0]) == ["event", "mean", "stddev_pct", "min", "max", "running_pct", "unit",
                            "counted", "supported"])
    check("csv values", rows[0]["event"] == "page-faults" and float(rows[0]["mean"]) > 10)

    # perf's CSV flag: -x , is -f csv (the same rows); another separator is a usage error
    # that names -f csv.
    rc, _, err = stat("-x", ",", "-e", "page-faults", "-o", out, "--", TOUCH, "10")
    xrows = list(csv.DictReader(open(out))) if rc == 0 else []
    check(f"-x , rc {rc} {err}: csv rows {xrows[:1]}",
          rc == 0 and xrows and xrows[0]["event"] == "page-faults")
    rc, _, err = stat("-x", ";", "-e", "page-faults", "--", "true")
    first = err.splitlines()[0] if err else ""
    check(f"-x ';': usage error naming -f csv: {rc} {err!r}",
          rc == 64 and "-x ';'" in first and "-f csv" in first)
    rc, _, err = stat("-M", "", "--", "true")
    check(f"-M '': a usage error naming -M: {rc} {err!r}", rc == 64 and "-M ''" in err)
    # -x , is -f csv: with another -f, either order, a usage error, not the last one winning.
    for args in (["-f", "json", "-x", ","], ["-x", ",", "-f", "json"]):
        rc, _, err = stat(*args, "-e", "page-faults", "--", "true")
        check(f"{' '.join(args)}: usage error: {rc} {err!r}", rc == 64 and "exclude" in err)

    # Issue 17: the counts on stderr, as perf stat's; stdout is the program's own, and with
    # -f json stderr is one JSON document, the run's notes inside it.
    p = subprocess.run([HWPROF, "stat", "-f", "json", "--", "sh", "-c", "echo hello"],
                       capture_output=True, text=True, timeout=60)
    doc = json.loads(p.stderr) if p.stderr.startswith("{") else {}
    check(f"stat -f json: stdout {p.stdout!r}, stderr one document {p.stderr[:300]!r}",
          p.returncode == 0 and p.stdout == "hello\n" and doc.get("events"))
    text_run = subprocess.run([HWPROF, "stat", "--", "true"], capture_output=True, text=True,
                              timeout=60)
    want_note = ["note"] if "no hardware PMU" in text_run.stderr else []
    got_kinds = [m["kind"] for m in doc.get("messages", []) if "PMU" in m["text"]]
    check(f"the no-PMU note inside the document: {doc.get('messages')}", got_kinds == want_note)
    p = subprocess.run([HWPROF, "stat", "-e", "page-faults", "--", "sh", "-c", "echo hello"],
                       capture_output=True, text=True, timeout=60)
    check(f"stat text: stdout {p.stdout!r}", p.stdout == "hello\n" and "page-faults" in p.stderr)
    p = subprocess.run([HWPROF, "stat", "-f", "json", "-o", out, "--", "true"],
                       capture_output=True, text=True, timeout=60)
    doc = json.load(open(out))
    check(f"-o FILE: the notes on stderr too: {p.stderr!r}",
          [m["text"] in p.stderr for m in doc["messages"]] == [True] * len(doc["messages"]))

    # Issue 17: perf stat's CPUs utilized, rates per second of task-clock, user and sys time;
    # the groups shown (a mean under 1 with decimals: tests/common/test_textfmt.c).
    rc, text, err = stat("-e", "{task-clock,page-faults},cpu-migrations", "-f", "json", "--",
                         TOUCH, "2000")
    doc = json.loads(text) if rc == 0 else {}
    ev = {e["event"]: e for e in doc.get("events", [])}
    met = {m["name"]: m["value"] for m in doc.get("metrics", [])}
    tc_s = ev.get("task-clock", {}).get("mean", 0) / 1e9
    check(f"CPUs utilized = task-clock / elapsed: {met} {doc.get('elapsed_s')}",
          tc_s > 0 and abs(met.get("CPUs utilized", 0) - tc_s / doc["elapsed_s"]) <= 1e-3 * met.get("CPUs utilized", 1))
    check(f"page-faults/s = page-faults / task-clock s: {met}",
          abs(met.get("page-faults/s", 0) - ev["page-faults"]["mean"] / tc_s) <= 1e-3 * met.get("page-faults/s", 1))
    check(f"user and sys time: {doc.get('user_s')} {doc.get('sys_s')} of {doc.get('elapsed_s')}",
          0 <= doc.get("user_s", -1) and 0 < doc.get("sys_s", -1) and
          doc["user_s"] + doc["sys_s"] <= 2 * doc["elapsed_s"] + 0.05)
    check(f"groups: {[(e['event'], e['group']) for e in doc.get('events', [])]}",
          [e["group"] for e in doc.get("events", [])] == [0, 0, 1])
    rc, text, err = stat("-e", "{task-clock,page-faults},cpu-migrations", "--", "true")
    check(f"text: rates, user/sys, groups: {text!r}",
          "CPUs utilized" in text and "page-faults/s" in text and "seconds user" in text and
          "seconds sys" in text and " groups: {task-clock,page-faults}\n" in text)

    # Breaker: -o is opened before the run, so that a path that cannot be written costs no
    # run of the program.
    p = subprocess.run([HWPROF, "stat", "-r", "3", "-o", tmp, "--", "sh", "-c", "echo RAN"],
                       capture_output=True, text=True, timeout=60)
    check(f"-o DIR before the run: {p.returncode} {p.stdout!r} {p.stderr!r}",
          p.returncode == 2 and p.stdout == "" and "Is a directory" in p.stderr)

    # M7: -f is --format's short spelling, as in report.
    rc, text, err = stat("-f", "json", "-e", "page-faults", "--", "true")
    check(f"-f json: rc {rc} {err!r}",
          rc == 0 and json.loads(text)["events"][0]["event"] == "page-faults")
    rc, _, err = stat("-f", "xml", "true")
    check(f"-f xml: rc {rc} {err!r}", rc == 64 and "xml" in err)

    # M8: -r N text fits 80 columns; min and max in a table of their own, with the same
    # spread as the JSON above (runs of +0/1000/2000 pages).
    rc, text, err = stat("-r", "3", "-e", "page-faults,task-clock,context-switches", "--",
                         TOUCH, "1000", state + "2")
    check(f"-r 3 text: rc {rc}: {err}", rc == 0)
    # The title line echoes the command (a long temporary path here), and a "<not counted>"
    # line carries its reason: neither is a row of counted values.
    wide = [l for l in text.splitlines() if len(l) > 80 and "counter stats for" not in l
            and "<not counted>" not in l]
    check(f"-r 3 text lines over 80 columns: {wide}", not wide)
    rows = text.split("min and max over the 3 runs")
    check(f"-r 3 text: a min/max table: {text}", len(rows) == 2)
    mm = [l.split() for l in rows[-1].splitlines() if l.strip().endswith("page-faults")]
    if mm:
        lo, hi = (float(v.replace(",", "")) for v in mm[0][:2])
        check(f"-r 3 text: max - min {hi - lo}: {text}", abs((hi - lo) - 2000) <= 40)
    else:
        check(f"-r 3 text: page-faults row in the min/max table: {text}", False)
    main = [l for l in text.split("min and max")[0].splitlines() if "page-faults" in l]
    check(f"-r 3 main row: {main}", main and "( +-" in main[0] and "[100.0%]" in main[0])

    # Text: command, CPU, the PMU note on hosts without one.
    rc, text, err = stat("--", "true")
    check(f"text rc {rc}", rc == 0)
    check(text, "Performance counter stats for 'true'" in text and "CPU:" in text)
    check("default software set", "page-faults" in text and "task-clock" in text)

    # V: -o - is standard output, never a file named '-'; past 'ulimit -f' the message names it.
    p = subprocess.run([HWPROF, "stat", "-e", "task-clock", "-o", "-", "--", "true"], cwd=tmp,
                       capture_output=True, text=True)
    check(f"stat -o -: {p.returncode} {p.stderr!r}", p.returncode == 0 and "Performance counter stats" in p.stdout and
          not os.path.exists(os.path.join(tmp, "-")))
    p = subprocess.run([HWPROF, "stat", "-e", "task-clock", "-f", "json", "-o",
                        os.path.join(tmp, "big.json"), "--", "true"], capture_output=True,
                       text=True, preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE,
                                                                        (16, 16)))
    check(f"stat -o past ulimit -f: {p.returncode} {p.stderr!r}",
          p.returncode == 2 and "File too large" in p.stderr and "ulimit -f" in p.stderr)

    # A command that ends itself by SIGINT is no ^C: every run of -r 3 is made.
    rc, text, err = stat("-r", "3", "-e", "page-faults", "-f", "json", "--", "sh", "-c",
                         "kill -INT $$")
    doc = json.loads(text) if text.strip().startswith("{") else {}
    check(f"self-SIGINT command under -r 3: rc {rc} {text[:200]!r} {err!r}",
          doc.get("runs") == 3 and doc.get("interrupted") is False)

    # Q-stat-1: -p with a command counts the process for as long as the command runs; the
    # heading names the process, not the command, as perf's does.
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        rc, text, err = stat("-e", "task-clock", "-p", str(sleeper.pid), "--", "sleep", "0.2")
        check(f"-p with a command: rc {rc} {text!r} {err!r}", rc == 0 and f"Performance counter stats for process id '{sleeper.pid}' while "
              "'sleep 0.2' ran:" in text)
        rc, text, err = stat("-e", "task-clock", "-f", "json", "-p", str(sleeper.pid), "--",
                             "sleep", "0.1")
        j = json.loads(text) if rc == 0 else {}
        check(f"-p with a command, json: {text[:200]!r}", j.get("pid") == sleeper.pid and j.get("command") == ["sleep", "0.1"] and
              j.get("system_wide") is False)
    finally:
        sleeper.kill()
        sleeper.wait()
    if "no hardware PMU" not in err:
        print("note: this host has a PMU (no software-default note expected)")

    # Exit status passes through.
    rc, _, _ = stat("-e", "page-faults", "-o", "/dev/null", "--", "sh", "-c", "exit 7")
    check(f"exit 7 -> {rc}", rc == 7)
    rc, _, _ = stat("-e", "page-faults", "-o", "/dev/null", "--", "sh", "-c", "kill -TERM $$")
    check(f"SIGTERM -> {rc}", rc == 128 + 15)

    # Bad input: one line naming the cause (usage errors add the --help hint), non-zero exit.
    noexec = os.path.join(tmp, "noexec")
    open(noexec, "w").write("true\n")
    dead = subprocess.Popen(["true"])
    dead.wait()
    for args, want_rc, needle in [
        (["-r", "0", "true"], 64, "-r '0'"),
        (["-p", str(dead.pid)], 2, "no such process"),
        (["-e", "cyclez", "true"], 64, "cyclez"),
        (["-e", "{page-faults", "true"], 64, "{"),
        # H F17: a spec naming a PMU this host lacks is a usage error, as in record.
        (["-e", "cpu/event=zz/", "true"], 64, "cpu/event=zz/"),
        (["-e", "nosuchpmu/foo/", "true"], 64, "nosuchpmu"),
        (["--format", "xml", "true"], 64, "xml"),
        # H F16: a command that cannot be executed: 127 as record, and the command is checked
        # before the host (no PMU note first: with the default events, still one line).
        (["-e", "page-faults", "--", "/nonexistent/cmd"], 127, "/nonexistent/cmd"),
        (["--", "/nonexistent/cmd"], 127, "check the path"),
        (["--", noexec], 127, "try chmod +x"),
    ]:
        rc, _, err = stat(*args)
        lines = [l for l in err.splitlines() if "try 'hwprof stat --help'" not in l]
        check(f"{args}: rc {rc}", rc != 0 and (want_rc is None or rc == want_rc))
        check(f"{args}: stderr {err!r}", len(lines) == 1 and needle in lines[0])

    # The same exit status in record (one code path, launch_check/launch_strerror).
    p = subprocess.run([HWPROF, "record", "-o", os.path.join(tmp, "x.data"), "--", noexec],
                       capture_output=True, text=True, timeout=60)
    check(f"record of a file without +x: rc {p.returncode}", p.returncode == 127)

    # H F28: -r N interrupted by a signal. The command itself signals hwprof ($PPID) in its
    # second run: run 1 (0.2 s) is the one completed run, run 2 is left out, the exit status
    # is 128+SIGINT, the elapsed mean is run 1's (not the sum over 5), JSON runs = 1.
    state = os.path.join(tmp, "irq")
    script = (f"if [ -e {state} ]; then kill -INT $PPID; exec sleep 5; "
              f"else touch {state}; sleep 0.2; fi")
    for fmt in ("text", "json"):
        if os.path.exists(state):
            os.unlink(state)
        rc, text, err = stat("-r", "5", "--format", fmt, "--", "sh", "-c", script)
        check(f"-r 5 interrupted ({fmt}): rc {rc}: {err}", rc == 130)
        check(f"-r 5 interrupted ({fmt}): {err!r}",
              "interrupted in run 2 of 5; the counts are of the 1 completed run" in err)
        check(f"the PMU note once: {err!r}", err.count("no hardware PMU") <= 1)
        if fmt == "json":
            doc = json.loads(text)
            check(f"json runs {doc['runs']}", doc["runs"] == 1 and doc["interrupted"] is True)
            pf = [e for e in doc["events"] if e["event"] == "page-faults"][0]
            check(f"one run kept: {pf}", pf["stddev_pct"] == 0 and pf["min"] == pf["max"])
        else:
            secs = [float(l.split()[0]) for l in text.splitlines() if "time elapsed" in l]
            check(f"elapsed of the completed run: {secs}", secs and 0.18 <= secs[0] < 1.0)
            check(text, "(1 of 5 runs, interrupted)" in text)
            check(f"no 'counted in 1 of 5 runs': {text}", "counted in" not in text)
    # SIGTERM: 143; no run completed: the interrupted run's partial counts, said so.
    rc, text, err = stat("-r", "3", "-e", "page-faults", "--format", "json", "--", "sh", "-c",
                         "kill -TERM $PPID; exec sleep 5")
    check(f"-r 3 SIGTERM in run 1: rc {rc}: {err}", rc == 143)
    check(err, "interrupted in run 1 of 3 before any run completed" in err)
    doc = json.loads(text)
    check(f"partial counts: {doc}",
          doc["runs"] == 0 and doc["interrupted"] is True and doc["events"][0]["counted"])
    # Uninterrupted: interrupted false.
    rc, text, _ = stat("-r", "2", "-e", "page-faults", "--format", "json", "--", "true")
    doc = json.loads(text)
    check(f"-r 2: {doc}", rc == 0 and doc["runs"] == 2 and doc["interrupted"] is False)

    # H F34/F29: a full disk loses no counts silently.
    with open("/dev/full", "w") as full:
        p = subprocess.run([HWPROF, "stat", "-e", "page-faults", "-o", "-", "--", "true"],
                           stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
        check(f"stdout /dev/full: rc {p.returncode}", p.returncode == 2)
        q = subprocess.run([HWPROF, "stat", "-e", "page-faults", "--", "true"], stderr=full,
                           timeout=60)
        check(f"stderr /dev/full: rc {q.returncode}", q.returncode == 2)
    check(p.stderr, "writing the counts: No space left on device" in p.stderr)
    rc, _, err = stat("-e", "page-faults", "-o", "/dev/full", "--", "true")
    check(err, rc == 2 and "No space left on device (choose a writable path with -o)" in err)

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
    check(f"-a as nobody: rc {p.returncode}", p.returncode == 2)
    check(f"-a as nobody: {p.stderr!r}", len(lines) == 1 and f"perf_event_paranoid is {paranoid}" in lines[0]
          and "-a" in lines[0] and "CAP_PERFMON" in lines[0])

# M2: as nobody, stat -p of root's process names the owner, not perf_event_paranoid.
if not can_drop:
    print("skip: -p of root's process as nobody (not root, or no user nobody)")
else:
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        p = subprocess.run([HWPROF, "stat", "-p", str(sleeper.pid)], user="nobody",
                           capture_output=True, text=True, timeout=10)
    finally:
        sleeper.kill()
        sleeper.wait()
    lines = p.stderr.splitlines()
    want = (f"process {sleeper.pid} belongs to root, not to you (profile your own processes, "
            "or run as root / with CAP_PERFMON)")
    check(f"-p root's process as nobody: rc {p.returncode}", p.returncode == 2)
    check(f"-p root's process as nobody: {p.stderr!r}", len(lines) == 1 and want in lines[0])
    check(f"-p root's process as nobody: {p.stderr!r}", "paranoid" not in p.stderr)

# M3: stat -p of a kernel thread counts its kernel-side software events (as root) and says
# that it has no user space; docs/stat.md.
kthread = None
for pid in sorted((int(x) for x in os.listdir("/proc") if x.isdigit())):
    try:
        text = open(f"/proc/{pid}/stat").read()
    except OSError:
        continue
    if int(text.rsplit(")", 1)[1].split()[6]) & 0x00200000:
        kthread = (pid, text[text.index("(") + 1:text.rindex(")")])
        break
if os.geteuid() != 0 or not kthread:
    print("skip: stat -p of a kernel thread (not root, or none visible)")
else:
    p = subprocess.Popen([HWPROF, "stat", "-e", "task-clock", "-p", str(kthread[0])],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    import signal, time
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    out_text, err = p.communicate(timeout=20)
    check(f"stat -p kernel thread: rc {p.returncode}: {err!r}", p.returncode == 0)
    check(f"stat -p kthread: {err!r}", f"PID {kthread[0]} ({kthread[1]}) is a kernel thread" in err)
    # P4: root is told how to count the kernel work, not that it needs root.
    check(f"stat -p kthread as root: {err!r}",
          "count its kernel work with :k" in err and "needs root" not in err)
    check(err, "task-clock" in err and out_text == "")

# H F22/F31: context switches and migrations are kernel work. Where the kernel may be measured
# (root here) stat and record's counted totals both count them (:uk) and see the sleeps; where
# it may not (nobody at perf_event_paranoid >= 2) they read "not counted" with the reason,
# never 0: in stat, in record's stored totals (counted false) and in report.
SLEEPS = ["sh", "-c", "sleep 0.01; sleep 0.01; sleep 0.01"]
WHY = "kernel work; needs perf_event_paranoid <= 1 or CAP_PERFMON"


def record_counts(user=None):
    d = tempfile.mkdtemp()
    os.chmod(d, 0o777)
    data = os.path.join(d, "k.data")
    p = subprocess.run([HWPROF, "record", "-o", data, "--", *SLEEPS], user=user,
                       capture_output=True, text=True, timeout=60)
    check(f"record as {user}: rc {p.returncode}: {p.stderr}", p.returncode == 0)
    r = subprocess.run([HWPROF, "report", "-i", data, "--format", "json"], capture_output=True,
                       text=True, timeout=60)
    t = subprocess.run([HWPROF, "report", "-i", data], capture_output=True, text=True,
                       timeout=60)
    # A total shown as "not counted" is no missing part of the profile: report and
    # annotate agree on exit 0.
    a = subprocess.run([HWPROF, "annotate", "--stdio", "-i", data], capture_output=True,
                       text=True, timeout=60)
    check(f"report/annotate of {user}'s recording: rc {t.returncode}/{a.returncode}: {a.stderr!r}",
          t.returncode == 0 and a.returncode in (0, 2))
    check(f"annotate exits 1 for a not-counted total: {a.stderr!r}", a.returncode != 1)
    subprocess.run(["rm", "-rf", d])
    counts = {c["event"]: c for c in json.loads(r.stdout)["header"]["counts"]}
    return counts, p.stderr, t.stdout


if os.geteuid() == 0:
    rc, text, _ = stat("--format", "json", "--", *SLEEPS)
    ev = {e["event"]: e for e in json.loads(text)["events"]}
    cs = ev.get("context-switches:uk", {})
    check(f"root stat context-switches: {cs}", cs.get("counted") and cs["mean"] >= 3)
    counts, _, _ = record_counts()
    cs = counts.get("context-switches:uk", {})
    check(f"root record's counted context-switches: {counts}",
          cs.get("counted") and cs.get("value", 0) >= 3)
    print(f"root: context-switches:uk stat {ev.get('context-switches:uk', {}).get('mean')}, "
          f"record {cs.get('value')}")
if not can_drop or paranoid < 2:
    print("skip: kernel work as nobody (not root, no user nobody, or perf_event_paranoid < 2)")
else:
    p = subprocess.run([HWPROF, "stat", "--", *SLEEPS], user="nobody", capture_output=True,
                       text=True, timeout=60)
    check(f"stat as nobody: rc {p.returncode}: {p.stderr}", p.returncode == 0)
    for name in ("context-switches:u", "cpu-migrations:u"):
        line = [l for l in p.stderr.splitlines() if f" {name} " in l + " "]
        check(f"stat as nobody, {name}: {line}",
              line and "<not counted>" in line[0] and WHY in line[0])
    # Named with the modifier in effect, as perf names them for a user ("task-clock:u").
    check(p.stderr, "task-clock:u" in p.stderr and "<not counted>  task-clock" not in p.stderr)
    counts, err, text = record_counts("nobody")
    for name in ("context-switches:u", "cpu-migrations:u"):
        c = counts.get(name, {})
        check(f"record as nobody, stored {name}: {c}", c and c["counted"] is False)
        check(f"record as nobody says why: {err!r}", f"{name}: not counted ({WHY})" in err)
        line = [l for l in text.splitlines() if name in l]
        check(f"report of nobody's recording: {line}", line and "not counted" in line[0])
    check(f"page-faults counted: {counts}", counts.get("page-faults:u", {}).get("counted"))
    print("nobody: context-switches and cpu-migrations not counted, with the reason")

# Metrics that say why not: -M asks by name and adds the events; on a host without a PMU the
# metric says which events it needs and why they are missing, and the note says what works.
pmu = subprocess.run([HWPROF, "list", "-f", "json"], capture_output=True, text=True,
                     timeout=60)
if json.loads(pmu.stdout)["hardware_pmu"]:
    print("skip: -M IPC why-not on this host (it has a hardware PMU: IPC is derived)")
else:
    rc, _, err = stat("-M", "IPC", "--", "true")
    check(f"stat -M IPC without a PMU: rc {rc}", rc == 2)
    check(f"says why: {err!r}",
          "IPC: needs cycles and instructions (not supported on this host)" in err)
    check(f"points to what works: {err!r}",
          "valgrind --tool=cachegrind" in err and "page-faults -c 1" in err)
    rc, _, err = stat("-M", "ipc,branch-miss-rate", "-e", "task-clock", "-f", "json", "--",
                      "true")
    d = json.loads(err)
    msgs = [m["text"] for m in d["messages"]]
    check(f"-M with a countable event: rc {rc}, events {[e['event'] for e in d['events']]}",
          rc == 0 and [e["event"] for e in d["events"]] ==
          ["task-clock", "instructions", "cycles", "branch-misses", "branches"])
    check(f"JSON messages say why: {msgs}",
          "IPC: needs cycles and instructions (not supported on this host)" in msgs and
          "branch miss rate: needs branches and branch-misses (not supported on this host)"
          in msgs)
    # A metric partly in -e says why without -M; PAPI names count as the generic events.
    rc, _, err = stat("-e", "task-clock,PAPI_TOT_CYC", "--", "true")
    check(f"partial IPC: {err!r}", rc == 0 and
          "IPC: needs cycles (not supported on this host) and instructions (not in the event "
          "list)" in err)
rc, _, err = stat("-M", "nosuch", "--", "true")
check(f"-M nosuch: rc {rc}: {err!r}", rc == 64 and "no metric 'nosuch' (metrics: IPC," in err)
rc, _, err = stat("-e", "PAPI_L2_TCM", "--", "true")
check(f"PAPI_L2_TCM refused with the reason: {err!r}",
      rc == 64 and "PAPI preset 'PAPI_L2_TCM': no generic event counts L2 misses" in err)

# --bandwidth on a host without memory-controller counters: one line, the cause and what works
# here (the counting itself is tests/counting/test_stat_bandwidth.c's, on fixture trees, and
# bandwidth_host.py's where the counters exist).
devices = "/sys/bus/event_source/devices"
controllers = [d for d in (os.listdir(devices) if os.path.isdir(devices) else [])
               if d.startswith("uncore_imc") or d == "amd_df"]
if controllers:
    print(f"skip: --bandwidth's no-controller error (this host has {controllers})")
else:
    rc, _, err = stat("--bandwidth", "-a", "--", "true")
    check(f"--bandwidth without a memory controller: rc {rc}, one line: {err!r}",
          rc == 2 and err.count("\n") == 1 and
          err.startswith("hwprof stat: error: --bandwidth: no memory-controller PMU "
                         "(uncore_imc_N, uncore_imc or amd_df) in /sys/bus/event_source/devices")
          and "what works here: software events" in err)

finish()
