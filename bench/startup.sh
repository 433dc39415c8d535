#!/usr/bin/env bash
# What a kprof process costs before it does any work, and a report of a
# small complete profile, against perf's own: medians of RUNS wall times.
# kprof loads libpfm4 and Capstone only in the commands that use them
# (core/shared_library.h); linked, their ~118,000 relocations cost every
# process ~6 ms here.
#
#   bench/startup.sh [RUNS]      (default 21)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
RUNS=${1:-21}
find_kprof
need perf
profile=$(dirname "$0")/../samples/generic.kprof
[[ -f $profile ]] || die "no $profile"
wall() {  # CMD...: one run's wall time in ms
  local t0=$EPOCHREALTIME
  "$@" >/dev/null 2>&1 || die "failed: $*"
  awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f\n", (b - a) * 1000 }'
}
times() {
  local t=()
  for ((i = 0; i < RUNS; i++)); do t+=("$(wall "$@")"); done
  median "${t[@]}"
}
printf '%-40s %s\n' "what" "median ms of $RUNS"
printf '%-40s %s\n' "kprof --version" "$(times "$KPROF" --version)"
printf '%-40s %s\n' "perf --version" "$(times perf --version)"
printf '%-40s %s\n' "kprof report samples/generic.kprof" "$(times "$KPROF" report --no-pager "$profile")"
printf '%-40s %s\n' "kprof events (loads libpfm4)" "$(times "$KPROF" events)"
