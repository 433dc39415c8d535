#!/usr/bin/env bash
# The first-touch cost of a mapped file's pages (bench/page_touch.cpp): a
# walk of a perf.data's record headers alone and with a page toucher.
# FILE: a perf.data (default: the newest bench/report_speed.sh recording
# kept with KEEP=1).
#   bench/page_touch.sh [FILE] [RUNS]     (RUNS default 7)
# Results: bench/out/page_touch.txt
set -euo pipefail
source "$(dirname "$0")/lib.sh"
file=${1:-$(ls -d "$OUT"/report_speed-*/big.data 2>/dev/null | tail -1)}
[[ -n $file && -r $file ]] || die "no perf.data to walk (run KEEP=1 bench/report_speed.sh, or name one)"
ninja -C "$ROOT/build" kprof_page_touch >/dev/null
"$ROOT/build/bench/kprof_page_touch" "$file" "${2:-7}" | tee "$OUT/page_touch.txt"
