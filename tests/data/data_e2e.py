"""Data addresses on real page faults: `record -e page-faults -c 1` (--data is on by itself:
every first touch of a page is a sample at its exact address), then `report --sort data`,
`data,line` and `cacheline` on wl_data.c's modes. The hot lines are found by their markers."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from hwprof_test import check, hot_line, record, run, run_cases  # noqa: E402

HWPROF = os.environ["HWPROF"]
WL = os.environ["WL_DATA"]
SRC = os.environ["WL_DATA_SRC"]
TMP = tempfile.mkdtemp(prefix="hwprof-data-")
# meson test sets MALLOC_PERTURB_: malloc would fill the buffers itself, in its memset.
os.environ.pop("MALLOC_PERTURB_", None)


def recorded(mode, *args):
    out = os.path.join(TMP, mode + ".data")
    record(HWPROF, out, ["-e", "page-faults", "-c", "1"], [WL, mode] + list(args))
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


def test_no_data():
    """--no-data records no address: --sort data says how to get one."""
    out = os.path.join(TMP, "nodata.data")
    record(HWPROF, out, ["-e", "page-faults", "-c", "1", "--no-data"], [WL, "struct"])
    p = run([HWPROF, "report", "-i", out, "-s", "data"])
    check("--sort data without addresses: exit 2", p.returncode == 2, p.returncode)
    check("one line naming the way out", "record with --data" in p.stderr and
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


run_cases(globals())
