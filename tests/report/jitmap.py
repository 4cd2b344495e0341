#!/usr/bin/env python3
"""JIT symbols (issue 17): samples in anonymous executable memory are named from the
process's /tmp/perf-PID.map, as perf names them, and record keeps a copy of the map beside
the recording so that a later report still names them when /tmp has been cleared.

Ground truth: jit_work copies a store loop into anonymous memory, names it jit_touch_pages in
its map and runs it over N fresh pages: each first touch is a page fault whose IP is in that
code, so page-faults -c 1 gives exactly N samples named jit_touch_pages.

usage: jitmap.py HWPROF JIT_WORK"""
import json
import os
import platform
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from hwprof_test import EACH_FAULT, check, record, run, run_cases  # noqa: E402

PAGES = 3000


def rows_of(hwprof, data):
    p = run([hwprof, "report", "-i", data, "-f", "json"])
    check(f"report rc {p.returncode}: {p.stderr!r}", p.returncode == 0)
    return json.loads(p.stdout)["rows"] if p.returncode == 0 else []


def test_hand_written_map(hwprof, work):
    if platform.machine() != "x86_64":
        print("skip: jit_work's code is x86-64")
        return
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "jit.data")
        err = record(hwprof, data, EACH_FAULT, [work, str(PAGES)]).stderr
        copies = [f for f in os.listdir(tmp) if f.startswith("jit.data.perf-")]
        check(f"the map kept beside the recording: {copies}", len(copies) == 1)
        check(f"record says so: {err!r}", "kept the JIT symbols of 1 process" in err)
        pid = copies[0][len("jit.data.perf-"):-len(".map")] if copies else "0"
        os.unlink(f"/tmp/perf-{pid}.map")  # /tmp cleared: the copy must do
        rows = rows_of(hwprof, data)
        jit = [r for r in rows if r.get("function") == "jit_touch_pages"]
        check(f"{PAGES} page faults named jit_touch_pages: {rows[:3]}",
              len(jit) == 1 and jit[0]["samples"] == PAGES)
        check(f"its DSO is the JIT's map: {jit[:1]}",
              jit and jit[0]["dso"] == f"/tmp/perf-{pid}.map")
        check("the never-run function has no samples",
              not [r for r in rows if r.get("function") == "jit_idle"])
        p = run([hwprof, "report", "-i", data])
        check(f"text names it: {p.stdout[:600]!r}", f"jit_touch_pages" in p.stdout and
              f"perf-{pid}.map" in p.stdout)


def test_node(hwprof, work):
    node = shutil.which("node") or shutil.which("nodejs")
    if not node:
        print("skip: node is not installed (the hand-written map covers the format)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        js = os.path.join(tmp, "hot.js")
        with open(js, "w") as f:
            f.write("function hotLoop(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7;"
                    " return s; }\nlet t = 0; for (let k = 0; k < 60; k++) t += hotLoop(1e6);"
                    "\nconsole.log(t);\n")
        data = os.path.join(tmp, "node.data")
        # User space only: as root the default counts node's kernel time (start-up) too.
        record(hwprof, data, ["-e", "cpu-clock:u"], [node, "--perf-basic-prof", js],
               timeout=120)
        for f in os.listdir(tmp):
            if f.startswith("node.data.perf-"):
                pid = f[len("node.data.perf-"):-len(".map")]
                if os.path.exists(f"/tmp/perf-{pid}.map"):
                    os.unlink(f"/tmp/perf-{pid}.map")
        rows = rows_of(hwprof, data)
        top = rows[0] if rows else {}
        check(f"node's hot loop is named from its map: {rows[:2]}",
              # The top row; its share varies with how soon V8's tiers compile it (28% to
              # 60% here, lower on a loaded host), so a floor only.
              "hotLoop" in (top.get("function") or "") and top.get("share", 0) > 0.15)


run_cases(globals(), os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]))
