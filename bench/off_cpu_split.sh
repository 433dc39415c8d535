#!/usr/bin/env bash
# Issue 26: how far record --off-cpu-freq's blocked / run-queue split, from
# sampled wakeups, lies from the split every wakeup gives, on real storms.
# RECORDINGS storm recordings (bench/pingpong.c for SECONDS + 2 s, kprof
# record --off-cpu, every wakeup) are each cut short by kill -9 after
# SECONDS, so they keep their spooled records; kprof_off_cpu_split
# (bench/off_cpu_split.cpp) then reads each once and builds its off-CPU time
# again keeping only every 10th, 100th and 1000th wakeup of a CPU (their
# period made that, as the kernel's frequency mode writes it), beside all of
# them. The recorder's own cost is the same for all: only the estimate
# differs. --off-cpu-freq 1000 keeps about one wakeup in 100-300 in the
# storm of bench/off_cpu.sh.
#
#   bench/off_cpu_split.sh [RECORDINGS=5] [SECONDS=2]
# knobs: PIN=0 (the storm left to the scheduler; default pinned to CPU 0)
# Prints each recording's table, then per KEEP the median and the largest
# |error| of the blocked share of the threads' off-CPU time, in points.
source "$(dirname "$0")/lib.sh"
set -euo pipefail
find_kprof
RECS=${1:-5}
SECS=${2:-2}
PIN=${PIN:-1}
need cc python3
results_dir off-cpu-split
ninja -C "$ROOT/build" kprof_off_cpu_split >/dev/null
SPLIT=$ROOT/build/bench/kprof_off_cpu_split
cc -O2 -g -fno-omit-frame-pointer -pthread -o "$W/pingpong" "$BENCH_DIR/pingpong.c"
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing || true  # the wakeups
PP=("$W/pingpong")
((PIN)) && PP=(taskset -c 0 "$W/pingpong")

{
  echo "# $RECS storm recordings cut at $SECS s ($( ((PIN)) && echo pinned to CPU 0 || echo unpinned)), $(date -Is)"
  for ((i = 1; i <= RECS; i++)); do
    cut_storm "$KPROF" "$W/cut$i.kprof" "$SECS" -- "${PP[@]}" "$((SECS + 2))"
    echo "## recording $i"
    "$SPLIT" "$W/cut$i.kprof"
    rm -f "$W/cut$i.kprof"
  done
} | tee "$W/runs.txt"

python3 - "$W/runs.txt" <<'PY' | tee "$RESULT"
import statistics, sys
err = {}
for line in open(sys.argv[1]):
    f = line.split()
    if not f or line.startswith('#') or f[0] == 'keep':
        continue
    err.setdefault(int(f[0]), []).append(float(f[5]))
print(f"{'keep':>6} {'recordings':>10} {'median |error| pp':>18} {'largest |error| pp':>19}")
for k in sorted(err):
    if k == 1:
        continue
    e = [abs(x) for x in err[k]]
    print(f"{k:>6} {len(e):>10} {statistics.median(e):>18.2f} {max(e):>19.2f}")
PY
echo "results: $RESULT"
