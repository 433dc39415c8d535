#!/usr/bin/env bash
# Load: kprof and perf record system-wide (-a) at the highest allowed rate on
# every CPU while an OLTP workload (samples/oltp.sh: a throwaway PostgreSQL 15
# cluster, pgbench) keeps the CPUs busy; the two interleaved, REPS times each,
# in the same run. The profiler runs on its own (-a, no command) from before
# the workload starts until SIGINT after it ends, so /usr/bin/time gives its
# own CPU and peak RSS, and pgbench's tps is the cost to the workload.
#
# Per run: samples, lost samples (kprof: the record line and `kprof info`,
# which must agree; perf: LOST_SAMPLES of the sampled event's section of
# `perf report --stats`, as perf's own "lost N%" warning counts them), lost %,
# throttles, tps, the profiler's CPU seconds and peak RSS, file bytes per
# sample; then per duration the medians and kprof against perf (lost points,
# tps ratio, and the median of each repetition's own tps ratio; CPU ratio,
# bytes per sample ratio). Goal: kprof's lost % within
# perf's + 0.5 points, tps at least 0.95 x perf's.
#
#   bench/load.sh [SECONDS...]      pgbench durations, default: 15 60
#
#   REPS     runs per tool and duration (default 3)
#   G=1      record call chains (-g) with both tools
#   FREQ     sampling frequency (default: /proc/sys/kernel/perf_event_max_sample_rate)
#   CLIENTS  pgbench clients (default: number of CPUs)
#   PERF=0   kprof only
# Results in $OUT/load[-g].txt; the last run's files under $OUT/load[-g]/.
set -euo pipefail
lib_freq=${FREQ:-}
source "$(dirname "$0")/lib.sh"
find_kprof
need /usr/bin/time awk
[[ ${PERF:-1} == 1 ]] && need perf
[[ -x /usr/lib/postgresql/15/bin/postgres ]] || die "needs PostgreSQL 15 (apt-get install postgresql-15)"
max_rate_file=/proc/sys/kernel/perf_event_max_sample_rate
FREQ=${lib_freq:-$(cat "$max_rate_file")}
CLIENTS=${CLIENTS:-$(nproc)}
REPS=${REPS:-3}
G=${G:-0}
durations=("$@")
[[ ${#durations[@]} -gt 0 ]] || durations=(15 60)
tools=(kprof)
[[ ${PERF:-1} == 1 ]] && tools+=(perf)
gflag=()
suffix=""
[[ $G == 1 ]] && { gflag=(-g); suffix=-g; }
W=$OUT/load$suffix
mkdir -p "$W"

pid_of_tool=""
cleanup() { [[ -n $pid_of_tool ]] && kill -INT "$pid_of_tool" 2>/dev/null || true; }
trap cleanup EXIT

# Field of `kprof info` output: the text after "NAME:".
info_field() { awk -v k="$2:" 'index($0, k) == 1 { s = substr($0, length(k) + 1); sub(/^ +/, "", s); print s; exit }' "$1"; }

# one_run TOOL SECONDS TAG: sets R_SAMPLES R_LOST R_THROTTLES R_TPS R_CPU R_RSS R_BYTES
one_run() {
  local tool=$1 secs=$2 tag=$3 out rc=0
  local log=$W/$tag.log time=$W/$tag.time
  if [[ $tool == kprof ]]; then
    out=$W/$tag.kprof
    rm -f "$out" "$out.old"
    /usr/bin/time -f '%U %S %M' -o "$time" "$KPROF" record -a "${gflag[@]}" -F "$FREQ" -o "$out" \
      >"$log" 2>&1 &
  else
    out=$W/$tag.data
    rm -f "$out"
    /usr/bin/time -f '%U %S %M' -o "$time" perf record -e cpu-clock -a "${gflag[@]}" -F "$FREQ" \
      -o "$out" >"$log" 2>&1 &
  fi
  local tpid=$!
  sleep 1  # the events are open and the rings mapped
  pid_of_tool=$(pgrep -P "$tpid" | head -1 || true)
  "$ROOT/samples/oltp.sh" --seconds "$secs" --clients "$CLIENTS" >"$log.oltp" 2>&1 ||
    echo "oltp.sh failed, see $log.oltp" >&2
  kill -INT "$pid_of_tool" 2>/dev/null || true
  wait "$tpid" || rc=$?
  pid_of_tool=""
  # perf exits 130 after the SIGINT that stops it; kprof exits 0.
  [[ $rc -eq 0 || ($tool == perf && $rc -eq 130) ]] || echo "$tool record exited $rc, see $log" >&2
  R_TPS=$(sed -n 's/^tps=//p' "$log.oltp" | tail -1)
  R_CPU=$(tail -1 "$time" | awk '{printf "%.2f", $1 + $2}')
  R_RSS=$(tail -1 "$time" | awk '{printf "%.0f", $3 / 1024}')
  R_BYTES=$(filesize "$out" 2>/dev/null || echo 0)
  if [[ $tool == kprof ]]; then
    local line lost_rec
    line=$(grep -E '^\[ kprof record:' "$log" | tail -1 || true)
    R_SAMPLES=$(sed -nE 's/^\[ kprof record: ([0-9]+) samples.*/\1/p' <<<"$line")
    lost_rec=$(sed -nE 's/.*samples \(([0-9]+) lost\).*/\1/p' <<<"$line")
    "$KPROF" info "$out" >"$log.info" 2>&1 || echo "kprof info failed, see $log.info" >&2
    R_LOST=$(info_field "$log.info" lost | awk '{print $1}')
    R_THROTTLES=$(info_field "$log.info" throttled | awk '{print $1}')
    [[ -n $lost_rec && $lost_rec == "$R_LOST" ]] ||
      { echo "kprof lost samples disagree: record '${lost_rec:-?}', info '${R_LOST:-?}'" >&2; status=1; }
    "$KPROF" report "$out" >/dev/null 2>"$log.report" ||
      { echo "kprof report failed, see $log.report" >&2; status=1; }
  else
    timeout 900 perf report -i "$out" --stats >"$log.stats" 2>/dev/null || true
    R_SAMPLES=$(awk '/ SAMPLE events:/ { print $3; exit }' "$log.stats")
    # Lost samples of the sampled event: its own "<event> stats:" section
    # (not the aggregate, which counts LOST_SAMPLES records, nor the
    # side-band dummy event's, which perf lists after it).
    R_LOST=$(awk '/^[^ ].* stats:$/ { sec = $1 }
      sec != "Aggregated" && sec !~ /^dummy/ && /LOST_SAMPLES events:/ { v += $3 }
      END { print v + 0 }' "$log.stats")
    R_THROTTLES=$(awk '/ THROTTLE events:/ { print $3; exit }' "$log.stats")
  fi
  R_SAMPLES=${R_SAMPLES:-0} R_LOST=${R_LOST:-0} R_THROTTLES=${R_THROTTLES:-0} R_TPS=${R_TPS:-0}
}

pct() { awk -v l="$1" -v s="$2" 'BEGIN { if (l + s == 0) print "nan"; else printf "%.2f", 100 * l / (l + s) }'; }
per() { awk -v b="$1" -v s="$2" 'BEGIN { if (s == 0) print "nan"; else printf "%.1f", b / s }'; }

status=0
rows=("seconds|run|tool|samples|lost|lost %|throttles|tps|cpu s|peak RSS MiB|bytes/sample")
summary=("seconds|tool|median lost %|median tps|median cpu s|median RSS MiB|median bytes/sample")
verdict=("seconds|lost pp (kprof - perf)|tps ratio (kprof/perf)|paired tps ratio|cpu ratio|bytes/sample ratio|lost goal (<= +0.5)|tps goal (>= 0.95)")
for secs in "${durations[@]}"; do
  declare -A L=() T=() C=() M=() B=()
  for rep in $(seq 1 "$REPS"); do
    order=("${tools[@]}")
    # Interleaved, and the order flips each repetition so neither tool always goes first.
    if (( rep % 2 == 0 )) && [[ ${#tools[@]} -eq 2 ]]; then order=(perf kprof); fi
    for tool in "${order[@]}"; do
      echo "== ${secs}s of pgbench, run $rep/$REPS: $tool record -a ${gflag[*]} -F $FREQ" >&2
      one_run "$tool" "$secs" "$tool-${secs}s"
      p=$(pct "$R_LOST" "$R_SAMPLES")
      bps=$(per "$R_BYTES" "$R_SAMPLES")
      rows+=("$secs|$rep|$tool|$R_SAMPLES|$R_LOST|$p|$R_THROTTLES|$R_TPS|$R_CPU|$R_RSS|$bps")
      L[$tool]+="$p " T[$tool]+="$R_TPS " C[$tool]+="$R_CPU " M[$tool]+="$R_RSS " B[$tool]+="$bps "
      [[ $tool == perf ]] && rm -f "$W/perf-${secs}s.data"  # hundreds of MB
    done
  done
  for tool in "${tools[@]}"; do
    # shellcheck disable=SC2086  # the lists are space-separated numbers
    summary+=("$secs|$tool|$(median ${L[$tool]})|$(median ${T[$tool]})|$(median ${C[$tool]})|$(median ${M[$tool]})|$(median ${B[$tool]})")
  done
  if [[ ${#tools[@]} -eq 2 ]]; then
    # shellcheck disable=SC2086
    {
      lk=$(median ${L[kprof]}) lp=$(median ${L[perf]})
      tk=$(median ${T[kprof]}) tp=$(median ${T[perf]})
      ck=$(median ${C[kprof]}) cp=$(median ${C[perf]})
      bk=$(median ${B[kprof]}) bp=$(median ${B[perf]})
    }
    dpp=$(sub "$lk" "$lp")
    tr=$(ratio "$tk" "$tp")
    # The median of each repetition's own kprof/perf ratio: the two runs of
    # a repetition are back to back, so slow drift of the machine cancels.
    read -ra tks <<<"${T[kprof]}"
    read -ra tps_perf <<<"${T[perf]}"
    pairs=()
    for i in "${!tks[@]}"; do pairs+=("$(ratio "${tks[i]}" "${tps_perf[i]}")"); done
    paired=$(median "${pairs[@]}")
    lost_ok=$(awk -v d="$dpp" 'BEGIN { print (d <= 0.5) ? "met" : "MISSED" }')
    tps_ok=$(awk -v r="$tr" 'BEGIN { print (r >= 0.95) ? "met" : "MISSED" }')
    verdict+=("$secs|$dpp|$tr|$paired|$(ratio "$ck" "$cp")|$(ratio "$bk" "$bp")|$lost_ok|$tps_ok")
  fi
  unset L T C M B
done
{
  echo "# bench/load.sh ${durations[*]}: -a ${gflag[*]} -F $FREQ, $CLIENTS pgbench clients, $REPS runs per tool, max rate after: $(cat "$max_rate_file")"
  printf '%s\n' "${rows[@]}" | table
  echo
  printf '%s\n' "${summary[@]}" | table
  if [[ ${#verdict[@]} -gt 1 ]]; then
    echo
    printf '%s\n' "${verdict[@]}" | table
  fi
} | tee "$OUT/load$suffix.txt"
exit $status
