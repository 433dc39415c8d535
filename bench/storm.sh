#!/usr/bin/env bash
# Why kprof record only copies ring bytes while sampling (perfabi/spool.h):
# the speed of zstd on a profile's Records chunks (bench/zstd_speed.cpp),
# quiet and while kprof or perf samples every CPU (-a) at the highest
# allowed rate. Interleaved, REPS times; medians and the slowdown against
# quiet. The same holds for any per-sample work in a drain loop.
#   bench/storm.sh [SECONDS]     each measurement's length (default 5)
#   REPS=3  FREQ (default: /proc/sys/kernel/perf_event_max_sample_rate)
#   PROFILE=samples/generic.kprof   whose Records chunks are compressed
# Results: bench/out/storm.txt
set -euo pipefail
lib_freq=${FREQ:-}
source "$(dirname "$0")/lib.sh"
find_kprof
need perf
SECS=${1:-5}
REPS=${REPS:-3}
FREQ=${lib_freq:-$(cat /proc/sys/kernel/perf_event_max_sample_rate)}
PROFILE=${PROFILE:-$ROOT/samples/generic.kprof}
ninja -C "$ROOT/build" kprof_zstd_speed >/dev/null
SPEED=$ROOT/build/bench/kprof_zstd_speed
W=$OUT/storm
mkdir -p "$W"

# measure UNDER: MB/s of one run, with UNDER (quiet, kprof, perf) sampling.
measure() {
  local under=$1 pid="" mbps
  case $under in
    kprof) "$KPROF" record -a -F "$FREQ" -o "$W/storm.kprof" >"$W/kprof.log" 2>&1 & pid=$! ;;
    perf) perf record -e cpu-clock -a -F "$FREQ" -o "$W/storm.data" >"$W/perf.log" 2>&1 & pid=$! ;;
  esac
  [[ -n $pid ]] && sleep 1  # the events are on
  mbps=$("$SPEED" "$PROFILE" "$SECS" | awk '{print $1}')
  if [[ -n $pid ]]; then
    kill -INT "$pid"
    # perf exits non-zero on SIGINT: its closing line says it wrote the file.
    wait "$pid" || grep -q 'Captured and wrote' "$W/$under.log" || die "$under failed, see $W/$under.log"
  fi
  echo "$mbps"
}

declare -A runs
for ((i = 1; i <= REPS; i++)); do
  order=(quiet kprof perf)
  ((i % 2 == 0)) && order=(perf kprof quiet)
  for u in "${order[@]}"; do
    m=$(measure "$u")
    echo "rep $i $u: $m MB/s" >&2
    runs[$u]+="$m "
  done
done
quiet=$(median ${runs[quiet]})
{
  echo "# zstd level 1 on $(basename "$PROFILE")'s Records chunks, ${SECS}s each, -a -F $FREQ, $(nproc) CPUs, median of $REPS, $(date -Is), $(uname -r)"
  printf '%s\n' "while|MB/s (median)|runs|slowdown vs quiet" \
    "quiet|$quiet|${runs[quiet]}|1.000" \
    "kprof record -a|$(median ${runs[kprof]})|${runs[kprof]}|$(ratio "$quiet" "$(median ${runs[kprof]})")" \
    "perf record -a|$(median ${runs[perf]})|${runs[perf]}|$(ratio "$quiet" "$(median ${runs[perf]})")" | table
} | tee "$OUT/storm.txt"
