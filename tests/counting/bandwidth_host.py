#!/usr/bin/env python3
"""bandwidth_host.py HWPROF - `hwprof stat --bandwidth -a` for real, where the host has
memory-controller counters (uncore_imc_N, uncore_imc or amd_df in sysfs) and may count them
system-wide: the bandwidth line's numbers agree with each other and with the JSON, whose
bytes are those of the counted events. Skipped (exit 77) with the reason elsewhere: this
KVM guest has no uncore PMU, and the fixture trees of test_stat_bandwidth.c cover the rest."""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from hwprof_test import check, finish  # noqa: E402

HWPROF = os.path.abspath(sys.argv[1])
DEVICES = "/sys/bus/event_source/devices"

pmus = sorted(os.listdir(DEVICES)) if os.path.isdir(DEVICES) else []
controllers = [p for p in pmus if p.startswith("uncore_imc") or p == "amd_df"]
if not controllers:
    print(f"skip: no memory-controller PMU (uncore_imc_N, uncore_imc or amd_df) in {DEVICES} "
          "on this host; stat --bandwidth is tested on fixture trees (stat_bandwidth)")
    sys.exit(77)

with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "bw.json")
    p = subprocess.run([HWPROF, "stat", "--bandwidth", "-a", "-f", "json", "-o", out, "--",
                        "sleep", "0.5"], capture_output=True, text=True, timeout=60)
    if p.returncode != 0 and ("permission denied" in p.stderr or "not known" in p.stderr):
        print(f"skip: this host's controllers cannot be counted here: {p.stderr.strip()}")
        sys.exit(77)
    check(f"stat --bandwidth -a: rc {p.returncode}: {p.stderr}", p.returncode == 0)
    d = json.load(open(out))
    bw = d["bandwidth"]
    check(f"counted, bytes > 0: {bw}", bw["counted"] and bw["bytes"] > 0)
    check(f"GB/s = bytes / elapsed: {bw}",
          abs(bw["gbps"] - bw["bytes"] / d["elapsed_s"] / 1e9) <= 1e-6 * bw["gbps"])
    if bw["read_bytes"] is not None:
        check(f"read + write = total: {bw}",
              abs(bw["read_bytes"] + bw["write_bytes"] - bw["bytes"]) <= 1e-6 * bw["bytes"])
    check(f"a peak or why not: {bw}", bw["peak_gbps"] is not None or bw["peak_unknown"])
    p = subprocess.run([HWPROF, "stat", "--bandwidth", "-a", "--", "sleep", "0.2"],
                       capture_output=True, text=True, timeout=60)
    line = re.search(r" memory bandwidth \(.*\): read .* GB/s(,| of)", p.stderr)
    check(f"the text line: {p.stderr}", p.returncode == 0 and line is not None)
finish("bandwidth_host")
