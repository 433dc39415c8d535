#!/usr/bin/env bash
# Issue 26: the cost of recording off-CPU time in a context-switch storm
# (bench/pingpong.c: two threads ping-ponging a byte over pipes, pinned to
# one CPU) by kprof record --off-cpu (with -g; without -g, kernel stacks
# only; with -g --wakers, the waker's kernel stack at every wakeup; and
# kprof-sampled: -g --off-cpu-freq 1000, a thread's stack at about 1,000 of
# its switches a second, not at every one as the others) against
# perf's two ways of recording the same: `perf sched record` (system-wide
# sched tracepoints) and `perf record -e sched:sched_switch -g`.
#
#   bench/off_cpu.sh [RUNS=3] [SECONDS=3]
#
# Per tool, RUNS runs interleaved (alone, kprof, perf sched, perf record,
# then again), medians of:
#   - the workload's round trips per second (slowdown against alone);
#   - the recorder's own CPU seconds (the whole tree's, less the workload's
#     own, which it prints), and of those the seconds while recording (kprof:
#     `kprof info`'s "kprof cpu time", the rest is decoding, following the
#     switches, naming and compressing once the events are off, which perf
#     leaves to perf sched timehist / perf report; perf: all of it);
#   - lost events (kprof's closing line; perf's "lost N chunks"/LOST events);
#   - bytes per context switch: the file's size over the workload's switches
#     (two per round trip).
source "$(dirname "$0")/lib.sh"
set -euo pipefail
RUNS=${1:-3}
SECS=${2:-3}
find_kprof
need perf cc python3
results_dir off-cpu
cc -O2 -g -fno-omit-frame-pointer -pthread -o "$W/pingpong" "$BENCH_DIR/pingpong.c"
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing || true

# Both threads on CPU 0: every round trip is two switches on one CPU, the
# same storm each run (left to the scheduler, the pair is either on one CPU
# or on two with an IPI per wakeup: 8x apart in round trips, run to run).
PP=(taskset -c 0 "$W/pingpong")

field() { sed -n "s/.*$2=\([0-9.]*\).*/\1/p" "$1" | tail -1; }

run_one() {  # TOOL RUN
  local tool=$1 r=$2 out=$W/$1.$2
  case $tool in
    alone) timed "$out.time" "${PP[@]}" "$SECS" >"$out.txt" 2>"$out.err" ;;
    kprof) timed "$out.time" "$KPROF" record -g --off-cpu -F "$FREQ" -o "$out.data" -- \
             "${PP[@]}" "$SECS" >"$out.txt" 2>"$out.err" ;;
    kprof-kernel) timed "$out.time" "$KPROF" record --off-cpu -F "$FREQ" -o "$out.data" -- \
             "${PP[@]}" "$SECS" >"$out.txt" 2>"$out.err" ;;
    kprof-sampled) timed "$out.time" "$KPROF" record -g --off-cpu --off-cpu-freq 1000 -F "$FREQ" \
             -o "$out.data" -- "${PP[@]}" "$SECS" >"$out.txt" 2>"$out.err" ;;
    kprof-wakers) timed "$out.time" "$KPROF" record -g --off-cpu --wakers -F "$FREQ" \
             -o "$out.data" -- "${PP[@]}" "$SECS" >"$out.txt" 2>"$out.err" ;;
    perf-sched) timed "$out.time" perf sched record -o "$out.data" -- \
             "${PP[@]}" "$SECS" >"$out.txt" 2>"$out.err" ;;
    perf-switch) timed "$out.time" perf record -e sched:sched_switch -g -o "$out.data" -- \
             "${PP[@]}" "$SECS" >"$out.txt" 2>"$out.err" ;;
  esac
  local trips per cpu tree lost bytes rec
  trips=$(field "$out.txt" round_trips)
  per=$(field "$out.txt" per_s)
  cpu=$(field "$out.txt" cpu_s)
  tree=$(cpu_of "$out.time")
  bytes=0
  [[ -f $out.data ]] && bytes=$(stat -c %s "$out.data")
  rec=$(sub "$tree" "$cpu")
  if [[ $tool == kprof* ]]; then
    rec=$("$KPROF" info "$out.data" | sed -n 's/^kprof cpu time: *user \([0-9.]*\) s, sys \([0-9.]*\) s.*/\1 \2/p' |
          awk '{printf "%.3f", $1 + $2}')
  fi
  case $tool in
    kprof*) lost=$(sed -n 's/.*samples (\([0-9]*\) lost).*/\1/p' "$out.err" | tail -1) ;;
    perf-*) lost=$(perf report -i "$out.data" --stats 2>/dev/null |
                   awk '/LOST_SAMPLES|LOST events/ {s += $NF} END {print s + 0}') ;;
    *) lost=0 ;;
  esac
  echo "$tool $r per_s=$per own_cpu_s=$(sub "$tree" "$cpu") recording_cpu_s=${rec:-0} lost=${lost:-0} bytes_per_switch=$(awk -v b="$bytes" -v t="$trips" 'BEGIN { printf "%.1f", t ? b / (2 * t) : 0 }')"
}

{
  echo "# off-CPU recording in a context-switch storm: pingpong $SECS s, $RUNS runs each, interleaved"
  for r in $(seq "$RUNS"); do
    for tool in alone kprof kprof-kernel kprof-sampled kprof-wakers perf-sched perf-switch; do run_one "$tool" "$r"; done
  done
} | tee "$W/runs.txt"

python3 - "$W/runs.txt" <<'PY' | tee "$RESULT"
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    if line.startswith('#'):
        print(line.rstrip()); continue
    tool, _, *kv = line.split()
    d = dict(x.split('=') for x in kv)
    rows.setdefault(tool, []).append({k: float(v) for k, v in d.items()})
med = {t: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for t, rs in rows.items()}
alone = med['alone']['per_s']
print(f"{'tool':12} {'round trips/s':>14} {'slowdown':>9} {'own CPU s':>10} {'recording':>10} {'lost':>6} {'bytes/switch':>13}")
for t in ('alone', 'kprof', 'kprof-kernel', 'kprof-sampled', 'kprof-wakers', 'perf-sched', 'perf-switch'):
    m = med[t]
    slow = 100 * (1 - m['per_s'] / alone)
    print(f"{t:12} {m['per_s']:14.0f} {slow:8.1f}% {m['own_cpu_s']:10.3f} {m['recording_cpu_s']:10.3f} {m['lost']:6.0f} {m['bytes_per_switch']:13.1f}")
for kt in ('kprof', 'kprof-kernel', 'kprof-sampled'):
    k = med[kt]
    for t in ('perf-sched', 'perf-switch'):
        p = med[t]
        print(f"{kt} / {t}: slowdown {100 * (1 - k['per_s'] / alone):.1f}% against "
              f"{100 * (1 - p['per_s'] / alone):.1f}%, own CPU {k['own_cpu_s'] / p['own_cpu_s']:.2f}x "
              f"(while recording {k['recording_cpu_s'] / p['recording_cpu_s']:.2f}x), bytes per switch "
              f"{k['bytes_per_switch'] / p['bytes_per_switch']:.2f}x" if p['own_cpu_s'] > 0 and p['bytes_per_switch'] > 0 else f"{kt} / {t}: n/a")
PY
echo "results: $RESULT"
