#!/usr/bin/env python3
"""perf_data.py HWPROF HOTLOOP [--case NAME] - hwprof reads perf.data written by the real perf:
the bundled example recorded with `perf record -e page-faults -c 1` and `-e cpu-clock`, with
and without -g, as a file and in pipe mode, compressed (-z), --call-graph dwarf. On the same file, hwprof's top lines must be
perf's (`perf report --sort srcline -n`): page faults give exact IPs, so their counts must be
equal. Skipped (77, with the reason) when perf is missing or cannot record here."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from hwprof_test import check, hot_line, run, run_cases  # noqa: E402

HWPROF = os.path.abspath(sys.argv[1])
HOTLOOP = os.path.abspath(sys.argv[2])
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                   "hotloop.c")
STEPS = "3000000"  # chase steps: the run takes a few seconds under the sanitizers
PERF = shutil.which("perf")
SLOW = 180  # seconds for a command: perf and the sanitized hwprof on a loaded host


def perf_record(out, *args):
    """perf record ARGS -o OUT of the example; exits 77 when perf cannot record here."""
    p = run([PERF, "record", "-q", *args, "-o", out, HOTLOOP, STEPS], timeout=SLOW)
    if p.returncode != 0 or not os.path.exists(out):
        print("skip: perf record %s failed here: %s" % (" ".join(args), p.stderr.strip()))
        sys.exit(77)


def perf_lines(data, *extra):
    """{'hotloop.c:64': samples, ...} from perf report --sort srcline -n on DATA."""
    p = run([PERF, "report", "-i", data, "--stdio", "--sort", "srcline", "-n", *extra],
            timeout=SLOW)
    check("perf report %s exit 0" % " ".join(extra), p.returncode == 0, p.stderr)
    lines = {}
    for ln in p.stdout.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\d+)\s+(\S+)\s*$", ln)
        if m:
            lines[m.group(3)] = lines.get(m.group(3), 0) + int(m.group(2))
    return lines


def hwprof_rows(data, *args, stdin=None):
    """The JSON report of DATA (rows, header)."""
    p = run([HWPROF, "report", "-i", data, "-f", "json", "--limit", "0", *args], stdin=stdin,
            timeout=SLOW)
    check("hwprof report -i %s %s: exit 0 or 1" % (os.path.basename(data), " ".join(args)),
          p.returncode in (0, 1), p.stderr)
    check("sanitizer-clean", "Sanitizer" not in p.stderr, p.stderr)
    d = json.loads(p.stdout) if p.stdout else {"rows": [], "header": {}}
    return d["rows"], d["header"]


def by_line(rows):
    """{'hotloop.c:64': samples} of the rows that have a line."""
    out = {}
    for r in rows:
        if r["file"] and r["line"]:
            k = "%s:%d" % (os.path.basename(r["file"]), r["line"])
            out[k] = out.get(k, 0) + r["samples"]
    return out


def same_top(label, mine, perfs, n, exact):
    """The N top lines of PERFS (hotloop.c's, where IPs are exact) and their counts in MINE."""
    top = [k for k, _ in sorted(perfs.items(), key=lambda kv: -kv[1])
           if k.startswith("hotloop.c:")][:n]
    check("%s: perf has hotloop.c lines %r" % (label, top), len(top) == n)
    for k in top:
        a, b = mine.get(k, 0), perfs[k]
        ok = a == b if exact else abs(a - b) <= max(2, b // 100)
        check("%s: %s hwprof %d, perf %d" % (label, k, a, b), ok)


def test_page_faults(d):
    data = os.path.join(d, "pf.data")
    perf_record(data, "-e", "page-faults", "-c", "1")
    rows, h = hwprof_rows(data)
    fault = "hotloop.c:%d" % hot_line(SRC, "fault")
    mine = by_line(rows)
    check("the top line is HOT: fault (%s): %r" % (fault, rows[:1]),
          rows and "%s:%d" % (os.path.basename(rows[0]["file"] or ""), rows[0]["line"] or 0)
          == fault)
    check("event named as perf names it: %r" % h.get("event"), h.get("event") == "page-faults")
    same_top("page-faults", mine, perf_lines(data), 2, True)
    n = run([PERF, "script", "-i", data, "-F", "ip"], timeout=SLOW).stdout.count("\n")
    check("every sample read: hwprof %s, perf script %d" % (h.get("samples"), n),
          h.get("samples") == n)


def test_cpu_clock(d):
    data = os.path.join(d, "cc.data")
    perf_record(data, "-e", "cpu-clock")
    rows, h = hwprof_rows(data)
    chase = "hotloop.c:%d" % hot_line(SRC, "chase")
    check("event cpu-clock: %r" % h.get("event"), h.get("event") == "cpu-clock")
    mine = by_line(rows)
    check("the chase loop leads: %r" % sorted(mine.items(), key=lambda kv: -kv[1])[:3],
          max(mine, key=mine.get, default="").startswith("hotloop.c:"))
    check("chase's line %s sampled" % chase, mine.get(chase, 0) > 0)
    # The same samples: the same counts, up to the odd address the two symbolize apart.
    same_top("cpu-clock", mine, perf_lines(data), 3, False)


def perf_through(data, func):
    """perf script's callchains of DATA and how many hold FUNC, the leaf included."""
    script = run([PERF, "script", "-i", data, "-F", "ip,sym"], timeout=SLOW).stdout
    chains = [c for c in script.split("\n\n") if c.strip()]
    pat = re.compile(r"\s%s\s*$" % re.escape(func))
    return chains, sum(1 for c in chains
                       if any(pat.search(ln) for ln in c.strip().splitlines()))


def test_callgraph(d):
    """-g: callers from perf's callchains. main's children are perf script's samples whose
    chain holds main anywhere: a leaf in make_chain inlined into main is perf's main, and
    hwprof's make_chain (its self) inside main (main's children, as perf report --children
    counts it)."""
    data = os.path.join(d, "pfg.data")
    perf_record(data, "-g", "-e", "page-faults", "-c", "1")
    rows, h = hwprof_rows(data, "-s", "function")
    main = [r for r in rows if r["function"] == "main"]
    check("one main row", len(main) == 1, rows[:5])
    chains, with_main = perf_through(data, "main")
    check("perf script: %d samples, %d through main" % (len(chains), with_main),
          len(chains) == h.get("samples") and with_main > len(chains) // 2)
    if main:
        check("main's children %d == perf's %d" % (main[0]["samples"], with_main),
              main[0]["samples"] == with_main, main[0])
    inlined = [r for r in rows if r["function"] == "make_chain"]
    check("make_chain, inlined into main, has the leaf samples in main: %r" % inlined[:1],
          len(inlined) == 1 and inlined[0]["inlined_into"] == "main" and
          inlined[0]["self_samples"] > 0)
    # Without -g the same file still reports by line, with perf's counts.
    rows, _ = hwprof_rows(data)
    same_top("page-faults -g", by_line(rows), perf_lines(data, "--no-children"), 2, True)
    # The flame graph colours the program's frames as the program's: perf's command line
    # names it after perf record's options.
    svg = os.path.join(d, "pfg.svg")
    r = run([HWPROF, "report", "-i", data, "-f", "svg", "-o", svg], timeout=SLOW)
    text = open(svg).read() if r.returncode == 0 else ""
    check("svg of a perf.data: the program in the legend %r" % r.stderr,
          'class="small">program</text>' in text)


def test_cpu_clock_callgraph(d):
    data = os.path.join(d, "ccg.data")
    perf_record(data, "-g", "-e", "cpu-clock")
    rows, _ = hwprof_rows(data, "-s", "function")
    funcs = {r["function"]: r for r in rows}
    check("chase and main are there: %r" % list(funcs)[:5], "chase" in funcs and "main" in funcs)
    touch = next((f for f in funcs if f.startswith("touch_pages")), None)
    if "chase" in funcs and "main" in funcs:
        # chase is a leaf: built without sanitizers it has no frame of its own, and a frame
        # pointer walk from it skips main (perf's callchains do too). touch_pages has a
        # frame and only main calls it: main's children hold all of its samples.
        check("main's children hold touch_pages's samples: %r" % touch,
              touch is not None and funcs["main"]["samples"] >= funcs[touch]["samples"] > 0,
              (funcs["main"], funcs.get(touch)))
        check("chase's self > 30%%: %r" % funcs["chase"]["self_share"],
              funcs["chase"]["self_share"] > 0.3)


def test_pipe(d):
    """perf record -o - | hwprof report -i -: the stream, live and from a file of it."""
    data = os.path.join(d, "pipe.data")
    with open(data, "wb") as f:
        p = subprocess.run([PERF, "record", "-q", "-e", "page-faults", "-c", "1", "-o", "-",
                            HOTLOOP, STEPS], stdout=f, stderr=subprocess.PIPE, timeout=180)
    if p.returncode:
        print("skip: perf record -o - failed here: %s" % p.stderr.decode().strip())
        sys.exit(77)
    with open(data, "rb") as f:
        rows, h = hwprof_rows("-", stdin=f)
    same_top("pipe file on stdin", by_line(rows), perf_lines(data), 2, True)
    rows2, _ = hwprof_rows(data)
    check("the pipe stream as a file reads the same", by_line(rows2) == by_line(rows))
    whole = run([HWPROF, "report", "-i", data, "-n", "1"], timeout=SLOW)
    check("the whole stream: exit 0 (%s)" % whole.stderr.strip(), whole.returncode == 0)
    # Cut at a record boundary, as a killed perf leaves it: right after a SAMPLE (type 9) in the
    # middle, whose round perf never closed with a FINISHED_ROUND.
    buf = open(data, "rb").read()
    at, ends = 16, []
    while at + 8 <= len(buf):
        size = int.from_bytes(buf[at + 6:at + 8], "little")
        if not size:
            break
        if int.from_bytes(buf[at:at + 4], "little") == 9:
            ends.append(at + size)
        at += size
    cut = os.path.join(d, "pipe-cut.data")
    with open(cut, "wb") as f:
        f.write(buf[:ends[len(ends) // 2]])
    r = run([HWPROF, "report", "-i", cut, "-n", "1"], timeout=SLOW)
    check("a stream cut after a sample: exit 1, said (%d: %s)" % (r.returncode, r.stderr.strip()),
          r.returncode == 1 and "cut short" in r.stderr and "FINISHED_ROUND" in r.stderr)
    live = subprocess.run("'%s' record -q -e page-faults -c 1 -o - '%s' %s | '%s' report -i - "
                          "-f json --limit 3" % (PERF, HOTLOOP, STEPS, HWPROF), shell=True,
                          capture_output=True, text=True, timeout=180)
    check("live pipe: exit 0 or 1", live.returncode in (0, 1), live.stderr)
    fault = hot_line(SRC, "fault")
    top = json.loads(live.stdout)["rows"][0] if live.stdout else {}
    check("live pipe: HOT: fault leads: %r" % top, top.get("line") == fault)


def test_dwarf_stacks(d):
    """--call-graph dwarf: the stack copies unwound at report time, so the samples' callers
    reach main (the full call paths are checked against perf report in callgraph_e2e.py
    perf-dwarf), with perf's counts per line. A copy too small for the stack (dwarf,64): the
    stacks cut are counted in one warning that names the cause and the way out, and shown as
    [truncated] at their outer end."""
    data = os.path.join(d, "dwarf.data")
    perf_record(data, "--call-graph", "dwarf", "-e", "page-faults", "-c", "1")
    rows, h = hwprof_rows(data)
    check("no warning that the stacks are not unwound: %r" % h.get("warnings"),
          not any("not unwind" in w for w in h.get("warnings", [])))
    same_top("page-faults dwarf", by_line(rows), perf_lines(data, "--no-children"), 2, True)
    folded = run([HWPROF, "report", "-i", data, "-f", "folded"], timeout=SLOW).stdout.splitlines()
    count = {}
    for ln in folded:
        path, n = ln.rsplit(" ", 1)
        count[path] = int(n)
    fault = sum(n for p, n in count.items() if p.endswith(";touch_pages.constprop.0") or
                p.endswith(";touch_pages"))
    under = sum(n for p, n in count.items() if re.search(r"^_start;.*;main;touch_pages", p))
    check("touch_pages' samples reach _start through main: %d of %d" % (under, fault),
          fault > 0 and under >= 0.99 * fault)

    small = os.path.join(d, "dwarf64.data")
    perf_record(small, "--call-graph", "dwarf,64", "-e", "page-faults", "-c", "1")
    p = run([HWPROF, "report", "-i", small, "-f", "json", "--limit", "1"], timeout=SLOW)
    d64 = json.loads(p.stdout)
    h = d64["header"]
    warn = [w for w in h.get("warnings", []) if "--call-graph dwarf, 64-byte" in w]
    m = re.search(r"(\d+) of (\d+) user stacks .* unwound only in part \((\d+) stack copy "
                  r"too small \(try --call-graph dwarf,128\)", warn[0] if warn else "")
    check("one warning counts the cut stacks and says why: %r" % h.get("warnings"),
          len(warn) == 1 and m and int(m.group(2)) == h.get("samples") and
          int(m.group(1)) >= int(m.group(3)) > int(m.group(2)) // 2)
    check("the header counts them: %r of %r" % (d64.get("truncated_samples"), m and m.group(1)),
          m and d64.get("truncated_samples") == int(m.group(1)))
    out = run([HWPROF, "report", "-i", small, "-f", "folded"], timeout=SLOW).stdout
    check("folded: [truncated] at the outer end of the cut stacks",
          sum(int(ln.rsplit(" ", 1)[1]) for ln in out.splitlines()
              if ln.startswith("[truncated];")) == (int(m.group(1)) if m else -1))


def test_compressed(d):
    """perf record -z: zstd-compressed records, decompressed; the same counts as perf's."""
    data = os.path.join(d, "z.data")
    perf_record(data, "-z", "-e", "page-faults", "-c", "1")
    stats = run([PERF, "report", "-i", data, "--stats"], timeout=SLOW).stdout
    if not re.search(r"COMPRESSED events:\s+[1-9]", stats):
        print("skip: perf record -z wrote no COMPRESSED record here (perf built without zstd?)")
        sys.exit(77)
    rows, h = hwprof_rows(data)
    check("no warning about the file: %r" % h.get("warnings"),
          not any("perf.data" in w for w in h.get("warnings", [])))
    same_top("page-faults -z", by_line(rows), perf_lines(data), 2, True)
    n = run([PERF, "script", "-i", data, "-F", "ip"], timeout=SLOW).stdout.count("\n")
    check("every sample read: hwprof %s, perf script %d" % (h.get("samples"), n),
          h.get("samples") == n)



def test_threads_directory(d):
    """perf record --threads writes a directory (data, data.N): refused by name, the
    directory and its header file alike, with a way out; not an empty profile."""
    data = os.path.join(d, "thr.data")
    perf_record(data, "--threads", "-e", "page-faults", "-c", "100")
    if not os.path.isdir(data):
        print("skip: perf record --threads wrote no directory here")
        sys.exit(77)
    for path in (data, os.path.join(data, "data")):
        r = run([HWPROF, "report", "-i", path], timeout=SLOW)
        first = r.stderr.splitlines()[0] if r.stderr else ""
        check("%s: exit 2, --threads named: %r" % (os.path.basename(path), r.stderr),
              r.returncode == 2 and "perf record --threads" in first and
              "without --threads" in first and len(r.stderr.splitlines()) == 1)
    # A directory that only holds an ordinary perf.data named "data" is no --threads output.
    plain = os.path.join(d, "plain")
    os.mkdir(plain)
    perf_record(os.path.join(plain, "data"), "-e", "page-faults", "-c", "100")
    r = run([HWPROF, "report", "-i", plain], timeout=SLOW)
    check("a directory with a plain perf.data: is a directory, not --threads: %r" % r.stderr,
          r.returncode == 2 and "is a directory" in r.stderr and "--threads" not in r.stderr)

def test_events_and_annotate(d):
    """Two events: the first shown, --event picks the other; annotate opens the file."""
    data = os.path.join(d, "two.data")
    perf_record(data, "-e", "page-faults", "-e", "minor-faults", "-c", "1")
    rows, h = hwprof_rows(data)
    check("page-faults shown first: %r" % h.get("event"), h.get("event") == "page-faults")
    check("the other is named in a warning: %r" % h.get("warnings"),
          any("minor-faults" in w for w in h.get("warnings", [])))
    rows2, h2 = hwprof_rows(data, "--event", "minor-faults")
    check("--event minor-faults: %r" % h2.get("event"), h2.get("event") == "minor-faults")
    script = run([PERF, "script", "-i", data, "-F", "event"], timeout=SLOW).stdout.split()
    check("samples per event as perf script's: %r %r" % (h.get("samples"), h2.get("samples")),
          h.get("samples") == script.count("page-faults:") and
          h2.get("samples") == script.count("minor-faults:"))
    a = run([HWPROF, "annotate", "-i", data, "--stdio", "--limit", "1"], timeout=SLOW)
    check("annotate -i perf.data: exit 0 or 1", a.returncode in (0, 1), a.stderr)
    fault = hot_line(SRC, "fault")
    check("annotate shows touch_pages with the HOT: fault line",
          "touch_pages" in a.stdout and re.search(r"\b%d\b.*HOT: fault" % fault, a.stdout),
          a.stdout[:2000])



def test_default_event_pipe(d):
    """Two events, the first without samples (major-faults: none here), in pipe mode: shown is
    perf report's first event with samples, as for a file, live and from a file of the stream."""
    data = os.path.join(d, "pipe2.data")
    with open(data, "wb") as f:
        p = subprocess.run([PERF, "record", "-q", "-e", "major-faults", "-e", "page-faults",
                            "-c", "1", "-o", "-", HOTLOOP, STEPS], stdout=f,
                           stderr=subprocess.PIPE, timeout=180)
    if p.returncode:
        print("skip: perf record -o - failed here: %s" % p.stderr.decode().strip())
        sys.exit(77)
    n = run([PERF, "script", "-i", data, "-F", "event"],
            timeout=SLOW).stdout.split().count("page-faults:")
    with open(data, "rb") as f:
        rows, h = hwprof_rows("-", stdin=f)
    check("pipe: page-faults shown: %r, %r samples (perf script %d)"
          % (h.get("event"), h.get("samples"), n),
          h.get("event") == "page-faults" and h.get("samples") == n and n > 0)
    same_top("pipe, first event empty", by_line(rows), perf_lines(data), 2, True)
    _, h2 = hwprof_rows(data)
    check("the stream as a file: page-faults: %r" % h2.get("event"),
          h2.get("event") == "page-faults")
    _, h3 = hwprof_rows("-", "--event", "major-faults", stdin=open(data, "rb"))
    check("--event major-faults still picks it: %r" % h3.get("event"),
          h3.get("event") == "major-faults" and h3.get("samples") == 0)
    check("no DSO warned about for the 0 samples shown: %r" % h3.get("warnings"),
          not any(" 0 samples shown by symbol only" in w for w in h3.get("warnings", [])))


def test_default_event_compressed(d):
    """perf record -z with two events, the first without samples: its samples are all inside
    COMPRESSED records, and still the first event with samples is shown."""
    data = os.path.join(d, "z2.data")
    # Into the page cache: major faults would fill the first event.
    run([HOTLOOP, STEPS], timeout=SLOW)
    perf_record(data, "-z", "-e", "major-faults", "-e", "page-faults", "-c", "1")
    stats = run([PERF, "report", "-i", data, "--stats"], timeout=SLOW).stdout
    if not re.search(r"COMPRESSED events:\s+[1-9]", stats):
        print("skip: perf record -z wrote no COMPRESSED record here (perf built without zstd?)")
        sys.exit(77)
    events = run([PERF, "script", "-i", data, "-F", "event"], timeout=SLOW).stdout.split()
    if events.count("major-faults:"):
        # A major fault (the binary not in the page cache: a loaded host) makes the first
        # event not empty: what this case tests is gone, not wrong.
        print("skip: major-faults has %d samples here" % events.count("major-faults:"))
        sys.exit(77)
    n = events.count("page-faults:")
    rows, h = hwprof_rows(data)
    check("-z: page-faults shown: %r, %r samples (perf script %d)"
          % (h.get("event"), h.get("samples"), n),
          h.get("event") == "page-faults" and h.get("samples") == n and n > 0)
    same_top("-z, first event empty", by_line(rows), perf_lines(data), 2, True)
    with open(data + ".pipe", "wb") as f:
        p = subprocess.run([PERF, "record", "-q", "-z", "-e", "major-faults", "-e",
                            "page-faults", "-c", "1", "-o", "-", HOTLOOP, STEPS], stdout=f,
                           stderr=subprocess.PIPE, timeout=180)
    check("perf record -z -o - exit 0", p.returncode == 0, p.stderr)
    with open(data + ".pipe", "rb") as f:
        _, h2 = hwprof_rows("-", stdin=f)
    # The first event with samples, as perf script of the same stream sees them.
    with open(data + ".pipe", "rb") as f:
        pe = subprocess.run([PERF, "script", "-i", "-", "-F", "event"], stdin=f,
                            capture_output=True, text=True, timeout=180).stdout.split()
    want = "major-faults" if "major-faults:" in pe else "page-faults"
    check("-z in pipe mode: %s shown: %r" % (want, h2.get("event")),
          h2.get("event") == want and h2.get("samples", 0) > 0)


def test_many_tracepoints(d):
    """perf record -e 'syscalls:sys_enter_*': some 350 events, most without a sample. The event
    shown is perf report's first (it skips the empty ones), and the text header counts the
    empty ones on one line."""
    data = os.path.join(d, "sc.data")
    p = run([PERF, "record", "-q", "-e", "syscalls:sys_enter_*", "-o", data, HOTLOOP, "1000"],
            timeout=SLOW)
    if p.returncode != 0 or not os.path.exists(data):
        print("skip: perf record -e 'syscalls:sys_enter_*' failed here: %s" % p.stderr.strip())
        sys.exit(77)
    rep = run([PERF, "report", "-i", data, "--stdio", "--no-children"], timeout=SLOW).stdout
    # perf abbreviates a count of 1000 or more ("# Samples: 2K of event ..."): such a section
    # is counted, its number not compared.
    sections = re.findall(r"^# Samples: (\d+[KMG]?)\s+of event '([^']+)'", rep, re.M)
    every = run([PERF, "report", "-i", data, "--stdio", "--no-skip-empty"], timeout=SLOW).stdout
    nevents = len(re.findall(r"^# Samples: \d+[KMG]?\s+of event", every, re.M))
    check("perf shows events with samples: %r" % sections[:3], len(sections) >= 2)
    _, h = hwprof_rows(data)
    check("shown: perf report's first event %r, hwprof %r" % (sections[0], h.get("event")),
          h.get("event") == sections[0][1] and
          (not sections[0][0].isdigit() or h.get("samples") == int(sections[0][0])))
    t = run([HWPROF, "report", "-i", data, "-n", "1"], timeout=SLOW)
    head = [ln for ln in t.stdout.splitlines() if ln.startswith("# events recorded:")]
    empty = nevents - len(sections)
    check("the header: %d events by name, 'and %d events with no samples'"
          % (len(sections), empty),
          len(head) == 1 and
          len(re.findall(r" \((?:shown, )?\d+ samples?\)", head[0])) == len(sections) and
          "and %d events with no samples" % empty in head[0], head)


if not PERF:
    print("skip: no perf on this host (Debian: linux-perf)")
    sys.exit(77)
with tempfile.TemporaryDirectory(prefix="perf-data-", dir=os.environ.get("RPT_TMP")) as tmp:
    run_cases(globals(), tmp)
