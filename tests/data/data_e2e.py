"""Data addresses on real page faults: `record -e page-faults -c 1` (--data is on by itself:
every first touch of a page is a sample at its exact address), then `report --sort data`,
`data,line` and `cacheline` on wl_data.c's modes. The hot lines are found by their markers."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from hwprof_test import EACH_FAULT, check, hot_line, record, run, run_cases  # noqa: E402

HWPROF = os.environ["HWPROF"]
WL = os.environ["WL_DATA"]
SRC = os.environ["WL_DATA_SRC"]
LIB_SRC = os.environ["WL_DATA_LIB_SRC"]
TMP = tempfile.mkdtemp(prefix="hwprof-data-")
PERF = shutil.which("perf")
# meson test sets MALLOC_PERTURB_: malloc would fill the buffers itself, in its memset.
os.environ.pop("MALLOC_PERTURB_", None)


def recorded(mode, *args):
    out = os.path.join(TMP, mode + ".data")
    record(HWPROF, out, EACH_FAULT, [WL, mode] + list(args))
    return out


def rows(path, *args):
    """report -f json ARGS of PATH: its rows (the test fails on a bad exit)."""
    p = run([HWPROF, "report", "-i", path, "-f", "json", "-n", "0"] + list(args))
    check(f"report {' '.join(args)} exit 0", p.returncode == 0, p.stderr)
    check(f"report {' '.join(args)} sanitizer-clean", "Sanitizer" not in p.stderr, p.stderr)
    try:
        return json.loads(p.stdout)["rows"]
    except ValueError:
        check("report json parses", False, p.stdout[:400])
        return []


def share_of(rs, obj):
    return sum(r["share"] for r in rs if r["data"]["object"] == obj)


def test_struct():
    """g.b of `struct { char a[4096]; char b[4*4096]; char c[4096]; } g`, only b touched."""
    f = recorded("struct")
    rs = rows(f, "-s", "data", "--function", "touch_struct")
    check("g.b takes >= 95% of touch_struct's faults", share_of(rs, "g.b") >= 0.95, rs[:3])
    check("g.b: its 4 pages", sum(r["samples"] for r in rs if r["data"]["object"] == "g.b") == 4,
          rs[:3])
    line = hot_line(SRC, "struct_b")
    rs = rows(f, "-s", "data,line")
    hot = [r for r in rs if r["data"]["object"] == "g.b"]
    check("data,line pairs g.b with HOT: struct_b", len(hot) == 1 and hot[0]["line"] == line
          and hot[0]["file"].endswith("wl_data.c"), hot)
    check("no other object of g", not [r for r in rs if r["data"]["object"].startswith("g.")
                                        and r["data"]["object"] != "g.b"], rs[:6])


def test_array():
    """The key field of table.entries[0..7], one page each: one row with the index range."""
    f = recorded("array")
    rs = rows(f, "-s", "data,line", "--function", "touch_array")
    line = hot_line(SRC, "array_key")
    check("table.entries[0-7].key at HOT: array_key",
          [(r["data"]["object"], r["line"], r["samples"]) for r in rs] ==
          [("table.entries[0-7].key", line, 8)], rs)
    d = rs[0]["data"] if rs else {}
    check("element range in JSON", d.get("key") == "table.entries[].key" and
          d.get("elem_low") == 0 and d.get("elem_high") == 7, d)


def test_dso_filter():
    """Two images' variables: wl_data's g and libwldata.so's lib_g. --dso wl_data drops the
    library code's stores to lib_g.lo, the first of lib_g's region in address order; the
    program's stores to lib_g.hi, right after them, are still named by the library's variables
    (not by those of the region before: the last kept sample's)."""
    f = recorded("lib")
    lo, hi, b = hot_line(LIB_SRC, "lib_lo"), hot_line(SRC, "lib_hi"), hot_line(SRC, "struct_b")

    marked = {("wl_data_lib.c", lo), ("wl_data.c", hi), ("wl_data.c", b)}

    def objs(*args):
        """(object, file, line, samples) of the rows of lib_g, of g or at a marked line."""
        rs = [(r["data"]["object"], os.path.basename(r["file"] or ""), r["line"], r["samples"])
              for r in rows(f, "-s", "data,line", *args)]
        return sorted(r for r in rs if r[0].startswith(("g.", "lib_g")) or r[1:3] in marked)

    check("no filter: g.b, lib_g.lo and lib_g.hi at their lines, 4 pages each",
          objs() == [("g.b", "wl_data.c", b, 4), ("lib_g.hi", "wl_data.c", hi, 4),
                     ("lib_g.lo", "wl_data_lib.c", lo, 4)], objs())
    got = objs("--dso", os.path.basename(WL))
    check("--dso wl_data: g.b and lib_g.hi, lib_g.lo dropped",
          got == [("g.b", "wl_data.c", b, 4), ("lib_g.hi", "wl_data.c", hi, 4)], got)


def test_heap():
    """A 64 KiB malloc is on the brk heap; a 16 MiB one is mapped anonymous."""
    rs = rows(recorded("heap"), "-s", "data", "--function", "touch_heap")
    check("64 KiB malloc: [heap] >= 95%", share_of(rs, "[heap]") >= 0.95, rs[:3])
    rs = rows(recorded("bigheap"), "-s", "data,line", "--function", "touch_heap")
    line = hot_line(SRC, "bigheap")
    big = [r for r in rs if r["data"]["object"] == "[anon]" and r["line"] == line]
    check("16 MiB malloc: [anon] at HOT: bigheap >= 95%",
          big and big[0]["share"] >= 0.95 and big[0]["samples"] >= 4000, rs[:3])


def test_stack():
    """A 1 MiB stack buffer: the stack grows down with no MMAP record, and is still [stack]."""
    rs = rows(recorded("stack"), "-s", "data", "--function", "touch_stack")
    check("[stack] >= 95% of touch_stack's faults", share_of(rs, "[stack]") >= 0.95, rs[:3])
    check("about 256 pages", sum(r["samples"] for r in rs) >= 200, rs[:3])


def test_file():
    """Pages 4..11 of a mapped 16-page file, at offset 100 of each: file+0x4064-0xb064."""
    path = os.path.join(TMP, "mapped.bin")
    rs = rows(recorded("file", path), "-s", "data", "--function", "touch_file")
    rs = [r for r in rs if r["data"]["key"] == path]
    d = rs[0]["data"] if rs else {}
    check("one row of the file", len(rs) == 1 and rs[0]["samples"] == 8, rs)
    check("offsets within pages 4..11", d.get("kind") == "file" and
          4 * 4096 <= d.get("elem_low", -1) and d.get("elem_high", 1 << 30) < 12 * 4096, d)
    check("label file+0xLO-0xHI", d.get("object") == f"{path}+0x4064-0xb064", d)


def test_folded():
    """-f folded with --sort data: the instruction's functions, then the object as a leaf
    frame, all of an array's elements as one."""
    for mode, leaf, n in (("struct", "touch_struct;[data:g.b]", 4),
                          ("array", "touch_array;[data:table.entries[].key]", 8)):
        p = run([HWPROF, "report", "-i", recorded(mode), "-s", "data", "-f", "folded",
                 "--function", "touch_" + mode])
        check(f"{mode}: folded exit 0", p.returncode == 0, p.stderr)
        lines = [ln for ln in p.stdout.splitlines() if leaf in ln]
        check(f"{mode}: one line '...;{leaf} {n}'", len(lines) == 1 and
              lines[0].endswith(f"{leaf} {n}") and lines[0].startswith("main;"), p.stdout)
        check(f"{mode}: every line ends in a data frame",
              all(";[data:" in ln or ln.startswith("[data:") for ln in p.stdout.splitlines()),
              p.stdout)


def go_pprof(*args):
    """go tool pprof ARGS (77 without go); its stdout."""
    go = shutil.which("go")
    if not go:
        print("skip: no `go` on PATH (Debian: apt-get install golang-go; scripts/install-deps)")
        sys.exit(77)
    env = dict(os.environ, HOME=TMP, GOCACHE=os.path.join(TMP, "gocache"),
               GOPATH=os.path.join(TMP, "gopath"), GOFLAGS="", GOPROXY="off",
               GOTOOLCHAIN="local", PPROF_TMPDIR=TMP)
    p = run([go, "tool", "pprof", *args], timeout=180, env=env)
    check(f"go tool pprof {' '.join(args[:-1])} exit 0", p.returncode == 0, p.stderr[-2000:])
    return p.stdout


def test_pprof():
    """-f pprof with --sort data: each data group a sample whose leaf is a [data:OBJ] frame
    above its instruction's function, labelled data=OBJ. go tool pprof -top gives every object
    the samples report --sort data gives it; -traces -lines with --sort data,line pairs g.b
    with the line that touched it."""
    for mode in ("struct", "array"):
        f = recorded(mode)
        want = {}
        for r in rows(f, "-s", "data"):
            want[r["data"]["key"]] = want.get(r["data"]["key"], 0) + r["samples"]
        pb = os.path.join(TMP, mode + ".pb.gz")
        p = run([HWPROF, "report", "-i", f, "-s", "data", "-f", "pprof", "-o", pb])
        check(f"{mode}: report -s data -f pprof exit 0", p.returncode == 0, p.stderr)
        got = {}
        for ln in go_pprof("-top", "-nodecount=100000", "-nodefraction=0", pb).splitlines():
            m = re.match(r"^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+\d+\s+[\d.]+%\s+\[data:(.*)\]$", ln)
            if m:
                got[m.group(2)] = int(m.group(1))
        check(f"{mode}: pprof -top's [data:OBJ] flats are report --sort data's "
              f"({len(want)} objects)", got == want and len(want) > 1,
              sorted(set(got.items()) ^ set(want.items()))[:6])
    obj, fn = "g.b", "touch_struct"
    line = hot_line(SRC, "struct_b")
    pb = os.path.join(TMP, "struct-line.pb.gz")
    p = run([HWPROF, "report", "-i", recorded("struct"), "-s", "data,line", "-f", "pprof",
             "-o", pb])
    check("report -s data,line -f pprof exit 0", p.returncode == 0, p.stderr)
    traces = go_pprof("-traces", "-lines", "-tagfocus", "data=" + obj, pb)
    blocks = [b for b in traces.split("-----------+") if f"[data:{obj}]" in b]
    check(f"-traces -tagfocus data={obj}: {obj}'s 4 samples, each above {fn} at its line "
          f"wl_data.c:{line}",
          sum(int(re.search(r"^\s*(\d+)\s+\[data:", b, re.M).group(1)) for b in blocks) == 4
          and all(re.search(r"\[data:%s\]\n\s+%s \S*wl_data.c:%d" % (re.escape(obj), fn, line),
                            b) for b in blocks), traces[-1500:])


def test_svg():
    """-f svg with --sort data: the objects as boxes [data:OBJ] above the instructions'
    functions, with report --sort data's samples."""
    f = recorded("struct")
    out = os.path.join(TMP, "struct.svg")
    p = run([HWPROF, "report", "-i", f, "-s", "data", "-f", "svg", "-o", out])
    check("report -s data -f svg exit 0", p.returncode == 0, p.stderr)
    svg = open(out, encoding="utf-8").read()
    boxes = re.findall(r'data-n="\[data:g\.b\]"><title>\[data:g\.b\]\n(\d+) samples', svg)
    check("one box [data:g.b] of 4 samples: %r" % boxes, boxes == ["4"])
    check("it sits on touch_struct: the subtitle says the objects are above",
          "data objects they touched" in svg and 'data-n="touch_struct"' in svg)


def lines_of(path, size):
    return rows(path, "-s", "cacheline", "--cacheline-size", str(size),
                "--function", "writer_a,writer_b")


def test_cachelines():
    """Two threads writing the even and odd pages of one buffer, or each of its own: with page
    faults a line is seen once per page, so lines of 8 KiB (two pages) tell them apart: in the
    shared buffer every line is touched by both threads' lines, in separate buffers by one."""
    shared = recorded("shared")
    separate = recorded("separate")
    sh = lines_of(shared, 8192)
    se = lines_of(separate, 8192)
    check("shared: 32 lines of 8 KiB, each touched by 2 source lines",
          len(sh) == 32 and all(r["data"]["srclines"] == 2 and r["samples"] == 2 for r in sh)
          and all(r["data"]["base"] == "shared" for r in sh), sh[:3])
    check("separate: 64 lines, each touched by 1 source line",
          len(se) == 64 and all(r["data"]["srclines"] == 1 for r in se)
          and {r["data"]["base"] for r in se} == {"sep_a", "sep_b"}, se[:3])
    sh64 = lines_of(shared, 64)
    check("64-byte lines: 64 of them, one source line each (a page faults once)",
          len(sh64) == 64 and all(r["data"]["srclines"] == 1 for r in sh64), sh64[:3])
    p = run([HWPROF, "report", "-i", shared, "-s", "cacheline", "-n", "3", "--function",
             "writer_a"])
    check("text: the page-granule note", "first touch of each page" in p.stdout, p.stdout)
    check("text: cache line labels", "shared+0x" in p.stdout, p.stdout)


def test_neighbours():
    """Two variables in one cache line are one row of it, touched by both their source lines:
    perf c2c's false-sharing case. nb_x and nb_y are a page each, side by side; lines of the
    smallest size that holds both (at least 8 KiB: a page faults once) in link-time addresses."""
    f = recorded("neighbours")
    addr = {}
    for line in run(["nm", WL]).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] in ("nb_x", "nb_y"):
            addr[parts[2]] = int(parts[0], 16)
    if not check("nm names nb_x and nb_y", len(addr) == 2, addr):
        return
    size = 8192
    while addr["nb_x"] // size != addr["nb_y"] // size:
        size *= 2
    rs = rows(f, "-s", "cacheline", "--cacheline-size", str(size), "--function",
              "touch_neighbours")
    first = min(addr, key=addr.get)
    check("one line of %d bytes, both variables' stores in it" % size,
          [(r["samples"], r["data"]["srclines"], r["data"]["base"]) for r in rs] ==
          [(2, 2, first)], rs)
    rs = rows(f, "-s", "cacheline", "--function", "touch_neighbours")
    check("64-byte lines: one each", sorted(r["data"]["base"] for r in rs) == ["nb_x", "nb_y"]
          and all(r["data"]["srclines"] == 1 for r in rs), rs)
    p = run([HWPROF, "report", "-i", f, "-s", "data", "--cacheline-size", "128"])
    check("--cacheline-size without -s cacheline: a usage error (%d: %s)"
          % (p.returncode, p.stderr.strip()),
          p.returncode == 64 and "-s cacheline" in p.stderr)


def test_no_data():
    """--no-data records no address: --sort data says how to get one."""
    out = os.path.join(TMP, "nodata.data")
    record(HWPROF, out, ["-e", "page-faults", "-c", "1", "--no-data"], [WL, "struct"])
    p = run([HWPROF, "report", "-i", out, "-s", "data"])
    check("--sort data without addresses: exit 2", p.returncode == 2, p.returncode)
    check("one line naming the way out, perf's too", "record with --data" in p.stderr and
          "perf record -d" in p.stderr and
          len(p.stderr.strip().splitlines()) == 1, p.stderr)
    p = run([HWPROF, "report", "-i", out, "-s", "cachline"])
    check("a misspelt key suggests cacheline", "did you mean 'cacheline'" in p.stderr, p.stderr)


def test_real_pmu():
    """Where mem-loads (Intel) or ibs_op (AMD) opens: the array's loads named with a data
    source and a latency. Skipped (exit 77) with the reason elsewhere (no PMU here)."""
    out = os.path.join(TMP, "mem.data")
    tried = []
    for ev in ("cpu/mem-loads,ldlat=30/P", "ibs_op//"):
        p = run([HWPROF, "record", "-e", ev, "-c", "1000", "-o", out, "--", WL, "array"])
        if p.returncode == 0:
            break
        why = p.stderr.strip().splitlines()
        tried.append(f"{ev}: {why[0] if why else p.returncode}")
    else:
        print("SKIP: no memory-sampling event opens on this host (" + "; ".join(tried) + ")")
        sys.exit(77)
    rs = rows(out, "-s", "data")
    check("some row has a data source", any(r["data"].get("served_from") for r in rs), rs[:3])
    check("some row has a latency", any(r["data"].get("latency_mean") for r in rs), rs[:3])


def perf_recorded(mode, *args):
    """perf record -d -e page-faults -c 1 of MODE: its perf.data, or exit 77 (skip) when perf
    is missing or cannot record here."""
    if not PERF:
        print("skip: no perf on this host (Debian: linux-perf)")
        sys.exit(77)
    out = os.path.join(TMP, mode + ".perf")
    p = run([PERF, "record", "-q", "-d", "-e", "page-faults", "-c", "1", "-o", out, WL, mode]
            + list(args), timeout=60)
    if p.returncode != 0 or not os.path.exists(out):
        print("skip: perf record -d -e page-faults failed here: %s" % p.stderr.strip())
        sys.exit(77)
    return out


def perf_samples(path):
    """[(addr, ip)] of every sample of PATH (perf script -F addr,ip), and the MMAP2s as
    {file: [(start, len, pgoff)]}."""
    p = run([PERF, "script", "-i", path, "-F", "addr,ip", "--show-mmap-events"])
    check("perf script exit 0", p.returncode == 0, p.stderr)
    samples, maps = [], {}
    for ln in p.stdout.splitlines():
        m = re.search(r"PERF_RECORD_MMAP2 .*\[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0) "
                      r".*\]: \S+ (\S+)$", ln)
        if m:
            maps.setdefault(m.group(4), []).append(tuple(int(x, 16) for x in m.groups()[:3]))
            continue
        t = ln.split()
        if len(t) == 2 and all(re.fullmatch(r"[0-9a-f]+", x) for x in t):
            samples.append((int(t[0], 16), int(t[1], 16)))
    return samples, maps


def symbol(name):
    """(link-time address, size) of WL's symbol NAME (nm -S)."""
    out = subprocess.run(["nm", "-S", WL], capture_output=True, text=True).stdout
    for ln in out.splitlines():
        t = ln.split()
        if len(t) == 4 and t[3] == name:
            return int(t[0], 16), int(t[1], 16)
    check("nm finds %s" % name, False, out[-300:])
    return 0, 0


def lowest_page():
    """The page of WL's lowest PT_LOAD (readelf -lW): 0 in a PIE."""
    out = subprocess.run(["readelf", "-lW", WL], capture_output=True, text=True).stdout
    return min(int(ln.split()[2], 16) for ln in out.splitlines()
               if ln.split()[:1] == ["LOAD"]) & ~0xfff


def objects(path, fn):
    """{object: samples} of --sort data --function FN."""
    return {r["data"]["object"]: r["samples"] for r in rows(path, "-s", "data", "--function", fn)}


def offsets_in(path, base):
    """{offset from BASE: samples} of --sort cacheline --cacheline-size 1 (each address)."""
    out = {}
    for r in rows(path, "-s", "cacheline", "--cacheline-size", "1"):
        if r["data"]["base"] == base:
            out[r["data"]["line_offset"]] = out.get(r["data"]["line_offset"], 0) + r["samples"]
    return out


def perf_case(mode, fn, args, exact):
    """MODE recorded by perf record -d and by hwprof: the objects of FN's samples are the same
    (EXACT: the same counts; else the same top object, its count within 2 %). Returns the
    perf.data."""
    pd = perf_recorded(mode, *args)
    mine = objects(recorded(mode, *args), fn)
    theirs = objects(pd, fn)
    if exact:
        check(f"{mode}: perf.data gives hwprof's objects {mine}", theirs == mine, theirs)
    else:
        top = max(mine, key=mine.get, default=None)
        check(f"{mode}: perf.data's top object is hwprof's {top}",
              max(theirs, key=theirs.get, default=None) == top, theirs)
        a, b = theirs.get(top, 0), mine.get(top, 0)
        check(f"{mode}: {top} {a} samples, hwprof's own {b}", abs(a - b) <= max(2, b // 50))
    return pd


def test_perf_data_variables():
    """perf record -d's perf.data (PERF_SAMPLE_ADDR, its mmap_data mappings): report --sort
    data gives the variables, fields and file offsets of hwprof's own recording of the same
    run, and their addresses are those perf script prints."""
    for mode in ("struct", "array"):
        pd = perf_case(mode, "touch_" + mode, [], True)
        samples, maps = perf_samples(pd)
        var = "g" if mode == "struct" else "table"
        link, size = symbol(var)
        # The image's first mapping (file offset 0) is its lowest segment's page.
        start = min(m[0] for m in maps[WL] if m[2] == 0) - lowest_page()
        want = {}
        for a, _ in samples:
            if start + link <= a < start + link + size:
                want[a - start - link] = want.get(a - start - link, 0) + 1
        got = offsets_in(pd, var)
        check(f"{mode}: {var}'s addresses are perf script's {sorted(want)}",
              got == want and len(want) >= 4, sorted(got.items()))
    path = os.path.join(TMP, "perf-mapped.bin")
    pd = perf_case("file", "touch_file", [path], True)
    # perf's addresses in the file's mapping, as file offsets: the row's range.
    samples, maps = perf_samples(pd)
    start, length, pgoff = maps[path][0]
    offs = sorted(a - start + pgoff for a, _ in samples if start <= a < start + length)
    d = [r["data"] for r in rows(pd, "-s", "data") if r["data"]["key"] == path]
    check(f"file: perf's offsets {[hex(o) for o in offs]} are the row's",
          len(offs) == 8 and len(d) == 1 and d[0]["elem_low"] == offs[0]
          and d[0]["elem_high"] == offs[-1], d)


def test_perf_data_regions():
    """The same for the heap, a large malloc ([anon]) and the stack: the same top object."""
    perf_case("heap", "touch_heap", [], False)
    perf_case("bigheap", "touch_heap", [], False)
    perf_case("stack", "touch_stack", [], False)

run_cases(globals())
