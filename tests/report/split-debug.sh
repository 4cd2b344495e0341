#!/bin/sh
# split-debug.sh IN DEBUGLINKED BARE DEBUG DEBUGZ DEBUGZSTD
# Splits IN's debug info into DEBUG; DEBUGLINKED is IN stripped with a .gnu_debuglink to DEBUG
# (found next to it), BARE is IN stripped with nothing but its build-id note to find DEBUG by;
# DEBUGZ is DEBUG with its DWARF sections zlib-compressed (SHF_COMPRESSED), as Debian's
# -dbg packages ship them; DEBUGZSTD the same with zstd (binutils 2.40), a copy of DEBUGZ
# where objcopy cannot.
set -eu
objcopy --only-keep-debug "$1" "$4"
objcopy --compress-debug-sections=zlib-gabi "$4" "$5"
objcopy --compress-debug-sections=zstd "$4" "$6" 2>/dev/null || cp "$5" "$6"
cp "$1" "$2"
strip --strip-all "$2"
objcopy --add-gnu-debuglink="$4" "$2"
cp "$1" "$3"
strip --strip-all "$3"
