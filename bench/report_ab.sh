#!/usr/bin/env bash
# Two kprof binaries against each other on the same recording: each report
# command is run RUNS times, alternating between the binaries (so a noisy
# spell of the machine hits both alike), and the median and best wall time
# of each are printed. How a change to the report path is measured before it
# is kept (issue 29); bench/report_speed.sh compares with perf.
#
# usage: bench/report_ab.sh OLD_KPROF NEW_KPROF FILE [ARGS...]
#   e.g. bench/report_ab.sh /tmp/kprof-before build/cli/kprof big.kprof --sort tid
# knobs: RUNS=25  PAUSE=0 (seconds idle before each run: on these VMs free
#        2 MiB blocks go back to the host after a second or two, so fresh
#        memory is slow to touch again, as for a report after a pause)
# Results: bench/out/report_ab-<time>.txt
set -euo pipefail
source "$(dirname "$0")/lib.sh"

(($# >= 3)) || die "usage: $0 OLD_KPROF NEW_KPROF FILE [ARGS...]"
OLD=$1 NEW=$2 FILE=$3
shift 3
RUNS=${RUNS:-25}
PAUSE=${PAUSE:-0}
for b in "$OLD" "$NEW"; do [[ -x $b ]] || die "$b is not an executable"; done
[[ -r $FILE ]] || die "cannot read $FILE"
results_dir report_ab

# One run's wall time in ms, microsecond resolution.
wall_ms() {
  sleep "$PAUSE"
  local t0=$EPOCHREALTIME
  "$@" >/dev/null 2>"$W/stderr" || die "failed: $* ($(head -1 "$W/stderr"))"
  awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f\n", (b - a) * 1000 }'
}
A=() B=()
for ((i = 0; i < RUNS; i++)); do
  A+=("$(wall_ms "$OLD" report "$FILE" "$@")")
  B+=("$(wall_ms "$NEW" report "$FILE" "$@")")
done
best() { printf '%s\n' "$@" | sort -g | head -1; }
{
  echo "# kprof report $FILE $*, $RUNS alternating runs each, ${PAUSE}s idle before each, $(date -Is)"
  printf '%s\n' "binary|median ms|best ms" \
    "old: $OLD|$(median "${A[@]}")|$(best "${A[@]}")" \
    "new: $NEW|$(median "${B[@]}")|$(best "${B[@]}")" | table
  echo "new / old (medians): $(ratio "$(median "${B[@]}")" "$(median "${A[@]}")")"
} | tee "$RESULT"
