#!/usr/bin/env bash
# Does one recording's spread over its own time slices tell how far the next
# recording of the same workload lands? The one-run-a-side verdicts of
# `kprof diff A B` rest on it (stats/dispersion.h). Records pools of the
# hot-cold test program, unchanged within a pool, and prints per pool
# (bench/one_run_spread.py): the kprof_cold row's variance between runs
# against binomial's, split into kprof_cold's part of the program (sampling)
# and the program's part of all samples (how much of the machine the run
# got), the dispersion the 1 vs 1 diffs measured within runs,
# and how the 1 vs 1 test's p behaves over disjoint pairs of the pool (mean
# z^2 of 1 when calibrated, 5% of pairs under 0.05, the A/A rate of any row
# flagged).
#
# usage: bench/one_run_spread.sh [RUNS=40]     (~3.5 min at 40)
#   POOLS="FACTOR:SECONDS ..." (default "0.75:1 1.3:1 0.75:4": COLD_FACTOR
#   0.75 puts kprof_cold near 20%, 1.3 near 30%); RUNS recordings a pool
#   of 1 s, RUNS/2 of longer ones; -F 999 as bench/verdicts.sh.
#   RECORD_ARGS="--no-dither": words added to kprof record (a fixed period).
#   KPROF=path to analyse with another binary: ANALYSE=dir reuses the pools
#   of an earlier run (bench/out/one-run-spread-<time>) instead of recording.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
find_kprof
need python3
find_programs
RUNS=${1:-40}
POOLS=${POOLS:-0.75:1 1.3:1 0.75:4}
names=()
for p in $POOLS; do names+=("cold${p%%:*}-${p#*:}s"); done
if [[ -n ${ANALYSE:-} ]]; then
  W=$ANALYSE
  RESULT=$W.$(date +%H%M%S).txt
else
  results_dir one-run-spread
  pool() {  # pool NAME N SECONDS FACTOR
    mkdir -p "$W/$1"
    local i
    for ((i = 1; i <= $2; i++)); do
      # shellcheck disable=SC2086 # RECORD_ARGS: words, e.g. --no-dither
      "$KPROF" record -F 999 ${RECORD_ARGS:-} -o "$(printf '%s/%s/%02d.kprof' "$W" "$1" "$i")" -- \
        "$PROGRAMS/kprof_prog_hotcold" "$3" "$4" >"$W/record.log" 2>&1 ||
        die "kprof record failed: $(tail -3 "$W/record.log")"
    done
    echo "  pool $1: $2 recordings" >&2
  }
  for p in $POOLS; do
    seconds=${p#*:}
    n=$RUNS
    [[ $seconds == 1 ]] || n=$((RUNS / 2))
    pool "cold${p%%:*}-${seconds}s" "$n" "$seconds" "${p%%:*}"
  done
fi
{
  echo "one_run_spread.sh: $(date -Is), $KPROF ($(git -C "$ROOT" rev-parse --short HEAD))"
  python3 "$BENCH_DIR/one_run_spread.py" "$KPROF" "${names[@]/#/$W/}"
} | tee "$RESULT"
