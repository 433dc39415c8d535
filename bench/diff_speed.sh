#!/usr/bin/env bash
# Diff speed on large profiles: records the same workload twice (base, and
# new with kprof_cold 30% slower) with kprof and with `perf record -e
# cpu-clock` at the same -F, then times `kprof diff base new` against
# `perf diff base.data new.data` (median of RUNS each, and the ratio).
#
# usage: bench/diff_speed.sh                  (default ~2M samples per file)
#        SAMPLES=200000 bench/diff_speed.sh   (quick check)
# knobs: SAMPLES=2000000 per file  FREQ=20000 (per CPU)  RUNS=5  KPROF=path
#        PROGRAMS=dir of kprof_prog_* (default: next to the kprof binary)
#
# Sizing: recordings are system-wide (-a) while JOBS=$(nproc) spinners run
# (kprof_prog_hotcold, _syscalls, _shlib), so every CPU gives FREQ samples a
# second whether the spinners get the CPU or not (cpu-clock counts idle and
# other processes too): a file holds ~FREQ x CPUs x seconds samples, and
# seconds = SAMPLES / (FREQ x CPUs). On a 2-CPU machine at 20 kHz, 2M samples
# take ~50 s per recording, four recordings ~4 min. FREQ must stay under
# /proc/sys/kernel/perf_event_max_sample_rate. Needs root (or CAP_PERFMON)
# for -a. The profiles also hold whatever else ran on the machine.
# Results: bench/out/diff_speed-<time>.txt
set -euo pipefail
FREQ=${FREQ:-20000}  # before lib.sh, whose default is 999
source "$(dirname "$0")/lib.sh"

SAMPLES=${SAMPLES:-2000000}
RUNS=${RUNS:-5}
JOBS=${JOBS:-$(nproc)}
CPUS=$(nproc)
find_kprof
need perf
find_programs
MAX_RATE=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 0)
((MAX_RATE == 0 || FREQ <= MAX_RATE)) ||
  die "FREQ=$FREQ is above kernel.perf_event_max_sample_rate ($MAX_RATE): lower FREQ"
results_dir diff_speed

SECONDS_RUN=$(awk -v s="$SAMPLES" -v f="$FREQ" -v c="$CPUS" 'BEGIN { printf "%.1f", s / (f * c) }')

# spin.sh COLD_FACTOR: JOBS processes for SECONDS_RUN, user-only, kernel-heavy
# and shared-library work, so the profiles have kernel and user functions.
SPIN=$W/spin.sh
write_spinner "$SPIN" "$JOBS" "$SECONDS_RUN"

echo "recording ~$SAMPLES samples per file: -a for ${SECONDS_RUN}s on $CPUS CPUs at -F $FREQ," \
  "$JOBS spinners; base and new (kprof_cold x1.3), with kprof then perf"
for side in base:1 new:1.3; do
  name=${side%%:*} factor=${side#*:}
  timed "$W/kprof-record-$name.time" "$KPROF" record -a -F "$FREQ" -o "$W/$name.kprof" \
    -- "$SPIN" "$factor" >"$W/kprof-record-$name.log" 2>&1 ||
    die "kprof record failed, see $W/kprof-record-$name.log"
  timed "$W/perf-record-$name.time" perf record -a -e cpu-clock -F "$FREQ" -o "$W/$name.data" \
    -- "$SPIN" "$factor" >"$W/perf-record-$name.log" 2>&1 ||
    die "perf record failed, see $W/perf-record-$name.log"
done
KB=$(kprof_samples "$W/base.kprof") KN=$(kprof_samples "$W/new.kprof")
PB=$(perf_samples "$W/base.data") PN=$(perf_samples "$W/new.data")
echo "samples: kprof $KB + $KN, perf $PB + $PN"

# Wall time at microsecond resolution (/usr/bin/time rounds to 10 ms).
WALL_FILE=$W/wall
wall() {
  local t0=$EPOCHREALTIME
  "$@" || return
  awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.4f\n", b - a }' >"$WALL_FILE"
}
KT=() PT=()
for ((i = 1; i <= RUNS; i++)); do
  wall "$KPROF" diff "$W/base.kprof" "$W/new.kprof" >"$W/kprof-diff.txt" 2>&1 ||
    die "kprof diff failed, see $W/kprof-diff.txt"
  KT+=("$(cat "$WALL_FILE")")
  wall perf diff "$W/base.data" "$W/new.data" >"$W/perf-diff.txt" 2>/dev/null ||
    die "perf diff failed"
  PT+=("$(cat "$WALL_FILE")")
  echo "run $i: kprof diff ${KT[-1]}s, perf diff ${PT[-1]}s"
done
KM=$(median "${KT[@]}") PM=$(median "${PT[@]}")
mega() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f\n", (a + b) / 1e6 }'; }

{
  echo "# diff speed, $(date -Is), $(uname -r), -a on $CPUS CPUs at -F $FREQ, ${SECONDS_RUN}s" \
    "per recording, median of $RUNS"
  printf '%s\n' "tool|samples base|samples new|bytes base|bytes new|diff s (median)|s per M samples|vs kprof" \
    "kprof|$KB|$KN|$(filesize "$W/base.kprof")|$(filesize "$W/new.kprof")|$KM|$(ratio "$KM" "$(mega "$KB" "$KN")")|1.000" \
    "perf|$PB|$PN|$(filesize "$W/base.data")|$(filesize "$W/new.data")|$PM|$(ratio "$PM" "$(mega "$PB" "$PN")")|$(ratio "$PM" "$KM")" |
    table
  echo "all runs (s): kprof ${KT[*]}; perf ${PT[*]}"
} | tee "$RESULT"
rm -f "$W"/*.data "$W"/*.kprof  # large; keep the logs, timings and diff outputs
echo "written: $RESULT"
