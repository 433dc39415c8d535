#!/usr/bin/env bash
# Report/info/diff on big synthetic profiles: wall time and peak RSS of kprof
# for each sample count, with and without the Histogram chunk (a profile
# without one, as kill -9 leaves it, is aggregated from its records again).
# Peak RSS must not grow much with the sample count when the histogram is there.
#
#   bench/big_profile.sh [SAMPLES...]      default: 1000000 10000000
#
# Needs kprof_gen_profile (tests/load, built with the tests: ninja
# kprof_gen_profile); GEN=path overrides. Results in $OUT/big_profile.txt.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
find_kprof
need /usr/bin/time
GEN=${GEN:-$(ls -t "$ROOT"/build*/tests/load/kprof_gen_profile 2>/dev/null | head -1 || true)}
[[ -n $GEN && -x $GEN ]] || die "no kprof_gen_profile (ninja -C build kprof_gen_profile, or set GEN=path)"
counts=("$@")
[[ ${#counts[@]} -gt 0 ]] || counts=(1000000 10000000)

work=$(mktemp -d "${TMPDIR:-/tmp}/kprof-big.XXXXXX")
trap 'rm -rf "$work"' EXIT
rows=("samples|kind|file MiB|command|wall s|peak RSS MiB|exit")
measure() {  # measure SAMPLES KIND FILE_MIB LABEL CMD...
  local n=$1 kind=$2 mib=$3 label=$4; shift 4
  local rc=0
  /usr/bin/time -f '%e %M' -o "$work/t" "$@" >"$work/out" 2>"$work/err" || rc=$?
  local wall rss
  wall=$(tail -1 "$work/t" | awk '{print $1}')
  rss=$(tail -1 "$work/t" | awk '{printf "%.0f", $2 / 1024}')
  rows+=("$n|$kind|$mib|$label|$wall|$rss|$rc")
  [[ $rc -eq 0 ]] || { echo "$label failed:" >&2; head -5 "$work/err" >&2; }
}
status=0
for n in "${counts[@]}"; do
  for kind in complete raw; do
    flag=(); [[ $kind == raw ]] && flag=(--raw)
    "$GEN" "$work/a.kprof" "$n" 1 "${flag[@]}" >/dev/null
    "$GEN" "$work/b.kprof" "$n" 2 "${flag[@]}" >/dev/null
    mib=$(awk -v b="$(filesize "$work/a.kprof")" 'BEGIN { printf "%.1f", b / 1048576 }')
    measure "$n" "$kind" "$mib" report "$KPROF" report "$work/a.kprof"
    measure "$n" "$kind" "$mib" info "$KPROF" info "$work/a.kprof"
    measure "$n" "$kind" "$mib" diff "$KPROF" diff "$work/a.kprof" "$work/b.kprof"
    rm -f "$work/a.kprof" "$work/b.kprof"
  done
done
printf '%s\n' "${rows[@]}" | table | tee "$OUT/big_profile.txt"
for r in "${rows[@]:1}"; do [[ ${r##*|} == 0 ]] || status=1; done
exit $status
