#!/usr/bin/env python3
"""record -g on a hot leaf reached through two call paths with 1:3 of the work (suite 'record').

usage: callgraph.py HWPROF STACKDUMP WL_CALLPATHS WORKLOAD_SRC_DIR [dwarf]

Page faults with period 1 give exact IPs. The stacks are read back with stackdump (the
sample-file reader) and checked against the workload's own symbols (nm) and lines (addr2line):
the leaf's callers must be the two marked call sites, 1:3 +- 10%, under main.

With 'dwarf': the same with --call-graph dwarf, on the workload built without frame pointers.
Each sample then carries 8 KiB of stack, and page faults come faster than a loaded 2-core host
drains that much: the workload works a while on each page (its argv[2]), more on each retry
while samples were lost (a lost sample would bias the 1:3).
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import hwprof_test  # noqa: E402
from hwprof_test import check, finish, record  # noqa: E402

HWPROF, DUMP, PROG, SRC = (os.path.abspath(a) for a in sys.argv[1:5])
DWARF = sys.argv[5:6] == ["dwarf"]
MODE = ["--call-graph", "dwarf"] if DWARF else ["-g"]
USER_FAULTS = ["-e", "page-faults:u", "-c", "1", "--no-count"]
SPIN = 20000 if DWARF else None  # the work per page with dwarf (see above)


def hot_line(name):
    """The line of callpaths.c marked "HOT: NAME"."""
    return hwprof_test.hot_line(os.path.join(SRC, "callpaths.c"), name)


def functions():
    """name -> (start, end) of the workload's functions (it is not PIE)."""
    out = subprocess.run(["nm", "-S", "--defined-only", PROG], capture_output=True, text=True,
                         check=True).stdout
    f = {}
    for line in out.splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in "tT":
            f[p[3]] = (int(p[0], 16), int(p[0], 16) + int(p[1], 16))
    return f


def func_of(funcs, ip):
    if ip in FUNCS:
        return FUNCS[ip]
    FUNCS[ip] = None
    for name, (a, b) in funcs.items():
        if a <= ip < b:
            FUNCS[ip] = name
    return FUNCS[ip]


LINES, FUNCS = {}, {}


def line_of(ip):
    if ip in LINES:
        return LINES[ip]
    out = subprocess.run(["addr2line", "-e", PROG, hex(ip)], capture_output=True, text=True,
                         check=True).stdout.strip()
    f, _, n = out.rpartition(":")
    LINES[ip] = (os.path.basename(f), int(n.split()[0]) if n.split()[0].isdigit() else 0)
    return LINES[ip]


def dump(path):
    p = subprocess.run([DUMP, path], capture_output=True, text=True, timeout=60)
    check("the file reads whole", p.returncode == 0, p.stderr)
    stacks, samples, bad = {}, [], []
    for line in p.stdout.splitlines():
        w = line.split()
        if w[0] == "stack":
            stacks[int(w[1])] = (int(w[3]), w[4] == "1", [int(x, 16) for x in w[5:]])
            if len(w[5:]) != int(w[2]):
                bad.append(line)
        else:
            samples.append((int(w[3], 16), int(w[4])))
    check("stack depths as announced", not bad, bad[:3])
    return stacks, samples


def usage_errors():
    for args, says in ((["--max-stack", "8"], "add -g"),
                       (["--call-graph", "lbr"], "unknown mode"),
                       (["-g", "--max-stack", "0"], "--max-stack"),
                       (["--call-graph", "dwarf,7"], "too small (at least 8)"),
                       (["--call-graph", "dwarf,12"], "multiple of 8 (try dwarf,16)"),
                       (["--call-graph", "dwarf,abc"], "'abc': not a number"),
                       (["--call-graph", "dwarf,1000000"], "too large (at most 65528"),
                       (["--call-graph", "dwarf,"], "not a number"),
                       (["--call-graph", "dwarfish"], "unknown mode")):
        p = subprocess.run([HWPROF, "record"] + args + ["--", "true"], capture_output=True,
                           text=True, timeout=30)
        check(f"{' '.join(args)}: usage error 64", p.returncode == 64, (p.returncode, p.stderr))
        check(f"{' '.join(args)}: says '{says}'", says in p.stderr, p.stderr)
        errors = [x for x in p.stderr.splitlines() if "error:" in x]
        check(f"{' '.join(args)}: one error line", len(errors) == 1, p.stderr)


def main():
    funcs = functions()
    for f in ("fault_pages", "one_share", "three_shares", "main"):
        if f not in funcs:
            sys.exit(f"callgraph: {f} not in nm's output of {PROG}")
    usage_errors()
    pages = 1000 if DWARF else 5000
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "cg.data")
        err = record(HWPROF, path, USER_FAULTS + MODE, [PROG, str(pages)], timeout=120,
                     spin=SPIN, no_loss=True).stderr
        check("summary names the call graph",
              ("call graph (dwarf, 8192-byte stack copies, --max-stack 127)" if DWARF else
               "call graph (frame pointers, --max-stack 127)") in err, err)
        stacks, samples = dump(path)
        leaf = [(ip, sid) for ip, sid in samples if func_of(funcs, ip) == "fault_pages"]
        check("the leaf has the faults", len(leaf) >= 3.8 * pages, len(leaf))
        check("every sample has a stack", all(sid for _, sid in samples),
              sum(1 for _, sid in samples if not sid))
        by_caller = {}
        for ip, sid in leaf:
            nk, trunc, ips = stacks[sid]
            caller = func_of(funcs, ips[0]) if ips else None
            outer = func_of(funcs, ips[1]) if len(ips) > 1 else None
            key = (caller, outer, line_of(ips[0] - 1) if ips else None)
            by_caller[key] = by_caller.get(key, 0) + 1
        print("callers of the leaf:", by_caller)
        one = by_caller.get(("one_share", "main", ("callpaths.c", hot_line("call_one"))), 0)
        three = by_caller.get(("three_shares", "main",
                               ("callpaths.c", hot_line("call_three"))), 0)
        check("the two call sites hold the leaf's samples", one + three >= 0.99 * len(leaf),
              (one, three, len(leaf)))
        check("one_share:three_shares is 1:3 +- 10%", one and 2.7 <= three / one <= 3.3,
              (one, three))
        check("no stack of the leaf is truncated",
              not any(stacks[sid][1] for _, sid in leaf))
        check("the user stacks have no kernel part", all(nk == 0 for nk, _, _ in stacks.values()))
        size = os.path.getsize(path)
        print(f"callgraph: {len(samples)} samples, {len(stacks)} stacks, {size} bytes, "
              f"{size / len(samples):.2f} bytes/sample")
        most = 24 if DWARF else 12
        check(f"{MODE[-1]} takes <= {most} bytes/sample", size / len(samples) <= most,
              size / len(samples))

        # -g on code without frame pointers gives the sampled function alone: said so.
        err = record(HWPROF, path, USER_FAULTS + ["-g"], [PROG, "200"], timeout=120).stderr
        fp_note = "no frame pointers" in err
        check("-g says when the code has no frame pointers" if DWARF else
              "-g on code with frame pointers: no such warning", fp_note == DWARF, err)
        # --max-stack 1 keeps the IP alone: no chain says anything of frame pointers.
        err = record(HWPROF, path, USER_FAULTS + ["-g", "--max-stack", "1"], [PROG, "200"],
                     timeout=120).stderr
        check("-g --max-stack 1: no frame-pointer warning", "no frame pointers" not in err, err)

        # --max-stack 2: the ip and one caller; the rest is cut and said so.
        record(HWPROF, path, USER_FAULTS + MODE + ["--max-stack", "2"], [PROG, "500"],
               timeout=120, spin=SPIN, no_loss=True)
        stacks, samples = dump(path)
        leaf = [sid for ip, sid in samples if func_of(funcs, ip) == "fault_pages"]
        check("--max-stack 2 keeps one caller", leaf and all(len(stacks[s][2]) == 1 for s in leaf),
              [stacks[s] for s in leaf[:3]])
        check("--max-stack 2 marks them truncated", leaf and all(stacks[s][1] for s in leaf))


main()
finish("callgraph")
