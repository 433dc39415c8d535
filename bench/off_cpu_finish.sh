#!/usr/bin/env bash
# Issue 26: what finishing an off-CPU recording costs kprof once the events
# are off (decoding the spooled records, following the switches, counting
# the stacks, naming, compacting): the part of kprof record's own CPU in the
# context-switch storm (bench/off_cpu.sh) that perf leaves to perf sched
# timehist / perf report.
#
# One storm recording (bench/pingpong.c pinned to CPU 0, kprof record
# --off-cpu [-g]) is cut short by kill -9 while it runs, so the file keeps
# its spooled records; `kprof symbolize` then does on a fresh copy what kprof
# record does when it ends. Two binaries take turns on the same file.
#
#   bench/off_cpu_finish.sh OLD_KPROF NEW_KPROF [RUNS=11] [SECONDS=3]
# knobs: G=-g (user stacks too; default: kernel stacks only)
# Prints, per binary, the median user+sys CPU seconds and wall seconds of
# `kprof symbolize`, the switches it followed, and new/old.
source "$(dirname "$0")/lib.sh"
set -euo pipefail
(($# >= 2)) || die "usage: $0 OLD_KPROF NEW_KPROF [RUNS] [SECONDS]"
OLD=$1 NEW=$2
RUNS=${3:-11}
SECS=${4:-3}
G=${G:-}
for b in "$OLD" "$NEW"; do [[ -x $b ]] || die "$b is not an executable"; done
need cc python3
results_dir off-cpu-finish
cc -O2 -g -fno-omit-frame-pointer -pthread -o "$W/pingpong" "$BENCH_DIR/pingpong.c"

# Recorded by the new binary, cut at SECONDS - 0.5 s into a storm of SECONDS + 2.
# shellcheck disable=SC2086 # G is empty or -g
cut_storm "$NEW" "$W/cut.kprof" "$SECS" $G -- taskset -c 0 "$W/pingpong" "$((SECS + 2))"

one() {  # BINARY -> "cpu_s wall_s switches"
  cp "$W/cut.kprof" "$W/run.kprof"
  # CPU to the microsecond (getrusage of the child; /usr/bin/time rounds to 10 ms).
  python3 - "$W/time" "$1" symbolize "$W/run.kprof" 2>"$W/err" <<'PY' ||
import resource, subprocess, sys, time
t0 = time.monotonic()
rc = subprocess.call(sys.argv[2:], stdout=subprocess.DEVNULL)
wall = time.monotonic() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], 'w').write(f"{ru.ru_utime:.6f} {ru.ru_stime:.6f} {wall:.6f}\n")
sys.exit(rc)
PY
    die "$1 symbolize failed: $(tail -1 "$W/err")"
  local sw
  sw=$("$1" info "$W/run.kprof" | sed -n 's/^off-CPU: *\([0-9]*\) switches.*/\1/p')
  awk -v sw="${sw:-0}" '{ printf "%.4f %.4f %s\n", $1 + $2, $3, sw }' "$W/time"
}
{
  echo "# kprof symbolize of a cut storm recording ($(stat -c %s "$W/cut.kprof") bytes, ${G:-kernel stacks}), $RUNS alternating runs each, $(date -Is)"
  for ((i = 0; i < RUNS; i++)); do
    echo "old $(one "$OLD")"
    echo "new $(one "$NEW")"
  done
} > "$W/runs.txt"
python3 - "$W/runs.txt" "$OLD" "$NEW" <<'PY' | tee "$RESULT"
import statistics, sys
runs, old, new = sys.argv[1:]
rows = {'old': [], 'new': []}
for line in open(runs):
    if line.startswith('#'):
        print(line.rstrip()); continue
    who, cpu, wall, sw = line.split()
    rows[who].append((float(cpu), float(wall), sw))
med = {w: (statistics.median(c for c, _, _ in r), statistics.median(x for _, x, _ in r), r[0][2])
       for w, r in rows.items()}
for w, path in (('old', old), ('new', new)):
    c, x, sw = med[w]
    print(f"{w}: {path}: CPU {c:.4f} s, wall {x:.4f} s (medians), {sw} switches")
print(f"new/old CPU: {med['new'][0] / med['old'][0]:.3f}")
PY
echo "results: $RESULT"
