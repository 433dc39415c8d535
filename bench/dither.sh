#!/usr/bin/env bash
# What dithering the clock's period (collector/period_dither.h, the default;
# --no-dither turns it off) does, on real recordings made in turns (one of
# each kind per round, so both see the VM's same drift):
#   1. spread: RUNS recordings of the hot-cold test program at each
#      COLD_FACTOR of FACTORS (kprof_cold ~30-32%, a ~0.2 ms round against
#      -F 999's 1 ms period), SECONDS each, dithered and fixed: kprof_cold's
#      mean share, its SD between runs and that SD's variance against
#      binomial's (a fixed period locked in phase with the round shows as
#      several times binomial), the lowest and highest run;
#   2. aliasing: ALIAS_RUNS recordings of kprof_prog_alias (30% of every
#      millisecond in kprof_alias_a) at -F 1000, dithered and fixed, and by
#      perf record -e cpu-clock -F 1000 where perf is installed:
#      kprof_alias_a's part (0.30 is right);
#   3. rate: samples per recording against -F x seconds (the dither keeps
#      the mean rate);
#   4. cost: the hot-cold program's rounds per second under each, and
#      alone (no kprof), medians.
# usage: bench/dither.sh     (~5 min)
# knobs: RUNS=20 SECONDS_EACH=1 FACTORS="1.3 1.43" ALIAS_RUNS=10 KPROF=path
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
find_kprof
need python3
find_programs
RUNS=${RUNS:-20}
SECONDS_EACH=${SECONDS_EACH:-1}
FACTORS=${FACTORS:-1.3 1.43}
ALIAS_RUNS=${ALIAS_RUNS:-10}
results_dir dither
T0=$EPOCHREALTIME
rec() {  # rec OUT.kprof FREQ KPROF-ARGS... -- CMD...; appends "OUT rounds" to $W/rounds
  local out=$1 freq=$2
  shift 2
  local -a args=()
  while [[ $1 != -- ]]; do args+=("$1"); shift; done
  shift
  "$KPROF" record -F "$freq" "${args[@]}" -o "$out" -- "$@" >"$W/out.log" 2>"$W/err.log" ||
    die "kprof record failed: $(tail -3 "$W/err.log")"
  echo "$out $(awk '/^rounds/ {print $2}' "$W/out.log")" >>"$W/rounds"
}
for f in $FACTORS; do
  mkdir -p "$W/hc$f-dither" "$W/hc$f-fixed"
done
mkdir -p "$W/alias-dither" "$W/alias-fixed" "$W/alias-perf" "$W/alone"
PERF=$(command -v perf || true)
for ((i = 1; i <= RUNS; i++)); do
  n=$(printf '%02d' "$i")
  for f in $FACTORS; do
    rec "$W/hc$f-dither/$n.kprof" 999 -- "$PROGRAMS/kprof_prog_hotcold" "$SECONDS_EACH" "$f"
    rec "$W/hc$f-fixed/$n.kprof" 999 --no-dither -- "$PROGRAMS/kprof_prog_hotcold" "$SECONDS_EACH" "$f"
    "$PROGRAMS/kprof_prog_hotcold" "$SECONDS_EACH" "$f" | awk -v o="$W/alone/$f-$n" '/^rounds/ {print o, $2}' >>"$W/rounds"
  done
  if ((i <= ALIAS_RUNS)); then
    rec "$W/alias-dither/$n.kprof" 1000 -e cpu-clock -- "$PROGRAMS/kprof_prog_alias" "$SECONDS_EACH"
    rec "$W/alias-fixed/$n.kprof" 1000 -e cpu-clock --no-dither -- "$PROGRAMS/kprof_prog_alias" "$SECONDS_EACH"
    if [[ -n $PERF ]]; then
      "$PERF" record -q -e cpu-clock -F 1000 -o "$W/alias-perf/$n.data" -- \
        "$PROGRAMS/kprof_prog_alias" "$SECONDS_EACH" >/dev/null 2>&1 || die "perf record failed"
      "$PERF" report -i "$W/alias-perf/$n.data" --stdio --sort sym 2>/dev/null |
        awk '/kprof_alias_a/ {a = $1} /kprof_alias_b/ {b = $1} END { gsub("%", "", a); gsub("%", "", b); print a + 0, b + 0 }' \
        >"$W/alias-perf/$n.txt"
    fi
  fi
done
echo "  recorded in $(awk -v a="$T0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s" >&2
{
  echo "# dither.sh: $(date -Is), $(uname -r), $(nproc) CPUs, $KPROF ($(git -C "$ROOT" rev-parse --short HEAD))"
  echo "# RUNS=$RUNS SECONDS_EACH=$SECONDS_EACH FACTORS=\"$FACTORS\" ALIAS_RUNS=$ALIAS_RUNS (kinds recorded in turns)"
  # shellcheck disable=SC2086 # FACTORS: words
  python3 - "$KPROF" "$W" "$SECONDS_EACH" $FACTORS <<'PY'
import glob, os, statistics as st, subprocess, sys
kprof, w, secs, factors = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4:]
def rows(path):
    out = subprocess.run([kprof, "report", path, "--top", "0", "--csv", "-"],
                         capture_output=True, text=True, check=True).stdout.splitlines()[1:]
    got = {}
    for line in out:
        f = line.split(",")
        got[f[3]] = int(f[0])
    return got
rounds = {}
for line in open(os.path.join(w, "rounds")):
    k, _, v = line.strip().partition(" ")
    if v: rounds[k] = int(v)
def pool(name, fn):
    files = sorted(glob.glob(os.path.join(w, name, "*.kprof")))
    return files, [fn(rows(f)) for f in files]
print("== 1. spread of kprof_cold's share between runs (-F 999, %g s each)" % secs)
print("  %-16s %5s %8s %8s %8s %9s %7s %7s" % ("pool", "runs", "mean %", "SD pp", "binom pp", "var/binom", "min", "max"))
for f in factors:
    for kind in ("dither", "fixed"):
        files, shares = pool("hc%s-%s" % (f, kind), lambda r: 100.0 * r.get("kprof_cold", 0) / max(1, sum(r.values())))
        _, totals = pool("hc%s-%s" % (f, kind), lambda r: sum(r.values()))
        m, sd = st.mean(shares), st.stdev(shares)
        binom = (m * (100 - m) / st.mean(totals)) ** 0.5
        print("  %-16s %5d %8.2f %8.2f %8.2f %9.2f %7.2f %7.2f" % ("cold %s %s" % (f, kind), len(shares), m, sd, binom, (sd / binom) ** 2, min(shares), max(shares)))
print("== 2. aliasing: kprof_alias_a's part of the two functions (right: 0.30), -F 1000")
for kind in ("dither", "fixed"):
    _, parts = pool("alias-" + kind, lambda r: r.get("kprof_alias_a", 0) / max(1, r.get("kprof_alias_a", 0) + r.get("kprof_alias_b", 0)))
    if parts:
        print("  %-7s runs %2d: median %.3f, mean %.3f, min %.3f, max %.3f, off by > 0.1 in %d" % (
            kind, len(parts), st.median(parts), st.mean(parts), min(parts), max(parts), sum(abs(p - 0.3) > 0.1 for p in parts)))
perf = []
for path in sorted(glob.glob(os.path.join(w, "alias-perf", "*.txt"))):
    a, b = (float(x) for x in open(path).read().split())
    if a + b > 0: perf.append(a / (a + b))
if perf:
    print("  %-7s runs %2d: median %.3f, mean %.3f, min %.3f, max %.3f, off by > 0.1 in %d" % (
        "perf", len(perf), st.median(perf), st.mean(perf), min(perf), max(perf), sum(abs(p - 0.3) > 0.1 for p in perf)))
print("== 3. rate: samples a recording against -F x seconds (%d)" % round(999 * secs))
for kind in ("dither", "fixed"):
    totals = []
    for f in factors:
        totals += pool("hc%s-%s" % (f, kind), lambda r: sum(r.values()))[1]
    print("  %-7s median %d, mean %.1f (%.2f%% off), SD %.1f over %d" % (kind, st.median(totals), st.mean(totals), 100 * (st.mean(totals) / (999 * secs) - 1), st.stdev(totals), len(totals)))
print("== 4. cost: the hot-cold program's rounds per second, medians")
alone = st.median([v for k, v in rounds.items() if "/alone/" in k])
for kind in ("dither", "fixed"):
    r = st.median([v for k, v in rounds.items() if "-%s/" % kind in k and "/hc" in k])
    print("  %-7s %8.0f rounds/s: %.1f%% below the program alone (%.0f)" % (kind, r / secs, 100 * (1 - r / alone), alone / secs))
PY
} | tee "$RESULT"
