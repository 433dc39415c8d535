#!/usr/bin/env bash
# Do kprof and perf agree on inclusive shares (`report --children`) of a -g
# recording of code built without frame pointers? perf records a compile
# with -g (cc1plus has no frame pointers, so its chains carry garbage
# callers); kprof reads that same perf.data. Printed: the TOP named
# functions by total share from each, side by side with the difference, and
# the largest unnamed row each shows (perf: one row per unknown address;
# kprof: chains cut at a caller outside every mapping, issue 23 item 3).
#
# usage: bench/children_agreement.sh        knobs: FREQ=999 TOP=10 KPROF=path
# Results: bench/out/children-<time>.txt
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
find_kprof
need perf g++ python3
TOP=${TOP:-10}
results_dir children
perf record -q -g -e cpu-clock -F "$FREQ" -o "$W/cc.data" -- \
  g++ -O2 -std=c++20 -I"$ROOT" -c "$ROOT/core/aggregate.cpp" -o /dev/null >/dev/null 2>&1
perf report -i "$W/cc.data" --children --stdio --sort sym -g none 2>/dev/null >"$W/perf.txt"
"$KPROF" report --children "$W/cc.data" --csv - >"$W/kprof.csv" 2>/dev/null
python3 - "$W/perf.txt" "$W/kprof.csv" "$TOP" <<'PY' | tee "$RESULT"
import csv, re, sys
perf, unknown_perf = {}, 0.0
for line in open(sys.argv[1]):
    m = re.match(r'\s+([\d.]+)%\s+([\d.]+)%\s+\[[^\]]+\]\s+(.*\S)', line)
    if not m:
        continue
    total, name = float(m.group(1)), m.group(3)
    if re.fullmatch(r'(0x)?[0-9a-f]+', name):
        unknown_perf = max(unknown_perf, total)
        continue
    name = re.sub(r'\(.*', '', name)
    perf[name] = max(perf.get(name, 0.0), total)
kprof, unknown_kprof = {}, 0.0
for row in csv.DictReader(open(sys.argv[2])):
    total, name = float(row['total_percent']), row['function']
    if name == '[unknown]':
        unknown_kprof = max(unknown_kprof, total)
        continue
    name = re.sub(r'\(.*', '', name)
    kprof[name] = max(kprof.get(name, 0.0), total)
top = int(sys.argv[3])
names = sorted(perf, key=lambda n: -perf[n])[:top]
print(f"{'function':40} {'perf %':>8} {'kprof %':>8} {'diff':>7}")
worst = 0.0
for n in names:
    k = kprof.get(n, 0.0)
    worst = max(worst, abs(k - perf[n]))
    print(f"{n[:40]:40} {perf[n]:8.2f} {k:8.2f} {k - perf[n]:+7.2f}")
print(f"largest difference over perf's top {top} named: {worst:.2f} pp")
print(f"largest unnamed row: perf {unknown_perf:.2f}% (one row per unknown address), "
      f"kprof {unknown_kprof:.2f}%")
PY
