#!/usr/bin/env python3
"""man_test.py HWPROF MAN_SRC MAN_BUILD - the man pages keep up with the commands: every
option that `hwprof COMMAND --help` names appears in docs/man/hwprof-COMMAND.1.scd, each
subcommand of `hwprof --help` has a page, and scdoc turned each into a roff page with a NAME
section (`man hwprof-record` after `meson install`)."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from hwprof_test import check, finish, run  # noqa: E402

HWPROF, SRC, BUILD = (os.path.abspath(a) for a in sys.argv[1:4])

top = run([HWPROF, "--help"]).stdout
commands = re.findall(r"^   ([a-z]+)  ", top, re.M)
check("hwprof --help lists the subcommands", len(commands) >= 5, top)
for name in ["hwprof"] + ["hwprof-" + c for c in commands]:
    page = os.path.join(BUILD, name + ".1")
    roff = open(page).read() if os.path.exists(page) else ""
    check(f"{name}.1 was built, with a NAME section", ".SH NAME" in roff, page)
for c in commands:
    src = os.path.join(SRC, f"hwprof-{c}.1.scd")
    text = open(src).read() if os.path.exists(src) else ""
    check(f"hwprof-{c}.1.scd exists", text != "", src)
    usage = run([HWPROF, c, "--help"]).stdout
    options = sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", usage)))
    missing = [o for o in options if f"*{o}" not in text]
    check(f"hwprof-{c}.1 documents every option of 'hwprof {c} --help'", not missing, missing)
finish("man")
