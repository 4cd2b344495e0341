#!/usr/bin/env python3
"""hwprof list: the JSON parses, cpu-clock is available, cycles matches whether the host has a
hardware PMU, and sysfs PMUs of a fixture tree (written here) are listed with their encodings.
Usage: test_list.py HWPROF"""
import json
import os
import subprocess
import sys
import tempfile

HWPROF = sys.argv[1]


def run(args, env=None):
    p = subprocess.run([HWPROF, "list"] + args, capture_output=True, text=True, timeout=20,
                       env=env)
    return p.returncode, p.stdout, p.stderr


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)


def main():
    rc, out, err = run(["--json"])
    check(rc == 0, f"exit status {rc}: {err}")
    d = json.loads(out)
    for key in ("cpu", "kernel", "paranoid", "hardware_pmu", "max_precise", "events", "pmus"):
        check(key in d, f"key {key}")
    ev = {e["name"]: e for e in d["events"]}
    check(ev["cpu-clock"]["availability"] == "available", "cpu-clock available")
    check(ev["page-faults"]["availability"] == "available", "page-faults available")
    if d["hardware_pmu"]:
        print("host has a hardware PMU: cycles must be available")
        check(ev["cycles"]["availability"] == "available", "cycles available")
        check(d["max_precise"] in (0, 1, 2, 3), "max_precise level")
    else:
        print("host has no hardware PMU: cycles must be not supported")
        check(ev["cycles"]["availability"] == "not supported", "cycles not supported")
        check(d["max_precise"] is None, "no precise level without a PMU")
    check(ev["LLC-load-misses"]["config"] == "0x10002", "cache encoding")
    # The other spellings perf accepts are listed with their event, as perf does.
    check(ev["context-switches"]["aliases"] == ["cs"] and ev["cycles"]["aliases"] ==
          ["cpu-cycles"] and ev["cpu-clock"]["aliases"] == [], "aliases")
    rc, text, err = run(["sw"])
    check(rc == 0 and "context-switches OR cs " in text, f"text aliases: {text}")
    check(any(p["name"] == "software" and p["type"] == 1 for p in d["pmus"]), "software PMU")
    with open("/proc/sys/kernel/perf_event_paranoid") as f:
        check(d["paranoid"]["level"] == int(f.read()), "paranoid level")

    # Filters.
    rc, out, _ = run(["sw", "--json"])
    d = json.loads(out)
    check(rc == 0 and {e["kind"] for e in d["events"]} == {"software"} and d["pmus"] == [],
          "sw filter")
    rc, out, _ = run(["hw"])
    check(rc == 0 and "cycles" in out and "cpu-clock" not in out, "hw filter, text")

    # -f/--format as report and stat spell it; --json stays as its alias.
    rc, out, err = run(["sw", "-f", "json"])
    check(rc == 0 and out == run(["sw", "--json"])[1], f"-f json is --json: {rc} {err}")
    rc, out, err = run(["sw", "--format=json"])
    check(rc == 0 and {e["kind"] for e in json.loads(out)["events"]} == {"software"},
          f"--format=json: {rc} {err}")
    rc, out, err = run(["sw", "--format", "text"])
    check(rc == 0 and out == run(["sw"])[1], f"--format text is the default: {rc} {err}")
    rc, out, err = run(["--format", "csv"])
    check(rc == 64 and err.splitlines()[0] == "hwprof list: error: --format 'csv': hwprof "
          "list writes text or json", f"--format csv refused: {rc} {err!r}")
    rc, _, err = run(["nonsense"])
    check(rc == 64 and "not a kind of event" in err, "bad filter: usage error")

    # A fixture sysfs tree: an Intel-like core PMU and an uncore unit with scale and unit.
    with tempfile.TemporaryDirectory() as root:
        def put(rel, text):
            path = os.path.join(root, "bus/event_source/devices", rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text + "\n")
        put("cpu/type", "4")
        put("cpu/format/event", "config:0-7")
        put("cpu/format/umask", "config:8-15")
        put("cpu/format/ldlat", "config1:0-15")
        put("cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3")
        put("cpu/caps/max_precise", "3")
        put("uncore_imc/type", "18")
        put("uncore_imc/cpumask", "0")
        put("uncore_imc/format/event", "config:0-7")
        put("uncore_imc/format/umask", "config:8-15")
        put("uncore_imc/events/cas_count_read", "event=0x04,umask=0x03")
        put("uncore_imc/events/cas_count_read.scale", "6.103515625e-5")
        put("uncore_imc/events/cas_count_read.unit", "MiB")
        env = dict(os.environ, HWPROF_SYSFS_ROOT=root)
        rc, out, err = run(["pmu", "--json"], env)
        check(rc == 0, f"fixture list: {err}")
        d = json.loads(out)
        pmus = {p["name"]: p for p in d["pmus"]}
        check(set(pmus) == {"cpu", "uncore_imc"}, f"fixture PMUs {set(pmus)}")
        check(pmus["cpu"]["core"] and pmus["cpu"]["max_precise"] == 3, "core PMU caps")
        fmt = {f["name"]: f["bits"] for f in pmus["cpu"]["formats"]}
        check(fmt == {"event": "config:0-7", "umask": "config:8-15", "ldlat": "config1:0-15"},
              f"formats {fmt}")
        ml = pmus["cpu"]["events"][0]
        check(ml["name"] == "cpu/mem-loads/" and ml["config"] == "0x1cd" and
              ml["config1"] == "0x3", f"mem-loads {ml}")
        cas = pmus["uncore_imc"]["events"][0]
        check(cas["config"] == "0x304" and cas["unit"] == "MiB" and
              abs(cas["scale"] - 6.103515625e-5) < 1e-18, f"cas_count_read {cas}")
        rc, out, _ = run(["pmu"], env)
        check(rc == 0 and "uncore_imc/cas_count_read/" in out and "MiB" in out, "text")
    print("ok")


main()
