"""What the python tests share: one check() that prints and counts, finish() that exits with
the test's status, hot_line() that finds a workload's "HOT: name" marker, report_rows() that
finds the rows of a report's table, run() of a command, on_terminal() of a command on a
pseudo-terminal, record() of a command into a sample file (record_faults(): one sample per
page fault), wait_for() a condition and wait_for_threads() of a process, and run_cases() that
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
import tempfile
import time

failures = []

# record's options for one sample per page fault: exact IPs, and a count a test can predict.
EACH_FAULT = ["-e", "page-faults", "-c", "1"]


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


def report_rows(text):
    """The lines of TEXT (a text report) that are rows of its table, in order: those that start
    with a share, "12.34%", after any spaces (a 100.00% share fills its column: no space)."""
    return [l for l in text.splitlines() if re.match(r"\s*\d+\.\d+%", l)]


def run(cmd, timeout=30, **kw):
    """Runs CMD (a list) with text output captured; returns the CompletedProcess. Past TIMEOUT
    (seconds) subprocess.TimeoutExpired is raised. KW goes to subprocess.run (env, cwd, input,
    errors="replace" for output that may not be UTF-8)."""
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


# What record prints when the host, not hwprof, keeps an event from opening.
HOST_REFUSED = re.compile(r"perf_event_paranoid|[Pp]ermission denied|not supported|EACCES|EPERM")


def record(hwprof, out, args, cmd, timeout=60, want=0, label=None, skip=False, spin=None,
           no_loss=False):
    """Runs HWPROF record -o OUT ARGS -- CMD (lists), prints its stderr, and checks that no
    sanitizer spoke and that it exited WANT (None: the caller checks the status). The checks
    are named "LABEL exit 0" and "LABEL sanitizer-clean" (default LABEL "record ARGS").

    SKIP: when record fails because the host refuses the event (HOST_REFUSED: permission,
    perf_event_paranoid, an event not supported), the test exits 77 (skipped, with the reason);
    any other failure is checked as a failure, so a broken record never passes as a skip. SPIN (a number): appended to CMD as the work a workload
    does per page; while record says samples were lost (no " 0 lost," in its summary) it is
    run again with 4 times the work, up to four runs in all. NO_LOSS: also checks ("LABEL
    no sample lost") that the summary says none was.

    Record's stdout and stderr go to temporary files, not pipes: a target left running would
    hold a pipe open. Returns the CompletedProcess (text stdout and stderr)."""
    label = label or " ".join(["record", *args])
    runs = 4 if spin is not None else 1
    for attempt in range(runs):
        work = [str(spin * 4 ** attempt)] if spin is not None else []
        with tempfile.TemporaryFile("w+") as o, tempfile.TemporaryFile("w+") as e:
            p = subprocess.run([hwprof, "record", "-o", out, *args, "--", *cmd, *work],
                               stdout=o, stderr=e, text=True, timeout=timeout)
            o.seek(0)
            e.seek(0)
            p.stdout, p.stderr = o.read(), e.read()
        print(p.stderr, end="")
        if p.returncode != 0 or " 0 lost," in p.stderr or attempt + 1 == runs:
            break
        print(f"{label}: samples lost at {work[0]} loops per page; again with more")
    if skip and p.returncode != 0 and HOST_REFUSED.search(p.stderr):
        print(f"skip: hwprof {label} failed here ({p.returncode}): {p.stderr.strip()}")
        sys.exit(77)
    if want is not None:
        check(f"{label} exit {want}", p.returncode == want, p.returncode)
    check(f"{label} sanitizer-clean",
          "Sanitizer" not in p.stderr and "runtime error" not in p.stderr, p.stderr)
    if no_loss:
        check(f"{label} no sample lost", " 0 lost," in p.stderr, p.stderr)
    return p


def record_faults(hwprof, out, *cmd):
    """record() of CMD into OUT with one sample per page fault (EACH_FAULT: exact IPs, a count
    a test can predict), checked to exit 0; returns OUT."""
    record(hwprof, out, EACH_FAULT, list(cmd), label="record " + os.path.basename(out))
    return out


def wait_for(cond, secs, step=0.05):
    """Calls COND() every STEP seconds until it is true or SECS have passed; returns its last
    value."""
    end = time.monotonic() + secs
    while time.monotonic() < end:
        value = cond()
        if value:
            return value
        time.sleep(step)
    return cond()


def wait_for_threads(pid, n, secs=20):
    """Waits until process PID has N threads (or SECS have passed); returns whether it has."""
    return wait_for(lambda: len(os.listdir(f"/proc/{pid}/task")) >= n, secs)


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
