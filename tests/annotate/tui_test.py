#!/usr/bin/env python3
"""hwprof annotate's TUI driven under tmux (suite 'annotate'): the first screen at 80x24 shows
the header and the hottest line; TAB walks the hot lines; `f` opens the function list and Enter
opens a function; a resize to 60x20 redraws exactly what a fresh start at 60x20 shows (no
garbage); `q` leaves the terminal restored (no alternate screen, echo and icanon back on).
With the argument "signals": SIGTERM and Ctrl-C (SIGINT) also restore the terminal.

usage: tui_test.py HWPROF ANNOTATE_WORK [keys|signals]

Each tmux server runs on a private socket (-L) with no configuration, and is killed at the end.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from annotate_common import hot_line
from hwprof_test import EACH_FAULT, check, finish, record  # annotate_common put it on the path

HWPROF, WORK = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
MODE = sys.argv[3] if len(sys.argv) > 3 else "keys"
SOCKET = f"hwprof-annotate-{os.getpid()}"
FIRST, SECOND = hot_line("first"), hot_line("second")
INLINED = hot_line("inlined", "annotate_work.h")

if not shutil.which("tmux"):
    print("SKIP: tmux is not installed")
    sys.exit(77)


def tmux(*args, check_rc=True):
    p = subprocess.run(["tmux", "-L", SOCKET, "-f", "/dev/null"] + list(args),
                       capture_output=True, text=True, timeout=10)
    if check_rc and p.returncode != 0:
        raise RuntimeError(f"tmux {' '.join(args)}: {p.stderr.strip()}")
    return p.stdout


def start(name, cols, rows, command):
    tmux("new-session", "-d", "-s", name, "-x", str(cols), "-y", str(rows), command)
    tmux("set-option", "-t", name, "remain-on-exit", "on")


def screen(name):
    return tmux("capture-pane", "-p", "-t", name)


def wait_for(name, what, timeout=8.0):
    """Polls the pane until WHAT (a regex) shows; returns the screen (last one on timeout)."""
    end = time.monotonic() + timeout
    while True:
        s = screen(name)
        if re.search(what, s, re.M) or time.monotonic() > end:
            return s
        time.sleep(0.05)


def keys(name, *k):
    tmux("send-keys", "-t", name, *k)


def status(s):
    lines = s.rstrip("\n").split("\n")
    return lines[-1] if lines else ""


def wait_status(name, what, timeout=5.0):
    end = time.monotonic() + timeout
    while True:
        s = screen(name)
        if re.search(what, status(s)) or time.monotonic() > end:
            return s
        time.sleep(0.05)


def restored(name, label, exit_re):
    """After the program ended: the shell printed its status, and stty's view of the tty went
    to a file (the pane is too narrow for it)."""
    s = wait_for(name, r"^STTY$", timeout=8)
    check(f"{label}: exit status", re.search(exit_re, s, re.M), s)
    alt = tmux("display-message", "-p", "-t", name, "#{alternate_on}").strip()
    check(f"{label}: the alternate screen is left", alt == "0", alt)
    check(f"{label}: the view is gone", "event: page-faults" not in s, s)
    with open(os.path.join(TMP, f"stty.{name}")) as f:
        stty = " ".join(f.read().replace(";", " ").split())
    check(f"{label}: echo and icanon are back on",
          re.search(r"(^| )icanon( |$)", stty) and re.search(r"(^| )echo( |$)", stty), stty)


def command(data, name):
    # The shell stays to report the exit status and the terminal modes after hwprof ends.
    return (f"trap : INT; {HWPROF} annotate -i {data}; echo EXIT=$?; "
            f"stty -a > {TMP}/stty.{name}; echo STTY; sleep 30")


try:
    with tempfile.TemporaryDirectory() as d:
        TMP = d
        data = os.path.join(d, "w.data")
        record(HWPROF, data, EACH_FAULT, [WORK], skip=True)
        env_ok = subprocess.run(["tmux", "-V"], capture_output=True).returncode == 0
        if not env_ok:
            print("SKIP: tmux does not run")
            sys.exit(77)

        if MODE == "keys":
            start("a", 80, 24, command(data, "a"))
            # The status line is drawn last: before it, the pane may be half drawn.
            s = wait_for("a", r"hot \d+/\d+")
            lines = s.split("\n")
            check("first screen: the header", re.search(r"^event: page-faults", s, re.M), s)
            check("first screen: samples and lost", re.search(r"^samples: [\d,]+  lost: 0", s,
                                                              re.M), s)
            check("first screen: the hottest function", re.search(r"^work \[annotate_work\]",
                                                                  s, re.M), s)
            hot = [l for l in lines if "HOT: first" in l]
            check("first screen: the hottest line with its share",
                  hot and re.match(rf"^# +57\.1% +4000 +{FIRST} ", hot[0]), hot)
            check("first screen: the cursor is on it", re.search(rf"line {FIRST} +hot 1/3",
                                                                status(s)), status(s))
            check("80x24: 24 rows drawn", len(s.rstrip("\n").split("\n")) == 24, len(lines))

            keys("a", "Tab")
            s = wait_status("a", rf"line {SECOND} ")
            check("TAB: the next hot line", re.search(rf"line {SECOND} +hot 2/3", status(s)),
                  status(s))
            keys("a", "Tab")
            s = wait_status("a", rf"line {INLINED} ")
            check("TAB: into the inlined function", re.search(rf"line {INLINED} +hot 3/3",
                                                             status(s)), status(s))
            check("the inlined section is titled",
                  re.search(r"-- inlined fill_pages \(annotate_work\.h\), called at", s), s)
            keys("a", "Tab")
            s = wait_status("a", rf"line {FIRST} ")
            check("TAB wraps to the first hot line", f"line {FIRST} " in status(s), status(s))
            keys("a", "N")
            s = wait_status("a", rf"line {INLINED} ")
            check("N: the previous hot line", f"line {INLINED} " in status(s), status(s))

            keys("a", "/", "HOT: sec", "Enter")
            s = wait_status("a", rf"line {SECOND} ")
            check("/ search finds the line", f"line {SECOND} " in status(s), status(s))

            # Long lines scroll sideways; the status says from which column.
            before = [l for l in screen("a").split("\n") if "HOT: sec" in l]
            keys("a", "Right")
            s = wait_status("a", r"cols 9\+")
            after = [l for l in s.split("\n") if re.match(rf"^. +\S+ +\d+ +{SECOND} ", l)]
            check("Right: the text scrolls by 8 columns", "cols 9+" in status(s) and before and
                  after and after[0] != before[0], (status(s), before, after))
            keys("a", "Left")
            s = wait_status("a", r"^ line \d+  hot \d+/\d+  share of function  ")
            check("Left: back to column 1", "cols" not in status(s), status(s))

            keys("a", "s")
            s = wait_status("a", "share of total")
            check("s: share of all samples", "share of total" in status(s), status(s))
            keys("a", "s")

            keys("a", "f")
            s = wait_for("a", r"^functions: \d+")
            check("f: the function list", re.search(r"^functions: \d+, hottest first", s,
                                                     re.M), s)
            check("f: work on top", re.search(r"^# +\d+\.\d% +7000  work  \[annotate_work\]",
                                              s, re.M), s)
            keys("a", "j", "Enter")
            s = wait_for("a", r"^(?!work )\S.* \[\S+\] +\[view: [^]]+\] +\d+\.\d% of all samples")
            check("Enter opens another function",
                  re.search(r"^(?!work )\S.* \[\S+\] +\[view: [^]]+\] +\d+\.\d% of all samples", s, re.M), s)
            keys("a", "f", "g", "Enter")
            s = wait_for("a", r"^work \[annotate_work\]")
            check("back to work", re.search(r"^work \[annotate_work\]", s, re.M), s)

            keys("a", "?")
            # Its last line, not its title: the pane may be captured half drawn.
            s = wait_for("a", r"^  q +back; quit")
            check("?: help", "TAB" in s and "q " in s and "hwprof annotate: keys" in s, s)
            check("?: help's heat lines come from the heat table",
                  "next hot line (>= 0.5% of the function)" in s and
                  "Marker column: . under 0.5%  : under 5%  + under 20%  # 20% or more" in s, s)
            keys("a", "q")
            s = wait_for("a", r"^work \[annotate_work\]")
            check("q leaves the help", re.search(r"^work \[annotate_work\]", s, re.M), s)

            # Resize: the screen must equal a fresh start at the new size (no garbage).
            start("b", 60, 20, command(data, "b"))
            fresh = wait_status("b", rf"line {FIRST} ")
            keys("a", "g", "G", "Tab")	# back on the hottest line, as in a fresh start
            wait_status("a", rf"line {FIRST} ")
            tmux("resize-window", "-t", "a", "-x", "60", "-y", "20")
            end = time.monotonic() + 5
            while time.monotonic() < end:
                s = screen("a")
                if s == fresh:
                    break
                time.sleep(0.05)
            check("resize to 60x20 redraws as a fresh start", s == fresh,
                  "\n--- resized ---\n" + s + "--- fresh ---\n" + fresh)
            check("60x20: no line wider than 60", all(len(l) <= 60 for l in s.split("\n")))
            # Too small: a notice that fits, whole.
            tmux("resize-window", "-t", "a", "-x", "20", "-y", "5")
            s = wait_for("a", r"^too small; q$")
            check("20x5: the notice fits", re.search(r"^too small; q$", s, re.M), s)
            tmux("resize-window", "-t", "a", "-x", "80", "-y", "24")
            wait_status("a", r"hot \d+/\d+")

            keys("a", "q")
            restored("a", "q", r"^EXIT=0$")

            # A help longer than the screen scrolls; other keys go back.
            start("h", 45, 12, command(data, "h"))
            wait_status("h", r"hot \d+/\d+")
            keys("h", "?")
            s = wait_status("h", r"scroll")
            check("45x12 help: says it scrolls", "j k PgDn PgUp scroll" in status(s), status(s))
            keys("h", "Space", "Space", "Space")  # the help is over two pages at 45x12
            s = wait_for("h", r"^Press any key to go back")
            check("45x12 help: PgDn shows its end", "Press any key" in s, s)
            keys("h", "q")
            s = wait_status("h", r"hot \d+/\d+")
            check("45x12 help: q goes back", re.search(r"hot \d+/\d+", status(s)), status(s))
            keys("h", "q")

            # The sample file through stdin (-i -): the keys come from the terminal.
            start("p", 80, 24, f"cat {data} | {HWPROF} annotate -i -; echo EXIT=$?; "
                  f"stty -a > {TMP}/stty.p; echo STTY; sleep 30")
            s = wait_for("p", r"hot \d+/\d+")
            check("-i - from a pipe: the TUI opens", re.search(r"^work \[annotate_work\]", s,
                                                              re.M), s)
            keys("p", "Tab")
            s = wait_status("p", rf"line {SECOND} ")
            check("-i - from a pipe: keys are read", f"line {SECOND} " in status(s), status(s))
            keys("p", "q")
            restored("p", "-i - from a pipe: q", r"^EXIT=0$")
        else:
            start("t", 80, 24, command(data, "t"))
            wait_for("t", r"^event: page-faults")
            pane = tmux("display-message", "-p", "-t", "t", "#{pane_pid}").strip()
            kids = []
            for pid in os.listdir("/proc"):
                try:
                    with open(f"/proc/{pid}/stat") as f:
                        st = f.read().rsplit(")", 1)[1].split()
                    if st[1] == pane:
                        kids.append(int(pid))
                except (OSError, IndexError, ValueError):
                    pass
            check("found hwprof under the pane's shell", len(kids) == 1, kids)
            for k in kids:
                os.kill(k, 15)
            restored("t", "SIGTERM", r"^EXIT=143$")

            start("i", 80, 24, command(data, "i"))
            wait_for("i", r"^event: page-faults")
            keys("i", "C-c")
            restored("i", "SIGINT", r"^EXIT=130$")

            # Too small at start: falls back to --stdio with a note, the terminal untouched.
            err = os.path.join(d, "err")
            start("s", 30, 10, f"{HWPROF} annotate -i {data} work 2>{err}; echo EXIT=$?; "
                  "sleep 30")
            s = wait_for("s", r"^EXIT=")
            with open(err) as f:
                msg = f.read()
            check("too small: falls back to --stdio", re.search(r"^EXIT=0$", s, re.M), s)
            check("too small: a note says why",
                  "the terminal is 30x10, smaller than 40x12: printing the --stdio view" in msg,
                  msg)
            alt = tmux("display-message", "-p", "-t", "s", "#{alternate_on}").strip()
            check("too small: the terminal is left alone", alt == "0", alt)
finally:
    subprocess.run(["tmux", "-L", SOCKET, "kill-server"], capture_output=True)

finish()
