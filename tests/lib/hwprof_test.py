"""What the python tests share: one check() that prints and counts, finish() that exits with
the test's status, hot_line() that finds a workload's "HOT: name" marker, run() of a command, on_terminal() of a
command on a pseudo-terminal, record() of a command into a sample file, and run_cases() that
runs a script's cases, all or the one named by --case.

A test script puts this folder on its path and imports what it uses:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
    from hwprof_test import check, finish, hot_line, run

A script whose checks fall into independent cases defines each as a top-level function named
test_NAME and ends with run_cases(globals(), ARGS...). Its meson.build registers one meson test
per case (found the same way: lines starting with "def test_"), each run with "--case NAME",
so that a failure names its case.
"""
import os
import pty
import re
import select
import subprocess
import sys

failures = []


def check(name, cond, detail=""):
    """Prints "ok   NAME", or "FAIL NAME: DETAIL" and counts a failure. Returns COND."""
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else ": " + str(detail)))
    if not cond:
        failures.append(name)
    return cond


def finish(label=""):
    """Prints how many checks failed (after LABEL) and exits 1 if any did, else 0."""
    print(f"{label + ': ' if label else ''}{len(failures)} failures")
    sys.exit(1 if failures else 0)


def hot_line(path, name):
    """The number of the first line of PATH marked "HOT: NAME" (NAME whole: "HOT: work" is not
    "HOT: work2"). Hot lines are found by their marker, never by number. Exits the test when
    the marker is missing: the workload and the test disagree."""
    marker = re.compile(r"HOT: " + re.escape(name) + r"(?![\w-])")
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if marker.search(line):
                return n
    sys.exit(f"no 'HOT: {name}' marker in {path}")


def run(cmd, timeout=30, **kw):
    """Runs CMD (a list) with text output captured; returns the CompletedProcess."""
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


def record(hwprof, out, args, cmd, timeout=60):
    """Runs HWPROF record -o OUT ARGS -- CMD (lists), prints its stderr, and checks that it
    exits 0 and that no sanitizer spoke. Returns its stderr."""
    p = run([hwprof, "record", "-o", out] + list(args) + ["--"] + list(cmd), timeout=timeout)
    print(p.stderr, end="")
    check(f"record {' '.join(args)} exit 0", p.returncode == 0, p.returncode)
    check("record sanitizer-clean", "Sanitizer" not in p.stderr, p.stderr)
    return p.stderr


def on_terminal(argv):
    """Runs ARGV with stdout and stderr on one pseudo-terminal; returns (status, output)."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(argv[0], argv)
    out = b""
    while True:
        ready, _, _ = select.select([fd], [], [], 20)
        if not ready:
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace")


def selected_case(argv=None):
    """The NAME of "--case NAME" in ARGV (default sys.argv), or None: run every case. The
    option may come anywhere after the script's own positional arguments."""
    argv = sys.argv if argv is None else argv
    if "--case" not in argv:
        return None
    i = argv.index("--case")
    if i + 1 >= len(argv):
        sys.exit("--case needs a case name")
    return argv[i + 1]


def run_cases(namespace, *args, label=""):
    """Calls each function test_NAME of NAMESPACE (a script's globals()) in the order they are
    defined, with ARGS, printing "--- test_NAME" before it; only test_CASE with "--case CASE".
    Then finish(LABEL). An unknown case exits 2 naming the cases there are."""
    cases = {k[len("test_"):]: v for k, v in namespace.items()
             if k.startswith("test_") and callable(v)}
    case = selected_case()
    if case is not None and case not in cases:
        print(f"no case '{case}' (cases: {', '.join(cases)})", file=sys.stderr)
        sys.exit(2)
    for name, fn in cases.items():
        if case is None or name == case:
            print(f"--- test_{name}", flush=True)
            fn(*args)
    finish(label)
