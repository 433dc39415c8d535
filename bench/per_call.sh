#!/usr/bin/env bash
# Issue 25: kprof's cost per system call against the workload's own
# measurement of the same run, and what counting the calls costs.
#
#   bench/per_call.sh [RUNS=5] [SECONDS=4]
#   bench/per_call.sh --demo DIR   agreement in the demo's guests (DIR: the
#                                  demo's --out: LABEL-N.kprof, LABEL/workload-N.txt)
#
# 1. Agreement: RUNS recordings of samples/syscalls (`kprof record -g
#    --syscalls`, FREQ Hz); per call, kprof's ns per call (under the call's
#    entry + the entry/exit share + the counting's own share, as the workload
#    paid all three) against the workload's own ns per call (its rdtsc/clock
#    loop over every round). open()+close() is openat + close. Median ratio.
# 2. Cost of counting: the workload's own ns per call run alone, under
#    `kprof record --syscalls` (sampling off: -F 1) and under `perf stat -e
#    'syscalls:sys_enter_*'`, RUNS each, interleaved; medians and the added %.
source "$(dirname "$0")/lib.sh"
set -euo pipefail
if [[ ${1:-} == --demo ]]; then
  find_kprof
  d=${2:?--demo DIR}
  for l in generic cloud rt; do
    pairs=()
    for f in "$d/$l"-[0-9]*.kprof; do
      [[ -f $f ]] || continue
      n=${f##*-}; n=${n%.kprof}
      "$KPROF" report --per-call "$f" --csv "$d/$l-$n.per-call.csv" >/dev/null
      pairs+=("$d/$l/workload-$n.txt" "$d/$l-$n.per-call.csv")
    done
    (( ${#pairs[@]} )) || continue
    echo "# $l guest"
    python3 "$BENCH_DIR/per_call_agreement.py" "${pairs[@]}"
  done
  exit 0
fi
RUNS=${1:-5}
SECS=${2:-4}
find_kprof
need perf cc python3
results_dir per-call
cc -O2 -g -fno-omit-frame-pointer -o "$W/syscalls" "$ROOT/samples/syscalls/syscalls.c"
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing ||
  die "tracefs is not mounted and cannot be (run as root)"

{
echo "# per-call agreement: kprof record -g --syscalls -F $FREQ, syscalls --seconds $SECS, $RUNS runs"
for r in $(seq "$RUNS"); do
  "$KPROF" record -g --syscalls -F "$FREQ" -o "$W/r$r.kprof" -- "$W/syscalls" --seconds "$SECS" \
    --iterations 20000 >"$W/r$r.own" 2>/dev/null
  "$KPROF" report --per-call "$W/r$r.kprof" --csv "$W/r$r.csv" >/dev/null
done
pairs=()
for r in $(seq "$RUNS"); do pairs+=("$W/r$r.own" "$W/r$r.csv"); done
python3 "$BENCH_DIR/per_call_agreement.py" "${pairs[@]}"

echo
echo "# cost of counting: the workload's own ns per call, $RUNS runs each, interleaved"
for r in $(seq "$RUNS"); do
  "$W/syscalls" --iterations 200000 | sed -n 3p >>"$W/alone.txt"
  "$KPROF" record --syscalls -F 1 -o "$W/count.kprof" -- "$W/syscalls" --iterations 200000 2>/dev/null |
    sed -n 3p >>"$W/kprof.txt"
  perf stat -e 'syscalls:sys_enter_*' -o /dev/null -- "$W/syscalls" --iterations 200000 |
    sed -n 3p >>"$W/perf.txt"
done
python3 - "$W" <<'PY'
import statistics, sys
w = sys.argv[1]
names = ["gettimeofday()", "gettimeofday(SYS)", "uname()", "chdir()", "open()+close()", "getpid(SYS)"]
def load(f):
    rows = [[float(x) for x in l.split("\t")[1:]] for l in open(f"{w}/{f}") if l.strip()]
    return [statistics.median(col) for col in zip(*rows)]
alone, kp, pf = load("alone.txt"), load("kprof.txt"), load("perf.txt")
print(f"{'call':18s} {'alone ns':>9s} {'kprof':>9s} {'added':>7s} {'perf':>9s} {'added':>7s}")
for n, a, k, p in zip(names, alone, kp, pf):
    print(f"{n:18s} {a:9.1f} {k:9.1f} {100 * (k - a) / a:+6.1f}% {p:9.1f} {100 * (p - a) / a:+6.1f}%")
PY

echo
echo "# leaving: kprof record --syscalls -F 1 -- true against perf stat -e 'syscalls:sys_enter_*' true (s, 3 each)"
for r in 1 2 3; do
  /usr/bin/time -f %e -a -o "$W/exit-kprof.txt" "$KPROF" record --syscalls -F 1 -o "$W/t.kprof" -- true \
    >/dev/null 2>&1
  /usr/bin/time -f %e -a -o "$W/exit-perf.txt" perf stat -e 'syscalls:sys_enter_*' -o /dev/null true
done
echo "kprof median $(median $(cat "$W/exit-kprof.txt")) s; perf stat median $(median $(cat "$W/exit-perf.txt")) s"
} | tee "$RESULT"
echo "results: $RESULT" >&2
