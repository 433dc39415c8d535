#!/usr/bin/env bash
# kprof script against perf script on the same recording (issue 29: "fast
# enough to pipe 1M samples, at least 5x faster than perf script").
#
#   bench/script.sh [SECONDS] [RUNS]      (default 25 s, 3 timed runs each)
#
# perf records the spinner's test programs system-wide with -g at FREQ
# (default here 20000 Hz on every CPU: ~1M samples in 25 s on 2 CPUs);
# `kprof import` makes the same samples a .kprof. Then, RUNS times each,
# alternating: `perf script -i perf.data > /dev/null` and `kprof script
# imported.kprof > /dev/null` (both print every sample with its stack and
# name every frame), and the same without stacks (-F without ip: one line a
# sample, as --fields comm,tid,time,period,event). Prints medians and the
# ratios perf/kprof; perf 6.1 aborts on some of its own -g files here
# (util/build-id.c:1010): such a run shows "aborted".
set -euo pipefail
source "$(dirname "$0")/lib.sh"
SECONDS_TO_RECORD=${1:-25}
RUNS=${2:-3}
FREQ=${FREQ_SCRIPT:-20000}
need perf
find_kprof
find_programs
results_dir script
write_spinner "$W/spin.sh" 4 "$SECONDS_TO_RECORD"

echo "recording ${SECONDS_TO_RECORD} s system-wide with perf -g at $FREQ Hz..." >&2
perf record -q -a -g -e cpu-clock -F "$FREQ" -o "$W/perf.data" -- "$W/spin.sh" >/dev/null 2>"$W/record.err" ||
  die "perf record failed: $(tail -1 "$W/record.err")"
"$KPROF" import "$W/perf.data" -o "$W/imported.kprof" >/dev/null 2>"$W/import.err" ||
  die "kprof import failed: $(tail -1 "$W/import.err")"
n=$(kprof_samples "$W/imported.kprof")

fields=comm,tid,time,period,event,ip,sym,dso
flat=comm,tid,time,period,event
declare -a pg kg pf kf
for ((i = 0; i < RUNS; i++)); do
  pg+=("$(time_of "$W/perf.err" perf script -i "$W/perf.data" -F "$fields")")
  kg+=("$(time_of "$W/kprof.err" "$KPROF" script "$W/imported.kprof" -F "$fields")")
  pf+=("$(time_of "$W/perf.err" perf script -i "$W/perf.data" -F "$flat")")
  kf+=("$(time_of "$W/kprof.err" "$KPROF" script "$W/imported.kprof" -F "$flat")")
done
lines_perf=$(perf script -i "$W/perf.data" -F "$fields" 2>/dev/null | wc -l)
lines_kprof=$("$KPROF" script "$W/imported.kprof" -F "$fields" | wc -l)
mpg=$(median "${pg[@]}") mkg=$(median "${kg[@]}") mpf=$(median "${pf[@]}") mkf=$(median "${kf[@]}")
{
  echo "kprof script vs perf script: $n samples (perf -a -g -F $FREQ, ${SECONDS_TO_RECORD} s, imported), medians of $RUNS runs"
  echo "output lines with stacks: perf $lines_perf, kprof $lines_kprof"
  {
    echo "what|perf script s|kprof script s|perf/kprof"
    echo "every sample with its stack|$mpg|$mkg|$(ratio "$mpg" "$mkg")"
    echo "one line a sample (no ip/sym/dso)|$mpf|$mkf|$(ratio "$mpf" "$mkf")"
    echo "runs (stack): perf ${pg[*]}; kprof ${kg[*]}|||"
    echo "runs (flat): perf ${pf[*]}; kprof ${kf[*]}|||"
  } | table
} | tee "$RESULT"
echo "raw files: $W" >&2
