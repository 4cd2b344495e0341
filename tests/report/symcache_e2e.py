#!/usr/bin/env python3
"""symcache_e2e.py HWPROF - the symbolization cache (report/core/symcache.h) end to end: a hit
gives the very output a miss and --no-cache give, a hit is really read, another build-id
misses, a truncated or corrupt file is ignored and rewritten, --no-cache neither reads nor
writes, concurrent reports leave one valid file, the directory stays under its bound."""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from hwprof_test import check, run_cases  # noqa: E402

HWPROF = os.path.abspath(sys.argv[1])
HEADER = 128      # struct file_header
ENTRY = 48        # struct file_ent
LINE_AT = 28      # file_ent.line
FNV_BASIS = 14695981039346656037
FNV_PRIME = 1099511628211


def env_for(cache, **extra):
    e = dict(os.environ, XDG_CACHE_HOME=cache)
    e.update(extra)
    return e


def report(cache, *args, **extra):
    p = subprocess.run([HWPROF, "report", *args], capture_output=True, text=True,
                       env=env_for(cache, **extra), timeout=60)
    check("report %s: exit 0 (%s)" % (" ".join(args), p.stderr.strip()), p.returncode == 0)
    check("report %s: sanitizer-clean" % " ".join(args),
          "Sanitizer" not in p.stderr and "runtime error" not in p.stderr, p.stderr)
    return p.stdout


def gen_case(out, binary, *kv):
    r = subprocess.run([os.environ["RPT_GEN_CASE"], out, binary, "samples=3000", *kv],
                       capture_output=True, text=True)
    check("gen_case: %s" % r.stderr, r.returncode == 0)
    return out


def files(cache):
    d = os.path.join(cache, "hwprof")
    return sorted(os.path.join(d, f) for f in os.listdir(d)) if os.path.isdir(d) else []


def checksum(data):
    h = FNV_BASIS
    for (w,) in struct.iter_unpack("<Q", data):
        h = ((h ^ w) * FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


def setup(tmp, name="prog"):
    """A fresh copy of the inline workload, a recording of it and an empty cache dir."""
    prog = os.path.join(tmp, name)
    shutil.copy(os.environ["RPT_INLINE"], prog)
    data = gen_case(os.path.join(tmp, name + ".data"), prog)
    cache = os.path.join(tmp, "cache")
    os.makedirs(cache, exist_ok=True)
    return prog, data, cache


def test_hit_same_output(tmp):
    prog, data, cache = setup(tmp)
    for args in ([], ["-f", "json"], ["--inline=caller"], ["--sort", "sym"]):
        want = report(cache, "--no-cache", "-i", data, *args)
        check("--no-cache writes no file (%s)" % args, not files(cache), files(cache))
        miss = report(cache, "-i", data, *args)
        made = files(cache)
        check("a miss writes one file (%s)" % args, len(made) >= 1, made)
        before = {f: os.stat(f).st_ino for f in made}
        hit = report(cache, "-i", data, *args)
        check("miss output == --no-cache output (%s)" % args, miss == want)
        check("hit output == --no-cache output (%s)" % args, hit == want)
        check("a hit rewrites nothing (%s)" % args,
              {f: os.stat(f).st_ino for f in files(cache)} == before)
        check("the output names the workload's lines (%s)" % args, "wl_inline.c" in want,
              want[:400])
        shutil.rmtree(os.path.join(cache, "hwprof"))


def gap_after_init(binary):
    """A file offset of BINARY's code that no symbol covers: the padding after .init."""
    out = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True).stdout
    sec = {}
    for ln in out.splitlines():
        f = ln.replace("[ ", "[").split()
        if len(f) > 5 and f[1] in (".init", ".plt"):
            sec[f[1]] = (int(f[4], 16), int(f[5], 16))
    off = sec[".init"][0] + sec[".init"][1] if ".init" in sec else 0
    check("a gap after .init: %r" % sec, ".plt" in sec and off < sec[".plt"][0])
    return off


def test_no_frames_on_empty_cache(tmp):
    """The first answer stored in an empty cache has no frames at all (an address no
    symbol covers): nothing to copy into a frame array not yet allocated."""
    prog = os.path.join(tmp, "prog")
    shutil.copy(os.environ["RPT_INLINE"], prog)
    data = gen_case(os.path.join(tmp, "prog.data"), prog,
                    "at=%d:3000" % gap_after_init(prog))
    cache = os.path.join(tmp, "cache")
    want = report(cache, "--no-cache", "-i", data, "-f", "json")
    rows = json.loads(want)["rows"]
    check("one row, no file:line: %r" % rows[:1],
          len(rows) == 1 and rows[0]["file"] is None and rows[0]["samples"] == 3000)
    miss = report(cache, "-i", data, "-f", "json")
    check("a miss writes one file", len(files(cache)) == 1, files(cache))
    check("miss output == --no-cache output", miss == want, miss[:400])
    hit = report(cache, "-i", data, "-f", "json")
    check("hit output == --no-cache output", hit == want, hit[:400])


def poison(path, line):
    """Rewrites every entry's line in cache file PATH to LINE, with a right checksum."""
    with open(path, "rb") as f:
        b = bytearray(f.read())
    nents = struct.unpack_from("<I", b, HEADER - 12)[0]
    for i in range(nents):
        struct.pack_into("<i", b, HEADER + i * ENTRY + LINE_AT, line)
    struct.pack_into("<Q", b, len(b) - 8, checksum(bytes(b[:-8])))
    with open(path, "wb") as f:
        f.write(b)
    return nents


def test_hit_is_read_and_no_cache_ignores_it(tmp):
    prog, data, cache = setup(tmp)
    want = report(cache, "--no-cache", "-i", data)
    report(cache, "-i", data)
    made = files(cache)
    check("one cache file", len(made) == 1, made)
    n = poison(made[0], 987654)
    check("the file holds entries", n > 0, n)
    hit = report(cache, "-i", data)
    check("a hit is answered from the file (its poisoned line shows)", ":987654" in hit,
          hit[:600])
    check("--no-cache does not read it", report(cache, "--no-cache", "-i", data) == want)
    with open(made[0], "rb") as f:
        after = f.read()
    check("--no-cache does not write it", struct.unpack_from("<i", after, HEADER + LINE_AT)[0]
          == 987654)


def test_other_build_id_misses(tmp):
    prog, data, cache = setup(tmp)
    report(cache, "-i", data)
    first = files(cache)
    check("one file for the first build", len(first) == 1, first)
    # Another build at the same path: its own file, its own answers.
    shutil.copy(os.environ["RPT_ONELINE"], prog)
    data2 = gen_case(os.path.join(tmp, "other.data"), prog)
    want = report(cache, "--no-cache", "-i", data2)
    got = report(cache, "-i", data2)
    check("another build-id: the output of --no-cache", got == want)
    both = files(cache)
    check("another build-id gets a file of its own", len(both) == 2, both)
    # The first build's file under the second's name is never trusted.
    new = [f for f in both if f not in first][0]
    shutil.copy(first[0], new)
    check("a file of another build-id, renamed, is ignored",
          report(cache, "-i", data2) == want)


def test_corrupt_ignored(tmp):
    prog, data, cache = setup(tmp)
    want = report(cache, "--no-cache", "-i", data)
    report(cache, "-i", data)
    path = files(cache)[0]
    with open(path, "rb") as f:
        good = f.read()
    bad = {
        "truncated to half": good[:len(good) // 2],
        "truncated by one byte": good[:-1],
        "empty": b"",
        "header only": good[:HEADER],
        "one byte flipped": good[:len(good) // 2] + bytes([good[len(good) // 2] ^ 0x40]) +
        good[len(good) // 2 + 1:],
        "garbage": bytes(range(256)) * 8,
        "another version": good[:7] + b"\x7f" + good[8:],
    }
    for what, content in bad.items():
        with open(path, "wb") as f:
            f.write(content)
        got = report(cache, "-i", data)
        check("%s: the output of --no-cache" % what, got == want)
        with open(path, "rb") as f:
            check("%s: rewritten whole" % what, f.read() == good)
    # Every entry pointing past the strings, with a right checksum: refused, not read.
    b = bytearray(good)
    struct.pack_into("<I", b, HEADER + 8, 0x7FFFFFF0)
    struct.pack_into("<Q", b, len(b) - 8, checksum(bytes(b[:-8])))
    with open(path, "wb") as f:
        f.write(b)
    check("a string offset out of the file: ignored", report(cache, "-i", data) == want)


def test_concurrent_writers(tmp):
    prog, data, cache = setup(tmp)
    want = report(cache, "--no-cache", "-i", data)
    procs = [subprocess.Popen([HWPROF, "report", "-i", data], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env_for(cache))
             for _ in range(6)]
    outs = [p.communicate(timeout=120) for p in procs]
    check("6 concurrent reports: all exit 0", all(p.returncode == 0 for p in procs),
          [o[1] for o in outs])
    check("6 concurrent reports: all give the --no-cache output",
          all(o[0] == want for o in outs))
    left = files(cache)
    check("one file left, no temporary ones", len(left) == 1 and left[0].endswith(".sym"), left)
    ino = os.stat(left[0]).st_ino
    check("after them: a hit with the same output", report(cache, "-i", data) == want)
    check("after them: the file was valid (not rewritten)", os.stat(left[0]).st_ino == ino)


def test_bounded(tmp):
    prog, data, cache = setup(tmp)
    report(cache, "-i", data)
    first = files(cache)
    shutil.copy(os.environ["RPT_ONELINE"], prog)
    data2 = gen_case(os.path.join(tmp, "other.data"), prog)
    report(cache, "-i", data2, HWPROF_CACHE_MAX_BYTES="1")
    left = files(cache)
    check("over the bound: the older file evicted, the new one kept",
          len(left) == 1 and left[0] not in first, (first, left))


def test_split_dwarf_not_cached(tmp):
    # Its answers depend on the .dwo files too, which the build-id does not vouch for.
    split = os.environ["RPT_SPLIT"]
    data = gen_case(os.path.join(tmp, "split.data"), split)
    cache = os.path.join(tmp, "cache")
    want = report(cache, "--no-cache", "-i", data)
    got = report(cache, "-i", data)
    check("split DWARF: the output of --no-cache", got == want)
    check("split DWARF: no cache file", not files(cache), files(cache))


def test_xdg_relative_ignored(tmp):
    prog, data, cache = setup(tmp)
    home = os.path.join(tmp, "home")
    os.makedirs(home)
    subprocess.run([HWPROF, "report", "-i", data], capture_output=True, cwd=tmp,
                   env=dict(os.environ, XDG_CACHE_HOME="rel", HOME=home))
    check("a relative XDG_CACHE_HOME is ignored: the cache is under $HOME/.cache",
          not os.path.exists(os.path.join(tmp, "rel")) and
          len(os.listdir(os.path.join(home, ".cache", "hwprof"))) == 1)


def main():
    def each(fn):
        def wrapped():
            with tempfile.TemporaryDirectory(dir=os.environ.get("RPT_TMP")) as tmp:
                fn(tmp)
        return wrapped
    cases = {k: each(v) for k, v in globals().items()
             if k.startswith("test_") and callable(v)}
    run_cases(cases)


if __name__ == "__main__":
    main()
