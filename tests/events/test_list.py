#!/usr/bin/env python3
"""hwprof list: the JSON parses, cpu-clock is available, cycles matches whether the host has a
hardware PMU, and sysfs PMUs of a fixture tree (written here) are listed with their encodings.
Usage: test_list.py HWPROF"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import hwprof_test  # noqa: E402
from hwprof_test import check, finish  # noqa: E402

HWPROF = sys.argv[1]


def run(args, env=None):
    """hwprof list ARGS: (exit status, stdout, stderr)."""
    p = hwprof_test.run([HWPROF, "list"] + args, timeout=20, env=env)
    return p.returncode, p.stdout, p.stderr


def main():
    rc, out, err = run(["--json"])
    check(f"exit status {rc}: {err}", rc == 0)
    d = json.loads(out)
    for key in ("cpu", "kernel", "paranoid", "hardware_pmu", "max_precise", "events", "pmus"):
        check(f"key {key}", key in d)
    ev = {e["name"]: e for e in d["events"]}
    check("cpu-clock available", ev["cpu-clock"]["availability"] == "available")
    check("page-faults available", ev["page-faults"]["availability"] == "available")
    if d["hardware_pmu"]:
        print("host has a hardware PMU: cycles must be available")
        check("cycles available", ev["cycles"]["availability"] == "available")
        check("max_precise level", d["max_precise"] in (0, 1, 2, 3))
    else:
        print("host has no hardware PMU: cycles must be not supported")
        check("cycles not supported", ev["cycles"]["availability"] == "not supported")
        check("no precise level without a PMU", d["max_precise"] is None)
    check("cache encoding", ev["LLC-load-misses"]["config"] == "0x10002")
    # The other spellings perf accepts are listed with their event, as perf does.
    check("aliases", ev["context-switches"]["aliases"] == ["cs"] and ev["cycles"]["aliases"] ==
          ["cpu-cycles"] and ev["cpu-clock"]["aliases"] == [])
    rc, text, err = run(["sw"])
    check(f"text aliases: {text}", rc == 0 and "context-switches OR cs " in text)
    check("software PMU", any(p["name"] == "software" and p["type"] == 1 for p in d["pmus"]))
    with open("/proc/sys/kernel/perf_event_paranoid") as f:
        check("paranoid level", d["paranoid"]["level"] == int(f.read()))

    # Filters.
    rc, out, _ = run(["sw", "--json"])
    d = json.loads(out)
    check("sw filter",
          rc == 0 and {e["kind"] for e in d["events"]} == {"software"} and d["pmus"] == [])
    rc, out, _ = run(["hw"])
    check("hw filter, text", rc == 0 and "cycles" in out and "cpu-clock" not in out)

    # -f/--format as report and stat spell it; --json stays as its alias.
    rc, out, err = run(["sw", "-f", "json"])
    check(f"-f json is --json: {rc} {err}", rc == 0 and out == run(["sw", "--json"])[1])
    rc, out, err = run(["sw", "--format=json"])
    check(f"--format=json: {rc} {err}",
          rc == 0 and {e["kind"] for e in json.loads(out)["events"]} == {"software"})
    rc, out, err = run(["sw", "--format", "text"])
    check(f"--format text is the default: {rc} {err}", rc == 0 and out == run(["sw"])[1])
    rc, out, err = run(["--format", "csv"])
    check(f"--format csv refused: {rc} {err!r}", rc == 64 and err.splitlines()[0] == "hwprof list: error: --format 'csv': hwprof "
          "list writes text or json")
    rc, _, err = run(["nonsense"])
    check("bad filter: usage error", rc == 64 and "not a kind of event" in err)

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
        check(f"fixture list: {err}", rc == 0)
        d = json.loads(out)
        pmus = {p["name"]: p for p in d["pmus"]}
        check(f"fixture PMUs {set(pmus)}", set(pmus) == {"cpu", "uncore_imc"})
        check("core PMU caps", pmus["cpu"]["core"] and pmus["cpu"]["max_precise"] == 3)
        fmt = {f["name"]: f["bits"] for f in pmus["cpu"]["formats"]}
        check(f"formats {fmt}",
              fmt == {"event": "config:0-7", "umask": "config:8-15", "ldlat": "config1:0-15"})
        ml = pmus["cpu"]["events"][0]
        check(f"mem-loads {ml}", ml["name"] == "cpu/mem-loads/" and ml["config"] == "0x1cd" and
              ml["config1"] == "0x3")
        cas = pmus["uncore_imc"]["events"][0]
        check(f"cas_count_read {cas}", cas["config"] == "0x304" and cas["unit"] == "MiB" and
              abs(cas["scale"] - 6.103515625e-5) < 1e-18)
        rc, out, _ = run(["pmu"], env)
        check("text", rc == 0 and "uncore_imc/cas_count_read/" in out and "MiB" in out)



def vendor():
    """list vendor: one line on a host where libpfm4 finds no PMU; with libpfm4's forced
    Skylake PMU the events with their published codes (Intel perfmon SKL: MEM_LOAD_RETIRED
    event D1H umask 20H, PEBS)."""
    rc, out, err = run(["--json"])
    d = json.loads(out)
    if not d["vendor"]["pmus"]:
        rc, out, err = run(["vendor"])
        check(f"no active PMU said in one line: {out}",
              rc == 0 and out.count("libpfm4 finds no active CPU PMU on this host") == 1)
    env = dict(os.environ, LIBPFM_FORCE_PMU="skl")
    rc, out, err = run(["vendor", "L3_MISS", "-f", "json"], env)
    check(f"forced skl: exit status {rc}: {err}", rc == 0)
    v = json.loads(out)["vendor"]
    check(f"pmus {v['pmus']}", v["pmus"] == ["skl"])
    ev = {e["name"]: e for e in v["events"]}
    m = ev.get("MEM_LOAD_RETIRED.L3_MISS", {})
    check(f"MEM_LOAD_RETIRED.L3_MISS {m}", m.get("config") == "0x20d1" and m.get("type") == 4
          and m.get("precise") is True and "L3" in m.get("description", ""))
    check("pattern filters", all("L3_MISS" in n.upper() for n in ev))
    rc, out, _ = run(["vendor", "L3_MISS"], env)
    check("text: name and code", rc == 0 and any(
        "MEM_LOAD_RETIRED.L3_MISS" in ln and "raw 0x20d1" in ln and "[precise]" in ln
        for ln in out.splitlines()))


main()
vendor()
finish()
