#!/usr/bin/env python3
"""How `hwprof record` starts, stops and sums up its target (suite 'record').

usage: record_lifecycle.py HWPROF SPIN [IDLE_MAIN]

SPIN burns CPU forever, or for argv[1] ms of CPU time. Each test copies it under a name of its
own, so the processes of this test are found in /proc by their executable and nothing else.
- stopping hwprof (SIGTERM) ends the target's whole process group, children that ignore the
  signal included (H F27/F10);
- on a terminal the target runs in its own process group in the foreground: ^C reaches it,
  ^Z stops hwprof with it, and hwprof takes the terminal back at the end;
- 0 samples: no bytes/sample, a warning, the target's exit status (H F9);
- the rate is per CPU-second beside the asked -F (H F32); the cpu-clock period note and
  "throttled once" (H F33); a note for descendants still running at the end (H F12).
"""
import json
import os
import pty
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from hwprof_test import check, record, run_cases, wait_for  # noqa: E402

HWPROF, SPIN = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
IDLE_MAIN = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else None


def clean(name, err):
    check(name + " sanitizer-clean", "Sanitizer" not in err and "runtime error" not in err, err)


def own_spin(d, tag):
    path = os.path.join(d, f"spin-{tag}-{os.getpid()}")
    shutil.copy(SPIN, path)
    return path


def procs_of(exe):
    """Live (not zombie) processes running EXE."""
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{p}/exe") != exe:
                continue
            with open(f"/proc/{p}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                    found.append(int(p))
        except OSError:
            pass
    return found


def kill_all(exe):
    for pid in procs_of(exe):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def recorded(d, args, cmd):
    """hwprof record ARGS -- CMD into d/r.data: (exit status, stderr); the caller checks the
    status."""
    p = record(HWPROF, os.path.join(d, "r.data"), args, cmd, timeout=30, want=None)
    return p.returncode, p.stderr


def test_sigterm_ends_the_group(d):
    """F27: two spins that ignore SIGTERM (the shell's trap "" is inherited) must not outlive
    hwprof after SIGTERM: the group gets SIGTERM, 3 s later SIGKILL."""
    spin = own_spin(d, "term")
    # stderr to a file: a surviving spin would hold a pipe open.
    errf = open(os.path.join(d, "term.err"), "w+")
    p = subprocess.Popen([HWPROF, "record", "-e", "page-faults", "-o", os.path.join(d, "t.data"),
                          "--", "/bin/sh", "-c", f'trap "" TERM; {spin} & {spin} & wait'],
                         stdout=subprocess.DEVNULL, stderr=errf)
    try:
        check("sigterm: both spins started", wait_for(lambda: len(procs_of(spin)) == 2, 5),
              procs_of(spin))
        t0 = time.monotonic()
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=10)
        errf.seek(0)
        err = errf.read()
        took = time.monotonic() - t0
        check("sigterm: hwprof ends after the 3 s grace", 2.9 < took < 8, took)
        # The shell needed the SIGKILL; hwprof then ends by the SIGTERM it got, as perf does.
        check("sigterm: hwprof ends by its SIGTERM (143)", p.returncode in (-15, 143),
              p.returncode)
        clean("sigterm", err)
        left = []
        wait_for(lambda: not procs_of(spin), 1)
        left = procs_of(spin)
        check("sigterm: no spin of the target left running", not left, left)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        kill_all(spin)
        errf.close()


def test_sighup_completes_the_file(d):
    """A closed terminal (SIGHUP) stops the recording like SIGTERM: the file is complete."""
    spin = own_spin(d, "hup")
    data = os.path.join(d, "hup.data")
    p = subprocess.Popen([HWPROF, "record", "-e", "page-faults", "-o", data, "--", spin],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: procs_of(spin), 5)
        time.sleep(0.3)
        p.send_signal(signal.SIGHUP)
        _, err = p.communicate(timeout=10)
        check("sighup: hwprof ends by SIGHUP", p.returncode in (-1, 129), (p.returncode, err))
        r = subprocess.run([HWPROF, "report", "-i", data], capture_output=True, text=True,
                           timeout=30)
        check("sighup: the file is complete", r.returncode == 0 and "cut short" not in r.stderr,
              (r.returncode, r.stderr))
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        kill_all(spin)


def children_of(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def state_of(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "?"


def end_pty(pid, master):
    """Ends the shell of a pty.fork() test, whatever state the test left it in."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    os.close(master)


def wait_exit(pid, secs):
    """The wait status of PID within SECS, or None."""
    end = time.monotonic() + secs
    while time.monotonic() < end:
        w, st = os.waitpid(pid, os.WNOHANG)
        if w == pid:
            return st
        time.sleep(0.05)
    return None


def test_terminal(d):
    """In an interactive shell the target stays in hwprof's process group, the shell's job, as
    under perf: ^Z stops both and gives the prompt back, fg resumes both, ^C ends the target
    and then hwprof by SIGINT; the shell has its terminal back."""
    spin = own_spin(d, "tty")
    pid, master, read_until = pty_session(None, ["/bin/bash", "--norc", "--noprofile", "-i"])
    try:
        os.write(master, b"PS1='$ '\n")
        read_until(r"\$ $", 5)
        os.write(master, f"{HWPROF} record -e page-faults -o {d}/tty.data -- {spin}\n".encode())
        ok = wait_for(lambda: procs_of(spin), 5)
        check("tty: target started", ok, read_until(r"$^", 0.2))
        if not ok:
            return
        sp = procs_of(spin)[0]
        hw = [c for c in children_of(pid) if c != sp]
        check("tty: the target shares hwprof's group",
              len(hw) == 1 and os.getpgid(sp) == os.getpgid(hw[0]), (hw, sp))
        os.write(master, b"\x1a")  # ^Z
        text = read_until(r"Stopped", 5)
        stopped = hw and wait_for(lambda: state_of(hw[0]) == "T" and state_of(sp) == "T", 3)
        check("tty: ^Z stops hwprof with its target and gives the prompt back",
              "Stopped" in text and stopped, (text, hw and state_of(hw[0]), state_of(sp)))
        os.write(master, b"fg\n")
        check("tty: fg resumes the target", wait_for(lambda: state_of(sp) == "R", 3),
              state_of(sp))
        time.sleep(0.3)
        os.write(master, b"\x03")  # ^C
        read_until(r"samples", 10)
        os.write(master, b"echo rc=$?\n")
        text = read_until(r"rc=\d+", 10)
        check("tty: ^C ends the target and hwprof: 130", "rc=130" in text, text)
        clean("tty", text)
    finally:
        end_pty(pid, master)
        kill_all(spin)


def test_no_samples(d):
    """F9: 0 samples is no bytes/sample, a warning with the run time; the target's status."""
    rc, err = recorded(d, ["-e", "page-faults", "-c", "1000000000"], ["/bin/sh", "-c", "exit 3"])
    check("no samples: the target's exit status", rc == 3, f"rc={rc} {err!r}")
    check("no samples: bytes/sample is '-'", "- bytes/sample" in err, err)
    check("no samples: no 0.0 bytes/sample", "0.0 bytes/sample" not in err, err)
    check("no samples: a warning with the run time",
          re.search(r"warning: no samples \(the command ran [0-9.]+ s; lower -c or raise -F\)",
                    err), err)
    clean("no samples", err)
    # P5: a command that sleeps gives cpu-clock nothing to sample: a higher -F cannot help.
    # At 10 Hz sleep's ~1 ms of CPU time gets a sample about once in a hundred runs.
    rc, err = recorded(d, ["-e", "cpu-clock", "-F", "10"], ["/bin/sleep", "0.3"])
    if "warning: no samples" not in err:
        print("skip: idle command: sleep got a sample this time")
    else:
        check("no samples, idle command: says it used no CPU time",
              "used 0.0" in err and "CPU-s" in err and "raise -F" not in err, err)


def test_no_samples_attached(d):
    """M3: with -p nothing was run: the 0-samples warning does not say "the command ran"."""
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        p = subprocess.Popen([HWPROF, "record", "-e", "page-faults", "-c", "1000000000", "-o",
                              f"{d}/attached.data", "-p", str(sleeper.pid)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(0.7)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=20)
    finally:
        sleeper.kill()
        sleeper.wait()
    check("no samples -p: exit 0", p.returncode == 0, f"rc={p.returncode} {err!r}")
    check("no samples -p: a warning", "warning: no samples" in err, err)
    check("no samples -p: not 'the command ran'", "the command ran" not in err, err)
    check("no samples -p: names the PID and the time",
          re.search(rf"no samples \(PID {sleeper.pid} was recorded for [0-9.]+ s", err), err)
    clean("no samples -p", err)


def test_rate_per_cpu_second(d):
    """F32: -F is met per CPU-second of the target, not per wall-clock second."""
    spin = own_spin(d, "rate")
    rc, err = recorded(d, ["-e", "cpu-clock", "-F", "1000"], ["/bin/sh", "-c",
                         f"sleep 0.5; {spin} 600"])
    check("rate: exit 0", rc == 0, f"rc={rc} {err!r}")
    m = re.search(r"(\d+) samples per CPU-s \(asked 1000 Hz\)", err)
    check("rate: samples per CPU-s beside the asked -F", m, err)
    check("rate: about 1000 per CPU-s", m and 600 <= int(m.group(1)) <= 1400, err)
    check("rate: no wall-clock rate beside the asked one",
          not re.search(r"samples/s \(asked", err), err)
    rc, err = recorded(d, ["-e", "cpu-clock", "-F", "1000", "--no-count"], [spin, "300"])
    m = re.search(r"(\d+) samples per CPU-s \(asked 1000 Hz\)", err)
    check("rate --no-count: from the target's CPU time", m and 600 <= int(m.group(1)) <= 1400,
          err)
    clean("rate", err)


def test_cpu_clock_period(d):
    """F33: -c on cpu-clock is in ns; under 10000 a note; "throttled N times" in English."""
    spin = own_spin(d, "period")
    rc, err = recorded(d, ["-e", "cpu-clock", "-c", "1"], [spin, "200"])
    check("-c 1 cpu-clock: exit 0", rc == 0, f"rc={rc} {err!r}")
    check("-c 1 cpu-clock: note on ns and the 10 us minimum",
          re.search(r"note: -c 1: cpu-clock periods are in ns; the kernel's minimum is about "
                    r"10000 ns \(10 µs\)", err), err)
    check("-c 1 cpu-clock: no '1 times'", not re.search(r"\b1 times", err), err)
    rc, err = recorded(d, ["-e", "task-clock", "-c", "20000"], [spin, "50"])
    check("-c 20000 task-clock: no note", "minimum" not in err, err)
    rc, err = recorded(d, ["-e", "page-faults", "-c", "1"], [spin, "10"])
    check("-c 1 page-faults: no note", "minimum" not in err, err)
    clean("period", err)


def test_descendants_left(d):
    """F12: the launched process ends while a child it started runs on: say so."""
    spin = own_spin(d, "left")
    try:
        rc, err = recorded(d, ["-e", "page-faults"], ["/bin/sh", "-c",
                             f"{spin} 3000 & exit 5"])
        check("descendants: the target's exit status", rc == 5, f"rc={rc} {err!r}")
        check("descendants: a note names them",
              re.search(r"note: 1 descendant process of /bin/sh was still running", err), err)
        check("descendants: left running", len(procs_of(spin)) == 1, procs_of(spin))
        clean("descendants", err)
        rc, err = recorded(d, ["-e", "page-faults"], ["/bin/sh", "-c", "sleep 0.1 & wait"])
        check("descendants: none left, no note", "descendant" not in err, err)
    finally:
        kill_all(spin)


def test_pipeline_keeps_terminal(d):
    """`hwprof record -- CMD | less`: the pager shares hwprof's job and reads the terminal;
    handing the terminal to the target's group would stop the pager until CMD ends."""
    done = os.path.join(d, "pipe.done")
    outer = (f"{HWPROF} record -e page-faults -o {d}/pipe.data -- "
             f"sh -c 'sleep 3; touch {done}' | sh -c 'read x < /dev/tty; echo got=$x'")
    pid, master = pty.fork()
    if pid == 0:
        os.execv("/bin/sh", ["sh", "-c", outer])
    out = b""
    try:
        time.sleep(0.8)
        os.write(master, b"hello\n")
        import select
        end = time.monotonic() + 1.5
        while time.monotonic() < end and b"got=hello" not in out:
            r, _, _ = select.select([master], [], [], 0.05)
            if r:
                try:
                    out += os.read(master, 4096)
                except OSError:
                    break
        check("pipeline: the pager reads the terminal while the target runs",
              b"got=hello" in out and not os.path.exists(done), out)
    finally:
        end_pty(pid, master)


def cpu_seconds(pid):
    """User and system CPU time of PID, all its threads, from /proc/PID/stat (proc(5))."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_attach_counts_every_thread(d):
    """-p of a process whose main thread sleeps while another works: the counted totals
    cover every thread, not the main thread alone (which would read 'not counted')."""
    if not IDLE_MAIN:
        print("skip: no idle_main workload given")
        return
    target = subprocess.Popen([IDLE_MAIN])
    try:
        time.sleep(0.3)
        data = os.path.join(d, "attach.data")
        cpu_before = cpu_seconds(target.pid)
        p = subprocess.Popen([HWPROF, "record", "-o", data, "-p", str(target.pid)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=20)
        cpu = cpu_seconds(target.pid) - cpu_before
        check("attach: record -p ends on SIGINT", p.returncode == 0, (p.returncode, err))
        r = subprocess.run([HWPROF, "report", "-i", data, "--format", "json"],
                           capture_output=True, text=True, timeout=30)
        counts = {c["event"].split(":")[0]: c for c in json.loads(r.stdout)["header"]["counts"]}
        tc = counts.get("task-clock", {})
        # The main thread alone would count next to nothing. The worker's CPU time while
        # record ran (its start-up included) bounds what can be counted; on a loaded host
        # that is less than the 1.5 s of wall time.
        check("attach: task-clock counts the working thread",
              tc.get("value") is not None and cpu > 0.1 and
              0.4 * cpu * 1e9 <= tc["value"] <= (cpu + 0.05) * 1e9, (tc, cpu))
    finally:
        target.kill()
        target.wait()


def pty_session(outer, argv=None):
    """Runs OUTER in sh (or ARGV) on a new pseudo-terminal, its controlling terminal; returns
    (pid, master, read_until) where read_until(regex, secs) collects the output until it
    matches and returns all of it so far."""
    import select
    pid, master = pty.fork()
    if pid == 0:
        os.execv(*((argv[0], argv) if argv else ("/bin/sh", ["sh", "-c", outer])))
    buf = [b""]

    def read_until(pattern, secs):
        end = time.monotonic() + secs
        while time.monotonic() < end and not re.search(pattern, buf[0].decode(errors="replace")):
            r, _, _ = select.select([master], [], [], 0.05)
            if r:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                buf[0] += chunk
        return buf[0].decode(errors="replace")
    return pid, master, read_until


def test_pipeline_target_reads_terminal(d):
    """P1: `hwprof record -- CMD | tee`: CMD reads the terminal as it does without hwprof
    (before, it was stopped by SIGTTIN, and hwprof with it, for good)."""
    outer = (f"{HWPROF} record -e page-faults -o {d}/p1.data -- "
             "sh -c 'read x; echo got=$x' | cat; echo done")
    pid, master, read_until = pty_session(outer)
    try:
        time.sleep(0.8)
        os.write(master, b"hello\n")
        text = read_until(r"got=hello[\s\S]*done", 6)
        check("pipeline: the target reads the terminal", "got=hello" in text, text)
        clean("p1", text)
    finally:
        end_pty(pid, master)


def test_raw_terminal_restored(d):
    """P2: a target that put the terminal in raw mode and is ended by a signal sent to hwprof
    leaves the terminal as it was before, as a job-control shell restores it."""
    setraw = os.path.join(d, "setraw.py")
    with open(setraw, "w") as f:
        f.write("import tty, time\ntty.setraw(0)\nprint('RAW', flush=True)\ntime.sleep(30)\n")
    outer = (f"stty -a | grep -o -- '-\\?icanon' > {d}/before; "
             f"{HWPROF} record -e page-faults -o {d}/p2.data -- python3 {setraw}; "
             f"stty -a | grep -o -- '-\\?icanon' > {d}/after; echo done")
    pid, master, read_until = pty_session(outer)
    try:
        text = read_until(r"RAW", 8)
        hw = [c for c in children_of(pid) if "hwprof" in open(f"/proc/{c}/cmdline").read()]
        check("raw: hwprof found", len(hw) == 1, (hw, text))
        if hw:
            os.kill(hw[0], signal.SIGTERM)
        text = read_until(r"done", 10)
        before = open(f"{d}/before").read().strip() if os.path.exists(f"{d}/before") else "?"
        after = open(f"{d}/after").read().strip() if os.path.exists(f"{d}/after") else "?"
        check("raw: the terminal's modes come back after SIGTERM", before == "icanon" and
              after == before, (before, after, text))
    finally:
        end_pty(pid, master)


def test_sigstop_of_target(d):
    """P3: a target stopped by SIGSTOP (a nested hwprof's own stop, bash's `suspend`) must not
    leave the terminal to a stopped process: ^C still ends the recording."""
    spin = own_spin(d, "stop")
    pid, master, read_until = pty_session(None, [HWPROF, "record", "-e", "page-faults", "-o",
                                                 f"{d}/p3.data", "--", spin])
    st = None
    try:
        ok = wait_for(lambda: procs_of(spin), 5)
        check("sigstop: target started", ok, procs_of(spin))
        if ok:
            os.kill(procs_of(spin)[0], signal.SIGSTOP)
            time.sleep(0.5)
            os.write(master, b"\x03")  # ^C
            st = wait_exit(pid, 8)
            check("sigstop: ^C still ends it", st is not None, read_until(r"$^", 0.3))
    finally:
        if st is None:
            end_pty(pid, master)
        else:
            os.close(master)
        kill_all(spin)


with tempfile.TemporaryDirectory() as d:
    run_cases(globals(), d)
