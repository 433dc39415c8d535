#!/usr/bin/env bash
# --call-graph dwarf against perf's, on the OLTP workload (samples/oltp.sh:
# PostgreSQL 15 under pgbench, -O2 without frame pointers as Debian builds
# it), REPS recordings by each tool (default 3), medians:
#   1. reach: of the postgres samples with a user frame, the share whose
#      stack holds `main` (every postgres process descends from it) and
#      `PostgresMain` (a backend's main loop): bench/dwarf_reach.py over
#      `kprof export -f folded` and `perf script`;
#   2. bytes per sample of the final files (.kprof against perf.data);
#   3. time to a report: kprof record's end (its wall time past the
#      recording: decoding, unwinding, naming, compacting) plus `kprof report
#      --children`, against `perf report --children --stdio` (perf 6.1 may
#      abort on its own files here, util/build-id.c:1010: then "aborted");
#   4. lost samples, each tool at the same rate and copy size.
#
#   bench/dwarf.sh                 SECS=10 REPS=3 FREQ=499 SIZE=8192
set -euo pipefail
FREQ=${FREQ:-499}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
find_kprof
need perf python3
SECS=${SECS:-10} REPS=${REPS:-3} SIZE=${SIZE:-8192}
results_dir dwarf

kreach=() kmain=() kbps=() kend=() krep=() klost=()
preach=() pmain=() pbps=() prep=() plost=()
for ((i = 1; i <= REPS; i++)); do
  k=$W/k$i.kprof p=$W/p$i.data
  "$ROOT/samples/oltp.sh" --seconds "$SECS" \
    --record "/usr/bin/time -f %e -o $W/k$i.wall $KPROF record --call-graph dwarf,$SIZE -F $FREQ -o $k" \
    >"$W/k$i.out" 2>"$W/k$i.err" || die "kprof's OLTP run failed: $(tail -3 "$W/k$i.err")"
  "$ROOT/samples/oltp.sh" --seconds "$SECS" \
    --record "perf record -q --call-graph dwarf,$SIZE -F $FREQ -o $p" \
    >"$W/p$i.out" 2>"$W/p$i.err" || die "perf's OLTP run failed: $(tail -3 "$W/p$i.err")"

  read -r n r m < <("$KPROF" export -f folded "$k" | python3 "$BENCH_DIR/dwarf_reach.py" kprof postgres main PostgresMain)
  kreach+=("$r") kmain+=("$m")
  read -r pn r m < <(perf script -F comm,ip,sym,dso -i "$p" 2>/dev/null |
    python3 "$BENCH_DIR/dwarf_reach.py" perf postgres main PostgresMain)
  preach+=("$r") pmain+=("$m")
  ks=$(kprof_samples "$k") ps=$(perf_samples "$p")
  kbps+=("$(ratio "$(filesize "$k")" "$ks")") pbps+=("$(ratio "$(filesize "$p")" "$ps")")
  dur=$("$KPROF" info "$k" | awk '/^duration:/ {print $2}')
  end=$(sub "$(tail -1 "$W/k$i.wall")" "$dur")
  rep=$(time_of "$W/err.txt" "$KPROF" report "$k" --children)
  kend+=("$end") krep+=("$(add "$end" "$rep")")
  prep+=("$(time_of "$W/err.txt" perf report -i "$p" --children --stdio)")
  klost+=("$("$KPROF" info "$k" | awk '/^lost:/ {print $2}')")
  plost+=("$(perf report -i "$p" --stats 2>/dev/null | awk '/LOST/ {s += $NF} END {print s + 0}')")
  echo "run $i: kprof $ks samples ($n postgres with user frames), perf $ps ($pn)" >&2
done
{
  echo "OLTP ${SECS}s at $FREQ Hz, --call-graph dwarf,$SIZE, $REPS runs each (medians)"
  echo "postgres samples reaching main:          kprof $(median "${kreach[@]}")%  perf $(median "${preach[@]}")%  (runs: ${kreach[*]} / ${preach[*]})"
  echo "postgres samples reaching PostgresMain:  kprof $(median "${kmain[@]}")%  perf $(median "${pmain[@]}")%  (runs: ${kmain[*]} / ${pmain[*]})"
  echo "bytes per sample:                        kprof $(median "${kbps[@]}")  perf $(median "${pbps[@]}")  ratio $(ratio "$(median "${kbps[@]}")" "$(median "${pbps[@]}")")"
  if [[ " ${prep[*]} " == *" aborted "* ]]; then
    echo "time to a report:                        kprof $(median "${krep[@]}") s (record end $(median "${kend[@]}") s); perf report aborted (${prep[*]}): $(tail -2 "$W/err.txt" | tr '\n' ' ')"
  else
    echo "time to a report:                        kprof $(median "${krep[@]}") s (record end $(median "${kend[@]}") s + report --children)  perf report --children $(median "${prep[@]}") s  perf/kprof $(ratio "$(median "${prep[@]}")" "$(median "${krep[@]}")")"
  fi
  echo "lost samples:                            kprof ${klost[*]}  perf ${plost[*]}"
} | tee "$RESULT"
