#!/usr/bin/env python3
"""bad_input.py HWPROF - input that tries to break hwprof: devices, pipes and /proc files as
sample files, values that are usage errors. Every case ends fast (a timeout bounds what used
to read forever), with one line naming the cause and the documented exit code."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import hwprof_test  # noqa: E402
from hwprof_test import check, run_cases  # noqa: E402

HWPROF = os.path.abspath(sys.argv[1])


def run(*args, stdin=None, shell=None, timeout=20):
    """Runs hwprof ARGS (or the shell line SHELL); None past TIMEOUT, which is a failure.
    Bytes that are not UTF-8 read as U+FFFD."""
    argv = ["sh", "-c", shell] if shell else [HWPROF, *args]
    try:
        return hwprof_test.run(argv, stdin=stdin, timeout=timeout, errors="replace")
    except subprocess.TimeoutExpired:
        return None


def one_line(p, code, words, what):
    """P exited CODE within its timeout with a first stderr line holding every one of WORDS."""
    if p is None:
        check("%s: still running at the timeout" % what, False)
        return
    first = p.stderr.splitlines()[0] if p.stderr else ""
    check("%s: exit %d (want %d), %r lacks one of %r" % (what, p.returncode, code, p.stderr,
                                                         words),
          p.returncode == code and all(w in first for w in words) and
          "Sanitizer" not in p.stderr and "runtime error" not in p.stderr)


def recording(tmp):
    """A recording of /bin/true in TMP, made by the first case that needs it."""
    data = os.path.join(tmp, "true.data")
    if not os.path.exists(data):
        rec = run("record", "-e", "page-faults", "-c", "1", "-o", data, "--", "/bin/true",
                  timeout=60)
        check("record /bin/true: %r" % (rec and rec.stderr),
              rec is not None and rec.returncode == 0)
    return data


def test_streams(tmp):
    """The first bytes decide, and what a stream may hold is capped."""
    data, hw = recording(tmp), HWPROF
    one_line(run("report", "-i", "/dev/zero", timeout=15), 2,
             ["/dev/zero: not a hwprof sample file", "a character device"], "report /dev/zero")
    one_line(run("annotate", "--stdio", "-i", "/dev/zero", timeout=15), 2,
             ["/dev/zero: not a hwprof sample file"], "annotate /dev/zero")
    one_line(run(shell="yes | '%s' report -i -" % hw, timeout=15), 2,
             ["not a hwprof sample file", "a pipe"], "yes | report -i -")
    p = run("report", "-i", "/proc/self/maps")
    one_line(p, 2, ["/proc/self/maps: not a hwprof sample file", "starts with text"],
             "report /proc/self/maps")
    check("/proc/self/maps is not empty: %r" %
          (p and p.stderr), p is not None and "empty" not in p.stderr)
    p = run(shell="cat '%s' | '%s' report -i -" % (data, hw))
    check("a recording through a pipe reads: %r" % (p and p.stderr),
          p is not None and p.returncode == 0 and "page-faults" in p.stdout)
    one_line(run(shell="cat '%s' /dev/zero | '%s' report -i -" % (data, hw), timeout=150), 2,
             ["a pipe holding more than 1024 MiB", "save it to a file"],
             "a recording followed by /dev/zero")



def test_usage_values(tmp):
    """A bad value of a filter is a usage error, as --pid abc is."""
    data = recording(tmp)
    for opt, val, words in (("--tid", "99999999999999999999999", ["--tid", "too large"]),
                            ("--pid", "4294967296", ["--pid", "too large"]),
                            ("--comm", "", ["--comm", "empty list"]),
                            ("--function", "", ["--function", "empty list"]),
                            ("--dso", ",", ["--dso", "empty list"])):
        one_line(run("report", "-i", data, opt, val), 64, words, "report %s %r" % (opt, val))

    # --sort names the repeated key, not "too many keys" at the last one.
    one_line(run("report", "-i", data, "--sort", "line,function,dso,line"), 64,
             ["--sort", "'line' given twice"], "--sort with a key twice")
    # An unclosed brace is named, not the group's first event.
    one_line(run("record", "-e", "{a,b", "-o", os.path.join(tmp, "x.data"), "--", "true"), 64,
             ["unclosed '{' at offset 0"], "record -e '{a,b'")



def test_freq_limit(tmp):
    """-F is bounded by the kernel's own limit, read where HWPROF_PROC_ROOT points."""
    proc = os.path.join(tmp, "proc")
    os.makedirs(os.path.join(proc, "sys", "kernel"))
    with open(os.path.join(proc, "sys", "kernel", "perf_event_max_sample_rate"), "w") as f:
        f.write("12345\n")
    env = dict(os.environ, HWPROF_PROC_ROOT=proc)
    for freq in ("99999999999999999999", "12346"):
        p = subprocess.run([HWPROF, "record", "-F", freq, "-o", os.path.join(tmp, "f.data"),
                            "--", "true"], capture_output=True, text=True, env=env, timeout=20)
        one_line(p, 64, ["-F '%s'" % freq, "at most 12345", "perf_event_max_sample_rate"],
                 "record -F %s" % freq)



def test_max_stack_limit(tmp):
    """--max-stack is bounded by kernel.perf_event_max_stack, read where HWPROF_PROC_ROOT
    points; without --max-stack record asks for that limit when it is under 127."""
    proc = os.path.join(tmp, "proc-stack")
    os.makedirs(os.path.join(proc, "sys", "kernel"))
    with open(os.path.join(proc, "sys", "kernel", "perf_event_max_stack"), "w") as f:
        f.write("5\n")
    env = dict(os.environ, HWPROF_PROC_ROOT=proc)
    p = subprocess.run([HWPROF, "record", "-g", "--max-stack", "6", "-o",
                        os.path.join(tmp, "s.data"), "--", "true"],
                       capture_output=True, text=True, env=env, timeout=20)
    one_line(p, 64, ["--max-stack 6", "above the kernel's limit of 5",
                     "kernel.perf_event_max_stack"], "record --max-stack over the limit")
    p = subprocess.run([HWPROF, "record", "-g", "-e", "page-faults", "-o",
                        os.path.join(tmp, "s.data"), "--", "true"],
                       capture_output=True, text=True, env=env, timeout=30)
    check("record -g under a limit of 5: --max-stack 5 (%r)" % p.stderr,
          p.returncode == 0 and "--max-stack 5)" in p.stderr)


def test_zombie(tmp):
    """A zombie opens and never samples: said, not "no such process"."""
    z = subprocess.Popen(["true"])
    for _ in range(100):
        with open("/proc/%d/stat" % z.pid) as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                break
        time.sleep(0.05)
    one_line(run("record", "-p", str(z.pid), "-o", os.path.join(tmp, "z.data")), 2,
             ["-p %d" % z.pid, "a zombie (defunct)", "cannot be sampled"], "record -p zombie")
    one_line(run("stat", "-p", str(z.pid)), 2,
             ["-p %d (true)" % z.pid, "a zombie (defunct)", "cannot be counted"],
             "stat -p zombie")
    z.wait()



def test_output_is_a_program(tmp):
    """-o naming a program: refused, the program left as it was (no .old)."""
    prog = os.path.join(tmp, "prog")
    shutil.copy("/bin/true", prog)
    before = open(prog, "rb").read()
    one_line(run("record", "-o", prog, "--", "true"), 2,
             [prog, "an ELF file", "choose another file with -o"], "record -o PROGRAM")
    check("record -o PROGRAM left the program alone",
          open(prog, "rb").read() == before and not os.path.exists(prog + ".old"))



def test_names_not_utf8(tmp):
    """A file name that is not UTF-8 (Latin-1, a C1 CSI) is tamed on stdout and stderr."""
    odd = os.path.join(os.fsencode(tmp), b"caf\xe9\xc2\x9b[31m")
    shutil.copy("/bin/true", odd)
    odd_data = os.path.join(tmp, "odd.data")
    rec = run("record", "-e", "page-faults", "-c", "1", "-o", odd_data, "--", os.fsdecode(odd))
    check("record the oddly named program", rec is not None and rec.returncode == 0)
    os.unlink(odd)
    p = subprocess.run([HWPROF, "report", "-i", odd_data, "-s", "dso"], capture_output=True,
                       timeout=60)
    for name, out in (("stdout", p.stdout), ("stderr", p.stderr)):
        check("invalid UTF-8 tamed on %s: %r" % (name, out[-600:]),
              b"caf???[31m" in out and b"\xe9" not in out and b"\xc2\x9b" not in out)
        try:
            out.decode()
        except UnicodeDecodeError as e:
            check("%s is not valid UTF-8: %s" % (name, e), False)


def test_call_graph_conflicts(tmp):
    """-g and --call-graph dwarf exclude each other; a stack size is a multiple of 8 from 8."""
    out = os.path.join(tmp, "cg.data")
    for args in (["-g", "--call-graph", "dwarf"], ["--call-graph", "dwarf", "-g"]):
        one_line(run("record", *args, "-o", out, "--", "true"), 64,
                 ["-g (frame pointers) and --call-graph dwarf exclude each other"],
                 "record %s" % " ".join(args))
    one_line(run("record", "--call-graph", "dwarf,0", "-o", out, "--", "true"), 64,
             ["dwarf,SIZE", "at least 8"], "record --call-graph dwarf,0")


def test_repeated_event(tmp):
    """-e given twice records both lists, as perf does (the first was dropped)."""
    out = os.path.join(tmp, "ee.data")
    rec = run("record", "-e", "page-faults", "-c", "1", "-e", "minor-faults", "-o", out, "--",
              "true")
    check("record -e A -e B: exit 0", rec is not None and rec.returncode == 0,
          rec and rec.stderr)
    p = subprocess.run([HWPROF, "report", "-i", out, "-f", "json"], capture_output=True,
                       text=True, timeout=60)
    names = [e["name"] for e in json.loads(p.stdout)["header"]["events"]] if p.stdout else []
    check("record -e A -e B: both are sampling events: %r" % names,
          any(n.startswith("page-faults") for n in names) and
          any(n.startswith("minor-faults") for n in names))


def test_report_output_keeps_files(tmp):
    """report -o never replaces a script, a perf.data or a sample file; -o - is stdout."""
    data = recording(tmp)
    script = os.path.join(tmp, "script.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\necho hi\n")
    os.chmod(script, 0o755)
    perf = os.path.join(tmp, "perf.data")
    with open(perf, "wb") as f:
        f.write(b"PERFILE2" + bytes(200))
    for path, words in ((script, ["an executable file", "not replaced"]),
                        (perf, ["a perf.data file", "not replaced"]),
                        (data, ["a hwprof sample file", "not replaced"])):
        before = open(path, "rb").read()
        one_line(run("report", "-i", data, "-f", "svg", "-o", path), 2, [path] + words,
                 "report -o %s" % os.path.basename(path))
        check("report -o %s left it alone" % os.path.basename(path),
              open(path, "rb").read() == before)
    p = run("report", "-i", data, "-f", "svg", "-o", "-")
    check("report -o - writes the SVG to stdout", p is not None and p.returncode == 0 and
          p.stdout.startswith("<?xml") and not os.path.exists("-"), p and p.stderr)
    one_line(run("report", "-i", perf), 2, ["perf.data header of 0 bytes", "upgrade hwprof"],
             "report -i perf.data with a damaged header")


def test_options_without_effect(tmp):
    """An option the chosen format ignores is a usage error, not silently dropped."""
    data = recording(tmp)
    for args, words in ((["-f", "svg", "--folded-lines"], ["--folded-lines", "-f folded"]),
                        (["-f", "folded", "-G"], ["-G", "-f folded already holds"]),
                        (["-f", "svg", "-G"], ["-G", "-f svg already holds"])):
        one_line(run("report", "-i", data, *args), 64, words, "report %s" % " ".join(args))


tmp_dir = tempfile.mkdtemp(prefix="bad-input-", dir=os.environ.get("BAD_TMP"))
try:
    run_cases(globals(), tmp_dir)
finally:
    shutil.rmtree(tmp_dir, ignore_errors=True)
