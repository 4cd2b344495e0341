#!/bin/sh
# The installed library as a user sees it: `meson install --destdir` into a temporary root,
# then examples/regions.c built with `pkg-config --cflags --libs hwprof` (shared, and static),
# run with HWPROF_OUTPUT=*.json, the JSON checked with python3.
#
# usage: pkgconfig.sh BUILD_DIR SOURCE_DIR SANITIZE   (SANITIZE: meson's b_sanitize, e.g. none)
set -eu
build=$1 src=$2 sanitize=$3
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

meson install -C "$build" --no-rebuild --destdir "$tmp/root" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; echo "pkgconfig: meson install failed"; exit 1; }
pc=$(find "$tmp/root" -name hwprof.pc | head -n1)
[ -n "$pc" ] || { echo "pkgconfig: no hwprof.pc installed"; exit 1; }
for f in hwprof/hwprof.h hwprof/event.h hwprof/metrics.h; do
	find "$tmp/root" -path "*include/$f" | grep -q . || { echo "pkgconfig: $f not installed"; exit 1; }
done
if command -v scdoc >/dev/null; then
	find "$tmp/root" -path '*/man1/hwprof-record.1' | grep -q . ||
		{ echo "pkgconfig: man page hwprof-record.1 not installed"; exit 1; }
fi
libdir=$(dirname "$(dirname "$pc")")
ls "$libdir"/libhwprof.so* "$libdir"/libhwprof.a >/dev/null

# The .pc names the final prefix; the sysroot variable maps it into the staging root.
export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$tmp/root"
cflags=$(pkg-config --cflags hwprof)
libs=$(pkg-config --libs hwprof)
echo "pkg-config: $cflags $libs"

# Shared: the program itself plain, as a user builds it. A sanitized libhwprof.so needs its
# runtime loaded first.
$cc -O2 -o "$tmp/regions" "$src/examples/regions.c" $cflags $libs
preload=
case $sanitize in *address*) preload=$($cc -print-file-name=libasan.so) ;; esac
LD_PRELOAD=$preload ASAN_OPTIONS=detect_leaks=0 LD_LIBRARY_PATH="$libdir" \
	HWPROF_EVENTS=page-faults,task-clock HWPROF_OUTPUT="$tmp/r.json" "$tmp/regions" 2000 >/dev/null

python3 - "$tmp/r.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
regs = {r["name"]: r for r in doc["regions"]}
assert sorted(regs) == ["compute", "main", "touch"], sorted(regs)
t = regs["touch"]
assert t["calls"] == 3 and isinstance(t["thread"], int), t
for r in doc["regions"]:
    for e in r["events"]:
        assert {"event", "value", "enabled_ns", "running_ns"} <= set(e), e
    assert "metrics" in r
pf = [e for e in t["events"] if e["event"] == "page-faults"][0]
assert 6000 <= pf["value"] <= 6000 * 1.02, pf
assert regs["main"]["calls"] == 1
print("regions.json: touch 3 calls, page-faults", pf["value"], "for 6000 pages")
PY

# Static: the archive and its private libraries.
san=
[ "$sanitize" = none ] || san="-fsanitize=$sanitize"
$cc -O2 $san -o "$tmp/regions-static" "$src/examples/regions.c" $cflags \
	-Wl,-Bstatic $(pkg-config --libs-only-l hwprof) -Wl,-Bdynamic \
	$(pkg-config --libs-only-L hwprof) $(pkg-config --static --libs-only-other hwprof) \
	$(pkg-config --static --libs hwprof | tr ' ' '\n' | grep -v -e '^-lhwprof$' -e '^-L' | tr '\n' ' ')
ASAN_OPTIONS=detect_leaks=0 HWPROF_EVENTS=page-faults HWPROF_OUTPUT="$tmp/r.csv" \
	"$tmp/regions-static" 100 >/dev/null
grep -q '^touch,[0-9]*,3,page-faults,' "$tmp/r.csv" || { cat "$tmp/r.csv"; exit 1; }
echo "static: ok"

# The ABI: libhwprof.so exports exactly the functions the installed headers declare.
so=$(ls "$libdir"/libhwprof.so.*.*.* | head -n1)
nm -D --defined-only "$so" | awk '{print $3}' | sed 's/@.*//' | grep -v '^$' | sort -u >"$tmp/exported"
python3 "$src/common/exports.py" --list "$src"/common/include/hwprof/*.h | sort -u >"$tmp/declared"
if ! cmp -s "$tmp/exported" "$tmp/declared"; then
	echo "abi: nm -D and the installed headers differ (< exported only, > declared only):"
	diff "$tmp/exported" "$tmp/declared" | grep '^[<>]'
	exit 1
fi
echo "abi: $(wc -l <"$tmp/exported") functions exported, each declared in an installed header"

# C++: every installed header included, the API called and linked (extern "C").
cat >"$tmp/api.cpp" <<'CPP'
#include <hwprof/event.h>
#include <hwprof/hwprof.h>
#include <hwprof/metrics.h>
#include <hwprof/sampfile.h>
#include <hwprof/sys.h>

#include <cstdio>

int main()
{
	hwprof_event_list list{};
	char err[256];
	if (hwprof_events_parse("page-faults", &list, err, sizeof err) != 0) {
		std::printf("hwprof_events_parse: %s\n", err);
		return 1;
	}
	hwprof_events_free(&list);
	hwprof_reader *r = nullptr;
	int rc = hwprof_reader_open(&r, "/nonexistent/hwprof.data", err, sizeof err);
	std::printf("hwprof_reader_open: %d (%s)\n", rc, err);
	return rc < 0 && r == nullptr ? 0 : 1;
}
CPP
${CXX:-c++} -std=c++17 -Wall -Wextra -Werror -o "$tmp/api" "$tmp/api.cpp" $cflags $libs
LD_PRELOAD=$preload ASAN_OPTIONS=detect_leaks=0 LD_LIBRARY_PATH="$libdir" "$tmp/api"
echo "c++: ok"
