#!/usr/bin/env python3
"""oom_e2e.py RELEASE_HWPROF SHIM - report when memory runs out: it fails with one line naming
the cause, or prints what it prints with memory to spare; never a partial or symbol-only
profile under exit 0, never a symbolization cache entry that a later report, with memory,
would show instead of the lines.

Memory runs out on purpose: SHIM (big_alloc_fails.c, LD_PRELOAD) fails every allocation above
a size, as glibc fails when the address space is full. The sanitizers' allocator cannot be
interposed, so the binary is the release build (./scripts/test builds it before the tests);
without it the test skips, saying so."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from hwprof_test import check, run_cases  # noqa: E402

HWPROF = os.path.abspath(sys.argv[1])
SHIM = os.path.abspath(sys.argv[2])
LIBC = "/lib/x86_64-linux-gnu/libc.so.6"
# Each run under the shim, then one with memory over its cache: -f csv has every row.
ARGS = ["-f", "csv"]


def report(data, cache, fail_above=None, *extra):
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    env.pop("ASAN_OPTIONS", None)
    if fail_above:
        env.update(LD_PRELOAD=SHIM, HWPROF_TEST_FAIL_ABOVE=str(fail_above))
    return subprocess.run([HWPROF, "report", "-i", data, *ARGS, *extra], capture_output=True,
                          text=True, env=env, timeout=60)


def gen_case(out, binary):
    r = subprocess.run([os.environ["RPT_GEN_CASE"], out, binary, "samples=20000"],
                       capture_output=True, text=True)
    check("gen_case %s: %s" % (os.path.basename(binary), r.stderr), r.returncode == 0)
    return out


def sweep(tmp, data, label, sizes):
    """For each size: report with allocations above it failing, then with memory over the same
    cache. Returns how many runs ran out of memory."""
    want = report(data, os.path.join(tmp, "none"), None, "--no-cache")
    check("%s: report with memory: exit 0 (%s)" % (label, want.stderr.strip()),
          want.returncode == 0)
    failed = 0
    for size in sizes:
        cache = tempfile.mkdtemp(dir=tmp)
        p = report(data, cache, size)
        lines = p.stderr.strip().splitlines()
        if p.returncode == 0:
            check("%s, allocations > %d fail: exit 0 gives the whole profile" % (label, size),
                  p.stdout == want.stdout, p.stderr)
        else:
            failed += 1
            check("%s, allocations > %d fail: one line names memory (exit %d)"
                  % (label, size, p.returncode),
                  len(lines) == 1 and "memory" in lines[0] and p.returncode == 2, p.stderr)
            check("%s, allocations > %d fail: not taken for a damaged file" % (label, size),
                  "damaged" not in p.stderr, p.stderr)
        after = report(data, cache)
        check("%s, after allocations > %d failed: the cache gives the same profile"
              % (label, size), after.returncode == 0 and after.stdout == want.stdout,
              after.stderr)
        shutil.rmtree(cache)
    return failed


def test_sample_file(tmp):
    """Reading the samples runs out of memory: an error, not a damaged file."""
    data = gen_case(os.path.join(tmp, "prog.data"), os.environ["RPT_INLINE"])
    failed = sweep(tmp, data, "sample file", [1 << k for k in (12, 14, 16, 18)])
    check("sample file: the small sizes ran out of memory", failed == 4, failed)


def test_big_line_table(tmp):
    """One CU of 400,000 lines: libdw's line table is the big allocation."""
    src, prog = os.path.join(tmp, "big.s"), os.path.join(tmp, "big")
    with open(src, "w") as f:
        f.write('\t.file 1 "big.c"\n\t.text\n\t.globl main\n\t.type main, @function\nmain:\n')
        f.write("".join("\t.loc 1 %d\n\tnop\n" % i for i in range(1, 400001)))
        f.write("\txorl %eax, %eax\n\tret\n\t.size main, .-main\n")
        f.write('\t.section .note.GNU-stack,"",@progbits\n')
    r = subprocess.run([os.environ["RPT_CC"], "-g", "-o", prog, src], capture_output=True,
                       text=True)
    if not check("big line table: builds (%s)" % r.stderr.strip(), r.returncode == 0):
        return
    data = gen_case(os.path.join(tmp, "big.data"), prog)
    sweep(tmp, data, "big line table", [1 << k for k in range(20, 27)])


def test_compressed_debug_file(tmp):
    """libc's separate debug file (libc6-dbg), zlib-compressed: libelf inflates each section
    into one allocation."""
    want = report(gen_case(os.path.join(tmp, "libc.data"), LIBC), os.path.join(tmp, "c0"),
                  None, "--no-cache")
    if "libc.so.6" not in want.stdout or ".c," not in want.stdout:
        print("skip: libc has no line information here (install libc6-dbg)")
        return
    sweep(tmp, os.path.join(tmp, "libc.data"), "libc's debug file",
          [1 << k for k in range(20, 27)])


if not os.access(HWPROF, os.X_OK):
    print("skip: no release build at %s (./scripts/build makes it; ./scripts/test does)"
          % HWPROF)
    sys.exit(77)
with tempfile.TemporaryDirectory(dir=os.environ.get("RPT_TMP")) as tmpdir:
    run_cases(globals(), tmpdir)
