#!/usr/bin/env bash
# The numbers behind issue 12 ("numbers a kernel engineer can trust") and the
# page sizes of issue 11, measured in one run:
#   1. cpu-clock skid: the share of samples at interrupt-enable points in the
#      shipped demo profiles and in a fresh OLTP recording (samples/oltp.sh);
#   2. stripped binaries: in that OLTP profile, postgres's '[unknown]' share
#      and the rows its .eh_frame extents split it into ('postgres+0x...');
#   3. the detectability floor of the shipped demo diff and of a 3-vs-3 A/A
#      of the hot-cold test program (RUNS runs of SECONDS s each, at FREQ);
#   4. the HTML page of the shipped demo diff: its size.
# perf has no counterpart for 1, 3 and 4 (no skid notice, no power analysis,
# no page); for 2 it prints each unnamed address on its own line.
#
#   bench/trust.sh                 OLTP 8 s; hot-cold 3 + 3 runs of 1.5 s at -F 4999
#   OLTP_SECONDS=30 bench/trust.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
find_kprof
need python3

OLTP_SECONDS=${OLTP_SECONDS:-8}
SECONDS_EACH=${SECONDS_EACH:-1.5}
RUNS=${RUNS:-3}
HC_FREQ=${HC_FREQ:-4999}
HOTCOLD=$ROOT/build/tests/programs/kprof_prog_hotcold
[[ -x $HOTCOLD ]] || die "no $HOTCOLD (ninja -C build kprof_programs)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

skid_line() { "$KPROF" report "$1" --top 1 | sed -n 's/^# notice: *\([0-9.]*%\) of samples fell at interrupt-enable points.*/\1/p'; }

echo "== 1. cpu-clock skid (share of samples at interrupt-enable points)"
for f in generic rt; do
  echo "  shipped $f: $(skid_line "$ROOT/samples/$f.kprof")"
done
"$ROOT/samples/oltp.sh" --kprof "$work/oltp.kprof" --seconds "$OLTP_SECONDS" >"$work/oltp.out" 2>"$work/oltp.err" ||
  die "samples/oltp.sh failed: $(tail -3 "$work/oltp.err")"
echo "  OLTP ($OLTP_SECONDS s, $(cat "$work/oltp.out")): $(skid_line "$work/oltp.kprof")"

echo "== 2. stripped postgres in the OLTP profile"
"$KPROF" report "$work/oltp.kprof" --csv - | python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
total = sum(int(r["samples"]) for r in rows)
pg = [r for r in rows if r["image"].endswith("/postgres")]
unknown = sum(int(r["samples"]) for r in pg if r["function"] == "[unknown]")
split = [r for r in pg if r["function"].startswith("postgres+0x")]
in_split = sum(int(r["samples"]) for r in split)
print("  %d samples; postgres [unknown] %.2f%%; %d postgres+0x... rows holding %.2f%%"
      % (total, 100 * unknown / total, len(split), 100 * in_split / total))
'

echo "== 3. detectability floor"
"$KPROF" diff "$ROOT/samples/generic.kprof" "$ROOT/samples/rt.kprof" --plan | sed -n '/^Detectability/,$p' | sed 's/^/  /'
a=() b=()
for i in $(seq "$RUNS"); do
  for side in a b; do
    "$KPROF" record -F "$HC_FREQ" -o "$work/hc-$side$i.kprof" -- "$HOTCOLD" "$SECONDS_EACH" >/dev/null 2>&1
  done
  a+=("$work/hc-a$i.kprof") b+=("$work/hc-b$i.kprof")
done
echo "  hot-cold A/A, $RUNS vs $RUNS runs of $SECONDS_EACH s at -F $HC_FREQ:"
"$KPROF" diff "${a[@]}" -- "${b[@]}" --plan | sed -n '/^Detectability/,$p' | sed 's/^/  /'

echo "== 4. the demo diff as a page"
"$KPROF" diff "$ROOT/samples/generic.kprof" "$ROOT/samples/rt.kprof" --html "$work/demo.html" >/dev/null
echo "  $(stat -c %s "$work/demo.html") bytes"
