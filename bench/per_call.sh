#!/usr/bin/env bash
# Issue 25: kprof's cost per system call against the workload's own
# measurement of the same run, and what counting the calls costs.
#
#   bench/per_call.sh [RUNS=5] [SECONDS=4]
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
python3 - "$W" "$RUNS" <<'PY'
import csv, statistics, sys
w, runs = sys.argv[1], int(sys.argv[2])
pairs = {"gettimeofday(SYS)": ["gettimeofday"], "uname()": ["newuname"], "chdir()": ["chdir"],
         "open()+close()": ["openat", "close"], "getpid(SYS)": ["getpid"]}
ratios = {k: [] for k in pairs}
for r in range(1, runs + 1):
    lines = open(f"{w}/r{r}.own").read().split("\n")
    head = lines[0].split("\t")[1:]
    ns = [float(x) for x in lines[2].split("\t")[1:]]
    own = dict(zip(head, ns))
    rows = {row["system_call"]: row for row in csv.DictReader(open(f"{w}/r{r}.csv"))}
    for name, calls in pairs.items():
        k = 0.0
        for c in calls:
            row = rows[c]
            k += float(row["cost_per_call"]) + float(row["entry_exit_per_call"]) + float(row["counting_per_call"])
        ratios[name].append(k / own[name])
        print(f"run {r} {name:18s} workload {own[name]:8.1f} ns  kprof {k:8.1f} ns  ratio {k / own[name]:.3f}")
print("median kprof/workload ratio per call (goal: within 0.85..1.15):")
for name, v in ratios.items():
    print(f"  {name:18s} {statistics.median(v):.3f}  (runs: {' '.join(f'{x:.2f}' for x in v)})")
PY

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
} | tee "$RESULT"
echo "results: $RESULT" >&2
