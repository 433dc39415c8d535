#!/usr/bin/env bash
# Runs every libFuzzer target for SECONDS (default 20) each over a copy of its
# seed corpus (fuzz/corpus/<name>/), printing executions per target.
# Exits non-zero when a target crashes; the crash input is kept in
# $BUILD/fuzz/crashes/<name>/ (add it to fuzz/corpus/<name>/ and a regression test).
#   fuzz/run.sh [SECONDS]        BUILD=build-fuzz by default
set -euo pipefail

seconds="${1:-20}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD:-$root/build-fuzz}"
jobs="${JOBS:-2}"

if [[ ! -f "$build/build.ninja" ]]; then
  CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKPROF_FUZZ=ON -DKPROF_TESTS=OFF >/dev/null
fi
targets=()
for src in "$root"/fuzz/*_fuzzer.cpp; do targets+=("$(basename "$src" .cpp)"); done
ninja -C "$build" -j"$jobs" "${targets[@]}"

status=0
summary=()
for t in "${targets[@]}"; do
  name="${t%_fuzzer}"
  work="$build/fuzz/corpus-run/$name"
  crashes="$build/fuzz/crashes/$name"
  rm -rf "$work"
  mkdir -p "$work" "$crashes"
  if [[ -d "$root/fuzz/corpus/$name" ]]; then cp -r "$root/fuzz/corpus/$name/." "$work/"; fi
  log="$build/fuzz/$name.log"
  echo "== $t: ${seconds}s"
  rc=0
  "$build/fuzz/$t" -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 \
    -artifact_prefix="$crashes/" "$work" >"$log" 2>&1 || rc=$?
  execs="$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' | tail -1 || true)"
  if [[ $rc -ne 0 ]]; then
    status=1
    summary+=("$t: CRASH (rc $rc) after ${execs:-?} executions; see $log and $crashes/")
    grep -E 'ERROR|SUMMARY|Test unit written' "$log" | head -5 || true
  else
    summary+=("$t: ok, ${execs:-?} executions in ${seconds}s")
  fi
done
echo
printf '%s\n' "${summary[@]}"
exit $status
