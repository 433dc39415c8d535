#!/usr/bin/env bash
# Fixed costs of a recording (see bench/core_speed.cpp): the kallsyms snapshot
# afresh vs from this boot's cache, kallsyms parsing, CRC-32. No perf
# counterpart (perf keeps no snapshot in its file); the whole-recording
# comparison with perf is bench/overhead.sh.
#   bench/core_speed.sh [RUNS]     (default 15)
# Results: bench/out/core_speed.txt
set -euo pipefail
source "$(dirname "$0")/lib.sh"
find_kprof
ninja -C "$ROOT/build" kprof_core_speed >/dev/null
"$ROOT/build/bench/kprof_core_speed" "${1:-15}" | tee "$OUT/core_speed.txt"
