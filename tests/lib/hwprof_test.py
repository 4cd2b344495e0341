"""What the python tests share: one check() that prints and counts, finish() that exits with
the test's status, hot_line() that finds a workload's "HOT: name" marker, run() of a command.

A test script puts this folder on its path and imports what it uses:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
    from hwprof_test import check, finish, hot_line, run
"""
import re
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
