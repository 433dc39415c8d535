#!/usr/bin/env bash
# Do kprof and perf agree on where the time went? Two back-to-back
# recordings of the same workload (kprof, then `perf record -e cpu-clock`),
# then the top-10 function names of `kprof report` and `perf report`
# compared: overlap, and both lists side by side.
#
# usage: bench/top10_agreement.sh [-- CMD...]     (default: compile googletest's gtest, ~1 min)
# knobs: FREQ=999  TOP=10  KPROF=path  GTEST_TARGET=gtest
# Results: bench/out/top10-<time>.txt
set -euo pipefail
source "$(dirname "$0")/lib.sh"

TOP=${TOP:-10}
GTEST_TARGET=${GTEST_TARGET:-gtest}
find_kprof
need perf python3
results_dir top10

PREP=()
if [[ ${1:-} == -- ]]; then
  shift
  WORKLOAD=("$@")
  [[ ${#WORKLOAD[@]} -gt 0 ]] || die "nothing after --"
else
  [[ -f /usr/src/googletest/CMakeLists.txt ]] || die "no /usr/src/googletest; give -- CMD..."
  need cmake make
  cmake -S /usr/src/googletest -B "$W/gtest-build" -DCMAKE_BUILD_TYPE=Release \
    >"$W/cmake.log" 2>&1 || die "cmake failed, see $W/cmake.log"
  PREP=(make -C "$W/gtest-build" clean)
  WORKLOAD=(make -C "$W/gtest-build" -j2 "$GTEST_TARGET")
fi

[[ ${#PREP[@]} -eq 0 ]] || "${PREP[@]}" >/dev/null 2>&1
"$KPROF" record -F "$FREQ" -o "$W/k.kprof" -- "${WORKLOAD[@]}" >"$W/kprof-record.log" 2>&1 ||
  die "kprof record failed, see $W/kprof-record.log"
[[ ${#PREP[@]} -eq 0 ]] || "${PREP[@]}" >/dev/null 2>&1
perf record -e cpu-clock -F "$FREQ" -o "$W/p.data" -- "${WORKLOAD[@]}" >"$W/perf-record.log" 2>&1 ||
  die "perf record failed, see $W/perf-record.log"

# "percent<TAB>name" per line, most samples first.
"$KPROF" report --csv - "$W/k.kprof" >"$W/kprof.csv" 2>"$W/kprof-report.err" ||
  die "kprof report --csv failed, see $W/kprof-report.err"
perf report -i "$W/p.data" --stdio --sort sym >"$W/perf-report.txt" 2>/dev/null ||
  die "perf report failed"
grep -v '^#' "$W/perf-report.txt" | sed -nE 's/^ *([0-9.]+)% +\[[^]]*\] +(.*[^ ]) *$/\1\t\2/p' \
  >"$W/perf.all"

# Names are compared as perf prints them: demangled without parameters, one
# row per name across images, and perf's unnamed hex addresses summed into
# one "[unknown]" row the way kprof keeps them.
python3 - "$W/kprof.csv" "$W/perf.all" "$TOP" >"$W/compare.txt" <<'PY'
import csv, re, sys
from collections import defaultdict
def norm(n):
    if n.startswith("[") or n.startswith("0x"):
        return "[unknown]" if n.startswith("0x") or n == "[unknown]" else n
    return re.sub(r"\(.*$", "", n)
def top(pairs, n):
    acc = defaultdict(float)
    for pct, name in pairs:
        acc[norm(name)] += pct
    return sorted(acc.items(), key=lambda kv: -kv[1])[:n]
rows = list(csv.reader(open(sys.argv[1])))[1:]
n = int(sys.argv[3])
k = top([(float(r[1]), r[3]) for r in rows], n)
p = top([(float(l.split("\t", 1)[0]), l.rstrip("\n").split("\t", 1)[1])
         for l in open(sys.argv[2]) if "\t" in l], n)
kn, pn = [x for x, _ in k], [x for x, _ in p]
common = [x for x in kn if x in pn]
print(f"top-{n} overlap: {len(common)} of {max(len(kn), len(pn))} functions")
print()
w = min(max([len(x) for x in kn + pn] + [10]), 50)
print(f"{'#':>2}  {'kprof %':>7}  {'function':<{w+2}}  {'perf %':>7}  function")
mark = lambda x, other: ("  " if x in other else "* ") + x[:w]
for i in range(max(len(k), len(p))):
    a = k[i] if i < len(k) else ("", None)
    b = p[i] if i < len(p) else ("", None)
    ka = f"{a[1]:.2f}" if a[1] is not None else ""
    pb = f"{b[1]:.2f}" if b[1] is not None else ""
    print(f"{i+1:>2}  {ka:>7}  {mark(a[0], pn) if a[0] else '':<{w+2}}  {pb:>7}  "
          f"{mark(b[0], kn) if b[0] else ''}")
print()
print("* = not in the other tool's top list")
PY
{
  echo "# top-$TOP agreement, $(date -Is), $(uname -r), -F $FREQ, workload: ${WORKLOAD[*]}"
  cat "$W/compare.txt"
} | tee "$RESULT"
rm -rf "$W/gtest-build"
echo "written: $RESULT"
