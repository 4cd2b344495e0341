#!/usr/bin/env python3
"""`hwprof report -f pprof` read by the real client, `go tool pprof` (Debian's golang-go):
its top lines and functions, traces, mappings and sample types against `hwprof report` on the
same recording of the bundled example (page faults give exact IPs and counts).

Usage: pprof_e2e.py HWPROF HOTLOOP [--case NAME]. Without `go` every case is skipped (exit 77)
with the reason printed."""
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from hwprof_test import check, on_terminal, record, run, run_cases  # noqa: E402

GO = shutil.which("go")
TMP = tempfile.mkdtemp(prefix="pprof-e2e-", dir=os.environ.get("RPT_TMP"))
# go wants a writable cache and home; the machine has no network, nothing is fetched.
GOENV = dict(os.environ, HOME=TMP, GOCACHE=os.path.join(TMP, "gocache"),
             GOPATH=os.path.join(TMP, "gopath"), GOFLAGS="", GOPROXY="off",
             GOTOOLCHAIN="local", PPROF_TMPDIR=TMP)
ROW = re.compile(r"^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.*)$")


def pprof(*args):
    """go tool pprof ARGS: its stdout (the test fails when it exits non-zero)."""
    p = run([GO, "tool", "pprof"] + list(args), timeout=180, env=GOENV)
    check(f"go tool pprof {' '.join(args[:-1])} exit 0", p.returncode == 0, p.stderr[-2000:])
    return p.stdout


def pprof_top(*args):
    """-top's rows: [(flat, name)] in order; NAME as pprof prints it."""
    rows = []
    for line in pprof("-top", "-nodecount=1000", "-nodefraction=0", *args).splitlines():
        m = ROW.match(line)
        if m:
            rows.append((int(m.group(1)), m.group(3)))
    return rows


def hwprof_rows(hwprof, data, *args):
    """hwprof report's rows (JSON), every one, self shares."""
    import json
    p = run([hwprof, "report", "-i", data, "-f", "json", "-n", "0", "--no-children"] +
            list(args))
    check(f"report {' '.join(args)} exit 0", p.returncode == 0, p.stderr)
    return json.loads(p.stdout)["rows"]


def mapping_files(pb):
    """The file names of PB's Mappings in the file's order (pprof's readers reorder them):
    profile.proto's wire format read directly, Profile.mapping = 3, string_table = 6,
    Mapping.filename = 5."""
    buf = gzip.decompress(open(pb, "rb").read())

    def varint(b, i):
        v = shift = 0
        while True:
            c = b[i]
            v, i, shift = v | (c & 0x7F) << shift, i + 1, shift + 7
            if c < 0x80:
                return v, i

    def fields(b):
        i = 0
        while i < len(b):
            key, i = varint(b, i)
            kind = key & 7
            if kind == 0:
                v, i = varint(b, i)
            elif kind == 2:
                n, i = varint(b, i)
                v, i = b[i:i + n], i + n
            else:
                n = 8 if kind == 1 else 4
                v, i = b[i:i + n], i + n
            yield key >> 3, v

    strings = [v.decode() for f, v in fields(buf) if f == 6]
    return [strings[dict(fields(v)).get(5, 0)] for f, v in fields(buf) if f == 3]


def to_pprof(hwprof, data, *args):
    out = data + ".pb.gz"
    p = run([hwprof, "report", "-i", data, "-f", "pprof", "-o", out] + list(args))
    check(f"report -f pprof {' '.join(args)} exit 0", p.returncode == 0, p.stderr)
    check("report -f pprof sanitizer-clean", "Sanitizer" not in p.stderr, p.stderr)
    return out


def rec(hwprof, hotloop, name, args):
    """HOTLOOP recorded with ARGS. A ring buffer that holds the whole run (8 MiB per CPU):
    with -c 1 under the sanitizers on a loaded host the default one filled up, and the lost
    samples' warning failed the report's exit status."""
    data = os.path.join(TMP, name + ".data")
    record(hwprof, data, ["-m", "2048"] + args, [hotloop, "1000"])
    return data


def test_top_lines(hwprof, hotloop):
    same_top_lines(hwprof, rec(hwprof, hotloop, "pf", ["-e", "page-faults", "-c", "1"]))


def test_perf_data(hwprof, hotloop):
    """perf's own recordings (issue 13's "done when"): a perf.data of page-faults -g, and perf
    record -o -'s pipe stream, through -f pprof: pprof -top -lines lists report's lines."""
    perf = shutil.which("perf")
    if not perf:
        print("skip: no perf on this host (Debian: linux-perf)")
        sys.exit(77)
    data = os.path.join(TMP, "perf.data")
    p = run([perf, "record", "-q", "-g", "-e", "page-faults", "-c", "1", "-o", data, hotloop,
             "1000"], timeout=180)
    if p.returncode != 0:
        print("skip: perf record failed here: %s" % p.stderr.strip())
        sys.exit(77)
    same_top_lines(hwprof, data)
    # perf's CMDLINE is perf's own: the program is found after its options, mapping 1; the
    # kernel's samples (page-faults without :u) make a [kernel] mapping, after the files.
    pb = to_pprof(hwprof, data)
    raw = pprof("-raw", pb)
    maps = mapping_files(pb)
    check("perf.data: the program is mapping 1: %r" % maps[:1],
          maps and os.path.realpath(maps[0]) == os.path.realpath(hotloop))
    if "[kernel]" not in maps:  # perf_event_paranoid >= 2: perf recorded user space only
        print("skip the [kernel] order check: no kernel samples in perf's recording")
    else:
        check("perf.data: [kernel] after the files: %r" % maps,
              all(m.startswith("[") for m in maps[maps.index("[kernel]"):]))
    check("perf.data: the command in a comment is perf's, as it recorded",
          re.search(r"Comment: command: \S*perf record .*%s 1000" % re.escape(hotloop), raw),
          raw[:800])
    pipe = os.path.join(TMP, "perf.pipe")
    with open(pipe, "wb") as f:
        p = subprocess.run([perf, "record", "-q", "-e", "cpu-clock", "-o", "-", hotloop,
                            "1000"], stdout=f, stderr=subprocess.PIPE, timeout=180)
    check("perf record -o - exit 0", p.returncode == 0, p.stderr)
    same_top_lines(hwprof, pipe)


def same_top_lines(hwprof, data):
    """report's top lines and functions of DATA are go tool pprof -top's of its -f pprof."""
    rows = hwprof_rows(hwprof, data)
    top = pprof_top("-lines", "-sample_index=samples", to_pprof(hwprof, data))
    got = {}
    for flat, name in top:
        m = re.match(r"^(.*) (\S+):(\d+)( \(inline\))?$", name)
        if m:
            got[(m.group(1), os.path.basename(m.group(2)), int(m.group(3)))] = flat
    check("pprof -top -lines lists rows", len(top) >= 5, top)
    check("pprof's total is report's", sum(f for f, _ in top) <= sum(r["samples"] for r in rows))
    # The first ten rows of report: the same function, file:line and count in pprof.
    for r in rows[:10]:
        if not r.get("file") or not r.get("function"):
            continue
        key = (r["function"], os.path.basename(r["file"]), r["line"])
        check(f"pprof -top -lines: {key} {r['samples']}", got.get(key) == r["samples"],
              got.get(key))
    first = next(((f, n) for f, n in top), None)
    # A top row without a line (a kernel function: cpu-clock with kernel samples, as on a
    # host whose page faults cost much) is its function alone in pprof too.
    check("the top line is report's top line", first and first[0] == rows[0]["samples"] and
          (first[1].startswith(rows[0]["function"] + " ") and
           first[1].removesuffix(" (inline)").endswith(
               f"{os.path.basename(rows[0]['file'])}:{rows[0]['line']}")
           if rows[0].get("file") else first[1] == rows[0]["function"]),
          (first, rows[0]))
    # Functions: report -s function against pprof -top. Report keeps a function's inlined
    # copies apart ("f (inlined into g)"), pprof counts a function once: sum report's.
    frows = hwprof_rows(hwprof, data, "-s", "function")
    ftop = dict((n.removesuffix(" (inline)"), f) for f, n in pprof_top("-sample_index=samples",
                                                                   to_pprof(hwprof, data)))
    fsum = {}
    for r in frows:
        if r.get("function"):
            fsum[r["function"]] = fsum.get(r["function"], 0) + r["samples"]
    for r in frows[:8]:
        if r.get("function"):
            check(f"pprof -top: {r['function']} {fsum[r['function']]}",
                  ftop.get(r["function"]) == fsum[r["function"]], ftop.get(r["function"]))


def traces(text):
    """-traces' samples: [(count, [frames leaf first, ' (inline)' kept])]."""
    out = []
    for block in text.split("-----------+" + "-" * 55)[1:]:
        frames, count = [], None
        for line in block.splitlines():
            if not line.strip() or re.match(r"^\s*\S+:  ", line):
                continue
            if count is None:
                count = int(line[:10])
            frames.append(line[13:])
        if frames:
            out.append((count, frames))
    return out


def test_traces(hwprof, hotloop):
    data = rec(hwprof, hotloop, "g", ["-g", "-e", "page-faults", "-c", "1"])
    rows = hwprof_rows(hwprof, data)
    ts = traces(pprof("-traces", to_pprof(hwprof, data)))
    check("pprof -traces: every sample once", sum(c for c, _ in ts) ==
          sum(r["samples"] for r in rows), (sum(c for c, _ in ts), len(rows)))
    # The hottest line's samples, by their whole path: report's call path and count.
    r = rows[0]
    path = [r["function"]] + [f["function"] for f in r["call_paths"][0]["frames"]]
    same = sum(c for c, fr in ts if [f.removesuffix(" (inline)") for f in fr] == path)
    check(f"pprof -traces: {' <- '.join(path)} {r['call_paths'][0]['samples']}",
          same == r["call_paths"][0]["samples"], same)
    # make_chain is inlined into main: its own frame, then main's, in one location.
    inl = [fr for _, fr in ts if "make_chain (inline)" in fr]
    check("pprof -traces: make_chain (inline) called from main", inl and all(
        fr[fr.index("make_chain (inline)") + 1] == "main" for fr in inl), inl[:2])


def test_mapping_build_id(hwprof, hotloop):
    data = rec(hwprof, hotloop, "b", ["-e", "page-faults", "-c", "1"])
    raw = pprof("-raw", to_pprof(hwprof, data))
    note = run(["readelf", "-n", hotloop]).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", note)
    check("readelf finds the example's build-id", m, note)
    maps = raw[raw.find("Mappings"):]
    first = maps.splitlines()[1] if len(maps.splitlines()) > 1 else ""
    check("pprof -raw: the program is mapping 1, with its build-id",
          m and first.startswith("1: ") and hotloop in first and m.group(1) in first, first)
    check("pprof -raw: functions, files, lines and inline frames known", "[FN][FL][LN][IN]"
          in first, first)
    check("pprof -raw: period type page-faults count", "PeriodType: page-faults count" in raw,
          raw[:800])
    check("pprof -raw: the command in a comment", f"Comment: command: {hotloop} 1000" in raw,
          raw[:800])
    check("pprof -raw: the counted page-faults in a comment",
          re.search(r"Comment: counted: page-faults [\d,]+ ", raw), raw[:800])


def test_events(hwprof, hotloop):
    """Two sampling events: a sample type pair each, every sample carrying both, and each
    event's top lines those of report --event with that event."""
    data = rec(hwprof, hotloop, "ev", ["-e", "page-faults,minor-faults", "-c", "1"])
    pb = to_pprof(hwprof, data)
    p = run([hwprof, "report", "-i", data, "-f", "pprof", "-o", pb])
    check("no warning that minor-faults is not shown: the file holds it", "not shown" not in
          p.stderr, p.stderr)
    raw = pprof("-raw", pb)
    check("pprof -raw: both events' sample types, page-faults the default",
          "page-faults-samples/count page-faults/count[dflt] minor-faults-samples/count "
          "minor-faults/count" in raw, raw[raw.find("Samples:"):][:300])
    for ev, index in (("page-faults", "page-faults"), ("minor-faults", "minor-faults"),
                      ("minor-faults", "minor-faults-samples")):
        rows = hwprof_rows(hwprof, data, "--event", ev)
        got = {}
        for flat, name in pprof_top("-lines", f"-sample_index={index}", pb):
            m = re.match(r"^(.*) (\S+):(\d+)( \(inline\))?$", name)
            if m:
                got[(m.group(1), os.path.basename(m.group(2)), int(m.group(3)))] = flat
        for r in rows[:4]:
            if r.get("file") and r.get("function"):
                key = (r["function"], os.path.basename(r["file"]), r["line"])
                check(f"-sample_index={index}: {key} {r['samples']}",
                      got.get(key) == r["samples"], got.get(key))


def test_output_rules(hwprof, hotloop):
    data = rec(hwprof, hotloop, "o", ["-e", "page-faults", "-c", "1000"])
    p = subprocess.run([hwprof, "report", "-i", data, "-f", "pprof", "-o", "-"],
                       capture_output=True, timeout=60)
    check("-o - writes gzip to a pipe", p.returncode == 0 and p.stdout[:2] == b"\x1f\x8b",
          (p.returncode, p.stdout[:4], p.stderr))
    check("-o - is a whole gzip stream", p.returncode == 0 and len(gzip.decompress(p.stdout)) >
          100)
    # Standard output a terminal: refused before anything is written.
    status, out = on_terminal([hwprof, "report", "-i", data, "-f", "pprof"])
    check("-f pprof to a terminal: refused, exit 2", status == 2 and "not to a terminal" in out
          and "\x1f" not in out, out[:300])
    for opt in (["-s", "function"], ["-n", "5"], ["--percent-limit", "1"], ["--children"],
                ["--no-children"], ["--inline"], ["--inline=caller"], ["-G"]):
        p = run([hwprof, "report", "-i", data, "-f", "pprof", "-o", os.path.join(TMP, "x.pb.gz")]
                + opt)
        check(f"-f pprof {' '.join(opt)}: a usage error", p.returncode == 64 and
              opt[0].split("=")[0] in p.stderr, (p.returncode, p.stderr))


if not GO:
    print("skipped: no `go` on PATH (Debian: apt-get install golang-go; scripts/install-deps)")
    sys.exit(77)
run_cases(globals(), sys.argv[1], sys.argv[2])
