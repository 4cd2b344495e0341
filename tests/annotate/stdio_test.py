#!/usr/bin/env python3
"""hwprof annotate --stdio, end to end: record annotate_work with page-faults (period 1), print
it, and compare with expected/work.stdio after masking what varies between runs (suite
'annotate'). Also: the fallback when stdout is not a terminal, --limit, an unknown FUNCTION,
a missing file, --prefix-map and --source-dir for moved sources.

usage: stdio_test.py HWPROF ANNOTATE_WORK
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from annotate_common import HERE, hot_line, text_line
from hwprof_test import EACH_FAULT, check, finish, record  # annotate_common put it on the path

HWPROF, WORK = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
TOKENS = {"first": hot_line("first"), "second": hot_line("second"),
          "inlined": hot_line("inlined", "annotate_work.h")}
CALL = text_line("fill_pages(c, pages / 4);")
# A row: marker, share of function, share of total, samples (7), line (4), text.
ROW = re.compile(r"^(.) (.{6}) (.{6}) (.{7}) (.{4})(?:  (.*))?$")


def annotate(*args, env=None):
    return subprocess.run([HWPROF, "annotate"] + list(args), capture_output=True, text=True,
                          timeout=20, env=env)


def normalise(text):
    """Masks what differs between runs and machines: numbers in the header, the share of all
    samples (other processes' faults: ld.so, libc), the source folder, and line numbers, which
    become @token@ on marked lines (checked against the marker) and are dropped elsewhere."""
    out, in_header = [], True
    for line in text.splitlines():
        if line.startswith("== "):
            in_header = False
            line = re.sub(r"\d+\.\d+% of all samples", "P% of all samples", line)
        if in_header:
            # The counting group is record's choice: keep only that the topic is there.
            if line.startswith(" "):
                continue
            if re.match(r"(counted|metrics|multiplexing): ", line):
                line = line.split(":")[0] + ": ..."
            out.append(re.sub(r"\d[\d,.]*", "N", line))
            continue
        line = line.replace(HERE + "/", "@SRC@/")
        line = line.replace(f"annotate_work.c:{CALL}", "annotate_work.c:@call@")
        m = ROW.match(line)
        if m and m.group(5).strip().isdigit():
            mark, func, total, samples, num, src = m.groups(default="")
            num = int(num)
            token = re.search(r"HOT: (\w+)", src)
            if token:
                check(f"line of HOT: {token.group(1)}", num == TOKENS[token.group(1)],
                      f"{num} != {TOKENS[token.group(1)]}")
                lineno = f"@{token.group(1)}@"
            else:
                lineno = ""
            total = "T%" if total.strip() else ""
            line = f"{mark} {func} {total:>6} {samples} {lineno:>8}  {src}".rstrip()
        elif m:
            mark, func, total, samples, num, src = m.groups(default="")
            total = "T%" if total.strip() else ""
            line = f"{mark} {func} {total:>6} {samples} {num}  {src}".rstrip()
        out.append(line)
    return "\n".join(out) + "\n"


with tempfile.TemporaryDirectory() as d:
    data = os.path.join(d, "w.data")
    record(HWPROF, data, EACH_FAULT, [WORK], skip=True)

    p = annotate("-i", data, "--stdio", "work")
    check("--stdio work exits 0", p.returncode == 0, p.stderr)
    got = normalise(p.stdout)
    with open(os.path.join(HERE, "expected", "work.stdio")) as f:
        want = f.read()
    if not check("--stdio work matches expected/work.stdio", got == want):
        with open(os.path.join(d, "got"), "w") as f:
            f.write(got)
        subprocess.run(["diff", "-u", os.path.join(HERE, "expected", "work.stdio"),
                        os.path.join(d, "got")])

    # Without FUNCTION: hottest first, so work leads; --limit cuts and says so.
    p = annotate("-i", data, "--stdio", "--limit", "1")
    check("--limit 1 exits 0", p.returncode == 0, p.stderr)
    titles = [l for l in p.stdout.splitlines() if l.startswith("== ")]
    check("--limit 1 prints one function", len(titles) == 1, titles)
    check("the hottest function is work", titles and titles[0].startswith("== work "), titles)
    check("--limit says how many were left out",
          re.search(r"\(\d+ more functions? with fewer samples; --limit 0 shows all\)",
                    p.stdout), p.stdout[-300:])

    # Not a terminal (stdout is a pipe here): the same text, with a note on stderr.
    p2 = annotate("-i", data, "work")
    check("not a terminal: falls back to --stdio", p2.returncode == 0 and
          normalise(p2.stdout) == got, p2.stderr)
    check("not a terminal: says so", "not a terminal: printing the --stdio view" in p2.stderr,
          p2.stderr)

    # Bad input: one clear line, non-zero exit.
    p = annotate("-i", data, "--stdio", "wrok")
    check("unknown FUNCTION exits 2", p.returncode == 2, p.returncode)
    check("unknown FUNCTION lists the closest names",
          re.search(r"FUNCTION 'wrok': .*\(closest: work", p.stderr), p.stderr)
    p = annotate("-i", os.path.join(d, "missing.data"), "--stdio")
    check("missing file exits 2", p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr)
    with open(os.path.join(d, "junk.data"), "wb") as f:
        f.write(b"this is not a sample file\n" * 10)
    p = annotate("-i", os.path.join(d, "junk.data"), "--stdio")
    check("corrupt file exits 2 with one line", p.returncode == 2 and
          p.stderr.count("\n") == 1 and "Traceback" not in p.stderr, p.stderr)
    # A file cut short: what is there is shown, the header says what is missing, exit 1.
    with open(data, "rb") as f:
        whole = f.read()
    with open(os.path.join(d, "cut.data"), "wb") as f:
        f.write(whole[:len(whole) - 100])
    p = annotate("-i", os.path.join(d, "cut.data"), "--stdio", "--limit", "1")
    check("cut short: exits 1 (partial)", p.returncode == 1, (p.returncode, p.stderr))
    check("cut short: the header says so",
          "(a file has no trailer: LOST records only)" in p.stdout, p.stdout[:400])
    check("cut short: a warning on stderr", "warning:" in p.stderr, p.stderr)
    # Cut before its first sample: "no samples" and an unknown FUNCTION say the cause first.
    for n in range(64, len(whole), 32):
        with open(os.path.join(d, "cut0.data"), "wb") as f:
            f.write(whole[:n])
        p = annotate("-i", os.path.join(d, "cut0.data"), "--stdio")
        if "no samples to annotate" in p.stderr:
            break
    check("cut before the samples: no samples", "no samples to annotate" in p.stderr, p.stderr)
    check("no samples: the warning first", p.stderr.find("warning:") in
          range(0, p.stderr.find("no samples to annotate")), p.stderr)
    p = annotate("-i", os.path.join(d, "cut0.data"), "--stdio", "work")
    check("no samples, a FUNCTION: the warning first", p.stderr.startswith(
          "hwprof annotate: warning:") and "error:" in p.stderr, p.stderr)
    p = annotate("--prefix-map", "nothing", "-i", data)
    check("bad --prefix-map is a usage error", p.returncode == 64, p.stderr)
    p = annotate("--limit", "x", "-i", data)
    check("bad --limit is a usage error", p.returncode == 64 and "--limit" in p.stderr,
          p.stderr)

    # Moved sources: a changed copy elsewhere, found through --prefix-map and --source-dir.
    src_dir = None
    for line in annotate("-i", data, "--stdio", "work").stdout.splitlines():
        m = re.search(r"-- (/\S+)/annotate_work\.c$", line)
        if m:
            src_dir = m.group(1)
    check("the source path is shown", src_dir is not None)
    moved = os.path.join(d, "moved")
    os.mkdir(moved)
    for name in ("annotate_work.c", "annotate_work.h"):
        with open(os.path.join(HERE, name)) as f:
            text = f.read()
        with open(os.path.join(moved, name), "w") as f:
            f.write(text.replace("/* HOT: first */", "/* HOT: first (moved copy) */"))
    if src_dir:
        p = annotate("-i", data, "--stdio", "--prefix-map", f"{src_dir}={moved}", "work")
        check("--prefix-map reads the moved copy",
              re.search(r"^#.*HOT: first \(moved copy\)", p.stdout, re.M), p.stdout)
    p = annotate("-i", data, "--stdio", "--source-dir", moved, "work")
    check("--source-dir reads the moved copy",
          re.search(r"^#.*HOT: first \(moved copy\)", p.stdout, re.M), p.stdout)
    p = annotate("-i", data, "--stdio", "--source-dir", d + "/nowhere", "work")
    check("a --source-dir that is not there: a warning, as --debug-dir's",
          "--source-dir '%s/nowhere': No such file" % d in p.stderr, p.stderr)
    if src_dir:
        p = annotate("-i", data, "--stdio", "--prefix-map", f"{src_dir}={d}/nowhere", "work")
        check("mapped to nowhere: the source is still looked for as recorded",
              "HOT: first */" in p.stdout, p.stdout)

    # Sources gone (a build from a folder since deleted): line numbers with their samples
    # still show, and one note says what was looked for.
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc:
        gone = os.path.join(d, "gone")
        os.mkdir(gone)
        for name in ("annotate_work.c", "annotate_work.h"):
            shutil.copy(os.path.join(HERE, name), gone)
        exe = os.path.join(d, "work_copy")
        p = subprocess.run([cc, "-g", "-O2", "-o", exe, os.path.join(gone, "annotate_work.c")],
                           capture_output=True, text=True, timeout=20)
        check("compiled a copy of the workload", p.returncode == 0, p.stderr)
        shutil.rmtree(gone)
        data2 = os.path.join(d, "gone.data")
        record(HWPROF, data2, EACH_FAULT, [exe], skip=True)
        p = annotate("-i", data2, "--stdio", "work")
        check("missing source: exits 0", p.returncode == 0, p.stderr)
        check("missing source: says what was looked for",
              re.search(rf"note: source not found, looked for: {re.escape(gone)}/annotate_work"
                        r"\.c \(No such file or directory\)", p.stdout), p.stdout)
        for token, n in (("first", 4000), ("second", 2000), ("inlined", 1000)):
            src = "annotate_work.h" if token == "inlined" else "annotate_work.c"
            check(f"missing source: line of HOT: {token} with its samples",
                  re.search(rf"^. +\d+\.\d% +\d+\.\d% +{n} +{hot_line(token, src)}$",
                            p.stdout, re.M), p.stdout)
    else:
        print("skip missing-source case: no C compiler")

finish()
