#!/usr/bin/env python3
"""report_names.py HWPROF - function names as perf 6.1 gives them where the symbol table is
unusual: Rust v0 and legacy mangling. Each case records a workload of tests/report with
`-e page-faults -c 1` (one sample per fresh page, exact IPs) and checks the names and counts."""
import json
import os
import subprocess
import sys
import tempfile

HWPROF = os.path.abspath(sys.argv[1])
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def record_faults(path, *argv):
    """Records ARGV with one sample per page fault into PATH; returns PATH."""
    rec = subprocess.run([HWPROF, "record", "-e", "page-faults", "-c", "1", "-o", path, "--",
                          *argv], capture_output=True, text=True)
    check(rec.returncode == 0, "record %s: %s" % (os.path.basename(path), rec.stderr))
    return path


def functions(data, *args):
    """{function: samples} of `report -s function` over DATA with ARGS; (dict, result)."""
    r = subprocess.run([HWPROF, "report", "-i", data, "-s", "function", "-f", "json", *args],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return {}, r
    return {x["function"]: x["samples"] for x in json.loads(r.stdout)["rows"]}, r


def check_rust(tmp):
    """Issue 10: Rust v0 names (_R...) demangle as perf's do, and --function finds them, the
    legacy trait method `<c::Poker as c::Poke>::poke` by `--function poke` too."""
    n = 100
    data = record_faults(os.path.join(tmp, "rust.data"), os.environ["RPT_RUST"], str(n))
    want = {"c::fill": n, "<c::Toucher as c::Touch>::touch": 2 * n,
            "<c::Poker as c::Poke>::poke": 3 * n}
    got, r = functions(data)
    check(all(got.get(k) == v for k, v in want.items()),
          "rust: names and samples %r, want %r (%s)" % (got, want, r.stderr))
    for query, name in (("fill", "c::fill"), ("c::fill", "c::fill"),
                        ("_RNvCse0t5XC0jcx_1c4fill", "c::fill"),
                        ("touch", "<c::Toucher as c::Touch>::touch"),
                        ("<c::Toucher as c::Touch>::touch", "<c::Toucher as c::Touch>::touch"),
                        ("poke", "<c::Poker as c::Poke>::poke"),
                        ("_ZN36_$LT$c..Poker$u20$as$u20$c..Poke$GT$4poke17h0123456789abcdefE",
                         "<c::Poker as c::Poke>::poke")):
        got, r = functions(data, "--function", query)
        check(got == {name: want[name]}, "rust: --function %s: %r, want %s (exit %d %s)" %
              (query, got, name, r.returncode, r.stderr.strip()))


def main():
    tmp = tempfile.mkdtemp(prefix="rpt-names-", dir=os.environ.get("RPT_TMP"))
    check_rust(tmp)
    if FAILS:
        print("%d failures" % len(FAILS))
        sys.exit(1)
    subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
