#!/usr/bin/env python3
"""diff_e2e.py HWPROF [--case NAME] - `hwprof diff` on real recordings (page-faults, -c 1: one
sample per page touched, exact IPs) of small programs compiled here, static so that only
their own code is symbolized.

calibration: pairs of runs of one program whose pages fall on three lines at random (by
    seed): no more than 5% of the pairs may show any significant row at alpha 0.05.
twice: line B touches twice the pages in the new build: B significant and positive, the
    unchanged lines A and C not significant; --fail-if-worse exits 1 (and 0 above B's delta).
rebuild: ten lines inserted inside the function above the hot loop, in a second source tree:
    the hot line matched by its text (48 -> 58); edited in place after the base recording:
    matched by line number, with a note.
errors: different events, or two programs with nothing in common: one line, exit 2."""
import json
import os
from concurrent.futures import ThreadPoolExecutor
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from hwprof_test import EACH_FAULT, check, hot_line, record, run, run_cases  # noqa: E402

HWPROF = os.path.abspath(sys.argv[1])
CC = os.environ.get("RPT_CC", "cc")
FAULTS = EACH_FAULT + ["--no-count"]
USER_FAULTS = ["-e", "page-faults:u", "-c", "1", "--no-count"]  # user space only

# Three lines take the pages: at random by seed (calibration), or N_A, N_B, N_C each.
PROGRAM = r"""
#include <stdlib.h>
#include <sys/mman.h>

static char *page;

__attribute__((noinline)) static void touch_a(void)
{
	/*PAD*/
	*page = 1; page += 4096; /* HOT: a */
}

__attribute__((noinline)) static void touch_b(void)
{
	*page = 2; page += 4096; /* HOT: b */
}

__attribute__((noinline)) static void touch_c(void)
{
	*page = 3; page += 4096; /* HOT: c */
}

int main(int argc, char **argv)
{
	long seed = strtol(argv[1], NULL, 10), n = strtol(argv[2], NULL, 10);
	long na = argc > 3 ? strtol(argv[3], NULL, 10) : 0, nb = argc > 4 ? strtol(argv[4], NULL, 10) : 0;
	long nc = argc > 5 ? strtol(argv[5], NULL, 10) : 0;

	page = mmap(NULL, (size_t)(n + na + nb + nc + 1) * 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 1;
	srand((unsigned)seed);
	for (long i = 0; i < n; i++) {
		int r = rand() % 10;
		if (r < 5)
			touch_a();
		else if (r < 8)
			touch_b();
		else
			touch_c();
	}
	for (long i = 0; i < na; i++)
		touch_a();
	for (long i = 0; i < nb; i++)
		touch_b();
	for (long i = 0; i < nc; i++)
		touch_c();
	return 0;
}
"""


def build(d, name, pad=""):
    """Writes PROGRAM (PAD in place of the /*PAD*/ line) to D/wl.c and compiles D/NAME (NAME
    may name a folder under D). Returns (binary, source)."""
    src = os.path.join(d, "wl.c")
    exe = os.path.join(d, name)
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    with open(src, "w") as f:
        f.write(PROGRAM.replace("\t/*PAD*/\n", pad))
    r = subprocess.run([CC, "-g", "-O1", "-static", "-fno-sanitize=all", "-o", exe, src],
                       capture_output=True, text=True)
    if r.returncode:
        sys.exit("cannot build the workload: " + r.stderr)
    return exe, src


def diff(*args):
    return run([HWPROF, "diff", *args], timeout=60)


def diff_json(*args):
    r = diff("-f", "json", *args)
    check("diff %s: exit %d %s" % (" ".join(args), r.returncode, r.stderr[-300:]),
          r.returncode == 0 and "Sanitizer" not in r.stderr)
    return json.loads(r.stdout) if r.returncode == 0 else {"rows": [], "notes": []}


def row_at(j, src, line, side="new_line"):
    for r in j["rows"]:
        if r["file"] and r["file"].endswith(os.path.basename(src)) and r[side] == line:
            return r
    return None


def test_calibration(tmp):
    exe, _ = build(os.path.join(tmp, "cal"), "wl")
    pairs, flagged = 20, 0
    datas = [os.path.join(tmp, "cal%d.data" % i) for i in range(2 * pairs)]
    # A recording spends most of its time waiting (start, drain, exit): eight at a time.
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: record(HWPROF, datas[i], FAULTS,
                                       [exe, str(1000 + i), "1000"]),
                      range(2 * pairs)))
        diffs = list(pool.map(lambda i: diff("-f", "json", datas[2 * i], datas[2 * i + 1]),
                              range(pairs)))
    for i, r in enumerate(diffs):
        check("calibration pair %d: exit %d %s" % (i, r.returncode, r.stderr[-300:]),
              r.returncode == 0 and "Sanitizer" not in r.stderr)
        j = json.loads(r.stdout) if r.returncode == 0 else {"rows": []}
        sig = [r for r in j["rows"] if r["significant"]]
        flagged += bool(sig)
        if sig:
            print("pair %d: %r" % (i, [(r["function"], r["delta"], r["p_adjusted"]) for r in sig]))
    check("calibration: %d of %d pairs show a significant row (at most 5%%)" % (flagged, pairs),
          flagged <= pairs * 0.05)


def test_twice(tmp):
    exe, src = build(os.path.join(tmp, "twice"), "wl")
    base, new = os.path.join(tmp, "base.data"), os.path.join(tmp, "new.data")
    record(HWPROF, base, FAULTS, [exe, "0", "0", "3000", "150", "3000"])
    record(HWPROF, new, FAULTS, [exe, "0", "0", "3000", "300", "3000"])
    j = diff_json(base, new)
    b = row_at(j, src, hot_line(src, "b"))
    check("twice: B's row %r" % b, b is not None)
    if not b:
        return
    check("twice: B significant, grew: %r" % b, b["significant"] and b["delta"] > 1.9 and
          b["new_samples"] == 300 and b["base_samples"] == 150 and b["matched_by"] == "text")
    for tok in ("a", "c"):
        r = row_at(j, src, hot_line(src, tok))
        check("twice: %s unchanged, not significant: %r" % (tok, r), r is not None and
              not r["significant"] and r["base_samples"] == r["new_samples"] == 3000)
    check("twice: B the first row: %r" % j["rows"][0], j["rows"][0] == b)
    check("twice: nothing else significant: %d" % j["test"]["significant"],
          j["test"]["significant"] == 1)
    # Rows of equal change (all of them, a recording against itself): the hottest first.
    same = [max(r["base_value"], r["new_value"]) for r in diff_json(base, base)["rows"]]
    check("twice: base against itself, rows by share: %r" % same[:8],
          same and same == sorted(same, reverse=True))
    r = diff(base, new, "--fail-if-worse", "1")
    check("--fail-if-worse 1: exit %d, one error naming B: %r" % (r.returncode, r.stderr),
          r.returncode == 1 and r.stderr.count("\n") == 1 and "touch_b" in r.stderr)
    r = diff(base, new, "--fail-if-worse", "5")
    check("--fail-if-worse 5 (B grew by under 5 points): exit %d %r" % (r.returncode, r.stderr),
          r.returncode == 0)
    r = diff(new, base, "--fail-if-worse", "1")
    check("--fail-if-worse 1, reversed (B shrank): exit %d" % r.returncode, r.returncode == 0)
    # Text: B's row first, with its sign; CSV: the same numbers.
    r = diff(base, new)
    rows = [x for x in r.stdout.splitlines() if "touch_" in x]
    check("text: B first, '+' and 'yes': %r" % rows[:1], rows and "touch_b" in rows[0] and
          " yes " in rows[0] and "+2.3" in rows[0])
    r = diff("--base", base, "--new", new, "-f", "csv", "-s", "function")
    lines = r.stdout.splitlines()
    check("csv --sort function: a header and B first: %r" % lines[:2], len(lines) > 2 and
          lines[0].startswith("status,significant,") and ",touch_b," in lines[1] and
          lines[1].startswith("common,1,"))


def test_normalize(tmp):
    """B three times the pages, A and C unchanged: as shares A and C shrink (significant), as
    events per recording (the same work on both sides) they do not change."""
    exe, src = build(os.path.join(tmp, "norm"), "wl")
    base, new = os.path.join(tmp, "nb.data"), os.path.join(tmp, "nn.data")
    record(HWPROF, base, FAULTS, [exe, "0", "0", "1000", "1000", "1000"])
    record(HWPROF, new, FAULTS, [exe, "0", "0", "1000", "3000", "1000"])
    lines = {t: hot_line(src, t) for t in "abc"}
    share = diff_json(base, new)
    run_ = diff_json(base, new, "--normalize", "run")
    for tok in "ac":
        r = row_at(share, src, lines[tok])
        check("share: %s shrank, significant: %r" % (tok, r), r and r["significant"] and
              r["delta"] < -10)
        r = row_at(run_, src, lines[tok])
        check("per recording: %s unchanged: %r" % (tok, r), r and not r["significant"] and
              r["base_value"] == r["new_value"] == 1000)
    r = row_at(run_, src, lines["b"])
    check("per recording: B +2000 page faults, significant: %r" % r, r and r["significant"] and
          r["delta"] == 2000 and run_["test"]["unit"] == "per recording")
    r = diff(base, new, "--normalize", "run", "--fail-if-worse", "1500")
    check("per recording --fail-if-worse 1500: exit %d" % r.returncode, r.returncode == 1)
    r = diff(base, new, "--normalize", "instructions")
    check("--normalize instructions without counts: one line, exit 2: %r" % r.stderr,
          r.returncode == 2 and r.stderr.count("\n") == 1 and "instructions" in r.stderr)


def test_rebuild(tmp):
    pad = "".join("\tpage += 0; /* line %d of ten */\n" % i for i in range(10))
    exe1, src1 = build(os.path.join(tmp, "v1"), "wl")
    exe2, src2 = build(os.path.join(tmp, "v2"), "wl", pad=pad)
    a1, a2 = hot_line(src1, "a"), hot_line(src2, "a")
    check("rebuild: the hot line moved by ten: %d -> %d" % (a1, a2), a2 == a1 + 10)
    d1, d2 = os.path.join(tmp, "v1.data"), os.path.join(tmp, "v2.data")
    record(HWPROF, d1, FAULTS, [exe1, "0", "0", "2000", "1000", "1000"])
    record(HWPROF, d2, FAULTS, [exe2, "0", "0", "2000", "1000", "1000"])
    j = diff_json(d1, d2)
    r = row_at(j, src2, a2)
    check("rebuild: A matched by its text, %d -> %d: %r" % (a1, a2, r), r is not None and
          r["status"] == "common" and r["base_line"] == a1 and r["matched_by"] == "text" and
          r["base_samples"] == r["new_samples"] == 2000 and not r["significant"])
    check("rebuild: no note: %r" % j["notes"], not j["notes"])
    t = diff(d1, d2).stdout
    check("rebuild text: wl.c:%d->%d" % (a1, a2), "wl.c:%d->%d" % (a1, a2) in t)
    # annotate --diff: touch_a's source as the new build has it, its hot line with both
    # shares (all of the function's samples on each side).
    r = run([HWPROF, "annotate", "--diff", d1, d2, "touch_a"])
    hot = [x for x in r.stdout.splitlines() if "HOT: a" in x]
    check("annotate --diff: exit %d, the hot line at %d with both shares: %r %s" %
          (r.returncode, a2, hot, r.stderr), r.returncode == 0 and len(hot) == 1 and
          hot[0].split()[:4] == ["100.00%", "100.00%", "+0.00", str(a2)])
    r = run([HWPROF, "annotate", "--diff", d1, d2])
    check("annotate --diff without FUNCTION: usage %d %r" % (r.returncode, r.stderr),
          r.returncode == 64 and "BASE NEW FUNCTION" in r.stderr)

    # Edited in place after the base was recorded (the new build in a folder of its own):
    # the base's text is gone.
    exe3, src3 = build(os.path.join(tmp, "inplace"), "b1/wl")
    d3, d4 = os.path.join(tmp, "in1.data"), os.path.join(tmp, "in2.data")
    record(HWPROF, d3, FAULTS, [exe3, "0", "0", "2000", "1000", "1000"])
    exe4, _ = build(os.path.join(tmp, "inplace"), "b2/wl", pad=pad)
    record(HWPROF, d4, FAULTS, [exe4, "0", "0", "2000", "1000", "1000"])
    j = diff_json(d3, d4)
    check("in place: a note says wl.c is matched by line number: %r" % j["notes"],
          len(j["notes"]) == 1 and "wl.c: saved after the base was recorded" in j["notes"][0])
    b = row_at(j, src3, hot_line(src3, "b"))
    check("in place: B (below the edit, its own function) matched by line number: %r" % b,
          b is not None and b["status"] == "common" and b["matched_by"] == "line_number")


def test_errors(tmp):
    exe, _ = build(os.path.join(tmp, "e1"), "wl")
    other, _ = build(os.path.join(tmp, "e2"), "other")
    pf, mf, ot = (os.path.join(tmp, n) for n in ("pf.data", "mf.data", "ot.data"))
    # User space only: the kernel's rows (kernel-mode faults) are common to any two programs.
    record(HWPROF, pf, USER_FAULTS, [exe, "0", "0", "100", "100", "100"])
    record(HWPROF, mf, ["-e", "minor-faults:u", "-c", "1", "--no-count"],
           [exe, "0", "0", "100", "100", "100"])
    record(HWPROF, ot, USER_FAULTS, [other, "0", "0", "100", "100", "100"])
    for args, words, what in (
            ((pf, mf), ["'page-faults:u'", "'minor-faults:u'", "--event"], "different events"),
            ((pf, ot), ["no row of the base", "matches"], "nothing in common"),
            ((pf, os.path.join(tmp, "missing.data")), ["missing.data"], "a missing file"),
            ((pf, pf, "--comm", "nobody"), ["--comm 'nobody'"], "a filter no sample passes")):
        r = diff(*args)
        lines = r.stderr.strip().splitlines()
        check("%s: exit %d, one line %r" % (what, r.returncode, r.stderr),
              r.returncode == 2 and len(lines) == 1 and all(w in lines[0] for w in words) and
              not r.stdout)
    # With the kernel's rows too, two programs share only those: still nothing in common.
    pk, ok = os.path.join(tmp, "pk.data"), os.path.join(tmp, "ok.data")
    record(HWPROF, pk, ["-e", "page-faults", "-c", "1"], [exe, "0", "0", "100", "100", "100"])
    record(HWPROF, ok, ["-e", "page-faults", "-c", "1"], [other, "0", "0", "100", "100", "100"])
    r = diff(pk, ok)
    lines = r.stderr.strip().splitlines()
    check("two programs, kernel rows alike: exit 2, one line (%d %r)" % (r.returncode, r.stderr),
          r.returncode == 2 and len(lines) == 1 and
          ("user space" in lines[0] or "no row of the base" in lines[0]) and not r.stdout)
    # Two programs that share their libraries' rows: compared, with a note that they differ.
    te, ec = os.path.join(tmp, "true.data"), os.path.join(tmp, "echo.data")
    record(HWPROF, te, USER_FAULTS, ["/bin/true"])
    record(HWPROF, ec, USER_FAULTS, ["/bin/echo"])
    r = diff(te, ec)
    check("true against echo: a note naming both (%d %r)" % (r.returncode, r.stderr),
          "recorded true" in r.stderr and " echo: diff compares" in r.stderr)
    r = diff(pf)
    check("one file: usage error %d %r" % (r.returncode, r.stderr), r.returncode == 64 and
          "no new sample file" in r.stderr)
    r = diff(pf, pf, "-s", "addr")
    check("--sort addr: usage error %r" % r.stderr, r.returncode == 64 and "rebuild" in r.stderr)
    for key in ("data", "cacheline", "data,line"):
        r = diff(pf, pf, "-s", key)
        check("--sort %s: usage error %r" % (key, r.stderr),
              r.returncode == 64 and "report --sort" in r.stderr)
    r = diff(pf, pf, "--alpha", "2")
    check("--alpha 2: usage error %r" % r.stderr, r.returncode == 64 and "--alpha '2'" in r.stderr)
    j = diff_json(pf, pf)
    check("a file against itself: nothing significant, every row in both: %r" % j["test"],
          j["test"]["significant"] == 0 and j["test"]["rows"] == j["test"]["rows_in_both"])
    # The base's binary rebuilt in place (other code, so another build-id): annotate --diff
    # says so before the FUNCTION it cannot find, which the user gave as an operand.
    rb = os.path.join(tmp, "rb.data")
    exe5, _ = build(os.path.join(tmp, "e3"), "wl")
    record(HWPROF, rb, USER_FAULTS, [exe5, "0", "0", "100", "100", "100"])
    build(os.path.join(tmp, "e3"), "wl", pad="\tvolatile int pad = 1; (void)pad;\n")
    r = run([HWPROF, "annotate", "--diff", rb, pf, "touch_a"])
    err = r.stderr
    check("annotate --diff, base rebuilt: the rebuilt warning, then FUNCTION: %r" % err,
          r.returncode == 2 and "rebuilt" in err and "FUNCTION 'touch_a'" in err and
          "--function" not in err and err.index("rebuilt") < err.index("FUNCTION"))


with tempfile.TemporaryDirectory() as tmp_dir:
    run_cases(globals(), tmp_dir, label="diff-e2e")
