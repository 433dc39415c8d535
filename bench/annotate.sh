#!/usr/bin/env bash
# kprof annotate against perf annotate on the same recording (issue 29's
# annotate keeps kprof's speed).
#
#   bench/annotate.sh [SECONDS] [RUNS]      (default 10 s, 5 timed runs each)
#
# perf records the hot/cold test program at FREQ (default 20000 Hz: ~200k
# samples in 10 s); `kprof import` makes the same samples a .kprof. Then,
# RUNS times each, alternating: `perf annotate --stdio -s kprof_hot` and
# `kprof annotate kprof_hot` (both read every sample, disassemble the
# function and name its source lines; perf through objdump). Prints medians
# and the ratio perf/kprof, and checks both give the hottest instruction
# the same share.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
SECONDS_TO_RECORD=${1:-10}
RUNS=${2:-5}
FREQ=${FREQ_ANNOTATE:-20000}
need perf objdump
find_kprof
find_programs
results_dir annotate

echo "recording ${SECONDS_TO_RECORD} s of kprof_prog_hotcold with perf at $FREQ Hz..." >&2
perf record -q -e cpu-clock -F "$FREQ" -o "$W/perf.data" -- "$PROGRAMS/kprof_prog_hotcold" \
  "$SECONDS_TO_RECORD" >/dev/null 2>"$W/record.err" ||
  die "perf record failed: $(tail -1 "$W/record.err")"
"$KPROF" import "$W/perf.data" -o "$W/imported.kprof" >/dev/null 2>"$W/import.err" ||
  die "kprof import failed: $(tail -1 "$W/import.err")"
n=$(kprof_samples "$W/imported.kprof")

declare -a pa ka
for ((i = 0; i < RUNS; i++)); do
  pa+=("$(time_of "$W/perf.err" perf annotate -i "$W/perf.data" --stdio --percent-type local-hits -s kprof_hot)")
  ka+=("$(time_of "$W/kprof.err" "$KPROF" annotate kprof_hot "$W/imported.kprof" --no-pager)")
done
hot_perf=$(perf annotate -i "$W/perf.data" --stdio --percent-type local-hits -s kprof_hot 2>/dev/null |
  awk -F: '$1 ~ /^ +[0-9.]+ $/ { if ($1 + 0 > m) m = $1 + 0 } END { printf "%.2f", m }')
hot_kprof=$("$KPROF" annotate kprof_hot "$W/imported.kprof" --no-pager --order hot |
  awk '$1 ~ /%$/ { sub("%", "", $1); print $1; exit }')
mpa=$(median "${pa[@]}") mka=$(median "${ka[@]}")
{
  echo "kprof annotate vs perf annotate: $n samples (perf -F $FREQ, ${SECONDS_TO_RECORD} s, imported), medians of $RUNS runs"
  echo "hottest instruction's share: perf $hot_perf%, kprof $hot_kprof%"
  {
    echo "what|perf annotate s|kprof annotate s|perf/kprof"
    echo "kprof_hot, every instruction|$mpa|$mka|$(ratio "$mpa" "$mka")"
    echo "runs: perf ${pa[*]}; kprof ${ka[*]}|||"
  } | table
} | tee "$RESULT"
echo "raw files: $W" >&2
