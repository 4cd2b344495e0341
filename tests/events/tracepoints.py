#!/usr/bin/env python3
"""Tracepoints for real (issue 17): `list tracepoint`, `stat -e` and `record -e` of
syscalls:sys_enter_read on a command that reads a known number of times, side by side with
perf on the same command. tracefs is mounted first when it is not and we are root (Debian
does not mount it at boot on every image); the test is skipped with its reason when it cannot
be read. Usage: tracepoints.py HWPROF"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from hwprof_test import check, finish  # noqa: E402

HWPROF = sys.argv[1]
ROOT = "/sys/kernel/tracing"
EVENT = "syscalls:sys_enter_read"
# dd reads its input COUNT times (plus the reads of the loader and locale files, the same in
# every run of the same dd).
CMD = ["dd", "if=/dev/zero", "of=/dev/null", "bs=1", "count=500", "status=none"]


def mounted():
    return os.path.isdir(os.path.join(ROOT, "events"))


if not mounted() and os.geteuid() == 0:
    subprocess.run(["mount", "-t", "tracefs", "nodev", ROOT], capture_output=True)
if not mounted() or not os.access(os.path.join(ROOT, "events", "syscalls"), os.R_OK):
    print(f"skip: tracefs not readable at {ROOT} (not root, or it cannot be mounted)")
    sys.exit(77)

with tempfile.TemporaryDirectory() as tmp:
    want_id = int(open(os.path.join(ROOT, "events", "syscalls", "sys_enter_read", "id")).read())
    p = subprocess.run([HWPROF, "list", "tracepoint", "sys_enter_read", "-f", "json"],
                       capture_output=True, text=True, timeout=60)
    tps = {t["name"]: t["id"] for t in json.loads(p.stdout).get("tracepoints", [])} \
        if p.returncode == 0 else {}
    check(f"list tracepoint: {EVENT} with its id {want_id}: {p.stderr!r}",
          tps.get(EVENT) == want_id and all("sys_enter_read" in n for n in tps))

    out = os.path.join(tmp, "c.json")
    p = subprocess.run([HWPROF, "stat", "-e", EVENT, "-f", "json", "-o", out, "--", *CMD],
                       capture_output=True, text=True, timeout=60)
    got = json.load(open(out))["events"][0]["mean"] if p.returncode == 0 else -1
    check(f"stat -e {EVENT}: {got} reads for count=500: {p.stderr!r}", 500 <= got <= 530)
    if shutil.which("perf"):
        q = subprocess.run(["perf", "stat", "-x,", "-e", EVENT, "--", *CMD],
                           capture_output=True, text=True, timeout=60)
        perf = [l.split(",")[0] for l in q.stderr.splitlines() if EVENT in l]
        check(f"perf stat counts the same: perf {perf}, hwprof {got}",
              perf and perf[0].isdigit() and int(perf[0]) == got)
        print(f"{EVENT}: hwprof stat {got:.0f}, perf stat {perf}")
    else:
        print("skip: the side-by-side with perf (perf not installed)")

    data = os.path.join(tmp, "tp.data")
    p = subprocess.run([HWPROF, "record", "-e", EVENT, "-o", data, "--", *CMD],
                       capture_output=True, text=True, timeout=60)
    check(f"record -e {EVENT}: rc {p.returncode}: {p.stderr!r}", p.returncode == 0)
    r = subprocess.run([HWPROF, "report", "-i", data, "-f", "json"], capture_output=True,
                       text=True, timeout=60)
    doc = json.loads(r.stdout) if r.returncode == 0 else {}
    h = doc.get("header", {})
    check(f"every hit a sample (period 1, as perf): {h.get('period')}", h.get("period") == 1)
    check(f"record: {h.get('samples')} samples, stat counted {got}", h.get("samples") == got)
    rows = doc.get("rows", [])
    check(f"the reads are dd's: {rows[:2]}",
          rows and rows[0].get("samples", 0) >= 500 and "read" in (rows[0].get("function") or ""))

finish()
