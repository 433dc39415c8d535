#!/usr/bin/env bash
# Call graphs (-g) against perf, on the syscall test program (frame pointers,
# user + kernel stacks):
#   1. marginal bytes per sample with -g: a SHORT and a LONG recording by each
#      tool, (bytes_long - bytes_short) / (samples_long - samples_short), so
#      kprof's fixed kallsyms snapshot and perf's headers drop out;
#   2. `kprof report --children` against `perf report --children --stdio` on
#      the LONG recordings, median of REPS (perf 6.1 may abort on its own -g
#      files here with "assertion failed at util/build-id.c:1010": then its
#      time is reported as "aborted" with the command).
#
#   bench/callgraph.sh            SHORT=1 LONG=5 s at FREQ (default 999) Hz
#   FREQ=20000 LONG=25 bench/callgraph.sh   ~1M samples for the report timing
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
find_kprof
need perf
SHORT=${SHORT:-1} LONG=${LONG:-5} REPS=${REPS:-3}
prog=$ROOT/build/tests/programs/kprof_prog_syscalls
[[ -x $prog ]] || die "no $prog (ninja -C build kprof_programs)"


for s in "$SHORT" "$LONG"; do
  "$KPROF" record -g -F "$FREQ" -o "$OUT/cg-$s.kprof" -- "$prog" "$s" >/dev/null 2>&1
  perf record -q -g -F "$FREQ" -o "$OUT/cg-$s.data" -- "$prog" "$s" >/dev/null 2>&1
done
kb=$(( $(stat -c %s "$OUT/cg-$LONG.kprof") - $(stat -c %s "$OUT/cg-$SHORT.kprof") ))
ks=$(( $(kprof_samples "$OUT/cg-$LONG.kprof") - $(kprof_samples "$OUT/cg-$SHORT.kprof") ))
pb=$(( $(stat -c %s "$OUT/cg-$LONG.data") - $(stat -c %s "$OUT/cg-$SHORT.data") ))
ps=$(( $(perf_samples "$OUT/cg-$LONG.data") - $(perf_samples "$OUT/cg-$SHORT.data") ))
kbps=$(awk -v b="$kb" -v n="$ks" 'BEGIN { printf "%.1f", b / n }')
pbps=$(awk -v b="$pb" -v n="$ps" 'BEGIN { printf "%.1f", b / n }')
echo "marginal bytes per sample with -g: kprof $kbps ($ks samples), perf $pbps ($ps samples), ratio $(ratio "$kbps" "$pbps")"

kt=() pt=()
for ((i = 0; i < REPS; i++)); do
  kt+=("$(time_of "$OUT/cg-err.txt" "$KPROF" report "$OUT/cg-$LONG.kprof" --children)")
  pt+=("$(time_of "$OUT/cg-err.txt" perf report -i "$OUT/cg-$LONG.data" --children --stdio)")
done
echo "report --children, $(kprof_samples "$OUT/cg-$LONG.kprof") samples: kprof median $(median "${kt[@]}") s"
if [[ " ${pt[*]} " == *" aborted "* ]]; then
  echo "perf report --children --stdio -i $OUT/cg-$LONG.data aborted: $(tail -2 "$OUT/cg-err.txt" | tr '\n' ' ')"
else
  echo "perf report --children --stdio: median $(median "${pt[@]}") s; perf/kprof $(ratio "$(median "${pt[@]}")" "$(median "${kt[@]}")")"
fi
