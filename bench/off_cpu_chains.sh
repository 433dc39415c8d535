#!/usr/bin/env bash
# Issue 26: what a stack at every context switch costs, by part, on
# bench/off_cpu.sh's storm (bench/pingpong.c pinned to one CPU): perf
# recording the context-switches event at every switch (-e cs -c 1) with no
# call chain, the kernel's only (--kernel-callchains), the user's only
# (--user-callchains) and both (-g). Why `kprof record --off-cpu` takes
# kernel stacks only unless -g asks for the user's too. Then what kprof adds
# to the kernel's chain, step by step: the switch records (--switch-events,
# the in and out times) and, as `kprof record --off-cpu` itself, the
# system-wide sched_wakeup samples that tell blocked from waiting to run.
# And the parts of --off-cpu-freq's cost: the switch records alone on a
# per-task event that samples nothing (switches), the kernel's chain at
# ~1,000 switches a second with the switch records (kernel@1000+switches),
# the system-wide wakeups alone (wakeups, perf record -a), and kprof
# record --off-cpu --off-cpu-freq 1000 (kprof-sampled).
#
#   bench/off_cpu_chains.sh [RUNS=5] [SECONDS=3]
#
# Per variant, RUNS runs interleaved; prints the median round trips per
# second and the slowdown against the workload alone ("kprof": kprof record
# --off-cpu, kernel stacks).
source "$(dirname "$0")/lib.sh"
set -euo pipefail
find_kprof
RUNS=${1:-5}
SECS=${2:-3}
need perf cc python3
results_dir off-cpu-chains
cc -O2 -g -fno-omit-frame-pointer -pthread -o "$W/pingpong" "$BENCH_DIR/pingpong.c"
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing || true  # the wakeups
PP=(taskset -c 0 "$W/pingpong")
CS=(perf record -q -e cs -c 1 -o "$W/cs.data")

{
  echo "# perf record -e cs -c 1 on pingpong $SECS s, $RUNS runs each, interleaved"
  for r in $(seq "$RUNS"); do
    for v in alone none switches kernel user both kernel+switches kernel@1000+switches wakeups kprof \
      kprof-sampled; do
      case $v in
        alone) "${PP[@]}" "$SECS" >"$W/out.txt" ;;
        none) "${CS[@]}" -- "${PP[@]}" "$SECS" >"$W/out.txt" 2>/dev/null ;;
        kernel) "${CS[@]}" -g --kernel-callchains -- "${PP[@]}" "$SECS" >"$W/out.txt" 2>/dev/null ;;
        user) "${CS[@]}" -g --user-callchains -- "${PP[@]}" "$SECS" >"$W/out.txt" 2>/dev/null ;;
        both) "${CS[@]}" -g -- "${PP[@]}" "$SECS" >"$W/out.txt" 2>/dev/null ;;
        kernel+switches) "${CS[@]}" -g --kernel-callchains --switch-events -- "${PP[@]}" "$SECS" \
          >"$W/out.txt" 2>/dev/null ;;
        switches) perf record -q -e dummy -c 1 --switch-events -o "$W/cs.data" -- "${PP[@]}" "$SECS" \
          >"$W/out.txt" 2>/dev/null ;;
        kernel@1000+switches) perf record -q -e cs -F 1000 -g --kernel-callchains --switch-events \
          -o "$W/cs.data" -- "${PP[@]}" "$SECS" >"$W/out.txt" 2>/dev/null ;;
        wakeups) perf record -q -a -e sched:sched_wakeup -c 1 -o "$W/cs.data" -- "${PP[@]}" "$SECS" \
          >"$W/out.txt" 2>/dev/null ;;
        kprof-sampled) "$KPROF" record --off-cpu --off-cpu-freq 1000 -o "$W/k.kprof" -- "${PP[@]}" \
          "$SECS" >"$W/out.txt" 2>/dev/null ;;
        kprof) "$KPROF" record --off-cpu -o "$W/k.kprof" -- "${PP[@]}" "$SECS" >"$W/out.txt" 2>/dev/null ;;
      esac
      echo "$v $(sed -n 's/.*per_s=\([0-9.]*\).*/\1/p' "$W/out.txt")"
    done
  done
} | tee "$W/runs.txt"

python3 - "$W/runs.txt" <<'PY' | tee "$RESULT"
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    if line.startswith('#'):
        print(line.rstrip()); continue
    v, per = line.split()
    runs.setdefault(v, []).append(float(per))
alone = statistics.median(runs['alone'])
print(f"{'call chain':21} {'round trips/s':>14} {'slowdown':>9}")
for v in ('alone', 'none', 'switches', 'kernel', 'user', 'both', 'kernel+switches',
          'kernel@1000+switches', 'wakeups', 'kprof', 'kprof-sampled'):
    m = statistics.median(runs[v])
    print(f"{v:21} {m:14.0f} {100 * (1 - m / alone):8.1f}%")
PY
echo "results: $RESULT"
