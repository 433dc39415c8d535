#!/usr/bin/env bash
# What a kprof process costs before it does any work, and a report of a
# small complete profile, against perf's own and an empty process's
# (/bin/true): medians of RUNS wall times, the commands run in turn so a
# noisy spell hits all alike.
# kprof loads libpfm4 and Capstone only in the commands that use them
# (core/shared_library.h); linked, their ~118,000 relocations cost every
# process ~6 ms here. libdw, libelf, the compressors and libstdc++ are
# linked in from their .a files (KPROF_STATIC_LIBS): 10 shared libraries
# mapped and relocated at each start cost 2.4 ms more than 3.
#
#   bench/startup.sh [RUNS]      (default 41)
#   OLD=path/to/kprof bench/startup.sh   also times another kprof binary
set -euo pipefail
source "$(dirname "$0")/lib.sh"
RUNS=${1:-41}
find_kprof
need perf
profile=$(dirname "$0")/../samples/generic.kprof
[[ -f $profile ]] || die "no $profile"
[[ -z ${OLD:-} || -x $OLD ]] || die "OLD=$OLD is not an executable"
results_dir startup
wall() {  # CMD...: one run's wall time in ms
  local t0=$EPOCHREALTIME
  "$@" >/dev/null 2>&1 || die "failed: $*"
  awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f\n", (b - a) * 1000 }'
}
names=("/bin/true" "perf --version" "kprof --version" "kprof report samples/generic.kprof"
  "kprof events (loads libpfm4)")
cmds=("/bin/true" "perf --version" "$KPROF --version" "$KPROF report --no-pager $profile"
  "$KPROF events")
if [[ -n ${OLD:-} ]]; then
  names+=("OLD --version" "OLD report samples/generic.kprof")
  cmds+=("$OLD --version" "$OLD report --no-pager $profile")
fi
declare -a T
for ((i = 0; i < RUNS; i++)); do
  for k in "${!cmds[@]}"; do
    # shellcheck disable=SC2086 # each command is words
    T[k]+="$(wall ${cmds[k]}) "
  done
done
{
  echo "# $KPROF${OLD:+ (OLD: $OLD)}, $RUNS runs each in turn, $(date -Is)"
  printf '%-40s %s\n' "what" "median ms"
  for k in "${!cmds[@]}"; do
    # shellcheck disable=SC2086
    printf '%-40s %s\n' "${names[k]}" "$(median ${T[k]})"
  done
} | tee "$RESULT"
