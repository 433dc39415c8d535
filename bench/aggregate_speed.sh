#!/usr/bin/env bash
# A records walk's work a sample, step by step (see bench/aggregate_speed.cpp):
# decoding, selecting as --time does, counting by address; ns a sample.
# FILE: a .kprof with records (default: the newest bench/report_speed.sh
# recording kept with KEEP=1).
#   bench/aggregate_speed.sh [FILE] [RUNS]     (RUNS default 21)
# Results: bench/out/aggregate_speed.txt
set -euo pipefail
source "$(dirname "$0")/lib.sh"
find_kprof
file=${1:-$(ls -d "$OUT"/report_speed-*/big.kprof 2>/dev/null | tail -1)}
[[ -n $file && -r $file ]] || die "no recording to count (run KEEP=1 bench/report_speed.sh, or name one)"
ninja -C "$ROOT/build" kprof_aggregate_speed >/dev/null
"$ROOT/build/bench/kprof_aggregate_speed" "$file" "${2:-21}" | tee "$OUT/aggregate_speed.txt"
