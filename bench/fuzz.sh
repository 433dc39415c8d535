#!/usr/bin/env bash
# Longer fuzzing than CI's smoke run: every libFuzzer target for SECONDS each
# (default 600) over a copy of its seed corpus, printing executions per
# target; exits non-zero on a crash (input kept in build-fuzz/fuzz/crashes/).
#
#   bench/fuzz.sh [SECONDS]       BUILD=build-fuzz (clang-14 build, made if missing)
#
# The summary also goes to $OUT/fuzz.txt. A crash input belongs in
# fuzz/corpus/<name>/ with a regression test in the reader's test suite.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
seconds=${1:-${FUZZ_SECONDS:-600}}
[[ $seconds =~ ^[0-9]+$ && $seconds -gt 0 ]] || die "SECONDS wants a positive integer, not '$seconds'"
need clang++-14
rc=0
"$ROOT/fuzz/run.sh" "$seconds" | tee "$OUT/fuzz.txt" || rc=$?
exit $rc
