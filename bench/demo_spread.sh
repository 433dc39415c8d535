#!/usr/bin/env bash
# Issue 27: how far the demo's runs of one kernel spread, the figure behind
# "runs repeat to their sampling noise" (instruction clock) and "~11%"
# (--real-clock). Per kernel, over its runs: each system call's CPU ns per
# call under its entry (kprof report --per-call), and the workload's own
# rounds per second (its score): mean, SD in % of the mean, min and max.
#
#   bench/demo_spread.sh DIR    DIR: a demo's --out (LABEL-N.kprof, LABEL/workload-N.txt)
source "$(dirname "$0")/lib.sh"
set -euo pipefail
d=${1:?usage: bench/demo_spread.sh DEMO_OUT_DIR}
find_kprof
need python3
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
for f in "$d"/*-[0-9]*.kprof; do
  b=$(basename "$f" .kprof)
  "$KPROF" report --per-call "$f" --csv "$W/$b.csv" >/dev/null
  l=${b%-*} n=${b##*-}
  sed -n 's/^rounds_per_s=\([0-9.]*\).*/\1/p' "$d/$l/workload-$n.txt" > "$W/$b.score" || true
done
python3 - "$W" <<'PY'
import csv, glob, os, statistics as st, sys
w = sys.argv[1]
runs = {}
for path in sorted(glob.glob(os.path.join(w, "*.csv"))):
    b = os.path.basename(path)[:-4]
    label = b.rsplit("-", 1)[0]
    row = {r["system_call"]: float(r["cost_per_call"]) for r in csv.DictReader(open(path))}
    score = open(path[:-4] + ".score").read().split()
    if score:
        row["(rounds/s)"] = float(score[-1])
    runs.setdefault(label, []).append(row)
print(f"{'kernel':8} {'of':14} {'runs':>4} {'mean':>10} {'SD %':>6} {'min':>10} {'max':>10}")
for label, rows in runs.items():
    keys = sorted(set.intersection(*(set(r) for r in rows)))
    for k in keys:
        v = [r[k] for r in rows]
        if len(v) < 2 or st.mean(v) == 0:
            continue
        m = st.mean(v)
        print(f"{label:8} {k:14} {len(v):>4} {m:>10.1f} {100 * st.stdev(v) / m:>6.1f} {min(v):>10.1f} {max(v):>10.1f}")
PY
