#!/usr/bin/env python3
"""kprof's cost per system call against the workload's own clock.

per_call_agreement.py OWN1 CSV1 [OWN2 CSV2 ...]: OWN is samples/syscalls'
output (its "(cpu ns)" row, the thread CPU clock per call, where it has
one: the guests' threads also wait; else its ns row), CSV `kprof report --per-call --csv` of the same run.
kprof's ns per call is under the call's entry + its entry/exit + the
counting's share (the workload paid all three); open()+close() is openat +
close. Prints each run's ratio and the median per call (goal 0.85..1.15).
"""
import csv
import statistics
import sys

PAIRS = {"gettimeofday(SYS)": ["gettimeofday"], "uname()": ["newuname"], "chdir()": ["chdir"],
         "open()+close()": ["openat", "close"], "getpid(SYS)": ["getpid"]}

args = sys.argv[1:]
if not args or len(args) % 2:
    sys.exit(__doc__)
ratios = {k: [] for k in PAIRS}
for run, (own_path, csv_path) in enumerate(zip(args[::2], args[1::2]), 1):
    lines = [l.split("\t") for l in open(own_path).read().split("\n") if l]
    row = next((l for l in lines if l[0].endswith("(cpu ns)")), lines[2])
    own = dict(zip(lines[0][1:], (float(x) for x in row[1:])))
    rows = {r["system_call"]: r for r in csv.DictReader(open(csv_path, newline=""))}
    for name, calls in PAIRS.items():
        k = sum(float(rows[c]["cost_per_call"]) + float(rows[c]["entry_exit_per_call"]) +
                float(rows[c]["counting_per_call"]) for c in calls)
        ratios[name].append(k / own[name])
        print(f"run {run} {name:18s} workload {own[name]:8.1f} ns  kprof {k:8.1f} ns  "
              f"ratio {k / own[name]:.3f}")
print("median kprof/workload ratio per call (goal: within 0.85..1.15):")
for name, v in ratios.items():
    print(f"  {name:18s} {statistics.median(v):.3f}  (runs: {' '.join(f'{x:.2f}' for x in v)})")
