#!/usr/bin/env bash
# Builds kprof and runs its test suite through ctest.
#   scripts/test.sh            everything CI runs (.ci/run): --asan, then
#                              --lint, --fuzz (10 s a target), then --release, whose ctest
#                              summary ends the output (~45 min on 2 cores);
#                              a failed part's end is printed again after it
#   scripts/test.sh --release  release build in build/, the whole suite
#   scripts/test.sh --asan     ASan+UBSan build in build-asan/, the suite less
#                              the shell sample workloads and "long" tests
#                              (same as KPROF_SANITIZE=1 scripts/test.sh)
#   scripts/test.sh --lint     clang-format, clang-tidy over every library and
#                              the file-length bound (scripts/lint.sh), on the
#                              ASan build's compile commands
#   scripts/test.sh --fuzz [SECONDS]
#                              every libFuzzer target for SECONDS (default 20)
#                              each, clang-14 build in build-fuzz/ (fuzz/run.sh)
# Each ctest run ends with the skipped tests and their reasons; with CI=true
# (as CI runs it) a skip not listed in tests/expected-skips.txt fails the run.
# The exit status is non-zero when any part failed. Installs missing Debian packages first (scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=all
fuzz_seconds=20
case "${1:-}" in
  "") [[ "${KPROF_SANITIZE:-0}" == 1 ]] && mode=asan ;;
  --release) mode=release ;;
  --asan) mode=asan ;;
  --lint) mode=lint ;;
  --fuzz) mode=fuzz; fuzz_seconds="${2:-20}" ;;
  --all) mode=all ;;
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "scripts/test.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
esac

./scripts/install-deps.sh --samples  # the samples' tests need PostgreSQL and qemu
jobs=$(nproc)

# Each part chains its steps with &&: the default mode calls them in `||` context,
# where `set -e` does not apply, and a failed build must not go on to run
# ctest on stale binaries.

# ctest in build dir DIR (more ctest arguments follow), then the skip check:
# every skipped test is listed with its reason, and under CI=true one that is
# not in tests/expected-skips.txt fails the run (scripts/check-skips.py).
# ctest's own summary is printed again last, so it still ends the output.
run_ctest() {
  local dir=$1 rc skip_rc=0
  shift
  rm -f "$dir/ctest-junit.xml" "$dir/ctest.rc"
  { (cd "$dir" && ctest --output-on-failure -j"$jobs" --timeout 600 \
       --output-junit "$PWD/ctest-junit.xml" "$@"; echo $? >ctest.rc) 2>&1; } | tee "$dir/ctest.log"
  rc=$(cat "$dir/ctest.rc" 2>/dev/null || echo 1)
  python3 scripts/check-skips.py "$dir/ctest-junit.xml" tests/expected-skips.txt || skip_rc=1
  sed -n '/tests passed, .* tests failed out of/,$p' "$dir/ctest.log"
  [[ $rc -eq 0 && $skip_rc -eq 0 ]]
}

# The release build and the whole suite; ctest's summary ends the output.
run_release() {
  cmake -S . -B build -G Ninja >/dev/null &&
    ninja -C build -j"$jobs" &&
    run_ctest build
}

# Sanitizer errors get their own exit codes, so a test that expects kprof's
# own "exit 1" for bad input still fails when ASan or UBSan fired. The shell
# sample workloads (PostgreSQL, make) and the qemu demo are left out: they
# take minutes under ASan and run the same binary the other tests cover.
run_asan() {
  cmake -S . -B build-asan -G Ninja -DKPROF_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null &&
    ninja -C build-asan -j"$jobs" &&
    ASAN_OPTIONS="detect_leaks=1:exitcode=86:${ASAN_OPTIONS:-}" \
      UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=87:${UBSAN_OPTIONS:-}" \
      LSAN_OPTIONS="exitcode=88:${LSAN_OPTIONS:-}" \
      run_ctest build-asan -LE long -E '^samples_'
}

run_lint() {
  cmake -S . -B build-asan -G Ninja -DKPROF_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null &&
    scripts/lint.sh build-asan
}

run_fuzz() {
  BUILD="$PWD/build-fuzz" JOBS="$jobs" fuzz/run.sh "$fuzz_seconds"
}

case "$mode" in
  release) run_release ;;
  asan) run_asan ;;
  fuzz) run_fuzz ;;
  lint) run_lint ;;
  all)
    # Each part's output is kept in build-logs/PART.log; a failed part's last
    # lines are printed again after the release summary, so the end of the
    # output (all a CI page may show) names what failed and why.
    mkdir -p build-logs
    fuzz_seconds=10  # a smoke run in CI, over the seed corpora; --fuzz runs longer
    failed=()
    for part in asan lint fuzz; do
      echo "==== scripts/test.sh: $part"
      start=$SECONDS
      rm -f "build-logs/$part.rc"
      { "run_$part" && echo 0 >"build-logs/$part.rc" || echo 1 >"build-logs/$part.rc"; } 2>&1 | tee "build-logs/$part.log"
      [[ "$(cat "build-logs/$part.rc" 2>/dev/null)" == 0 ]] || failed+=("$part")
      echo "==== scripts/test.sh: $part took $((SECONDS - start)) s"
    done
    if [[ ${#failed[@]} -gt 0 ]]; then
      echo "==== scripts/test.sh: FAILED: ${failed[*]} (see above); the release suite follows"
    fi
    echo "==== scripts/test.sh: release"
    rc=0
    run_release || rc=$?
    [[ ${#failed[@]} -eq 0 ]] || {
      for part in "${failed[@]}"; do
        # The failed assertions first (gtest's "file:line: Failure" and what
        # follows it), which the log's end alone does not hold.
        echo "==== scripts/test.sh: $part FAILED; its failed assertions:"
        grep -A 8 -E ': Failure$' "build-logs/$part.log" | head -80 || true
        echo "==== scripts/test.sh: the end of build-logs/$part.log:"
        grep -v -E '^ *(Start +[0-9]+:|[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed)' "build-logs/$part.log" | tail -40
      done
      echo "==== scripts/test.sh: FAILED: ${failed[*]}"
      exit 1
    }
    exit "$rc"
    ;;
esac
