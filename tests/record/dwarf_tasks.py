#!/usr/bin/env python3
"""record --call-graph dwarf across tasks (suite 'record'): threads, a forked and exec'ed child,
a program without CFI, and a running process attached with -p (its mappings from /proc).

usage: dwarf_tasks.py HWPROF WL_THREADS WL_FORKEXEC WL_CALLPATHS_NOFP WL_NOCFI WORKLOAD_SRC_DIR

Page faults with period 1: one sample per page touched. The stacks are read through
`hwprof report -f folded` (outermost caller first). Each sample carries 8 KiB of stack; the
workloads work a while on each page (their last argument), more on each retry while samples
were lost, so that the counts below are exact.
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from hwprof_test import check, finish, run  # noqa: E402

HWPROF, THREADS, FORKEXEC, CALLPATHS, NOCFI = (os.path.abspath(a) for a in sys.argv[1:6])


def record(d, name, cmd, spin=True):
    """Records CMD (+ the work per page); returns (data path, record's stderr)."""
    data = os.path.join(d, name + ".data")
    loops = 20000
    for _ in range(4):
        p = run([HWPROF, "record", "--call-graph", "dwarf", "-e", "page-faults", "-c", "1",
                 "--no-count", "-o", data, "--"] + cmd + ([str(loops)] if spin else []),
                timeout=120)
        print(p.stderr, end="")
        if " 0 lost," in p.stderr or p.returncode != 0 or not spin:
            break
        loops *= 4
    check(f"{name}: record exit 0", p.returncode == 0, p.returncode)
    check(f"{name}: sanitizer-clean", "Sanitizer" not in p.stderr, p.stderr)
    return data, p.stderr


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


with tempfile.TemporaryDirectory() as d:
    # Threads: each thread's stack goes from its start (clone3, start_thread) to its function.
    data, err = record(d, "threads", [THREADS, "500"])
    check("threads: no sample lost", " 0 lost," in err, err)
    st = folded(data)
    one = count(st, r"^[^;]*clone3;start_thread;thread_one$")
    three = count(st, r"^[^;]*clone3;start_thread;thread_three$")
    print("threads:", one, three)
    check("threads: thread_one's 500 faults under start_thread", one == 500, one)
    check("threads: thread_three's 1500 faults under start_thread", three == 1500, three)

    # A forked child that execs the workload: its stacks are the new program's.
    data, err = record(d, "forkexec", [FORKEXEC, CALLPATHS, "500"])
    check("forkexec: no sample lost", " 0 lost," in err, err)
    st = folded(data)
    one = count(st, r"(^|;)main;one_share;fault_pages$")
    three = count(st, r"(^|;)main;three_shares;fault_pages$")
    print("forkexec:", one, three)
    check("forkexec: the child's one_share path, 500 faults", one == 500, one)
    check("forkexec: the child's three_shares path, 1500 faults", three == 1500, three)
    check("forkexec: the child's stacks reach _start",
          count(st, r"^_start;.*;main;(one|three)_shares?;fault_pages$") == one + three, st)

    # No CFI: the stacks stop in it, are counted and said to be cut; nothing crashes.
    data, err = record(d, "nocfi", [NOCFI, "1000"], spin=False)
    m = re.search(r"(\d+) samples? with a truncated stack \(.*?(\d+) in code without CFI", err)
    check("nocfi: the summary counts stacks cut in code without CFI",
          m and int(m.group(2)) >= 900, err)
    check("nocfi: a warning names the file",
          re.search(r"warning: %s: \d+ stacks stopped in its code without CFI" %
                    re.escape(NOCFI), err), err)
    st = folded(data)
    check("nocfi: report shows the cut stacks", count(st, r"^\[truncated\];touch$") >= 900, st)
    p = run([HWPROF, "report", "-i", data], timeout=60)
    check("nocfi: report says how many stacks are truncated",
          re.search(r"note: \d+ of \d+ samples have a truncated stack", p.stderr), p.stderr)

    # -p: a process that runs already; the unwinder knows its mappings from /proc/PID/maps.
    target = subprocess.Popen([CALLPATHS, "400", "3000000"])
    time.sleep(0.3)
    data = os.path.join(d, "attach.data")
    rec = subprocess.Popen([HWPROF, "record", "--call-graph", "dwarf", "-e", "cpu-clock:u",
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
    leaf = count(st, r"^_start;.*;main;(one|three)_shares?;fault_pages$")
    print("attach:", leaf, "of", total)
    check("attach: the stacks reach _start through main", total and leaf >= 0.9 * total, st)

finish("dwarf_tasks")
