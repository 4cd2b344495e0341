#!/usr/bin/env python3
"""report_cli.py HWPROF - `hwprof report` end to end: JSON and CSV parse and agree with each
other and with the text view; bad input gives one line and the documented exit code."""
import csv
import ctypes.util
import io
import json
import os
import re
import subprocess
import sys
import shutil
import struct
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import hwprof_test  # noqa: E402
from hwprof_test import check, on_terminal, record_faults, report_rows, run_cases  # noqa: E402

HWPROF = os.path.abspath(sys.argv[1])
SRC = os.environ["RPT_SRC"]


def hot_line(src, token):
    """The line of SRC (in tests/report) marked "HOT: TOKEN"."""
    return hwprof_test.hot_line(os.path.join(SRC, src), token)


def report(*args):
    return subprocess.run([HWPROF, "report", *args], capture_output=True, text=True)


def annotate(*args):
    return subprocess.run([HWPROF, "annotate", *args], capture_output=True, text=True)


def gen_case(out, binary, *kv):
    """A synthetic recording of BINARY (gen_case.c): lost samples, several events, ..."""
    r = subprocess.run([os.environ["RPT_GEN_CASE"], out, binary, *kv], capture_output=True,
                       text=True)
    check("gen_case %s: %s" % (" ".join(kv), r.stderr), r.returncode == 0)
    return out


def one_line_error(r, code, words, what):
    lines = r.stderr.strip().splitlines()
    check("%s: exit %d, want %d (%s)" % (what, r.returncode, code,
                                                               r.stderr.strip()), r.returncode == code)
    check("%s: message %r lacks %r" % (what, r.stderr, words),
          len(lines) >= 1 and all(w in lines[0] for w in words))
    check("%s: sanitizer report" % what,
          "Sanitizer" not in r.stderr and "runtime error" not in r.stderr)
    if code != 64:
        check("%s: %d lines of error, want 1: %r" % (what, len(lines),
                                                                        r.stderr), len(lines) == 1)


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if "Build ID:" in line:
            return line.split("Build ID:")[1].strip()
    return None


def test_debuginfod(tmp):
    """A stripped binary whose debug info only a debuginfod server has (DEBUGINFOD_URLS)."""
    bare, debug = os.environ.get("RPT_DWARF_BARE"), os.environ.get("RPT_DWARF_DEBUG")
    if not bare or not debug or not build_id(bare):
        print("skip debuginfod: the split workload was not built")
        return
    if not ctypes.util.find_library("debuginfod"):
        print("skip debuginfod: libdebuginfod is not installed (libdw loads it on demand)")
        return
    want = "/buildid/%s/debuginfo" % build_id(bare)
    served = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            served.append(self.path)
            if self.path != want:
                self.send_error(404)
                return
            with open(debug, "rb") as f:
                body = f.read()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    data = os.path.join(tmp, "bare.data")
    record_faults(HWPROF, data, bare, "1000")
    env = dict(os.environ, DEBUGINFOD_URLS="http://127.0.0.1:%d" % server.server_port,
               DEBUGINFOD_CACHE_PATH=os.path.join(tmp, "cache"), DEBUGINFOD_TIMEOUT="10")
    r = subprocess.run([HWPROF, "report", "-i", data, "-f", "json"], capture_output=True,
                       text=True, env=env)
    server.shutdown()
    check("debuginfod report: exit %d %s" % (r.returncode, r.stderr), r.returncode == 0)
    top = json.loads(r.stdout)["rows"][0]
    check("debuginfod was not asked for %s (asked: %r)" % (want, served), want in served)
    check("debuginfod: top row %r" % top,
          top["line"] == hot_line("wl_dwarf.c", "dwarf") and top["function"] == "touch")


def test_json_version(tmp):
    """Every JSON document hwprof writes starts with "version": 2 (common/json.h), and a
    command is an array of its arguments wherever it is written (report and stat alike)."""
    data = record_faults(HWPROF, os.path.join(tmp, "v.data"), os.environ["RPT_INLINE"], "200")
    outputs = {
        "report": report("-i", data, "-f", "json"),
        "annotate": annotate("-i", data, "--stdio", "-f", "json", "first"),
        "diff": subprocess.run([HWPROF, "diff", "-f", "json", data, data], capture_output=True,
                               text=True),
        "list": subprocess.run([HWPROF, "list", "-f", "json"], capture_output=True, text=True),
    }
    stat = subprocess.run([HWPROF, "stat", "-f", "json", "--", "true"], capture_output=True,
                          text=True)
    for name, r in list(outputs.items()) + [("stat", stat)]:
        text = r.stderr if name == "stat" else r.stdout
        try:
            doc = json.loads(text)
        except ValueError:
            doc = {}
        check("%s -f json: version 2 first: %r" % (name, text[:80]),
              list(doc)[:1] == ["version"] and doc["version"] == 2)
        if name in ("report", "stat"):
            command = doc.get("header", doc).get("command")
            check("%s -f json: command as an array: %r" % (name, command),
                  isinstance(command, list) and command[-1:] == [
                      "200" if name == "report" else "true"])


def test_kernel(tmp):
    """Kernel samples (:k) resolve through /proc/kallsyms when it shows addresses."""
    with open("/proc/kallsyms") as f:
        if f.readline().startswith("0000000000000000"):
            print("skip kernel symbols: /proc/kallsyms hides addresses from this user")
            return
    data = os.path.join(tmp, "kernel.data")
    rec = subprocess.run([HWPROF, "record", "-e", "cpu-clock:k", "-o", data, "--", "dd",
                          "if=/dev/zero", "of=/dev/null", "bs=64k", "count=20000"],
                         capture_output=True, text=True)
    if rec.returncode != 0:
        print("skip kernel symbols: cannot record :k here: " + rec.stderr.strip())
        return
    r = report("-i", data, "-f", "json", "--sort", "function")
    rows = json.loads(r.stdout)["rows"]
    kernel = [row for row in rows if row["dso"] == "[kernel]"]
    check("kernel rows without names: %r" % kernel[:3],
          kernel and all(row["function"] for row in kernel[:3]))


def test_lost(tmp):
    """F23: over 1% lost: a warning with the numbers and the way out, partial, exit 1, in
    report and annotate; a few lost (under 1%) stay a plain success."""
    prog = os.environ["RPT_INLINE"]
    lost = gen_case(os.path.join(tmp, "lost.data"), prog, "samples=1000", "lost=500")
    want = "500 of 1500 samples (33.3 %) were lost while recording; shares may be biased " \
        "(record with a larger -m or a larger -c / lower -F)"
    r = report("-i", lost)
    check("lost: exit %d, want 1" % r.returncode, r.returncode == 1)
    check("lost: warning %r" % r.stderr, want in r.stderr)
    r = report("-i", lost, "-f", "json")
    h = json.loads(r.stdout)["header"]
    check("lost: json %r %r" % (h["partial"], h["warnings"]),
          h["partial"] is True and any(want in w for w in h["warnings"]))
    r = annotate("-i", lost, "--stdio")
    check("annotate lost: %d %r" % (r.returncode,
                                                                         r.stderr), r.returncode == 1 and want in r.stderr)
    few = gen_case(os.path.join(tmp, "few.data"), prog, "samples=1000", "lost=5")
    r = report("-i", few, "-f", "json")
    check("0.5%% lost: %d %r" %
          (r.returncode, r.stderr), r.returncode == 0 and "were lost" not in r.stderr and
          json.loads(r.stdout)["header"]["partial"] is False)


def test_events(tmp):
    """F14/F24: every event recorded is named (header and warning); annotate has --event."""
    ev = gen_case(os.path.join(tmp, "ev.data"), os.environ["RPT_INLINE"], "samples=100",
                  "other=page-faults:5", "other=minor-faults:3")
    r = report("-i", ev)
    head = [l for l in r.stdout.splitlines() if l.startswith("# events recorded:")]
    check("text header events: %r" % r.stdout[:400],
          len(head) == 1 and "cpu-clock (shown, 100 samples)" in head[0] and
          "page-faults (5 samples)" in head[0] and "minor-faults (3 samples)" in head[0])
    check("other events warning: %r" % r.stderr, "5 samples of 'page-faults' and 3 of 'minor-faults' are not shown" in r.stderr and
          "maybe" not in r.stderr)
    j = json.loads(report("-i", ev, "-f", "json", "--event", "minor-faults").stdout)
    check("json events %r" % j["header"].get("events"),
          [(e["name"], e["shown"], e["samples"]) for e in j["header"].get("events", [])] ==
          [("cpu-clock", False, 100), ("page-faults", False, 5), ("minor-faults", True, 3)])
    check("--event minor-faults: %r" % j["header"]["samples"], j["header"]["samples"] == 3)
    r = annotate("-i", ev, "--stdio", "--event", "page-faults")
    check("annotate --event: exit %d %r" % (r.returncode, r.stderr), r.returncode == 0)
    check("annotate --event header: %r" % r.stdout[:600],
          re.search(r"^event: page-faults", r.stdout, re.M) and
          "page-faults (shown, 5 samples)" in r.stdout and "samples: 5" in r.stdout)
    check("annotate other events: %r" % r.stderr, "1,000" not in r.stdout and "100 samples of 'cpu-clock' and 3 of 'minor-faults'"
          in r.stderr)
    one_line_error(annotate("-i", ev, "--stdio", "--event", "bogus"), 2,
                   ["--event 'bogus'", "cpu-clock", "page-faults"], "annotate --event bogus")
    r = annotate("--help")
    check("annotate --help lacks --event", "--event NAME" in r.stdout)
    # The filters are report's (one option group): a bad list is a usage error, a --comm
    # that matches no thread leaves nothing to annotate.
    one_line_error(annotate("-i", ev, "--stdio", "--pid", "x"), 64, ["--pid 'x'", "not a number"],
                   "annotate --pid x")
    one_line_error(annotate("-i", ev, "--stdio", "--comm", "no-such-thread"), 2,
                   ["--comm 'no-such-thread'", "no sample has it"], "annotate --comm no-such-thread")


def test_cxx_names(tmp):
    """F25: a C++ function by its base name or linkage name, in report --function and
    annotate FUNCTION; an ambiguous base name lists the candidates. F26: long names cut with
    '…' in text (the dso column stays aligned), whole in CSV and JSON."""
    prog = os.environ.get("RPT_TMPL")
    if not prog:
        print("skip C++ names: no C++ compiler")
        return
    data = os.path.join(tmp, "tmpl.data")
    record_faults(HWPROF, data, prog, "300", "x")
    full = "long hw::work<int, long>(std::map<int, long, std::less<int>, " \
        "std::allocator<std::pair<int const, long> > >&, char volatile*, unsigned long)"
    nm = subprocess.run(["nm", prog], capture_output=True, text=True).stdout
    mangled = re.search(r"\b(_ZN2hw4work\S*)", nm)
    check("nm names no _ZN2hw4work symbol: %r" % nm[:300], mangled)
    work = hot_line("wl_tmpl.cpp", "work")
    for name in ("work", "hw::work") + ((mangled.group(1),) if mangled else ()):
        r = report("-i", data, "--function", name, "-f", "json")
        rows = json.loads(r.stdout)["rows"] if r.returncode == 0 else []
        check("report --function %s: %d %r %r" % (
                  name, r.returncode, rows[:1], r.stderr), rows and all(x["function"] == full for x in rows) and rows[0]["line"] == work
              and rows[0]["samples"] >= 290)
        r = annotate("-i", data, "--stdio", name)
        check("annotate %s: %d %r" % (name, r.returncode, r.stderr),
              r.returncode == 0 and "== " + full in r.stdout)
    for run in (lambda: report("-i", data, "--function", "fill"),
                lambda: annotate("-i", data, "--stdio", "fill")):
        r = run()
        one_line_error(r, 2, ["'fill'", "hw::Filler<int>::fill(unsigned long)",
                              "hw::Filler<long>::fill(unsigned long)"], "ambiguous fill")
    r = report("-i", data, "-s", "function", "-n", "0")
    lines = r.stdout.splitlines()
    title = [l for l in lines if l.lstrip().startswith("share")]
    rows = report_rows(r.stdout)
    col = title[0].index("dso") if title else -1
    cut = [l for l in rows if "long hw::work<int, long>" in l]
    check("no cut name: %r" % cut, cut and "\u2026" in cut[0] and full not in r.stdout)
    check("dso column not aligned:\n" + "\n".join(rows),
          all(len(l) > col and l[col - 2:col] == "  " and l[col] != " " for l in rows))
    r = report("-i", data, "-s", "function", "-f", "csv")
    check("csv cut the long name",
          full in {row["function"] for row in csv.DictReader(io.StringIO(r.stdout))})
    # "No line known" reads "??" whatever the sort.
    for keys in ("line", "function", "function,line"):
        r = report("-i", data, "-s", keys, "-n", "0")
        stl = [l for l in r.stdout.splitlines() if "libstdc++" in l]
        if not stl:
            print("skip: -s %s: no libstdc++ row to check '??' on" % keys)
        check("-s %s: libstdc++ rows %r" % (keys, stl), all(" ?? " in l for l in stl))


def test_merging(tmp):
    """F20: one file twice (same inode, any spelling) is read once, with a warning; merged
    recordings that differ get one note naming the differences."""
    prog = os.environ["RPT_INLINE"]
    a = gen_case(os.path.join(tmp, "a.data"), prog, "samples=200", "freq=100")
    b = gen_case(os.path.join(tmp, "b.data"), prog, "samples=100", "period=16",
                 "cmd=./other")
    link = os.path.join(tmp, "a-link.data")
    os.link(a, link)
    r = report("-i", a, "-i", link, "-i", a, "-f", "json")
    h = json.loads(r.stdout)["header"]
    check("same file thrice: %d samples, want 200" % h["samples"], h["samples"] == 200)
    check("same file warning: %r" % r.stderr,
          r.stderr.count("the same file as") == 2 and "read once" in r.stderr)
    r = report("-i", a, "-i", b, "-f", "json")
    h = json.loads(r.stdout)["header"]
    notes = [l for l in r.stderr.splitlines() if ": note: " in l]
    check("merge note: %r" % r.stderr, len(notes) == 1 and "100 Hz" in notes[0] and "period 16" in notes[0] and
          "./other" in notes[0] and "b.data" in notes[0])
    check("json notes %r" % h.get("notes"),
          h["notes"] == [notes[0].split(": note: ", 1)[1]] if notes else False)
    check("merged: %d %d" % (h["samples"],
                                                                       r.returncode), h["samples"] == 300 and r.returncode == 0)


def test_merged_events_and_counts(tmp):
    """M5: inputs of different events are shown one event at a time, like the events of one
    file; M4: counted totals are summed over the inputs, an event not counted by every input
    gets no partial sum; M8: a filter's list of what the inputs hold is never padded."""
    prog = os.environ["RPT_INLINE"]
    pf = gen_case(os.path.join(tmp, "mpf.data"), prog, "samples=300", "event=page-faults",
                  "period=1", "count=task-clock:1000:100:100", "count=page-faults:300:100:100")
    cc = gen_case(os.path.join(tmp, "mcc.data"), prog, "samples=100",
                  "count=task-clock:3000:100:100")
    r = report("-i", pf, "-i", cc)
    check("mixed events: exit %d %r" % (r.returncode, r.stderr), r.returncode == 0)
    check("mixed events header: %r" % r.stdout[:600], "# event: page-faults, period 1" in r.stdout and
          "# events recorded: page-faults (shown, 300 samples), cpu-clock (100 samples)"
          in r.stdout)
    check("mixed events warning: %r" % r.stderr,
          "mcc.data: 100 samples of 'cpu-clock' are not shown" in r.stderr and
          "--event cpu-clock" in r.stderr and "merged anyway" not in r.stderr)
    check("merged counts: %r" % r.stdout[:800],
          re.search(r"^#   task-clock +4,000 ", r.stdout, re.M) and
          re.search(r"^#   page-faults +counted in 1 of 2 inputs", r.stdout, re.M))
    j = json.loads(report("-i", pf, "-i", cc, "-f", "json").stdout)["header"]
    check("mixed events json: %r" % j,
          j["samples"] == 300 and j["event"] == "page-faults" and
          round(sum(x["share"] for x in json.loads(report("-i", pf, "-i", cc, "-f", "json")
                                                    .stdout)["rows"]), 6) == 1)
    counts = {c["event"]: c for c in j["counts"]}
    check("json merged counts: %r" % j["counts"],
          counts["task-clock"]["value"] == 4000 and counts["task-clock"]["counted"] and
          counts["page-faults"]["value"] is None and
          counts["page-faults"]["inputs_counted"] == 1 and counts["page-faults"]["inputs"] == 2)
    r = report("-i", pf, "-i", cc, "--event", "cpu-clock", "-f", "json")
    j = json.loads(r.stdout)["header"]
    check("--event of the 2nd input: %r" % j, j["event"] == "cpu-clock" and j.get("frequency_hz") == 4000 and j["samples"] == 100 and
          [(e["name"], e["shown"]) for e in j["events"]] ==
          [("page-faults", False), ("cpu-clock", True)])
    check("--event cpu-clock warning: %r" % r.stderr,
          "300 samples of 'page-faults' are not shown" in r.stderr and
          "--event page-faults" in r.stderr and "merged anyway" not in r.stderr)
    for opt, val, held in (("--pid", "1", "(the inputs hold: 1000)"),
                           ("--tid", "1", "(the inputs hold: 1000)"),
                           ("--comm", "x", "(the inputs hold: case)")):
        one_line_error(report("-i", pf, "-i", cc, opt, val), 2, [opt, held],
                       "%s list" % opt)


def test_changed_dso(tmp):
    """F18: a DSO rebuilt or deleted since the recording: warning, exit 1; annotate --stdio
    on a terminal says the warning once."""
    prog = os.path.join(tmp, "rebuilt")
    shutil.copy(os.environ["RPT_INLINE"], prog)
    data = gen_case(os.path.join(tmp, "rebuilt.data"), prog, "samples=300")
    other = os.environ.get("RPT_DWARF_GCC_5") or os.environ["RPT_TMPL"]
    shutil.copy(other, prog)
    for what in ("rebuilt", "deleted"):
        r = report("-i", data, "-f", "json")
        check("%s: report exit %d %r" % (
            what, r.returncode, r.stderr), r.returncode == 1 and what in r.stderr)
        check("%s: partial" % what, json.loads(r.stdout)["header"]["partial"] is True)
        r = annotate("-i", data, "--stdio")
        check("%s: annotate exit %d" % (what, r.returncode), r.returncode == 1)
        status, out = on_terminal([HWPROF, "annotate", "-i", data, "--stdio"])
        # A long path wraps the warning at the terminal's width; count the words, not the lines.
        out = re.sub(r"\s+", " ", out)
        check("%s: annotate on a terminal: %d, %d times:\n%s" % (
                  what, status, out.count(what), out[:1500]),
              status == 1 and out.count(what + " since the recording" if what == "rebuilt"
                                        else "deleted") == 1)
        if what == "rebuilt":
            os.unlink(prog)



def test_build_id_cache(tmp):
    """A binary rebuilt or deleted since the recording is read from perf's build-id cache
    (perf-buildid-cache(1): DIR/.build-id/xx/rest/elf, DIR $PERF_BUILDID_DIR else ~/.debug)
    when the build that ran is there: the same rows as before, a note naming the copy, exit 0.
    A copy whose build-id differs is not trusted."""
    prog = os.path.join(tmp, "cached")
    shutil.copy(os.environ["RPT_INLINE"], prog)
    data = gen_case(os.path.join(tmp, "cached.data"), prog, "samples=300")
    orig = shutil.copy(prog, prog + ".orig")
    before = report("-i", data, "-f", "json")
    check("before: exit 0 %r" % before.stderr, before.returncode == 0)
    bid = build_id(prog)
    home = os.path.join(tmp, "home")
    for where, env in (("PERF_BUILDID_DIR", {"PERF_BUILDID_DIR": os.path.join(tmp, "bids")}),
                       ("~/.debug", {"HOME": home, "PERF_BUILDID_DIR": ""})):
        top = env["PERF_BUILDID_DIR"] or os.path.join(home, ".debug")
        entry = os.path.join(top, ".build-id", bid[:2], bid[2:])
        os.makedirs(entry)
        shutil.copy(orig, os.path.join(entry, "elf"))
        shutil.copy(os.environ["RPT_TMPL"], prog)  # rebuilt
        for what in ("rebuilt", "deleted"):
            r = subprocess.run([HWPROF, "report", "-i", data, "-f", "json"], capture_output=True,
                               text=True, env=dict(os.environ, **env))
            check("%s, %s: exit 0 %r" % (where, what, r.stderr), r.returncode == 0)
            check("%s, %s: the rows of the build that ran" % (where, what),
                  json.loads(r.stdout)["rows"] == json.loads(before.stdout)["rows"])
            check("%s, %s: a note naming the copy %r" % (where, what, r.stderr),
                  "build-id cache" in r.stderr and entry in r.stderr)
            if what == "rebuilt":
                os.unlink(prog)
        # Another build under that build-id's name, or the build's debug info alone (the
        # right build-id, no code), or a copy cut short: not the build that ran.
        elf = os.path.join(entry, "elf")
        for what, make in (("another build", lambda: shutil.copy(os.environ["RPT_TMPL"], elf)),
                           ("debug info only", lambda: subprocess.run(
                               ["objcopy", "--only-keep-debug", orig, elf], check=True)),
                           ("cut short", lambda: open(elf, "wb").write(
                               open(orig, "rb").read()[:3000]))):
            make()
            r = subprocess.run([HWPROF, "report", "-i", data, "--no-cache"],
                               capture_output=True, text=True, env=dict(os.environ, **env))
            check("%s, %s in the cache: exit 1, deleted %r" % (where, what, r.stderr),
                  r.returncode == 1 and "deleted" in r.stderr and "build-id cache" not in
                  r.stderr)
        shutil.rmtree(top)
    # The same checks for the file at the path itself: the build's debug info alone there.
    subprocess.run(["objcopy", "--only-keep-debug", orig, prog], check=True)
    r = report("-i", data, "--no-cache")
    check("debug info only at the path: exit 1, named %r" % r.stderr,
          r.returncode == 1 and "without the code" in r.stderr)

REBUILD_SRC = r"""
#include <stdlib.h>
#include <sys/mman.h>
%s
__attribute__((noinline)) static long fill(size_t pages)
{
	volatile char *p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long sum = 0;
	for (size_t i = 0; i < pages; i++)
		p[i * 4096] = 1; /* HOT: fill */
	for (size_t i = 0; i < pages; i++)
		sum += p[i * 4096];
	return sum;
}
int main(int argc, char **argv)
{
	return fill(argc > 1 ? strtoul(argv[1], 0, 0) : 500) > 0 ? 0 : 1;
}
"""
INSERTED = r"""
__attribute__((noinline, used)) long inserted(long x)
{
	for (long i = 0; i < x; i++)
		x ^= i * 2654435761 + (x << 3) - (x >> 5) + i * i;
	return x * 7 + (x >> 11);
}
"""





def test_format_from_output_name(tmp):
    """-o FILE without -f: the file's name picks the format where it names one (.json, .csv,
    .folded, .svg, .pb.gz); -f, before or after -o, wins; another name is text."""
    data = record_faults(HWPROF, os.path.join(tmp, "name.data"), os.environ["RPT_INLINE"],
                         "100")
    for name, starts in (("r.json", b"{"), ("r.csv", b"samples"), ("r.svg", b"<?xml"),
                         ("r.pb.gz", b"\x1f\x8b"), ("r.txt", b"# event")):
        out = os.path.join(tmp, name)
        r = report("-i", data, "-o", out)
        got = open(out, "rb").read(16) if os.path.exists(out) else b""
        check(f"-o {name}: exit {r.returncode}, starts {got!r}",
              r.returncode == 0 and got.lstrip().startswith(starts), r.stderr)
    out = os.path.join(tmp, "forced.json")
    for args in (["-f", "csv", "-o", out], ["-o", out, "-f", "csv"]):
        r = report("-i", data, *args)
        got = open(out, "rb").read(16) if os.path.exists(out) else b""
        check(f"{' '.join(args[::2])}: -f wins: {got!r}",
              r.returncode == 0 and got.startswith(b"samples"), r.stderr)

def test_bss_segment_past_the_file(tmp):
    """A PT_LOAD of no file bytes (bss only) may carry any offset, past the file's end too:
    it is no sign of a file without its code."""
    prog = os.path.join(tmp, "bssprog")
    shutil.copy(os.environ["RPT_INLINE"], prog)
    with open(prog, "r+b") as f:
        elf = bytearray(f.read())
        phoff, = struct.unpack_from("<Q", elf, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
        loads = [phoff + i * phentsize for i in range(phnum)
                 if struct.unpack_from("<I", elf, phoff + i * phentsize)[0] == 1]
        flags, = struct.unpack_from("<I", elf, loads[-1] + 4)
        check("the last PT_LOAD is not executable", not flags & 1)
        struct.pack_into("<Q", elf, loads[-1] + 8, len(elf) + 0x10000)  # p_offset
        struct.pack_into("<Q", elf, loads[-1] + 32, 0)  # p_filesz
        f.seek(0)
        f.write(elf)
    data = gen_case(os.path.join(tmp, "bss.data"), prog, "samples=50")
    r = report("-i", data, "--no-cache")
    check("a bss segment past the end: exit 0 %r" % r.stderr,
          r.returncode == 0 and "without the code" not in r.stderr)

def test_annotate_source_fifo(tmp):
    """A source file replaced by a FIFO after the build: annotate does not block on it; it
    says the source could not be read and shows the function's samples."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        print("skip annotate-source-fifo case: no C compiler")
        return
    src, prog = os.path.join(tmp, "fifosrc.c"), os.path.join(tmp, "fifosrc")
    with open(src, "w") as f:
        f.write(REBUILD_SRC % "")
    r = subprocess.run([cc, "-g", "-O1", "-o", prog, src], capture_output=True, text=True,
                       timeout=60)
    check("build fifosrc: %s" % r.stderr, r.returncode == 0)
    data = record_faults(HWPROF, os.path.join(tmp, "fifosrc.data"), prog, "500")
    os.unlink(src)
    os.mkfifo(src)
    try:
        r = subprocess.run([HWPROF, "annotate", "-i", data, "--stdio", "fill"],
                           capture_output=True, text=True, timeout=30)
        check("annotate, source a FIFO: exit %d %r" % (r.returncode, r.stderr[-300:]),
              r.returncode == 0 and "fill" in r.stdout and
              f"{src} (not a regular file)" in r.stdout + r.stderr)
    except subprocess.TimeoutExpired:
        check("annotate, source a FIFO: ended", False, "still waiting after 30 s")

def test_rebuilt_without_build_id(tmp):
    """Issue 10: a binary linked without a build-id, recorded, then rebuilt with a function
    inserted: report must not charge the old samples to the new file's lines; it warns once
    naming the file (what changed), exits 1, and shows the samples as '[unknown] file+0x..'."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        print("skip rebuilt-without-build-id case: no C compiler")
        return
    src, prog = os.path.join(tmp, "nobid.c"), os.path.join(tmp, "nobid")

    def build(extra):
        with open(src, "w") as f:
            f.write(REBUILD_SRC % extra)
        r = subprocess.run([cc, "-g", "-O1", "-Wl,--build-id=none", "-o", prog, src],
                           capture_output=True, text=True, timeout=60)
        check("build nobid: %s" % r.stderr, r.returncode == 0)

    build("")
    data = record_faults(HWPROF, os.path.join(tmp, "nobid.data"), prog, "500")
    r = report("-i", data, "-f", "json")
    mine = [row for row in json.loads(r.stdout)["rows"] if row["dso"] == prog]
    check("nobid before the rebuild: %d %r %r" % (r.returncode, mine[:1], r.stderr),
          r.returncode == 0 and mine and mine[0]["function"] == "fill")
    time.sleep(0.01)  # a new mtime even on a coarse clock
    build(INSERTED)
    r = report("-i", data, "-f", "json")
    check("nobid rebuilt: report exit %d %r" % (r.returncode, r.stderr), r.returncode == 1)
    check("nobid rebuilt: one warning naming it: %r" % r.stderr, r.stderr.count("changed since the recording") == 1 and prog in r.stderr and
          "no build-id" in r.stderr)
    j = json.loads(r.stdout)
    check("nobid rebuilt: partial", j["header"]["partial"] is True)
    mine = [row for row in j["rows"] if row["dso"] == prog]
    check("nobid rebuilt: no line or function claimed: %r" % mine[:3],
          mine and all(row["function"] == "[unknown]" and row["line"] is None for row in mine))
    r = subprocess.run([HWPROF, "report", "-i", data], capture_output=True, text=True)
    check("nobid rebuilt: text rows: %s" % r.stdout[-800:],
          "[unknown] nobid+0x" in r.stdout and "inserted" not in r.stdout)
    r = annotate("-i", data, "--stdio")
    check("nobid rebuilt: annotate exit %d %s" % (r.returncode, r.stdout[-400:]),
          r.returncode == 1 and "inserted" not in r.stdout)


def check_junk_after_trailer(tmp, data):
    """Issue 10: a whole recording with 64 MiB appended (a hole: no disk) reads as it was
    recorded, exit 0, with one note naming the bytes after the trailer."""
    junk = os.path.join(tmp, "junk-after.data")
    shutil.copy(data, junk)
    with open(junk, "ab") as f:
        f.truncate(os.path.getsize(data) + (64 << 20))
    want = report("-i", data, "-f", "json")
    r = report("-i", junk, "-f", "json")
    check("junk after the trailer: exit %d %r" % (r.returncode, r.stderr), r.returncode == 0)
    check("junk after the trailer: the note %r" % r.stderr,
          ("%d bytes follow the recording's trailer, not read" % (64 << 20)) in r.stderr)
    check("junk after the trailer: the same rows",
          json.loads(r.stdout)["rows"] == json.loads(want.stdout)["rows"])


def check_paths_and_disk(tmp, data):
    """F19: a directory as -i names a sample file in it; F34: a full disk is named."""
    d = os.path.join(tmp, "adir")
    os.mkdir(d)
    one_line_error(report("-i", d), 2, ["adir", "name a sample file with -i",
                                        d + "/hwprof.data"], "report -i DIR")
    one_line_error(annotate("-i", d), 2, ["name a sample file with -i"], "annotate -i DIR")
    # Q-file-5: -i - reads standard input (a pipe), as perf's does; not a file named '-',
    # even when one exists where report runs.
    with open(data, "rb") as f:
        whole = f.read()
    with open(os.path.join(tmp, "-"), "wb") as f:
        f.write(b"not a sample file")
    r = subprocess.run([HWPROF, "report", "-i", "-", "-f", "json"], input=whole,
                       capture_output=True, cwd=tmp)
    check("-i - beside a file named '-': %d %r" % (r.returncode, r.stderr),
          r.returncode == 0 and json.loads(r.stdout)["header"]["samples"] > 0)
    for what in ("report", "annotate"):
        args = ["-i", "-"] + (["-f", "json"] if what == "report" else ["--stdio"])
        piped = subprocess.run([HWPROF, what] + args, input=whole, capture_output=True)
        direct = subprocess.run([HWPROF, what] + [a if a != "-" else data for a in args],
                                capture_output=True)
        check("%s -i - from a pipe: %d %r" % (what, piped.returncode, piped.stderr[:300]),
              piped.returncode == direct.returncode == 0 and
              piped.stdout.replace(b"/dev/stdin", b"X") ==
              direct.stdout.replace(data.encode(), b"X"))
    with open("/dev/full", "w") as full:
        r = subprocess.run([HWPROF, "report", "-i", data, "-n", "0"], stdout=full,
                           stderr=subprocess.PIPE, text=True)
    one_line_error(r, 2, ["writing the report", "No space left on device"], "report > full")


def test_control_bytes_tamed(tmp):
    """Q-fmt-2: a file name with terminal escapes and a newline, from a binary built elsewhere:
    the text views show '?' for each control byte and keep one row per line; JSON keeps the
    bytes (escaped as JSON does)."""
    data = os.path.join(tmp, "escape.data")
    record_faults(HWPROF, data, os.environ["RPT_ESCAPE"])
    name = "evil\x1b]0;PWNED\x07\x1b[2J\x1b[31m\nred.c"
    for what, r in (("report", report("-i", data, "-n", "3")),
                    ("annotate --stdio", annotate("-i", data, "--stdio", "--limit", "1"))):
        out = r.stdout + r.stderr
        check("%s: control bytes reach the terminal: %r" % (what, out[:800]),
              not any(chr(c) in out for c in list(range(8)) + list(range(11, 32)) + [127]))
        check("%s: tamed name missing (exit %d): %r" % (what, r.returncode, out[:800]),
              r.returncode == 0 and "evil?]0;PWNED??[2J?[31m?red.c" in out)
    r = report("-i", data, "-f", "json")
    files = {row["file"] for row in json.loads(r.stdout)["rows"] if row.get("file")}
    check("escape: json keeps the bytes: %r" % files, any(f.endswith(name) for f in files))


def vdso_functions():
    """(start, end, name) of each sized function symbol of this host's vDSO, read from its
    .dynsym in this process's own mapping (the kernel maps the whole ELF file)."""
    with open("/proc/self/maps") as f:
        spans = [line.split()[0] for line in f if line.rstrip().endswith("[vdso]")]
    if not spans:
        return []
    lo, hi = (int(x, 16) for x in spans[0].split("-"))
    with open("/proc/self/mem", "rb") as mem:
        mem.seek(lo)
        img = mem.read(hi - lo)
    shoff, = struct.unpack_from("<Q", img, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", img, 0x3a)
    shdrs = [struct.unpack_from("<IIQQQQIIQQ", img, shoff + i * shentsize) for i in range(shnum)]
    funcs = []
    for sh in (x for x in shdrs if x[1] == 11):  # SHT_DYNSYM
        strtab = shdrs[sh[6]][4]
        for off in range(sh[4], sh[4] + sh[5], 24):
            name, info, _, _, value, size = struct.unpack_from("<IBBHQQ", img, off)
            if info & 0xF == 2 and size:  # STT_FUNC
                end = img.index(b"\0", strtab + name)
                funcs.append((value, value + size, img[strtab + name:end].decode()))
    return funcs


def test_vdso(tmp):
    """Q-rep-1: samples in the vDSO get their function's name (perf: __vdso_clock_gettime)
    on the host that recorded, with no 'no debug info' warning for it. Code outside every
    symbol of the vDSO (a kernel's out-of-line clock read, its local symbols stripped) has
    no name: it shows as [unknown] with its offset, as perf shows 0x7bd."""
    data = os.path.join(tmp, "vdso.data")
    rec = subprocess.run([HWPROF, "record", "-e", "cpu-clock", "-o", data, "--",
                          os.environ["RPT_VDSO"]], capture_output=True, text=True)
    check("vdso: record %s" % rec.stderr, rec.returncode == 0)
    r = report("-i", data, "-f", "json")
    rows = [x for x in json.loads(r.stdout)["rows"] if x["dso"] == "[vdso]"]
    if not rows:
        print("skip: no samples in [vdso] here (clock_gettime is a system call on this "
              "host's clock source)")
        return
    funcs = vdso_functions()
    names = {name for _, _, name in funcs}
    named = [x for x in rows if x["function"] in names]
    check("vdso: no samples in a __vdso_ function: %r" % rows,
          named and all(x["function"].startswith("__vdso_") for x in named))
    unnamed = [x for x in rows if x not in named]
    check("vdso: samples inside a vDSO function left unnamed: %r (functions %r)" %
          (unnamed, funcs),
          all(x["function"] == "[unknown]" and x["offset"] is not None and
              not any(lo <= x["offset"] < hi for lo, hi, _ in funcs) for x in unnamed))
    check("vdso: a warning about it: %r" % r.stderr, "[vdso]" not in r.stderr)
    # Its debug info is looked for by build-id only, without debuginfod when no server is
    # named: libdw would dlopen libdebuginfod and its thirty libraries to learn nothing.
    env = {k: v for k, v in os.environ.items() if k != "DEBUGINFOD_URLS"}
    d = subprocess.run([HWPROF, "report", "-i", data, "--no-cache"], capture_output=True,
                       text=True, env=dict(env, LD_DEBUG="files"))
    check("vdso: libdebuginfod is not loaded without DEBUGINFOD_URLS",
          d.returncode == 0 and "libdebuginfod" not in d.stderr,
          [x for x in d.stderr.splitlines() if "debuginfod" in x][:3])


def test_gc_sections(tmp):
    """R-5: with --gc-sections the linker resolves a discarded function's debug info to address
    0; that range covers code of another file without debug info, which must show by symbol
    only ('??'), never with a line of the discarded function. The live function keeps its
    exact line."""
    data = os.path.join(tmp, "gc.data")
    record_faults(HWPROF, data, os.environ["RPT_GC"], "300", "100")
    r = report("-i", data, "-f", "json", "-n", "0")
    rows = json.loads(r.stdout)["rows"]
    nodbg = [x for x in rows if x["function"] == "nodbg_work"]
    check("gc: code without debug info got a line: %r" % nodbg,
          sum(x["samples"] for x in nodbg) == 300 and
          all(x["file"] is None and x["line"] is None for x in nodbg))
    # hot() lies under the discarded range too, where the line table mixes both functions'
    # rows: its samples keep their function, and no line rather than big_unused's.
    hot = [x for x in rows if x["function"] == "hot"]
    check("gc: the live function under the discarded range %r" % hot,
          len(hot) == 1 and hot[0]["samples"] == 100 and hot[0]["line"] is None)
    check("gc: the warning %r" % r.stderr,
          "100 samples shown by function only" in r.stderr and "--gc-sections" in r.stderr)


def test_annotate_range(tmp):
    """R-8: annotate shows a function's own lines: a one-line function ends on its line, not
    at the next column-0 brace (the next function's)."""
    data = os.path.join(tmp, "oneline.data")
    record_faults(HWPROF, data, os.environ["RPT_ONELINE"])
    r = annotate("-i", data, "--stdio", "one")
    one, after = hot_line("wl_oneline.c", "oneline"), hot_line("wl_oneline.c", "after")
    shown = [int(m.group(1)) for m in re.finditer(r"^[#+.* ] .{20,30}?\s(\d+)  ", r.stdout,
                                                    re.M)]
    check("oneline: lines shown %r (function on %d, next function's line %d):\n%s" % (
              shown, one, after, r.stdout[-800:]),
          r.returncode == 0 and one in shown and not [l for l in shown if l > one])


def fifo_report(fifo, data, *args):
    """report -i FIFO ARGS, while a thread writes DATA's bytes (b"" for none) into FIFO and
    closes it, as `cat DATA > FIFO` does: the writer is gone before report reads."""
    def write():
        with open(fifo, "wb") as f:
            f.write(open(data, "rb").read() if data else b"")
    t = threading.Thread(target=write)
    t.start()
    try:
        return subprocess.run([HWPROF, "report", "-i", fifo, *args], capture_output=True,
                              text=True, timeout=30)
    finally:
        t.join()


def test_named_fifo(tmp):
    """A named FIFO as -i is read once, whole: its bytes were lost between the format's
    probe and the reader (which then waited for ever for a second writer)."""
    data = os.path.join(tmp, "fifo.data")
    fifo = os.path.join(tmp, "in.fifo")
    record_faults(HWPROF, data, os.environ["RPT_ONELINE"])
    os.mkfifo(fifo)
    want = report("-i", data, "-f", "json")
    try:
        got = fifo_report(fifo, data, "-f", "json")
        check("report -i FIFO: exit %d %r" % (got.returncode, got.stderr[-300:]),
              got.returncode == want.returncode and
              json.loads(got.stdout)["rows"] == json.loads(want.stdout)["rows"])
        one_line_error(fifo_report(fifo, None), 2, ["in.fifo", "gave no bytes"],
                       "report -i FIFO, nothing written")
    except subprocess.TimeoutExpired:
        check("report -i FIFO ended", False, "still waiting after 30 s")


def test_stdio(tmp):
    """Issue 17: perf's --stdio is accepted: the text report, byte for byte; with another
    format a usage error."""
    data = os.path.join(tmp, "stdio.data")
    record_faults(HWPROF, data, os.environ["RPT_ONELINE"])
    plain, stdio = report("-i", data), report("-i", data, "--stdio")
    check(f"--stdio is the text report: {stdio.returncode} {stdio.stderr!r}",
          stdio.returncode == 0 and stdio.stdout == plain.stdout and "share" in plain.stdout)
    bad = report("-i", data, "--stdio", "-f", "json")
    check(f"--stdio -f json: {bad.returncode} {bad.stderr!r}",
          bad.returncode == 64 and "--stdio is the text report; it excludes -f json" in bad.stderr)


def test_annotate_rebuilt(tmp):
    """Breaker: annotate FUNCTION of a binary rebuilt since the recording says it was rebuilt
    (the cause) before that the name has no samples; the closest names are listed once."""
    exe = os.path.join(tmp, "rebuilt")
    shutil.copy(os.environ["RPT_ONELINE"], exe)
    data = os.path.join(tmp, "rebuilt.data")
    record_faults(HWPROF, data, exe)
    before = annotate("-i", data, "--stdio", "one")
    shutil.copy(os.environ["RPT_ESCAPE"], exe)  # another build at the same path
    after = annotate("-i", data, "--stdio", "one")
    lines = after.stderr.splitlines()
    check(f"annotate of the recorded build: rc {before.returncode}", before.returncode == 0)
    check(f"rebuilt: the rebuild named before the error: {after.stderr!r}",
          after.returncode == 2 and len(lines) == 2 and "rebuilt since the recording" in lines[0]
          and "FUNCTION 'one': no samples" in lines[1])
    closest = lines[-1].split("(closest: ")[-1].rstrip(")").split(", ") if lines else []
    check(f"closest names listed once: {closest}", len(closest) == len(set(closest)))


def test_lambdas(tmp):
    """R-6: two lambdas inlined into one function are two functions in the report, named by
    their scope (g++ leaves the closure types unnamed: where each is written names it)."""
    prog = os.environ.get("RPT_LAMBDA")
    if not prog:
        print("skip: no C++ compiler, no lambda workload")
        return
    data = os.path.join(tmp, "lambda.data")
    record_faults(HWPROF, data, prog, "100")
    rows = json.loads(report("-i", data, "-f", "json", "-n", "0").stdout)["rows"]
    by_line = {}
    for x in rows:
        if x["file"] and x["file"].endswith("wl_lambda.cpp"):
            by_line.setdefault(x["line"], set()).add(x["function"])
            by_line.setdefault(("n", x["line"]), 0)
            by_line[("n", x["line"])] += x["samples"]
    once, twice = hot_line("wl_lambda.cpp", "lambda_once"), hot_line("wl_lambda.cpp",
                                                                     "lambda_twice")
    names = (by_line.get(once, set()), by_line.get(twice, set()))
    check("lambda rows: %r" % by_line,
          by_line.get(("n", once)) == 100 and by_line.get(("n", twice)) == 200 and
          len(names[0]) == 1 and len(names[1]) == 1 and names[0] != names[1] and
          all("operator()" in next(iter(n)) and next(iter(n)) != "operator()" for n in names))


def test_split_dwarf(tmp):
    """R-1: with -gsplit-dwarf the inline frames come from the .dwo: the same rows as the
    ordinary build, callee and caller views alike."""
    views = []
    for prog in (os.environ["RPT_INLINE"], os.environ["RPT_SPLIT"]):
        data = os.path.join(tmp, os.path.basename(prog) + ".split.data")
        record_faults(HWPROF, data, prog, "1000")
        view = []
        for mode in ("callee", "caller"):
            rows = json.loads(report("-i", data, "-f", "json", "-n", "0",
                                     "--inline=" + mode).stdout)["rows"]
            view.append(sorted((x["function"], x["inlined_into"], x["line"], x["samples"])
                               for x in rows if x["file"] and
                               x["file"].endswith("wl_inline.c")))
        views.append(view)
    check("split DWARF rows differ:\n%r\n%r" % (views[0], views[1]),
          views[0] == views[1] and any(r[0] == "poke" for r in views[1][0]))


def debug_root(tmp, name):
    """TMP/NAME holding RPT_DWARF_BARE's debug file in a .build-id tree, and a recording of the
    bare binary's faults: (root, data, its HOT line), or None (with a printed skip) when
    the split workload was not built."""
    bare, debug = os.environ.get("RPT_DWARF_BARE"), os.environ.get("RPT_DWARF_DEBUG")
    if not bare or not debug or not build_id(bare):
        print("skip: the split workload was not built")
        return None
    bid = build_id(bare)
    root = os.path.join(tmp, name)
    os.makedirs(os.path.join(root, ".build-id", bid[:2]))
    os.symlink(debug, os.path.join(root, ".build-id", bid[:2], bid[2:] + ".debug"))
    data = record_faults(HWPROF, os.path.join(tmp, name + ".data"), bare, "1000")
    return root, data, hot_line("wl_dwarf.c", "dwarf")


def test_annotate_debug_dir(tmp):
    """W: annotate takes --debug-dir as report does (its warning suggests it)."""
    got = debug_root(tmp, "dbgroot")
    if not got:
        return
    root, data, line = got
    without = annotate("-i", data, "--stdio", "--limit", "1")
    got = annotate("-i", data, "--stdio", "--limit", "1", "--debug-dir", root)
    check("annotate --debug-dir: %d %r\n%s" % (got.returncode, got.stderr, got.stdout[:1200]),
          "--debug-dir" in without.stderr and
          got.returncode == 0 and "wl_dwarf.c" in got.stdout and
          re.search(r"^# .* %d  " % line, got.stdout, re.M))


def test_debug_dir_forms(tmp):
    """--debug-dir given relative to the current directory finds the build-id file (libdwfl
    skips a relative entry for build-ids); a file, a ':' in the name or an empty name is said
    for what it is."""
    got = debug_root(tmp, "reldbg")
    if not got:
        return
    root, data, line = got
    r = subprocess.run([HWPROF, "report", "-i", data, "--no-cache", "-n", "1",
                        "--debug-dir", "reldbg"], capture_output=True, text=True, cwd=tmp,
                       timeout=120)
    check("relative --debug-dir: %d %r\n%s" % (r.returncode, r.stderr, r.stdout[-600:]),
          r.returncode == 0 and not r.stderr and "wl_dwarf.c:%d " % line in r.stdout)
    r = report("-i", data, "-n", "1", "--debug-dir", data)
    check("a file as --debug-dir: %r" % r.stderr, "'%s': not a directory" % data in r.stderr)
    one_line_error(report("-i", data, "--debug-dir", root + ":/usr"), 64,
                   ["--debug-dir", "':' cannot be in it"], "a ':' in --debug-dir")
    # An empty name was taken for the current directory, and searched with a warning.
    one_line_error(report("-i", data, "--debug-dir", ""), 64, ["--debug-dir", "empty"],
                   "an empty --debug-dir")


def test_two_statics_of_one_name(tmp):
    """Two static functions named helper, in a.c and b.c: two rows of --sort function, each
    with its own samples (they were one row summing both, as one function)."""
    cc = os.environ.get("RPT_CC", "cc")
    # mmap, not malloc: meson's MALLOC_PERTURB_ would have memset touch the pages.
    body = ("#include <sys/mman.h>\nstatic void helper(int n) { char *p = mmap(0, n * 4096, "
            "PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);\n"
            "for (int i = 0; i < n; i++) p[i * 4096] = 1; }\n"
            "void %s(int n) { helper(n); }\n")
    srcs = []
    for name, fn in (("a.c", "from_a"), ("b.c", "from_b")):
        srcs.append(os.path.join(tmp, name))
        with open(srcs[-1], "w") as f:
            f.write(body % fn)
    srcs.append(os.path.join(tmp, "m.c"))
    with open(srcs[-1], "w") as f:
        f.write("void from_a(int);\nvoid from_b(int);\n"
                "int main(void) { from_a(300); from_b(100); return 0; }\n")
    prog = os.path.join(tmp, "twostatic")
    made = subprocess.run([cc, "-g", "-O1", "-fno-inline", *srcs, "-o", prog],
                          capture_output=True, text=True)
    if not check("builds: %s" % made.stderr, made.returncode == 0):
        return
    data = record_faults(HWPROF, os.path.join(tmp, "twostatic.data"), prog)
    r = report("-i", data, "--no-cache", "-s", "function", "-f", "json", "-n", "0")
    rows = [x for x in json.loads(r.stdout)["rows"] if x["function"] == "helper"]
    got = sorted((os.path.basename(x["file"] or "?"), x["samples"]) for x in rows)
    check("two helper rows, a.c's 300 faults and b.c's 100: %r" % got,
          len(got) == 2 and got[0][0] == "a.c" and got[1][0] == "b.c" and
          got[0][1] >= 300 and 100 <= got[1][1] < 300, rows)


def test_zstd_debug_file_with_own_symtab(tmp):
    """A binary that keeps its symbol table (strip --strip-debug) with its DWARF in a
    zstd-compressed debug file, which libdw 0.188 cannot read and whose Elf libdwfl holds out
    of reach: read from an inflated copy, its lines are there."""
    cc, src = os.environ.get("RPT_CC", "cc"), os.path.join(tmp, "zs.c")
    with open(src, "w") as f:
        # mmap, not malloc: meson's MALLOC_PERTURB_ would have memset touch the pages.
        f.write("#include <sys/mman.h>\nint main(void) { char *p = mmap(0, 1 << 24, "
                "PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);\n"
                "for (int i = 0; i < 1 << 24; i += 4096) p[i] = 1; /* HOT: zs */\n"
                "return p[4096] - 1; }\n")
    hot = next(i for i, text in enumerate(open(src), 1) if "HOT: zs" in text)
    prog, debug = os.path.join(tmp, "zs"), os.path.join(tmp, "zs.debug")
    made = subprocess.run([cc, "-g", "-O1", src, "-o", prog], capture_output=True)
    zstd = made.returncode == 0 and subprocess.run(
        ["objcopy", "--only-keep-debug", "--compress-debug-sections=zstd", prog, debug],
        capture_output=True).returncode == 0
    if not zstd:
        print("skip: no compiler, or objcopy here cannot compress with zstd (binutils 2.40+)")
        return
    check("strip --strip-debug", subprocess.run(
        ["objcopy", "--strip-debug", "--add-gnu-debuglink=" + debug, prog]).returncode == 0)
    data = os.path.join(tmp, "zs.data")
    record_faults(HWPROF, data, prog)
    r = report("-i", data, "--no-cache", "-n", "1")
    check("zstd debug file: %r\n%s" % (r.stderr, r.stdout[-800:]),
          r.returncode == 0 and not r.stderr and re.search(r" zs\.c:%d +main " % hot, r.stdout))


def test_inline(tmp):
    """A recording of rpt_inline: JSON, CSV and text views, the caller view, --function."""
    data = os.path.join(tmp, "inline.data")
    record_faults(HWPROF, data, os.environ["RPT_INLINE"], "1000")
    poke = hot_line("wl_inline.c", "poke")

    r = report("-i", data, "-f", "json")
    check("json: exit %d %s" % (r.returncode, r.stderr), r.returncode == 0)
    j = json.loads(r.stdout)
    h = j["header"]
    units = {c["event"].split(":")[0]: c["unit"] for c in h["counts"]}
    check("count units as stat gives them: %r" % units,
          units.get("task-clock") == "ns" and units.get("page-faults") == "")
    for k in ("event", "samples", "lost", "precise_ip_requested", "precise_ip_obtained",
              "counts"):
        check("json header lacks %s" % k, k in h)
    check("event %r" % h["event"], h["event"] == "page-faults")
    for c in h["counts"]:
        for k in ("event", "value", "enabled_ns", "running_ns", "scaled"):
            check("json count lacks %s" % k, k in c)
    rows = j["rows"]
    check("json rows: %d" % len(rows), len(rows) >= 2)
    for row in rows:
        for k in ("samples", "share", "share_ci95", "file", "line", "function",
                  "inlined_into", "dso"):
            check("json row lacks %s" % k, k in row)
        lo, hi = row["share_ci95"]
        check("interval %r around %r" % ((lo, hi),
                                                                            row["share"]), 0 <= lo <= row["share"] <= hi <= 1)
    top = rows[0]
    check("top row %r" % top, top["function"] == "poke" and top["inlined_into"] == "second" and
          top["line"] == poke and top["file"].endswith("/wl_inline.c"))
    check("shares do not sum to 1", abs(sum(r["share"] for r in rows) - 1) < 1e-6)

    r = report("-i", data, "-f", "csv")
    check("csv: exit %d" % r.returncode, r.returncode == 0)
    table = list(csv.DictReader(io.StringIO(r.stdout)))
    check("csv has %d rows, json %d" % (len(table), len(rows)), len(table) == len(rows))
    check("csv top row %r" % table[0], table[0]["function"] == "poke" and int(table[0]["line"]) == poke and
          int(table[0]["samples"]) == top["samples"])

    r = report("-i", data, "--inline=caller", "-f", "json", "-n", "2")
    j = json.loads(r.stdout)
    check("caller view top row %r" % j["rows"][0],
          j["rows"][0]["function"] == "second" and
          j["rows"][0]["line"] == hot_line("wl_inline.c", "call_second"))
    check("--limit 2 gave %d rows" % len(j["rows"]), len(j["rows"]) == 2)

    # R-3: --function names a real function with the code inlined into it (perf's --symbols),
    # or an inline function wherever it was inlined; annotate of an inline-only function
    # shows the functions that inline it.
    every = json.loads(report("-i", data, "-f", "json", "-n", "0").stdout)["rows"]
    want = sum(x["samples"] for x in every
               if x["function"] == "second" or x["inlined_into"] == "second")
    got = json.loads(report("-i", data, "-f", "json", "-n", "0", "--function", "second")
                     .stdout)
    check("--function second: %d of %d, rows %r" % (got["header"]["samples"], want,
                                                    got["rows"]),
          want > 0 and got["header"]["samples"] == want and
          any(x["function"] == "poke" for x in got["rows"]))
    r = report("-i", data, "--function", "poke", "--inline=caller")
    check("--function of an inline function under --inline=caller: %r" % r.stderr, r.returncode == 2 and "--inline=caller charges inlined functions to their callers"
          in r.stderr)
    got = json.loads(report("-i", data, "-f", "json", "-n", "0", "--function", "poke").stdout)
    check("--function poke: %r" % got["header"],
          got["header"]["samples"] == sum(x["samples"] for x in every
                                          if x["function"] == "poke"))
    r = annotate("-i", data, "--stdio", "poke")
    check("annotate poke: %d %r %r" % (r.returncode, r.stderr, r.stdout[:400]),
          r.returncode == 0 and "'poke' has no code of its own" in r.stderr and
          re.search(r"^== second ", r.stdout, re.M) and re.search(r"^== first ", r.stdout, re.M))

    # a source saved after the binary was built may have moved lines: annotate says so.
    r = annotate("-i", data, "--stdio", "second")
    check("fresh source: %r" % r.stdout, r.returncode == 0 and "is newer than" not in r.stdout)
    moved = os.path.join(tmp, "moved")
    os.mkdir(moved)
    shutil.copy(os.path.join(SRC, "wl_inline.c"), moved)
    later = os.stat(os.environ["RPT_INLINE"]).st_mtime + 60
    os.utime(os.path.join(moved, "wl_inline.c"), (later, later))
    r = annotate("-i", data, "--stdio", "--prefix-map", os.path.realpath(SRC) + "=" + moved,
                 "second")
    check("edited source: %r" % r.stdout[:1500],
          r.returncode == 0 and re.search(r"note: wl_inline\.c is newer than rpt_inline: if it "
                                          r"was edited", r.stdout))

    r = report("-i", data)
    check("text view:\n" + r.stdout, r.returncode == 0 and "poke (inlined into second)" in r.stdout and
          "wl_inline.c:%d" % poke in r.stdout)
    r = report("-i", data, "--percent-limit", "100")
    check("--percent-limit 100: %r" % r.stdout[-300:], r.returncode == 0 and "no row reaches --percent-limit" in r.stdout and
          "filters" not in r.stdout)
    r = report("-i", data, "--percent-limit", "50", "-f", "json")
    check("--percent-limit 50", len(json.loads(r.stdout)["rows"]) == 1)
    # a row of several addresses has no one offset: null, not 0.
    j = json.loads(report("-i", data, "-s", "dso", "-f", "json").stdout)
    check("-s dso offsets %r" % j["rows"], all(x["offset"] is None for x in j["rows"]))
    t = list(csv.DictReader(io.StringIO(report("-i", data, "-s", "dso", "-f", "csv").stdout)))
    check("-s dso csv offsets %r" % t, all(x["offset"] == "" for x in t))
    check("one address: %r" % top, isinstance(top["offset"], int) and top["offset"] > 0)
    r = report("-i", data, "--sort", "dso", "-f", "json")
    check("--sort dso", json.loads(r.stdout)["rows"][0]["dso"].endswith("/rpt_inline"))


def test_inline_intervals(tmp):
    """W: every share printed inside its own printed interval (rounded outward). About 15000
    samples: a one-sample row prints 0.01% with an upper bound under 0.05%."""
    big = os.path.join(tmp, "big-inline.data")
    record_faults(HWPROF, big, os.environ["RPT_INLINE"], "3700")
    r = report("-i", big, "-n", "0")
    rows = re.findall(r"^ *([\d.]+)%.? +\[([\d.]+), ([\d.]+)\]", r.stdout, re.M)
    check("shares outside their intervals: %r" % [x for x in rows
                                                  if not float(x[1]) <= float(x[0]) <= float(x[2])],
          rows and all(float(lo) <= float(sh) <= float(hi) for sh, lo, hi in rows))


def test_inline_bad_input(tmp):
    """A recording of rpt_inline read with bad options, damaged, cut short, or behind junk."""
    data = os.path.join(tmp, "inline.data")
    record_faults(HWPROF, data, os.environ["RPT_INLINE"], "1000")
    check_junk_after_trailer(tmp, data)
    check_paths_and_disk(tmp, data)
    # Bad input: one line, cause and way out, the documented exit code.
    missing = os.path.join(tmp, "missing.data")
    one_line_error(report("-i", missing), 2, ["missing.data"], "missing file")
    empty = os.path.join(tmp, "empty.data")
    open(empty, "w").close()
    one_line_error(report("-i", empty), 2, ["empty.data"], "empty file")
    rnd = os.path.join(tmp, "random.data")
    with open(rnd, "wb") as f:
        f.write(os.urandom(4096))
    one_line_error(report("-i", rnd), 2, ["random.data"], "random file")
    with open(data, "rb") as f:
        newer = bytearray(f.read())
    newer[8:10] = (99).to_bytes(2, "little")  # major version, docs/format.md
    newpath = os.path.join(tmp, "newer.data")
    with open(newpath, "wb") as f:
        f.write(newer)
    one_line_error(report("-i", newpath), 2, ["newer.data"], "newer major version")
    one_line_error(report("-i", data, "--event", "cycles"), 2, ["--event", "cycles",
                                                               "page-faults"], "unknown event")
    one_line_error(report("-i", data, "--sort", "nope"), 64, ["nope"], "unknown sort key")
    one_line_error(report("-i", data, "--format", "xml"), 64, ["xml"], "unknown format")
    one_line_error(report("-i", data, "--pid", "abc"), 64, ["--pid", "abc"], "bad pid")
    one_line_error(report("-i", data, "--pid", "999999999"), 2, ["--pid", "999999999"],
                   "pid without samples")
    one_line_error(report("-i", data, "--comm", "nosuch"), 2, ["--comm", "nosuch"],
                   "unknown comm")
    one_line_error(report("-i", data, "--percent-limit", "x"), 64, ["--percent-limit"],
                   "bad percent")
    # A truncated file: its rows, the reader's warning, exit 1.
    with open(data, "rb") as f:
        whole = f.read()
    cut = os.path.join(tmp, "cut.data")
    with open(cut, "wb") as f:
        f.write(whole[: len(whole) * 3 // 4])
    r = report("-i", cut, "-f", "json")
    check("cut file: exit %d, want 1" % r.returncode, r.returncode == 1)
    check("cut file warning: %r" % r.stderr, "cut.data" in r.stderr and "warning" in r.stderr)
    check("cut file: partial flag", json.loads(r.stdout)["header"]["partial"] is True)
    r = report("-i", cut, "--stdio")
    check("cut file, no LOST read: lost unknown: %r" % r.stdout[:300],
          ", lost: unknown," in r.stdout and "at least 0" not in r.stdout)
    r = report("--help")
    check("--help", r.returncode == 0 and r.stdout.startswith("usage: hwprof report"))


def test_group(tmp):
    """--group: beside the shown event's share, each other sampled event's share of the same
    rows (the value vector); text only, self shares only; one event: a note, no column."""
    data = os.path.join(tmp, "group.data")
    rec = subprocess.run([HWPROF, "record", "-e", "page-faults,minor-faults", "-c", "1", "-o",
                          data, "--", os.environ["RPT_INLINE"], "1000"], capture_output=True,
                         text=True)
    check("record two events: %s" % rec.stderr, rec.returncode == 0)
    r = report("-i", data, "--group", "-n", "0")
    check("--group: no warning that minor-faults is not shown: %r" % r.stderr,
          r.returncode == 0 and "not shown" not in r.stderr)
    lines = r.stdout.splitlines()
    head = next((l for l in lines if l.split()[:1] == ["share"]), "")
    check("--group header: share, then minor-faults: %r" % head,
          head.split()[:3] == ["share", "minor-faults", "95%"])
    rows = [l.split() for l in lines if re.match(r"^\s*\d+\.\d\d%", l)]
    # Both events count the same faults (a major fault would be page-faults' alone).
    same = all(abs(float(x[0].rstrip("~%")) - float(x[1].rstrip("%"))) <= 0.05 for x in rows)
    check("--group: minor-faults' share beside page-faults' on every row: %r" % rows[:4],
          rows and same and float(rows[0][1].rstrip("%")) > 50)
    plain = [l.split()[0] for l in report("-i", data, "-n", "0").stdout.splitlines()
             if re.match(r"^\s*\d+\.\d\d%", l)]
    check("--group keeps report's rows", plain == [x[0] for x in rows], (plain[:4], rows[:4]))
    for opt, want in ((["-f", "csv"], "-f text"), (["--children"], "--no-children")):
        r = report("-i", data, "--group", *opt)
        check("--group %s: usage error %r" % (opt[0], r.stderr),
              r.returncode == 64 and want in r.stderr)
    one = record_faults(HWPROF, os.path.join(tmp, "group1.data"), os.environ["RPT_INLINE"], "100")
    r = report("-i", one, "--group")
    check("--group, one event: a note, no column: %r" % r.stderr,
          r.returncode == 0 and "no other column" in r.stderr and
          any(l.split()[:2] == ["share", "95%"] for l in r.stdout.splitlines()))



def test_whole_stack_formats(tmp):
    """folded and svg hold every stack whole: an option that shapes rows is a usage error
    naming it, not silently ignored; -s data and --inline, which they honour, are taken."""
    data = record_faults(HWPROF, os.path.join(tmp, "whole.data"), os.environ["RPT_INLINE"], "100")
    for fmt in ("folded", "svg"):
        out = ["-o", os.path.join(tmp, "x.svg")] if fmt == "svg" else []
        for opt in (["-n", "2"], ["--percent-limit", "5"], ["-s", "function"], ["--children"],
                    ["--no-children"], ["--cacheline-size", "128"],
                    ["--call-graph=callee"], ["-G"]):
            r = report("-i", data, "-f", fmt, *out, *opt)
            first = r.stderr.split("\n")[0]
            name = opt[0].split("=")[0]
            check(f"-f {fmt} {' '.join(opt)}: usage error naming it {r.returncode} {r.stderr!r}",
                  r.returncode == 64 and f"error: {name} " in first)
            check(f"-f {fmt} {' '.join(opt)}: the -s data hint only for -s: {first!r}",
                  ("-s data" in first) == (name == "-s"))
        # 0 is "every row", what these formats hold anyway.
        for opt in (["-s", "data"], ["--inline"], ["-n", "0"], ["--percent-limit", "0"],
                    ["-n", "5", "-n", "0"], ["--percent-limit", "5", "--percent-limit", "0"]):
            r = report("-i", data, "-f", fmt, *out, *opt)
            check(f"-f {fmt} {' '.join(opt)}: taken {r.returncode} {r.stderr!r}",
                  r.returncode == 0)

if __name__ == "__main__":
    tmp_dir = tempfile.mkdtemp(prefix="rpt-cli-", dir=os.environ.get("RPT_TMP"))
    try:
        run_cases(globals(), tmp_dir)
    finally:
        shutil.rmtree(tmp_dir, ignore_errors=True)
