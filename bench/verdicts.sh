#!/usr/bin/env bash
# The goals of issue 22 (diff verdicts on real recordings), measured on pools
# of real recordings, no simulation:
#   1. A/A: how often some row is flagged (verdict not noise/untested), over
#      COMPARISONS comparisons each of 1 vs 1 and 3 vs 3, on the hot-cold test
#      program (COLD_FACTOR 1.3 both sides) and on a compile loop (g++ -O2 -c
#      of a preprocessed repo file, again and again, pool cAA) with >= 1,500
#      rows;
#   2. power: hot-cold COLD_FACTOR 1.3 against 1.43 (kprof_cold 10% slower,
#      ~+2 pp), how often kprof_cold is flagged in the right direction, at
#      HC_SECONDS and again at POWER_SECONDS (pools hpA, hpB: where a 1 s
#      recording's shares spread as binomial's, +2 pp is ~2.4 SE at 3v3 and
#      no test finds it 80% of the time; four times the samples halve the
#      SE); and a
#      change planted in the compile profile: kprof_prog_hotcold runs beside
#      the compile loop for C_SIDE_SECONDS, COLD_FACTOR 1.3 in pool cA and
#      C_PLANT_FACTOR in pool cB (kprof_cold up, kprof_hot down; cA vs cB);
#   3. the floor: --plan --floor-at (kprof_cold's share) on A/A pilots of a
#      pool, then pools whose kprof_cold share moves by 1.25x and 0.5x that
#      floor, 1v1 and 3v3; twice: the hot-cold program alone (COLD_FACTOR
#      0.75: a ~20% row, 2 rows tested, where a single test's power curve
#      lets both promises hold only just) and beside the compile loop for the
#      whole recording (C_FLOOR_FACTOR 0.33: a ~4% row among ~150+ tested);
#      the target pools are made in turns with a second base pool (fl0b,
#      cfl0b) that they are compared with, so both sides share the VM's
#      conditions (made one after the other, a pool could spread 2-4x as
#      much as the one before it);
#      each change is also given against the floor of pilots from the pool it
#      is compared with (made in turns with the targets: the conditions the
#      comparisons ran in), with the curve's rate there, and every comparison
#      against its own floor (the one printed beside its verdicts): how often
#      changes at >= 1.25x / <= 0.5x of it were found (bench/verdicts_floor.py);
#   4. coverage: how often the printed interval for kprof_cold's Δpp holds
#      the true change (difference of the pools' mean shares) on the planted
#      changes, next to the printed level.
# Pools that are compared with each other (hcA/hcB, hpA/hpB, cA/cB, and the
# floor's) are recorded in turns, one recording of each per round: the VM's
# noise drifts over minutes, and pools made one after the other were seen to
# spread 2-4x as much as each other. Counts with 95% Wilson intervals. Comparisons are formed in rounds: each
# round shuffles the pools and cuts them into disjoint pairs/triples; rounds
# after the first reuse recordings (the output says so, and gives round 1's
# disjoint rate beside the total).
#
# usage: bench/verdicts.sh                  (~21 min on 2 CPUs)
#        QUICK=1 bench/verdicts.sh          (small pools, ~3.5 min)
#        FLOOR_ONLY=1 bench/verdicts.sh     (~12 min) the floor part alone
#        POWER_ONLY=1 bench/verdicts.sh     the A/A of hot-cold and the power part
#        AA_ONLY=1 HC_POOL=360 C_POOL=360 C_SECONDS=2 bench/verdicts.sh
#            the A/A part alone, from pools hcA and cAA only, every comparison
#            disjoint (no recording used twice: 180 1v1 and 60 3v3 from 360)
#        KPROF=/path/kprof PROGRAMS=/path/dir bench/verdicts.sh
# knobs: KPROF=path (default build/cli/kprof)  PROGRAMS=dir of kprof_prog_hotcold
#        (default build/tests/programs)  COMPARISONS=60 (per A/A and power kind)
#        HC_POOL=60 (recordings of COLD_FACTOR 1.3 and of 1.43)  HC_FREQ=999
#        HC_SECONDS=1  FLOOR_BASE_POOL=40 (COLD_FACTOR FLOOR_BASE_FACTOR=0.75)
#        FLOOR_POOL=30 (each of the four floor pools; 0: no hot-cold floor)
#        PILOTS=5 (--plan pilots)
#        C_POOL=21 (compile loop alone, the A/A)  C_PLANT_POOL=9 (each of cA, cB)
#        C_SECONDS=5 C_FREQ=1999 C_SIDE_SECONDS=2 C_PLANT_FACTOR=2.6
#        POWER_SECONDS=4 (0: skip the longer power pools) POWER_POOL=30
#        C_FLOOR_BASE_POOL=30 C_FLOOR_POOL=24 (0: no compile floor)
#        C_FLOOR_SECONDS=2 C_FLOOR_FACTOR=0.33
#        COMPILE_SRC=report/diff_rows.cpp (preprocessed once at the start, so
#        edits in the tree during the run change nothing)  SEED=22
#        RECORD_ARGS="--no-dither" (words added to every kprof record: the
#        clock's period is dithered by default, collector/period_dither.h;
#        the hot-cold program is the workload's first task, so it is
#        dithered; the compile loop's processes are its children, dithered
#        through the workload's cgroup where kprof can make one)
# Results: bench/out/verdicts-<time>.txt; recordings in bench/out/verdicts-<time>/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
find_kprof
need python3 g++
find_programs
HOTCOLD=$PROGRAMS/kprof_prog_hotcold

AA_ONLY=${AA_ONLY:-}
FLOOR_ONLY=${FLOOR_ONLY:-}
POWER_ONLY=${POWER_ONLY:-}
[[ $(printf '%s' "$AA_ONLY$FLOOR_ONLY$POWER_ONLY" | wc -c) -le 1 ]] ||
  die "AA_ONLY, FLOOR_ONLY and POWER_ONLY exclude each other (set one, to 1)"
if [[ -n ${QUICK:-} ]]; then
  : "${COMPARISONS:=12}" "${HC_POOL:=12}" "${HC_SECONDS:=0.5}" "${FLOOR_BASE_POOL:=12}"
  : "${FLOOR_POOL:=8}" "${PILOTS:=2}" "${C_POOL:=6}" "${C_PLANT_POOL:=3}" "${C_SECONDS:=3}"
  : "${C_SIDE_SECONDS:=1}" "${POWER_POOL:=8}" "${POWER_SECONDS:=2}"
  : "${C_FLOOR_BASE_POOL:=12}" "${C_FLOOR_POOL:=8}" "${C_FLOOR_SECONDS:=1}"
fi
POWER_SECONDS=${POWER_SECONDS:-4}
POWER_POOL=${POWER_POOL:-30}
COMPARISONS=${COMPARISONS:-60}
HC_POOL=${HC_POOL:-60}
HC_FREQ=${HC_FREQ:-999}
HC_SECONDS=${HC_SECONDS:-1}
FACTOR_A=1.3 FACTOR_B=1.43
FLOOR_BASE_POOL=${FLOOR_BASE_POOL:-40}
FLOOR_BASE_FACTOR=${FLOOR_BASE_FACTOR:-0.75}
FLOOR_POOL=${FLOOR_POOL:-30}
PILOTS=${PILOTS:-5}
C_POOL=${C_POOL:-21}
C_PLANT_POOL=${C_PLANT_POOL:-9}
C_SECONDS=${C_SECONDS:-5}
C_FREQ=${C_FREQ:-1999}
C_SIDE_SECONDS=${C_SIDE_SECONDS:-2}
C_PLANT_FACTOR=${C_PLANT_FACTOR:-2.6}
C_FLOOR_BASE_POOL=${C_FLOOR_BASE_POOL:-30}
C_FLOOR_POOL=${C_FLOOR_POOL:-24}
C_FLOOR_SECONDS=${C_FLOOR_SECONDS:-2}
C_FLOOR_FACTOR=${C_FLOOR_FACTOR:-0.33}
COMPILE_SRC=${COMPILE_SRC:-report/diff_rows.cpp}
SEED=${SEED:-22}
PY=$BENCH_DIR/verdicts.py
results_dir verdicts
T0=$EPOCHREALTIME

# in_turns N FREQ CMD... -- POOL=FACTOR...: N recordings of each pool, made
# in turns (one of each per round) so the pools share the VM's conditions,
# which drift over minutes; each is "record POOL 1 FREQ CMD... FACTOR".
in_turns() {
  local n=$1 i spec
  shift
  local -a cmd=()
  while [[ $1 != -- ]]; do
    cmd+=("$1")
    shift
  done
  shift
  for ((i = 0; i < n; i++)); do
    for spec in "$@"; do QUIET_RECORD=1 record "${spec%%=*}" 1 "${cmd[@]}" "${spec#*=}"; done
  done
  echo "  pools ${*%%=*}: $n recordings each, in turns ($(elapsed) s so far)" >&2
}

# floor_pools BASE BASE_FACTOR FACTORS_FILE: the POOL=FACTOR list of a
# floor's pools, one a line: BASEb (a second base pool, made in turns with
# the targets) and a pool per NAME=FACTOR line of `verdicts.py plan`.
floor_pools() {
  local name factor
  echo "${1}b=$2"
  while IFS='=' read -r name factor; do echo "${1%0}$name=$factor"; done <"$3"
}

# record POOL N CMD...: N recordings of CMD into $W/pool-POOL/NN.kprof (the
# next free numbers: a pool may grow one recording at a time)
record() {
  local name=$1 n=$2 freq=$3 i f
  shift 3
  mkdir -p "$W/pool-$name"
  local first
  first=$(find "$W/pool-$name" -name '*.kprof' | wc -l)
  for ((i = first + 1; i <= first + n; i++)); do
    f=$(printf '%s/pool-%s/%02d.kprof' "$W" "$name" "$i")
    # shellcheck disable=SC2086 # RECORD_ARGS: words, e.g. --no-dither
    "$KPROF" record -F "$freq" ${RECORD_ARGS:-} -o "$f" -- "$@" >"$W/record.log" 2>&1 ||
      die "kprof record failed for pool $name: $(tail -3 "$W/record.log")"
  done
  [[ -n ${QUIET_RECORD:-} ]] || echo "  pool $name: $n recordings ($(elapsed) s so far)" >&2
}
elapsed() { awk -v a="$T0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }'; }
hotcold() { record "$1" "$2" "$HC_FREQ" "$HOTCOLD" "$HC_SECONDS" "$3"; }

echo "recording hot-cold pools (-F $HC_FREQ, $HC_SECONDS s each)" >&2
if [[ -n $AA_ONLY ]]; then
  hotcold hcA "$HC_POOL" "$FACTOR_A"
elif [[ -z $FLOOR_ONLY ]]; then
  in_turns "$HC_POOL" "$HC_FREQ" "$HOTCOLD" "$HC_SECONDS" -- "hcA=$FACTOR_A" "hcB=$FACTOR_B"
  if [[ $POWER_SECONDS != 0 ]]; then
    in_turns "$POWER_POOL" "$HC_FREQ" "$HOTCOLD" "$POWER_SECONDS" -- "hpA=$FACTOR_A" "hpB=$FACTOR_B"
  fi
fi
# the floor pools
if [[ -z $AA_ONLY$POWER_ONLY && $FLOOR_POOL != 0 ]]; then
  hotcold fl0 "$FLOOR_BASE_POOL" "$FLOOR_BASE_FACTOR"
  echo "floor pilots (--plan) on pool fl0" >&2
  python3 "$PY" plan "$KPROF" "$W" fl0 "$FLOOR_BASE_FACTOR" "$PILOTS" fl >"$W/factors.txt"
  mapfile -t pools < <(floor_pools fl0 "$FLOOR_BASE_FACTOR" "$W/factors.txt")
  in_turns "$FLOOR_POOL" "$HC_FREQ" "$HOTCOLD" "$HC_SECONDS" -- "${pools[@]}"
fi

# The compile loop: one preprocessed translation unit, compiled -O2 again and
# again for $1 seconds, then killed mid-compile (timeout kills its process
# group), so every recording holds the same length of work: letting the last
# compile finish made the recordings' lengths vary, and with them the
# hot-cold program's part of the samples (SEED 33/34's in-turn pools: that
# part spread 60-100x binomial's variance between runs, total samples SD
# ~1,500 in ~11,600), a run-to-run variation one run a side cannot see.
# kprof_prog_hotcold $2 s (none if 0) at COLD_FACTOR $3 runs beside it.
UNIT=$W/unit.ii
g++ -std=c++20 -I"$ROOT" -E "$ROOT/$COMPILE_SRC" -o "$UNIT" 2>"$W/compile.log" ||
  die "cannot preprocess $COMPILE_SRC (set COMPILE_SRC=another file): $(tail -3 "$W/compile.log")"
COMPILE="g++ -std=c++20 -O2 -c -x c++ $UNIT -o /dev/null"
$COMPILE 2>>"$W/compile.log" || die "cannot compile $UNIT: $(tail -3 "$W/compile.log")"
JOB=$W/compile_job.sh
cat >"$JOB" <<JOBEOF
#!/bin/sh
timeout -s KILL "\$1" sh -c 'while :; do $COMPILE || exit 1; done' &
[ "\$2" = 0 ] || "$HOTCOLD" "\$2" "\$3" >/dev/null
wait \$!
[ \$? = 137 ] || exit 1  # killed at the end, as meant; else the compile failed
JOBEOF
chmod +x "$JOB"
echo "recording compile pools (-F $C_FREQ, $C_SECONDS s each)" >&2
[[ -n $FLOOR_ONLY$POWER_ONLY ]] || record cAA "$C_POOL" "$C_FREQ" "$JOB" "$C_SECONDS" 0 1
if [[ -z $AA_ONLY$FLOOR_ONLY ]]; then
  in_turns "$C_PLANT_POOL" "$C_FREQ" "$JOB" "$C_SECONDS" "$C_SIDE_SECONDS" -- \
    "cA=$FACTOR_A" "cB=$C_PLANT_FACTOR"
fi
if [[ -z $AA_ONLY$POWER_ONLY && $C_FLOOR_POOL != 0 ]]; then
  record cfl0 "$C_FLOOR_BASE_POOL" "$C_FREQ" "$JOB" "$C_FLOOR_SECONDS" "$C_FLOOR_SECONDS" \
    "$C_FLOOR_FACTOR"
  echo "floor pilots (--plan) on pool cfl0" >&2
  python3 "$PY" plan "$KPROF" "$W" cfl0 "$C_FLOOR_FACTOR" "$PILOTS" cfl >"$W/c_factors.txt"
  mapfile -t pools < <(floor_pools cfl0 "$C_FLOOR_FACTOR" "$W/c_factors.txt")
  in_turns "$C_FLOOR_POOL" "$C_FREQ" "$JOB" "$C_FLOOR_SECONDS" "$C_FLOOR_SECONDS" -- "${pools[@]}"
fi
rm -f "$W/record.log"

cat >"$W/settings.json" <<EOF
{"factor_a": $FACTOR_A, "factor_b": $FACTOR_B, "hc_freq": $HC_FREQ, "hc_seconds": $HC_SECONDS,
 "power_seconds": $POWER_SECONDS,
 "c_freq": $C_FREQ, "c_seconds": $C_SECONDS, "c_side_seconds": $C_SIDE_SECONDS,
 "c_factor_a": $FACTOR_A, "c_factor_b": $C_PLANT_FACTOR,
 "compile_desc": "g++ -O2 -c of $COMPILE_SRC (preprocessed, $(wc -c <"$UNIT") bytes) in a loop"}
EOF
echo "comparisons ($(elapsed) s so far)" >&2
{
  echo "# verdicts (issue 22), $(date -Is), $(uname -r), $(nproc) CPUs, $KPROF"
  echo "# QUICK=${QUICK:-} COMPARISONS=$COMPARISONS HC_POOL=$HC_POOL FLOOR_BASE_POOL=$FLOOR_BASE_POOL" \
    "FLOOR_POOL=$FLOOR_POOL C_POOL=$C_POOL C_PLANT_POOL=$C_PLANT_POOL SEED=$SEED"
  if [[ -n $AA_ONLY ]]; then
    python3 "$PY" aa "$KPROF" "$W" "$SEED"
  else
    python3 "$PY" analyse "$KPROF" "$W" "$COMPARISONS" "$SEED"
  fi
  echo
  echo "wall time $(elapsed) s"
} | tee "$RESULT"
echo "written: $RESULT"
