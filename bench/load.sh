#!/usr/bin/env bash
# Load: `kprof record -a` at the highest allowed frequency on every CPU while
# an OLTP workload (samples/oltp.sh: throwaway PostgreSQL 15 cluster, pgbench)
# keeps them busy. Per run: samples, lost samples (as the record line says
# and as `kprof info` reads them back, which must agree), kprof's peak RSS
# (VmHWM of the kprof process, polled; must not grow with the duration),
# kprof's own CPU, file size, and whether `kprof info` and `kprof report`
# read the file. Then perf record -e cpu-clock -a at the same rate on the same
# workload, for its samples, lost samples and throttles (PERF=0 skips it).
#
#   bench/load.sh [SECONDS...]      pgbench durations, default: 15 60
#
#   FREQ   sampling frequency (default: /proc/sys/kernel/perf_event_max_sample_rate;
#          the kernel may lower that limit during the run, see max rate after)
#   CLIENTS  pgbench clients (default: number of CPUs)
# Results in $OUT/load.txt; profiles in $OUT/load-<SECONDS>s.kprof.
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
durations=("$@")
[[ ${#durations[@]} -gt 0 ]] || durations=(15 60)

# VmHWM (KiB) of PID, polled until it exits; prints the last value read.
poll_hwm() {
  local pid=$1 hwm=0 v
  while [[ -r /proc/$pid/status ]]; do
    v=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    [[ -n $v ]] && hwm=$v
    sleep 0.1
  done
  echo "$hwm"
}

# Field of `kprof info` output: the text after "NAME:".
info_field() { awk -v k="$2:" 'index($0, k) == 1 { s = substr($0, length(k) + 1); sub(/^ +/, "", s); print s; exit }' "$1"; }

rows=("seconds|freq asked|max rate after|samples|lost (record)|lost (info)|lost %|throttles|kprof peak RSS MiB|kprof cpu s|file MiB|tps|info|report")
perf_rows=("perf: seconds|freq asked|samples|lost|lost %|throttles|tps")
status=0
for secs in "${durations[@]}"; do
  prof="$OUT/load-${secs}s.kprof"
  log="$OUT/load-${secs}s.log"
  rm -f "$prof" "$prof.old"
  echo "== ${secs}s of pgbench under kprof record -a -F $FREQ" >&2
  "$KPROF" record -a -F "$FREQ" -o "$prof" -- \
    "$ROOT/samples/oltp.sh" --seconds "$secs" --clients "$CLIENTS" >"$log.out" 2>"$log" &
  kpid=$!
  hwm_kb=$(poll_hwm "$kpid")
  rc=0
  wait "$kpid" || rc=$?
  [[ $rc -eq 0 ]] || { echo "kprof record exited $rc:" >&2; tail -5 "$log" >&2; status=1; }
  max_after=$(cat "$max_rate_file")
  line=$(grep -E '^\[ kprof record:' "$log" | tail -1 || true)
  samples=$(sed -nE 's/^\[ kprof record: ([0-9]+) samples.*/\1/p' <<<"$line")
  lost_rec=$(sed -nE 's/.*samples \(([0-9]+) lost\).*/\1/p' <<<"$line")
  tps=$(sed -n 's/^tps=//p' "$log.out" | tail -1)

  info_rc=0
  "$KPROF" info "$prof" >"$log.info" 2>&1 || info_rc=$?
  lost_info=$(info_field "$log.info" lost | awk '{print $1}')
  throttles=$(info_field "$log.info" throttled | awk '{print $1}')
  cpu=$(info_field "$log.info" "kprof cpu time" | awk '{printf "%.2f", $2 + $5}')
  report_rc=0
  "$KPROF" report "$prof" >"$log.report" 2>&1 || report_rc=$?
  [[ $info_rc -eq 0 && $report_rc -eq 0 ]] || status=1
  [[ -n $lost_rec && $lost_rec == "$lost_info" ]] || {
    echo "lost samples disagree: record says '${lost_rec:-?}', info says '${lost_info:-?}'" >&2
    status=1
  }
  lost_pct=$(awk -v l="${lost_rec:-0}" -v s="${samples:-0}" \
    'BEGIN { if (l + s == 0) print "nan"; else printf "%.1f", 100 * l / (l + s) }')
  mib=$(awk -v b="$(filesize "$prof" 2>/dev/null || echo 0)" 'BEGIN { printf "%.1f", b / 1048576 }')
  rows+=("$secs|$FREQ|$max_after|${samples:-?}|${lost_rec:-?}|${lost_info:-?}|$lost_pct|${throttles:-?}|$((hwm_kb / 1024))|${cpu:-?}|$mib|${tps:-?}|rc $info_rc|rc $report_rc")

  # perf on the same workload and rate, for comparison (PERF=0 skips it).
  if [[ ${PERF:-1} == 1 ]]; then
    data="$OUT/load-${secs}s.data"
    echo "== ${secs}s of pgbench under perf record -e cpu-clock -a -F $FREQ" >&2
    perf record -e cpu-clock -a -F "$FREQ" -o "$data" -- \
      "$ROOT/samples/oltp.sh" --seconds "$secs" --clients "$CLIENTS" >"$log.perf.out" 2>"$log.perf" ||
      { echo "perf record failed, see $log.perf" >&2; status=1; }
    # The per-event section's LOST_SAMPLES is the sum of PERF_RECORD_LOST and
    # LOST_SAMPLES counts (perf script --show-lost-events adds up to it).
    timeout 600 perf report -i "$data" --stats >"$log.perf.stats" 2>/dev/null || true
    p_samples=$(awk '/ SAMPLE events:/ { print $3; exit }' "$log.perf.stats")
    p_lost=$(awk '/LOST_SAMPLES events:/ { v = $3 } END { print v + 0 }' "$log.perf.stats")
    p_throttle=$(awk '/ THROTTLE events:/ { print $3; exit }' "$log.perf.stats")
    p_pct=$(awk -v l="$p_lost" -v s="${p_samples:-0}" \
      'BEGIN { if (l + s == 0) print "nan"; else printf "%.1f", 100 * l / (l + s) }')
    p_tps=$(sed -n 's/^tps=//p' "$log.perf.out" | tail -1)
    perf_rows+=("$secs|$FREQ|${p_samples:-?}|$p_lost|$p_pct|${p_throttle:-0}|${p_tps:-?}")
    rm -f "$data"  # hundreds of MB
  fi
done
printf '%s\n' "${rows[@]}" | table | tee "$OUT/load.txt"
if [[ ${#perf_rows[@]} -gt 1 ]]; then
  printf '%s\n' "${perf_rows[@]}" | table | tee -a "$OUT/load.txt"
fi
exit $status
