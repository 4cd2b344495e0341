#!/usr/bin/env python3
"""report_cli.py HWPROF - `hwprof report` end to end: JSON and CSV parse and agree with each
other and with the text view; bad input gives one line and the documented exit code."""
import csv
import ctypes.util
import io
import json
import os
import subprocess
import sys
import shutil
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

HWPROF = sys.argv[1]
SRC = os.environ["RPT_SRC"]
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def hot_line(src, token):
    with open(os.path.join(SRC, src)) as f:
        for n, line in enumerate(f, 1):
            if "HOT: " + token in line:
                return n
    raise SystemExit("no HOT: %s in %s" % (token, src))


def report(*args):
    return subprocess.run([HWPROF, "report", *args], capture_output=True, text=True)


def one_line_error(r, code, words, what):
    lines = r.stderr.strip().splitlines()
    check(r.returncode == code, "%s: exit %d, want %d (%s)" % (what, r.returncode, code,
                                                               r.stderr.strip()))
    check(len(lines) >= 1 and all(w in lines[0] for w in words),
          "%s: message %r lacks %r" % (what, r.stderr, words))
    check("Sanitizer" not in r.stderr and "runtime error" not in r.stderr,
          "%s: sanitizer report" % what)
    if code != 64:
        check(len(lines) == 1, "%s: %d lines of error, want 1: %r" % (what, len(lines),
                                                                        r.stderr))


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if "Build ID:" in line:
            return line.split("Build ID:")[1].strip()
    return None


def check_debuginfod(tmp):
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
    subprocess.run([HWPROF, "record", "-e", "page-faults", "-c", "1", "-o", data, "--", bare,
                    "1000"], capture_output=True)
    env = dict(os.environ, DEBUGINFOD_URLS="http://127.0.0.1:%d" % server.server_port,
               DEBUGINFOD_CACHE_PATH=os.path.join(tmp, "cache"), DEBUGINFOD_TIMEOUT="10")
    r = subprocess.run([HWPROF, "report", "-i", data, "-f", "json"], capture_output=True,
                       text=True, env=env)
    server.shutdown()
    check(r.returncode == 0, "debuginfod report: exit %d %s" % (r.returncode, r.stderr))
    top = json.loads(r.stdout)["rows"][0]
    check(want in served, "debuginfod was not asked for %s (asked: %r)" % (want, served))
    check(top["line"] == hot_line("wl_dwarf.c", "dwarf") and top["function"] == "touch",
          "debuginfod: top row %r" % top)


def check_kernel(tmp):
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
    check(kernel and all(row["function"] for row in kernel[:3]),
          "kernel rows without names: %r" % kernel[:3])


def main():
    tmp = tempfile.mkdtemp(prefix="rpt-cli-", dir=os.environ.get("RPT_TMP"))
    data = os.path.join(tmp, "inline.data")
    rec = subprocess.run([HWPROF, "record", "-e", "page-faults", "-c", "1", "-o", data, "--",
                          os.environ["RPT_INLINE"], "1000"], capture_output=True, text=True)
    check(rec.returncode == 0, "record: %s" % rec.stderr)
    poke = hot_line("wl_inline.c", "poke")

    r = report("-i", data, "-f", "json")
    check(r.returncode == 0, "json: exit %d %s" % (r.returncode, r.stderr))
    j = json.loads(r.stdout)
    h = j["header"]
    for k in ("event", "samples", "lost", "precise_ip_requested", "precise_ip_obtained",
              "counts"):
        check(k in h, "json header lacks %s" % k)
    check(h["event"] == "page-faults", "event %r" % h["event"])
    for c in h["counts"]:
        for k in ("event", "value", "enabled_ns", "running_ns", "scaled"):
            check(k in c, "json count lacks %s" % k)
    rows = j["rows"]
    check(len(rows) >= 2, "json rows: %d" % len(rows))
    for row in rows:
        for k in ("samples", "share", "share_ci95", "file", "line", "function",
                  "inlined_into", "dso"):
            check(k in row, "json row lacks %s" % k)
        lo, hi = row["share_ci95"]
        check(0 <= lo <= row["share"] <= hi <= 1, "interval %r around %r" % ((lo, hi),
                                                                            row["share"]))
    top = rows[0]
    check(top["function"] == "poke" and top["inlined_into"] == "second" and
          top["line"] == poke and top["file"].endswith("/wl_inline.c"), "top row %r" % top)
    check(abs(sum(r["share"] for r in rows) - 1) < 1e-6, "shares do not sum to 1")

    r = report("-i", data, "-f", "csv")
    check(r.returncode == 0, "csv: exit %d" % r.returncode)
    table = list(csv.DictReader(io.StringIO(r.stdout)))
    check(len(table) == len(rows), "csv has %d rows, json %d" % (len(table), len(rows)))
    check(table[0]["function"] == "poke" and int(table[0]["line"]) == poke and
          int(table[0]["samples"]) == top["samples"], "csv top row %r" % table[0])

    r = report("-i", data, "--inline=caller", "-f", "json", "-n", "2")
    j = json.loads(r.stdout)
    check(j["rows"][0]["function"] == "second" and
          j["rows"][0]["line"] == hot_line("wl_inline.c", "call_second"),
          "caller view top row %r" % j["rows"][0])
    check(len(j["rows"]) == 2, "--limit 2 gave %d rows" % len(j["rows"]))

    r = report("-i", data)
    check(r.returncode == 0 and "poke (inlined into second)" in r.stdout and
          "wl_inline.c:%d" % poke in r.stdout, "text view:\n" + r.stdout)
    r = report("-i", data, "--percent-limit", "50", "-f", "json")
    check(len(json.loads(r.stdout)["rows"]) == 1, "--percent-limit 50")
    r = report("-i", data, "--sort", "dso", "-f", "json")
    check(json.loads(r.stdout)["rows"][0]["dso"].endswith("/rpt_inline"), "--sort dso")

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
    check(r.returncode == 1, "cut file: exit %d, want 1" % r.returncode)
    check("cut.data" in r.stderr and "warning" in r.stderr, "cut file warning: %r" % r.stderr)
    check(json.loads(r.stdout)["header"]["partial"] is True, "cut file: partial flag")
    r = report("--help")
    check(r.returncode == 0 and r.stdout.startswith("usage: hwprof report"), "--help")

    check_debuginfod(tmp)
    check_kernel(tmp)

    shutil.rmtree(tmp)
    print("%d failures" % len(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
