#!/usr/bin/env python3
"""End to end: record a workload with hwprof record, read it back with hwprof report --format
json, and check where the samples landed (suite 'integration').

usage: e2e.py CASE HWPROF WORKLOAD_SRC_DIR PROGRAM [ARGS...]

Hot lines are found by their "HOT: name" marker in the workload's source, never by number.
A row's file is matched by its base name (DWARF may hold it relative to the build directory).
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from hwprof_test import check, finish, hot_line, record, wait_for, wait_for_threads  # noqa: E402

CASE, HWPROF, SRC = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
PROG = [os.path.abspath(sys.argv[4])] + sys.argv[5:]


def recorded(d, args):
    """The workload recorded with ARGS into d/t.data, then report()ed."""
    out = os.path.join(d, "t.data")
    record(HWPROF, out, args, PROG)
    return report(out)


def report(path):
    p = subprocess.run([HWPROF, "report", "-i", path, "--format", "json", "--limit", "0"],
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        print(p.stderr)
        sys.exit(f"e2e: hwprof report failed with {p.returncode}")
    check("report sanitizer-clean", "Sanitizer" not in p.stderr, p.stderr)
    return json.loads(p.stdout), p.stderr


def in_file(rows, src):
    return [r for r in rows if r.get("file") and os.path.basename(r["file"]) == src]


def samples_at(rows, src, line):
    return sum(r["samples"] for r in in_file(rows, src) if r["line"] == line)


def own_file_share(name, rows, src, marker, want=0.95, min_samples=1000):
    """The marked line holds >= WANT of the samples that fall in SRC."""
    line = hot_line(os.path.join(SRC, src), marker)
    total = sum(r["samples"] for r in in_file(rows, src))
    hot = samples_at(rows, src, line)
    print(f"{name}: {src}:{line} has {hot} of {total} samples in {src}")
    check(f"{name}: samples in {src}", total >= min_samples, total)
    check(f"{name}: {src}:{line} >= {want:.0%}", total and hot / total >= want,
          f"{hot}/{total}")


def case_pagefault(d):
    doc, _ = recorded(d, ["-e", "page-faults", "-c", "1"])
    check("header event", doc["header"]["event"] == "page-faults", doc["header"])
    check("nothing lost", doc["header"]["lost"] == 0, doc["header"])
    own_file_share("pagefault", doc["rows"], "pagefault.c", "fault")


def case_period(d):
    """-c N samples one event in N: 20000 faults at -c 1000 give about 20 samples, not 20000."""
    doc, _ = recorded(d, ["-e", "page-faults", "-c", "1000"])
    n = doc["header"]["samples"]
    print(f"period: {n} samples for ~20000 page faults at -c 1000")
    check("period: one sample per 1000 faults", 15 <= n <= 40, n)


def case_shlib(d):
    doc, _ = recorded(d, ["-e", "page-faults", "-c", "1"])
    own_file_share("shlib", doc["rows"], "libfault.c", "libfault")
    dsos = {os.path.basename(r["dso"]) for r in in_file(doc["rows"], "libfault.c")}
    check("shlib: rows name the .so", any(x.startswith("libwlfault.so") for x in dsos), dsos)


def case_threads(d):
    doc, _ = recorded(d, ["-e", "page-faults", "-c", "1"])
    rows = doc["rows"]
    one = samples_at(rows, "threads.c", hot_line(os.path.join(SRC, "threads.c"), "one_share"))
    three = samples_at(rows, "threads.c", hot_line(os.path.join(SRC, "threads.c"), "three_shares"))
    print(f"threads: one_share {one}, three_shares {three}, ratio {three / max(one, 1):.3f}")
    check("threads: both lines sampled", one > 1000 and three > 3000, (one, three))
    check("threads: 1:3 within 10%", one and abs(three / one - 3) <= 0.3, three / max(one, 1))


def case_forkexec(d):
    doc, _ = recorded(d, ["-e", "page-faults", "-c", "1"])
    own_file_share("forkexec child", doc["rows"], "pagefault.c", "fault")


def case_chase(d):
    doc, _ = recorded(d, ["-e", "cpu-clock"])
    rows = [r for r in doc["rows"] if r["samples"] > 0]
    line = hot_line(os.path.join(SRC, "chase.c"), "chase")
    top = rows[0] if rows else {}
    print(f"chase: top row {top.get('file')}:{top.get('line')} {top.get('share')}")
    check("chase: enough samples", doc["header"]["samples"] >= 500, doc["header"]["samples"])
    check("chase: the loop's line leads",
          top.get("file") and os.path.basename(top["file"]) == "chase.c" and
          top["line"] == line, top)


def case_sigint(d):
    """SIGINT to hwprof mid-run: the target is stopped, the file is complete, status 128+2."""
    out = os.path.join(d, "t.data")
    p = subprocess.Popen([HWPROF, "record", "-e", "cpu-clock", "-o", out, "--"] + PROG,
                         stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=20)
    print(err, end="")
    check("sigint: hwprof stops promptly", time.monotonic() - t0 < 5, time.monotonic() - t0)
    # hwprof ends by the SIGINT it got once the target died of it (as perf does): 130 to a
    # shell, -2 to Popen.
    check("sigint: ended by SIGINT", p.returncode == -signal.SIGINT, p.returncode)
    check("sigint: summary printed", "samples" in err, err)
    doc, rerr = report(out)
    check("sigint: file complete (no truncation warning)", not doc["header"].get("partial")
          and "cut short" not in rerr and "truncated" not in rerr, rerr)
    check("sigint: samples recorded", doc["header"]["samples"] > 100, doc["header"]["samples"])


def case_hotloop(d):
    """The bundled example: page-faults -c 1 puts its fault loop first among its own lines;
    default (cpu-clock here) puts the chase first."""
    doc, _ = recorded(d, ["-e", "page-faults", "-c", "1"])
    rows = in_file(doc["rows"], "hotloop.c")
    line = hot_line(os.path.join(SRC, "hotloop.c"), "fault")
    check("hotloop page-faults: the fault line leads hotloop.c",
          rows and rows[0]["line"] == line, rows[:3])
    check("hotloop page-faults: 20000 faults on it", samples_at(rows, "hotloop.c", line) >= 20000,
          samples_at(rows, "hotloop.c", line))


def case_hotloop_default(d):
    """The bundled example with the default event: the best miss event with a PMU, else
    cpu-clock with one note saying why; the pointer chase leads."""
    out = os.path.join(d, "t.data")
    p = record(HWPROF, out, [], PROG)
    doc, _ = report(out)
    ev = doc["header"]["event"]
    if ev == "cpu-clock":
        notes = [l for l in p.stderr.splitlines() if "no hardware PMU" in l]
        check("default: one line says why cpu-clock", len(notes) == 1, p.stderr)
    else:
        check("default: a miss event", ev in ("LLC-load-misses:P", "cache-misses:P"), ev)
    rows = [r for r in doc["rows"] if r["samples"] > 0]
    top = rows[0] if rows else {}
    print(f"hotloop default: top row {top.get('file')}:{top.get('line')} "
          f"{top.get('function')} {top.get('share')}")
    check("default: the chase loop leads", top.get("function") == "chase", top)


def case_attach(d):
    """-p PID: attach to a running chase, stop with SIGINT: exit 0, the chase leads, and the
    process keeps running (hwprof does not kill what it did not start)."""
    out = os.path.join(d, "t.data")
    target = subprocess.Popen(PROG, stdout=subprocess.DEVNULL)
    try:
        time.sleep(0.3)
        p = subprocess.Popen([HWPROF, "record", "-e", "cpu-clock", "-o", out, "-p",
                              str(target.pid)], stderr=subprocess.PIPE, text=True)
        wait_for_header(out)
        time.sleep(1.0)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=20)
        print(err, end="")
        check("attach: exit 0", p.returncode == 0, p.returncode)
        check("attach: the process still runs", target.poll() is None, target.returncode)
    finally:
        target.kill()
        target.wait()
    doc, _ = report(out)
    rows = [r for r in doc["rows"] if r["samples"] > 0]
    top = rows[0] if rows else {}
    check("attach: samples recorded", doc["header"]["samples"] > 100, doc["header"]["samples"])
    check("attach: the chase line leads", top.get("file") and
          os.path.basename(top["file"]) == "chase.c" and top["line"] == hot_line(os.path.join(SRC, "chase.c"), "chase"),
          top)


def wait_for_header(path, timeout=20):
    """Until record has written its file's header: it is then recording."""
    wait_for(lambda: os.path.exists(path) and os.path.getsize(path) > 0, timeout, step=0.01)


def case_interrupted_setup(d):
    """^C before the recording starts ends it without a half-made file: the previous file is
    back under its name, the exit status is 128+SIGINT, the message says nothing was recorded
    and a launched command never runs. First with the SIGINT already pending at exec (so the
    case is exact), then while record is still opening its events (-p of a process with many
    threads)."""
    out = os.path.join(d, "t.data")
    with open(out, "w") as f:
        f.write("the previous recording\n")

    def pending_sigint():
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        os.kill(os.getpid(), signal.SIGINT)

    ran = os.path.join(d, "ran")
    p = subprocess.run([HWPROF, "record", "-e", "page-faults", "-o", out, "--", "touch", ran],
                       capture_output=True, text=True, preexec_fn=pending_sigint)
    print(p.stderr, end="")
    check("launch interrupted: exit 128+SIGINT", p.returncode == 128 + signal.SIGINT,
          p.returncode)
    check("launch interrupted: says nothing was recorded",
          "interrupted (SIGINT) before the recording started" in p.stderr, p.stderr)
    check("launch interrupted: the command never ran", not os.path.exists(ran))
    with open(out) as f:
        check("launch interrupted: the previous file back in place",
              f.read() == "the previous recording\n", out)
    check("launch interrupted: no .old left", not os.path.exists(out + ".old"))

    nthreads = int(PROG[1])
    target = subprocess.Popen(PROG)
    try:
        wait_for_threads(target.pid, nthreads + 1, 20)
        p = subprocess.Popen([HWPROF, "record", "-e", "page-faults", "-o", out, "-p",
                              str(target.pid)], stderr=subprocess.PIPE, text=True)
        while p.poll() is None and not os.path.exists(out + ".old"):
            time.sleep(0.001)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)
        print(err, end="")
    finally:
        target.kill()
        target.wait()
    if p.returncode == 0:  # the events were open already: a whole recording
        doc, _ = report(out)
        check("attach interrupted late: a whole file", "header" in doc, doc)
        return
    check("attach interrupted: exit 128+SIGINT", p.returncode == 128 + signal.SIGINT,
          p.returncode)
    check("attach interrupted: says nothing was recorded",
          "before the recording started" in err, err)
    with open(out) as f:
        check("attach interrupted: the previous file back in place",
              f.read() == "the previous recording\n", out)
    check("attach interrupted: no .old left", not os.path.exists(out + ".old"))


def case_attach_threads(d):
    """-p of a process whose N threads all exist before the attach, each faulting P pages
    afterwards: every fault is sampled on the marked line and counted in the totals, also
    under a soft 'ulimit -n' of 64 (record raises it to the hard limit, as the fds need). With
    a hard limit too small for the counting groups: one warning naming 'ulimit -n', samples
    only, no counted total short of some threads. A launched target keeps the soft limit it
    was given."""
    import resource
    nthreads, pages = int(PROG[1]), int(PROG[2])
    line = hot_line(os.path.join(SRC, "manythreads.c"), "thread_fault")
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    for name, limit in (("soft 64", (64, hard)), ("hard 400", (400, 400))):
        out = os.path.join(d, "t.data")
        target = subprocess.Popen(PROG)
        try:
            wait_for_threads(target.pid, nthreads + 1, 10)
            p = subprocess.Popen([HWPROF, "record", "-e", "page-faults", "-c", "1", "-o", out,
                                  "-p", str(target.pid)], stderr=subprocess.PIPE, text=True,
                                 preexec_fn=lambda: resource.setrlimit(
                                     resource.RLIMIT_NOFILE, limit))
            time.sleep(1.0)
            target.send_signal(signal.SIGUSR1)
            _, err = p.communicate(timeout=30)
            print(err, end="")
        finally:
            if target.poll() is None:
                target.kill()
            target.wait()
        check("attach threads %s: record exit 0" % name, p.returncode == 0, p.returncode)
        check("attach threads %s: target exit 0" % name, target.returncode == 0,
              target.returncode)
        warnings = [l for l in err.splitlines() if "warning" in l]
        doc, _ = report(out)
        at = samples_at(doc["rows"], "manythreads.c", line)
        check("attach threads %s: every fault sampled on the line" % name,
              at == nthreads * pages, (at, nthreads * pages))
        counts = {c["event"]: c for c in doc["header"].get("counts", [])}
        if name == "soft 64":
            check("attach threads soft 64: no warning", not warnings, warnings)
            pf = counts.get("page-faults", {}).get("value")
            check("attach threads soft 64: counted page-faults hold every thread's faults",
                  pf is not None and pf >= nthreads * pages, (pf, counts))
        else:
            check("attach threads hard 400: one warning naming ulimit -n",
                  len(warnings) == 1 and "ulimit -n" in warnings[0], warnings)
            check("attach threads hard 400: no counted totals", not counts, counts)
    limit_file = os.path.join(d, "limit")
    p = subprocess.run([HWPROF, "record", "-e", "page-faults", "-o", os.path.join(d, "l.data"),
                        "--", "sh", "-c", "ulimit -n > " + limit_file], capture_output=True,
                       text=True, preexec_fn=lambda: resource.setrlimit(
                           resource.RLIMIT_NOFILE, (64, hard)))
    with open(limit_file) as f:
        got = f.read().strip()
    check("launched target keeps its soft ulimit -n", p.returncode == 0 and got == "64",
          (p.returncode, got, p.stderr))


def case_pmu_default(d):
    """On a host with a hardware PMU: the default event is a miss event, sampled precisely
    where the host allows; requested and obtained precise_ip are in the header. Skipped (exit
    77) when `cycles` does not open."""
    probe = subprocess.run([HWPROF, "record", "-e", "cycles", "-o", os.path.join(d, "p"),
                            "--no-count", "--", "/bin/true"], capture_output=True, text=True,
                           timeout=30)
    if probe.returncode != 0:
        print("SKIP: cycles does not open on this host: " + probe.stderr.strip())
        sys.exit(77)
    doc, _ = recorded(d, [])
    h = doc["header"]
    check("pmu default: a miss event", h["event"] in ("LLC-load-misses:P", "cache-misses:P"), h)
    check("pmu default: precise levels stored",
          0 <= h["precise_ip_obtained"] <= h["precise_ip_requested"] <= 3, h)
    check("pmu default: samples", h["samples"] > 0, h)


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}
if CASE not in CASES:
    sys.exit(f"e2e: unknown case {CASE}; one of {', '.join(CASES)}")
with tempfile.TemporaryDirectory() as tmp:
    CASES[CASE](tmp)
finish(CASE)
