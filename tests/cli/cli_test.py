#!/usr/bin/env python3
"""The shared CLI behaviour: dispatch, help, bad options and numbers (cli.c, hwprof.c).
Every failure is one "hwprof CMD: error: ..." line plus the --help hint, exit 64."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from hwprof_test import check, finish  # noqa: E402
import hwprof_test  # noqa: E402

HWPROF = sys.argv[1]


def run(*args):
    p = hwprof_test.run([HWPROF, *args])
    return p.returncode, p.stdout, p.stderr


rc, out, err = run("--version")
check("--version", rc == 0 and out.startswith("hwprof "), out)
rc, out, err = run("help", "record")
check("help record prints record's usage", rc == 0 and "hwprof record" in out, out)
rc, out, err = run("--help", "record")
check("--help record prints record's usage", rc == 0 and out.startswith("usage: hwprof record"), out)
rc, out, err = run("-v")
check("-v is --version", rc == 0 and out.startswith("hwprof "), out)
rc, out, err = run("help", "help")
check("help help prints the command list", rc == 0 and out.startswith("usage: hwprof "), (rc, err))
rc, out, err = run("help", "nosuch")
check("help of an unknown command is a usage error", rc == 64 and "'nosuch' is not a hwprof command" in err, (rc, err))
rc, out, err = run("nosuch")
check("unknown command", rc == 64 and "'nosuch' is not a hwprof command" in err, (rc, err))

# The subcommands as 'hwprof --help' lists them ("   NAME   summary" under "Commands:"), so a
# new one gets these checks without an edit here.
rc, out, err = run("--help")
COMMANDS = []
listing = False
for line in out.splitlines():
    if line == "Commands:":
        listing = True
    elif listing and line.startswith("   ") and line.split():
        COMMANDS.append(line.split()[0])
    elif listing:
        listing = False
check("--help lists the subcommands", rc == 0 and
      {"record", "report", "annotate", "stat", "list"} <= set(COMMANDS), (rc, out))

for cmd in COMMANDS:
    rc, out, err = run(cmd, "--bogus")
    lines = err.strip().splitlines()
    check(f"{cmd} --bogus: one error line naming the option, then the hint",
          rc == 64 and len(lines) == 2 and lines[0] == f"hwprof {cmd}: error: '--bogus': unknown option"
          and lines[1] == f"hwprof {cmd}: try 'hwprof {cmd} --help'", (rc, err))
    rc, out, err = run(cmd, "--help")
    check(f"{cmd} --help", rc == 0 and "usage" in out.lower(), (rc, out[:80]))

# A long option without its value is named as the user typed it (H F30): getopt's optopt
# holds the option's val there, which is not what the user wrote.
for cmd, opt in (("record", "--count"), ("stat", "--format"), ("report", "--sort"),
                 ("annotate", "--source-dir"), ("record", "--output")):
    rc, out, err = run(cmd, opt)
    first = err.splitlines()[0] if err else ""
    check(f"{cmd} {opt} without a value", rc == 64 and
          first == f"hwprof {cmd}: error: '{opt}': missing its value", (rc, err))
rc, out, err = run("record", "--no-count=yes", "--", "true")
check("a value given to an option that takes none",
      rc == 64 and "'--no-count': takes no value" in err, (rc, err))
rc, out, err = run("record", "-c")
check("short option without its value",
      rc == 64 and "'-c': missing its value" in err and "unknown" not in err, (rc, err))
rc, out, err = run("record", "-Z")
check("unknown short option, last word", rc == 64 and "'-Z': unknown option" in err and
      "value" not in err, (rc, err))
rc, out, err = run("record", "--hlep")
check("a mistyped long option gets a suggestion",
      rc == 64 and "'--hlep': unknown option (did you mean '--help'?)" in err, (rc, err))
rc, out, err = run("stat", "--all-cpus", "-ja", "true")
check("an unknown letter inside a bundle is named, not the word before",
      rc == 64 and "'-j': unknown option" in err and "--all-cpus" not in err, (rc, err))
rc, out, err = run("report", "--xyzzy")
check("no suggestion for a word like no option",
      rc == 64 and "'--xyzzy': unknown option" in err and "did you mean" not in err, (rc, err))
rc, out, err = run("record", "-Z", "--", "true")
check("unknown short option", rc == 64 and "'-Z': unknown option" in err, (rc, err))

rc, out, err = run("record", "-c", "99999999999999999999999", "--", "true")
check("overflowing number is too large, not too small", rc == 64 and "too large" in err, err)
rc, out, err = run("record", "-c", "0", "--", "true")
check("zero period is too small", rc == 64 and "too small (at least 1)" in err, err)
rc, out, err = run("record", "-F", "abc", "--", "true")
check("not a number", rc == 64 and "-F 'abc': not a number" in err, err)

for cmd, names in (("report", "text, csv, json, folded, svg or pprof"), ("stat", "text, csv or json")):
    rc, out, err = run(cmd, "--format", "xml", "--", "true")
    check(f"{cmd} --format xml", rc == 64 and f"--format 'xml': not a format ({names})" in err, err)

# The executable exports none of its own functions: libdw's out-of-memory path calls glibc's
# error(3), and an exported error() of the CLI's would take that call (a crash in report
# under a low `ulimit -v`).
nm = subprocess.run(["nm", "-D", "--defined-only", sys.argv[1]], capture_output=True, text=True)
own = [l.split()[-1] for l in nm.stdout.splitlines() if len(l.split()) == 3 and l.split()[1] in "TtWw"]
check("no function of the executable is in its dynamic symbol table", nm.returncode == 0 and not own,
      (nm.returncode, own, nm.stderr))

finish()
