#!/usr/bin/env python3
"""inline_e2e.py HWPROF - a location's whole inline chain in call paths and folded stacks, on
rpt_inline_chain (wl_inline_chain.c: poke inlined into mid inlined into outer), recorded with
`record -g -e page-faults -c 1` (one sample per page touched, exact IPs). With --inline every
frame shows, the middle one (mid) too, each at its line: poke at its own line, mid at its call
of poke, outer at its call of mid, main at its call of outer. Without --inline the paths stay
as they were (the innermost and the real function only)."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import hwprof_test  # noqa: E402
from hwprof_test import check, finish  # noqa: E402

HWPROF = os.path.abspath(sys.argv[1])
SRC = os.environ["RPT_SRC"]
CHAIN = os.environ["RPT_INLINE_CHAIN"]
PAGES = 2000


def hot_line(token):
    """The line of wl_inline_chain.c marked "HOT: TOKEN"."""
    return hwprof_test.hot_line(os.path.join(SRC, "wl_inline_chain.c"), token)


def run(*args):
    """hwprof ARGS."""
    return hwprof_test.run([HWPROF, *args], timeout=60)


def ending(stacks, tail):
    """The samples of the folded stacks that end with TAIL (libc's start code above main has
    no frame pointers: what is above main varies)."""
    return sum(v for k, v in stacks.items() if k == tail or k.endswith(";" + tail))


def folded(data, *extra):
    r = run("report", "-i", data, "-f", "folded", *extra)
    check("folded %s: %s" % (" ".join(extra), r.stderr), r.returncode in (0, 1))
    return {x.rsplit(" ", 1)[0]: int(x.rsplit(" ", 1)[1]) for x in r.stdout.splitlines()}


with tempfile.TemporaryDirectory() as d:
    data = os.path.join(d, "chain.data")
    hwprof_test.record(HWPROF, data, ["-g", "-e", "page-faults", "-c", "1"], [CHAIN, str(PAGES)])

    # Folded: every page's sample is main;outer;mid;poke with --inline, main;outer;poke without.
    full = folded(data, "--inline")
    hot = ending(full, "main;outer;mid;poke")
    check("--inline: main;outer;mid;poke %d (%d pages)" % (hot, PAGES), PAGES <= hot <= PAGES + 50)
    flat = folded(data)
    check("without --inline: main;outer;poke %d, as before"
          % ending(flat, "main;outer;poke"), ending(flat, "main;outer;poke") == hot)
    check("without --inline: no mid frame", not any(";mid;" in k for k in flat))
    lines = folded(data, "--inline", "--folded-lines")
    want = "main:%d;outer:%d;mid:%d;poke:%d" % (hot_line("call_outer"), hot_line("call_mid"),
                                               hot_line("call_poke"), hot_line("poke"))
    check("--inline --folded-lines: %s %d" % (want, ending(lines, want)),
          ending(lines, want) == hot)

    # -G --inline: poke's call path names mid at its call of poke, then outer and main.
    r = run("report", "-i", data, "-G", "--inline", "--no-children", "-s", "function", "-n", "1")
    check("-G --inline: %s" % r.stderr, r.returncode in (0, 1))
    for fn, tok in (("mid", "call_poke"), ("outer", "call_mid"), ("main", "call_outer")):
        frame = "wl_inline_chain.c:%d %s" % (hot_line(tok), fn)
        check("-G --inline shows %s" % frame, frame in r.stdout)
    r = run("report", "-i", data, "-G", "--no-children", "-s", "function", "-n", "1")
    check("-G without --inline: outer at the outermost call site, no mid",
          " mid" not in r.stdout and "wl_inline_chain.c:%d outer" % hot_line("call_mid")
          in r.stdout)

    # JSON with --inline: the row's call paths carry mid with its line.
    r = run("report", "-i", data, "--inline", "--no-children", "-s", "function", "-f", "json")
    rows = json.loads(r.stdout)["rows"]
    top = rows[0] if rows else {}
    frames = [(f["function"], f["line"]) for p in top.get("call_paths", []) for f in p["frames"]]
    check("json --inline: poke's path has mid at call_poke (%s)" % frames[:4],
          top.get("function", "").startswith("poke") and ("mid", hot_line("call_poke")) in frames)

    # --children --inline: the middle frame is a row of its own, every stack through it
    # its children (none its self), at its call of poke; without --inline it has none.
    r = run("report", "-i", data, "--children", "--inline", "-s", "function", "-f", "json")
    rows = json.loads(r.stdout)["rows"] if r.returncode in (0, 1) else []
    mid = [x for x in rows if x.get("function", "").split(" ")[0] == "mid"]
    outer = [x for x in rows if x.get("function", "").split(" ")[0] == "outer"]
    check("--children --inline: a mid row with outer's children and no self (%s)" % mid[:1],
          len(mid) == 1 and outer and mid[0]["samples"] == outer[0]["samples"] >= PAGES and
          mid[0]["self_samples"] == 0 and mid[0]["line"] == hot_line("call_poke"))
    r = run("report", "-i", data, "-G", "--children", "--inline", "-s", "function")
    block = r.stdout.split("mid (inlined into outer)", 1)[1].split("\n\n", 1)[0] \
        if "mid (inlined into outer)" in r.stdout else ""
    check("-G --children --inline: mid's callers are outer and main (%s)" % block[:300],
          "wl_inline_chain.c:%d outer" % hot_line("call_mid") in block and
          "wl_inline_chain.c:%d main" % hot_line("call_outer") in block)
    # Keyed by address, the middle frame is its location's row: that row keeps poke's line.
    r = run("report", "-i", data, "--children", "--inline", "-s", "addr", "-f", "json")
    rows = json.loads(r.stdout)["rows"] if r.returncode in (0, 1) else []
    hot = [x for x in rows if x.get("self_samples", 0) >= PAGES]
    check("--children --inline -s addr: the hot address keeps poke at its line (%s)" % hot[:1],
          len(hot) == 1 and (hot[0].get("function") or "").startswith("poke") and
          hot[0].get("line") == hot_line("poke"))
    r = run("report", "-i", data, "--children", "-s", "function", "-f", "json")
    rows = json.loads(r.stdout)["rows"] if r.returncode in (0, 1) else []
    check("--children without --inline: no mid row",
          rows and not any(x.get("function", "").startswith("mid") for x in rows))

    # --inline MODE with a space still means the mode, as before.
    r = run("report", "-i", data, "--inline", "caller", "--no-children", "-f", "json", "-n", "1")
    rows = json.loads(r.stdout)["rows"] if r.returncode in (0, 1) else []
    check("--inline caller: the outermost call site's line (%s)" % (rows[:1],),
          rows and rows[0]["line"] == hot_line("call_mid"))

finish("inline-e2e")
