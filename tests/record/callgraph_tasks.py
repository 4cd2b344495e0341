#!/usr/bin/env python3
"""record -g and --call-graph dwarf across tasks (suite 'record'): threads, a forked and exec'ed
child, a running process attached with -p (its mappings from /proc), and with dwarf a program
without CFI.

usage: callgraph_tasks.py fp|dwarf HWPROF WL_THREADS WL_FORKEXEC WL_CALLPATHS WL_NOCFI
       WORKLOAD_SRC_DIR

fp: `record -g` (frame pointers), the workloads built with -fno-omit-frame-pointer; libc has
no frame pointers, so a thread's stack starts at start_thread and the main thread's at
__libc_start_call_main. dwarf: `record --call-graph dwarf` on WL_CALLPATHS built without them;
the stacks go through libc down to clone3 and _start.

Page faults with period 1: one sample per page touched. The stacks are read through
`hwprof report -f folded` (outermost caller first), the lines of their frames through
`report -f json`'s call paths. With dwarf each sample carries 8 KiB of stack; the workloads
work a while on each page (their last argument), more on each retry while samples were lost,
so that the counts below are exact.
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
import hwprof_test  # noqa: E402
from hwprof_test import check, finish, record, run  # noqa: E402

MODE = sys.argv[1]
DWARF = MODE == "dwarf"
HWPROF, THREADS, FORKEXEC, CALLPATHS, NOCFI, SRC = (os.path.abspath(a) for a in sys.argv[2:8])
CALL_GRAPH = ["--call-graph", "dwarf"] if DWARF else ["-g"]
RECORD = CALL_GRAPH + ["-e", "page-faults", "-c", "1", "--no-count"]
SPIN = 20000 if DWARF else None  # with dwarf, the work per page of the workloads
# Where each mode's stacks start: libc's own frames with dwarf, the first frame pointer
# chain's with fp.
THREAD_ROOT = r"^[^;]*clone3;start_thread;" if DWARF else r"^start_thread;"
MAIN_ROOT = r"^_start;.*;main;" if DWARF else r"^__libc_start_call_main;main;"


def hot_line(src, name):
    """The line of workload SRC marked "HOT: NAME"."""
    return hwprof_test.hot_line(os.path.join(SRC, src), name)


def folded(data):
    """{stack: samples} from report -f folded (frames outermost first, ';'-separated)."""
    p = run([HWPROF, "report", "-i", data, "-f", "folded"], timeout=60)
    check("report -f folded exit 0 or 1", p.returncode in (0, 1), p.stderr)
    out = {}
    for line in p.stdout.splitlines():
        stack, _, n = line.rpartition(" ")
        out[stack] = out.get(stack, 0) + int(n)
    return out


def count(stacks, pattern):
    return sum(n for s, n in stacks.items() if re.search(pattern, s))


def rows(data):
    """report's rows by function, without children, each with its call paths (json)."""
    p = run([HWPROF, "report", "-i", data, "--no-children", "-s", "function", "-f", "json"],
            timeout=60)
    check("report -f json exit 0 or 1", p.returncode in (0, 1), p.stderr)
    return {r["function"]: r for r in json.loads(p.stdout)["rows"]}


def lines_of(path):
    """A call path's frames as (function, base name of the file, line), innermost first."""
    return [(f["function"], os.path.basename(f["file"] or ""), f["line"])
            for f in path["frames"]]


with tempfile.TemporaryDirectory() as d:
    # Threads: each thread's stack goes from its start (start_thread) to its function.
    data = os.path.join(d, "threads.data")
    err = record(HWPROF, data, RECORD, [THREADS, "500"], timeout=120, label="threads: record",
                 spin=SPIN, no_loss=True).stderr
    st = folded(data)
    one = count(st, THREAD_ROOT + "thread_one$")
    three = count(st, THREAD_ROOT + "thread_three$")
    print("threads:", one, three)
    check("threads: thread_one's 500 faults under start_thread", one == 500, one)
    check("threads: thread_three's 1500 faults under start_thread", three == 1500, three)
    r = rows(data)
    for fn, tok, n in (("thread_one", "one_share", 500), ("thread_three", "three_shares", 1500)):
        row = r.get(fn, {})
        check(f"threads: {fn}'s row is its marked line, {n} samples",
              (os.path.basename(row.get("file") or ""), row.get("line"), row.get("samples")) ==
              ("threads.c", hot_line("threads.c", tok), n), row)
        paths = row.get("call_paths", [])
        check(f"threads: {fn}'s one call path, from start_thread, {n} samples",
              [(lines_of(p)[0][0], p["samples"]) for p in paths] == [("start_thread", n)],
              paths)

    # A forked child that execs the workload: its stacks are the new program's.
    data = os.path.join(d, "forkexec.data")
    err = record(HWPROF, data, RECORD, [FORKEXEC, CALLPATHS, "500"], timeout=120,
                 label="forkexec: record", spin=SPIN, no_loss=True).stderr
    st = folded(data)
    one = count(st, r"(^|;)main;one_share;fault_pages$")
    three = count(st, r"(^|;)main;three_shares;fault_pages$")
    print("forkexec:", one, three)
    check("forkexec: the child's one_share path, 500 faults", one == 500, one)
    check("forkexec: the child's three_shares path, 1500 faults", three == 1500, three)
    check("forkexec: the child's stacks reach " + MAIN_ROOT.split(";")[0][1:],
          count(st, MAIN_ROOT + r"(one|three)_shares?;fault_pages$") == one + three, st)
    # The call-site lines: fault_pages's callers at their marked calls, main at its two.
    leaf = rows(data).get("fault_pages", {})
    check("forkexec: fault_pages's row is the leaf's line, 2000 samples",
          (leaf.get("line"), leaf.get("samples")) == (hot_line("callpaths.c", "leaf"), 2000),
          leaf)
    sites = {}
    for p in leaf.get("call_paths", []):
        key = tuple(lines_of(p)[:2])
        sites[key] = sites.get(key, 0) + p["samples"]
    print("forkexec: call sites", sites)
    for fn, call, main_call, n in (("one_share", "call_one", "main_one", 500),
                                   ("three_shares", "call_three", "main_three", 1500)):
        key = ((fn, "callpaths.c", hot_line("callpaths.c", call)),
               ("main", "callpaths.c", hot_line("callpaths.c", main_call)))
        check(f"forkexec: {n} samples through {fn}'s and main's call lines ({call}, "
              f"{main_call})", sites.get(key) == n, sites)

    if DWARF:
        # No CFI: the stacks stop in it, are counted and said to be cut; nothing crashes.
        data = os.path.join(d, "nocfi.data")
        err = record(HWPROF, data, RECORD, [NOCFI, "1000"], timeout=120,
                     label="nocfi: record").stderr
        m = re.search(r"(\d+) samples? with a truncated stack \(.*?(\d+) in code without CFI",
                      err)
        check("nocfi: the summary counts stacks cut in code without CFI",
              m and int(m.group(2)) >= 900, err)
        check("nocfi: a warning names the file",
              re.search(r"warning: %s: \d+ stacks stopped in its code without CFI" %
                        re.escape(NOCFI), err), err)
        st = folded(data)
        check("nocfi: report shows the cut stacks", count(st, r"^\[truncated\];touch$") >= 900,
              st)
        p = run([HWPROF, "report", "-i", data], timeout=60)
        check("nocfi: report says how many stacks are truncated",
              re.search(r"note: \d+ of \d+ samples have a truncated stack", p.stderr), p.stderr)

    # -p: a process that runs already; its mappings come from /proc/PID/maps.
    target = subprocess.Popen([CALLPATHS, "400", "3000000"])
    time.sleep(0.3)
    data = os.path.join(d, "attach.data")
    rec = subprocess.Popen([HWPROF, "record"] + CALL_GRAPH + ["-e", "cpu-clock:u",
                            "--no-count", "-o", data, "-p", str(target.pid)],
                           stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    rec.send_signal(signal.SIGINT)
    err = rec.communicate(timeout=60)[1]
    print(err, end="")
    target.kill()
    target.wait()
    check("attach: record -p exit 0", rec.returncode == 0, rec.returncode)
    check("attach: sanitizer-clean", "Sanitizer" not in err, err)
    st = folded(data)
    total = sum(st.values())
    leaf = count(st, MAIN_ROOT + r"(one|three)_shares?;fault_pages$")
    print("attach:", leaf, "of", total)
    check("attach: the stacks reach main", total and leaf >= 0.9 * total, st)

finish("callgraph_tasks " + MODE)
