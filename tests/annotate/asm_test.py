#!/usr/bin/env python3
"""hwprof annotate's instruction views (suite 'annotate'), on asm_work.c recorded with
`-e page-faults -c 1` (each sample's IP the faulting instruction):

  store      the store of HOT: store holds >= 95% of store_pages' samples, under its line
  nodebug    a copy without debug info: instructions only, by symbol + offset, with shares
  stripped   a copy without symbols: each function's range from its call frame information,
             named sub_ADDR, its instructions with their shares
  two        HOT: two's load and store: each its own share (about half)
  loads      HOT: loads, two loads on one line from two arrays: each about half
  jumps      store_pages' loop: its backward jump lands on the store, marked > as a hot
             jump's target (JSON: hot_jump_target), the jump's text naming the target
  libc       memset in libc (no source): instructions with their shares
  skid       hand-made files (gen_case) of a hardware event, precise_ip 0 and 1, samples on the
             instruction after the store: the store marked as the likely cause, or "exact"
  sort_addr  report --sort addr and sym,addr: a row per instruction with annotate's text
  tui        under tmux: v cycles the views, i goes to the next hot instruction, Enter on a
             call opens the callee, Enter on a jump goes to its target

usage: asm_test.py HWPROF ASM_WORK ASM_WORK_NODEBUG GEN_CASE ASM_WORK_STRIPPED [--case NAME]
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from hwprof_test import check, run, run_cases  # noqa: E402

HWPROF, WORK, NODEBUG, GEN_CASE, STRIPPED = (os.path.abspath(a) for a in sys.argv[1:6])
SRC = os.path.join(HERE, "asm_work.c")
TMP = tempfile.mkdtemp(prefix="hwprof-asm-")
_recordings = {}


def hot_line(name):
    import hwprof_test
    return hwprof_test.hot_line(SRC, name)


def recording(binary):
    """BINARY recorded once with page-faults, period 1; exits 77 when record cannot run."""
    if binary not in _recordings:
        out = os.path.join(TMP, os.path.basename(binary) + ".data")
        p = run([HWPROF, "record", "-e", "page-faults", "-c", "1", "-o", out, "--", binary])
        if p.returncode != 0:
            print("SKIP: hwprof record failed:", p.returncode, p.stderr.strip())
            sys.exit(77)
        _recordings[binary] = out
    return _recordings[binary]


def annotate_json(data, function, *opts):
    p = run([HWPROF, "annotate", "-i", data, "--stdio", "-f", "json", *opts, function])
    check(f"annotate {function} -f json exits 0", p.returncode == 0, p.stderr)
    doc = json.loads(p.stdout)
    check(f"{function}: one function", len(doc["functions"]) == 1, p.stdout[:300])
    return doc, doc["functions"][0]


def insns(fn):
    return [r for r in fn["rows"] if r["kind"] == "instruction"]


def stores(fn):
    return [r for r in insns(fn) if r["memory"] in ("write", "read+write")]


def test_store():
    line = hot_line("store")
    doc, fn = annotate_json(recording(WORK), "store_pages", "--asm")
    check("the view is source+instructions", fn["view"] == "source+instructions", fn["view"])
    top = max(insns(fn), key=lambda r: r["samples"])
    check("the hottest instruction is a store", top["memory"] == "write" and
          top["text"].startswith("mov"), top)
    check("the store holds >= 95% of store_pages' samples", top["share_function"] >= 0.95,
          top["share_function"])
    check("the store's line is HOT: store", top["line"] == line, f"{top['line']} != {line}")
    rows = fn["rows"]
    at = rows.index(top)
    above = [r for r in rows[:at] if r["kind"] == "line"][-1]
    check("the store sits under the marked line", above["line"] == line, above)
    check("the marked line has the store's samples", above["samples"] >= top["samples"])
    check("the instruction rows add up to the function's samples",
          sum(r["samples"] for r in insns(fn)) == fn["samples"])
    p = run([HWPROF, "annotate", "-i", recording(WORK), "--stdio", "--asm", "store_pages"])
    check("--stdio --asm says the view", "view: source+instructions" in p.stdout, p.stdout)
    mark = [ln for ln in p.stdout.splitlines() if top["address"][2:] in ln]
    check("the text shows the store with its samples", mark and str(top["samples"]) in mark[0],
          mark)
    p = run([HWPROF, "annotate", "-i", recording(WORK), "-f", "json", "store_pages"])
    check("-f json without --stdio is a usage error", p.returncode == 64, p.stderr)
    p = run([HWPROF, "annotate", "-i", recording(WORK), "--stdio", "--asm", "--no-source"])
    check("--asm with --no-source is a usage error", p.returncode == 64, p.stderr)


def test_nodebug():
    doc, fn = annotate_json(recording(NODEBUG), "store_pages", "--asm")
    check("without debug info the view is instructions", fn["view"] == "instructions",
          fn["view"])
    top = max(insns(fn), key=lambda r: r["samples"])
    check("the store holds >= 95% there too", top["memory"] == "write" and
          top["share_function"] >= 0.95, top)
    check("no line", top["line"] == 0 and top["file"] is None, top)
    p = run([HWPROF, "annotate", "-i", recording(NODEBUG), "--stdio", "--asm", "store_pages"])
    check("the text says why", "view: instructions (no line information" in p.stdout,
          p.stdout)
    label = f"store_pages+0x{top['offset']:x}"
    hot = [ln for ln in p.stdout.splitlines() if label in ln]
    check("instructions are named by symbol + offset", hot and
          re.search(r"\b%d\b" % top["samples"], hot[0]), p.stdout)


def symbol_address(name):
    out = subprocess.run(["nm", WORK], capture_output=True, text=True).stdout
    at = re.findall(r"^([0-9a-f]+) [Tt] %s$" % name, out, re.M)
    check(f"nm lists {name}", at, out)
    return int(at[0], 16)


def test_stripped():
    data = recording(STRIPPED)
    p = run([HWPROF, "annotate", "-i", data, "--stdio", "--asm", "-f", "json", "--limit", "1"])
    check("annotate --asm of a stripped binary exits 0", p.returncode == 0, p.stderr)
    fn = json.loads(p.stdout)["functions"][0]
    check("its hottest function is [unknown]", fn["name"] == "[unknown]" and
          fn["dso"].endswith("asm_work_stripped"), fn["name"])
    check("it is shown as instructions", fn["view"] == "instructions", fn["view"])
    rows = insns(fn)
    check("its instructions hold its samples", rows and
          sum(r["samples"] for r in rows) == fn["samples"], fn["samples"])
    sub = "sub_%x" % symbol_address("store_pages")
    own = [r for r in rows if r["symbol"] == sub]
    check(f"store_pages' range is read, named {sub}", own, sorted({r["symbol"] for r in rows}))
    top = max(own, key=lambda r: r["samples"])
    check("its store holds store_pages' 2000 samples", top["memory"] == "write" and
          top["samples"] == 2000, top)
    check("a hot jump's target there too", top["hot_jump_target"], top)
    p = run([HWPROF, "annotate", "-i", data, "--stdio", "--asm", "--limit", "1"])
    check("the text says the view", "view: instructions (no line information" in p.stdout,
          p.stdout)
    check("and labels by sub_ADDR + offset", re.search(
        r"\b2000\s+>\s+%s\+0x%x\s+mov" % (sub, top["offset"]), p.stdout), p.stdout)
    check("no note of missing code", "no instructions to show" not in p.stdout, p.stdout)


def test_two():
    line = hot_line("two")
    doc, fn = annotate_json(recording(WORK), "copy_pages", "--asm")
    mem = [r for r in insns(fn) if r["memory"] and r["line"] == line and r["samples"]]
    kinds = sorted(r["memory"] for r in mem)
    check("HOT: two has a sampled load and a sampled store", kinds == ["read", "write"],
          [(r["text"], r["samples"]) for r in insns(fn) if r["samples"]])
    for r in mem:
        check(f"{r['memory']} {r['text']}: about half of copy_pages",
              0.45 <= r["share_function"] <= 0.55, r["share_function"])


def test_loads():
    line = hot_line("loads")
    doc, fn = annotate_json(recording(WORK), "load_pages", "--asm")
    mem = [r for r in insns(fn) if r["memory"] and r["line"] == line and r["samples"]]
    check("HOT: loads has two sampled loads", [r["memory"] for r in mem] == ["read", "read"],
          [(r["text"], r["samples"]) for r in insns(fn) if r["samples"]])
    check("they are two instructions", len({r["address"] for r in mem}) == 2, mem)
    for r in mem:
        check(f"load {r['text']}: about half of load_pages",
              0.45 <= r["share_function"] <= 0.55, r["share_function"])
    p = run([HWPROF, "annotate", "-i", recording(WORK), "--stdio", "--asm", "load_pages"])
    for r in mem:
        shown = [ln for ln in p.stdout.splitlines() if re.search(r"\b%s\s" % r["address"][2:], ln)]
        check(f"the text shows {r['address']} with its own samples",
              shown and re.search(r"\b%d\b" % r["samples"], shown[0]), p.stdout)


def test_jumps():
    doc, fn = annotate_json(recording(WORK), "store_pages", "--asm")
    rows = insns(fn)
    store = max(rows, key=lambda r: r["samples"])
    back = [r for r in rows if r["text"].startswith("j") and
            r["text"].endswith("store_pages+0x%x" % store["offset"])]
    check("a jump of the loop names the store as its target", back,
          [r["text"] for r in rows])
    check("the store is a hot jump's target", store["jump_target"] and
          store["hot_jump_target"], store)
    cold = [r for r in rows if r["jump_target"] and not r["hot_jump_target"]]
    check("no other target is hot", all(r["samples"] == 0 for r in cold), cold)
    check("only jump targets are marked", all(r["jump_target"] for r in rows
                                             if r["hot_jump_target"]))
    p = run([HWPROF, "annotate", "-i", recording(WORK), "--stdio", "--asm", "store_pages"])
    mark = [ln for ln in p.stdout.splitlines() if re.search(r">\s+%s\s" % store["address"][2:], ln)]
    check("the text marks the store with >", mark, p.stdout)
    plain = [ln for ln in p.stdout.splitlines() if re.search(r">\s+[0-9a-f]+\s", ln)]
    check("and nothing else", len(plain) == 1, plain)


def test_libc():
    p = run([HWPROF, "annotate", "-i", recording(WORK), "--stdio", "--asm", "-f", "json",
             "--limit", "0"])
    check("annotate --limit 0 -f json exits 0", p.returncode == 0, p.stderr)
    doc = json.loads(p.stdout)
    libc = [f for f in doc["functions"] if "memset" in f["name"] and "libc" in f["dso"]]
    check("memset in libc has samples", libc, [f["name"] for f in doc["functions"]])
    fn = libc[0]
    check("it is shown with instructions", fn["view"] in ("instructions",
                                                          "source+instructions"), fn["view"])
    rows = insns(fn)
    check("its instructions hold its samples", rows and
          sum(r["samples"] for r in rows) == fn["samples"], fn["samples"])
    top = max(rows, key=lambda r: r["samples"])
    check("the hottest is a store", top["memory"] in ("write", "read+write"), top)
    check("named by symbol + offset", top["symbol"] and "memset" in top["symbol"], top)


def after_store():
    """File offsets of store_pages' store and of the instruction after it, from objdump."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "--disassemble=store_pages",
                          WORK], capture_output=True, text=True).stdout
    ins = re.findall(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", out, re.M)
    at = [i for i, (a, m, ops) in enumerate(ins) if m.startswith("mov") and
          re.search(r",\s*-?\w*\(", ops)]
    check("objdump shows store_pages' store", at, out)
    store, nxt = int(ins[at[0]][0], 16), int(ins[at[0] + 1][0], 16)
    segs = subprocess.run(["readelf", "-lW", WORK], capture_output=True, text=True).stdout
    for off, vaddr, filesz in re.findall(
            r"LOAD\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+0x[0-9a-f]+\s+(0x[0-9a-f]+)", segs):
        off, vaddr, filesz = int(off, 16), int(vaddr, 16), int(filesz, 16)
        if vaddr <= nxt < vaddr + filesz:
            return store, nxt, nxt - vaddr + off
    check("a PT_LOAD holds the store", False, segs)


def skid_file(precise):
    store, nxt, off = after_store()
    out = os.path.join(TMP, f"skid{precise}.data")
    p = run([GEN_CASE, out, WORK, "samples=1000", f"at={off}:900", "event=cycles", "type=0",
             f"precise={precise}", "period=100000"])
    check(f"gen_case precise={precise}", p.returncode == 0, p.stderr)
    return out, store, nxt


def test_skid():
    data, store, nxt = skid_file(0)
    doc, fn = annotate_json(data, "store_pages", "--asm")
    by_addr = {int(r["address"], 16): r for r in insns(fn)}
    check("the samples are on the instruction after the store",
          by_addr.get(nxt, {}).get("samples", 0) >= 900, by_addr.get(nxt))
    check("the store is marked as the likely cause", by_addr.get(store, {}).get("skid_cause"),
          by_addr.get(store))
    check("only the store is", [a for a, r in by_addr.items() if r["skid_cause"]] == [store])
    notes = [r["text"] for r in fn["rows"] if r["kind"] == "note"]
    check("one note says skid", len([n for n in notes if n.startswith("skid:")]) == 1, notes)
    p = run([HWPROF, "annotate", "-i", data, "--stdio", "--asm", "store_pages"])
    line = [ln for ln in p.stdout.splitlines() if re.search(r"!\s+%x\s" % store, ln)]
    check("the text marks the store with !", line, p.stdout)

    data, store, nxt = skid_file(1)
    doc, fn = annotate_json(data, "store_pages", "--asm")
    check("precise_ip 1: no mark", not any(r["skid_cause"] for r in insns(fn)))
    notes = [r["text"] for r in fn["rows"] if r["kind"] == "note"]
    check("precise_ip 1: the IPs are exact", any("the IPs are exact" in n for n in notes), notes)


def test_sort_addr():
    """report --sort addr: a row per instruction address with its text; sym,addr too."""
    data = recording(WORK)
    doc, fn = annotate_json(data, "copy_pages", "--asm")
    want = {r["address"]: r for r in insns(fn) if r["samples"]}
    p = run([HWPROF, "report", "-i", data, "--sort", "addr", "-f", "json", "-n", "0"])
    check("report --sort addr -f json exits 0", p.returncode == 0, p.stderr)
    rows = [r for r in json.loads(p.stdout)["rows"] if r["function"] == "copy_pages"]
    got = {r["address"]: r for r in rows}
    check("a row per sampled instruction of copy_pages", set(got) == set(want),
          f"{sorted(got)} != {sorted(want)}")
    for a, r in got.items():
        check(f"{a}: annotate's samples and text", r["samples"] == want[a]["samples"] and
              r["instruction"] == want[a]["text"], (r, want[a]))
    p = run([HWPROF, "report", "-i", data, "--sort", "sym,addr", "-n", "5"])
    check("--sort sym,addr exits 0", p.returncode == 0, p.stderr)
    head = [ln for ln in p.stdout.splitlines() if "instruction" in ln and "address" in ln]
    check("the text has address and instruction columns", head, p.stdout)
    for a, r in want.items():
        line = [ln for ln in p.stdout.splitlines() if a in ln and "copy_pages" in ln]
        check(f"{a} {r['text']} in the text", line and r["text"].split()[0] in line[0],
              p.stdout)
    p = run([HWPROF, "report", "-i", data, "--sort", "addr", "-f", "csv", "-n", "3"])
    check("csv ends with address,instruction", p.stdout.splitlines()[0].endswith(
        ",address,instruction"), p.stdout)


# ---- the TUI under tmux ------------------------------------------------------------------

SOCKET = f"hwprof-asm-{os.getpid()}"


def tmux(*args):
    return subprocess.run(["tmux", "-L", SOCKET, "-f", "/dev/null"] + list(args),
                          capture_output=True, text=True, timeout=10).stdout


def screen():
    return tmux("capture-pane", "-p", "-t", "t")


def wait_for(pattern, what, timeout=10):
    end = time.time() + timeout
    while time.time() < end:
        s = screen()
        if re.search(pattern, s):
            return s
        time.sleep(0.05)
    check(what, False, screen())
    return ""


def test_tui():
    if not shutil.which("tmux"):
        print("SKIP: tmux is not installed")
        sys.exit(77)
    data = recording(WORK)
    cmd = f"TERM=xterm {HWPROF} annotate -i {data} run; sleep 5"
    tmux("new-session", "-d", "-s", "t", "-x", "100", "-y", "30", cmd)
    try:
        wait_for(r"run \[asm_work\]", "the TUI opens on run")
        check("it opens in the source view", "[view: source]" in screen(), screen())
        tmux("send-keys", "-t", "t", "v")
        s = wait_for(r"\[view: source\+instructions\]", "v: the mixed view")
        tmux("send-keys", "-t", "t", "/", "call   store", "Enter")
        s = wait_for(r"run\+0x[0-9a-f]+", "the search lands on the call")
        tmux("send-keys", "-t", "t", "Enter")
        s = wait_for(r"store_pages \[asm_work\]", "Enter on the call opens store_pages")
        check("the callee opens in the mixed view", "[view: source+instructions]" in s, s)
        # Its lines are read when it opens (the model ranks functions by symbol): the store's
        # line is there with its samples, as on a first screen.
        check("the callee's lines are read: its hot line with its samples",
              re.search(rf"^# +\d+\.\d% +\d+ +{hot_line('store')} ", s, re.M), s)
        tmux("send-keys", "-t", "t", "g", "i")
        s = wait_for(r"store_pages\+0x[0-9a-f]+\s+hot 1/", "i: the next hot instruction")
        cur = [ln for ln in s.splitlines() if re.search(r"mov\S*\s+%\w+, \(", ln)]
        check("the hot instruction shown is the store", cur, s)
        tmux("send-keys", "-t", "t", "/", "jne", "Enter")
        s = wait_for(r"store_pages\+0x[0-9a-f]+\s+hot 0/", "the search lands on the jump")
        tmux("send-keys", "-t", "t", "Enter")
        s = wait_for(r"jumped to store_pages\+0x", "Enter on the jump goes to its target")
        cur = [ln for ln in s.splitlines() if re.search(r">\s+[0-9a-f]+\s+mov\S*\s+%\w+, \(", ln)]
        check("the target shown is the store, marked >", cur, s)
        tmux("send-keys", "-t", "t", "v")
        s = wait_for(r"\[view: instructions\]", "v again: the instructions view")
        check("labels by symbol + offset", re.search(r"store_pages\+0x[0-9a-f]+\s+mov", s), s)
        tmux("send-keys", "-t", "t", "v")
        wait_for(r"\[view: source\]", "v again: back to the source view")
        tmux("send-keys", "-t", "t", "?")
        s = wait_for(r"hwprof annotate: keys", "the help")
        check("the help lists the view key", re.search(r"\bv\s+view: source", s), s)
        check("the help lists the hot instruction key", re.search(r"\bi I\s+next / previous hot instr", s),
              s)
        tmux("send-keys", "-t", "t", "q", "q")
    finally:
        tmux("kill-server")


run_cases(globals(), label="annotate instruction views")
