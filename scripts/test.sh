#!/usr/bin/env bash
# Builds kprof and runs its whole test suite through ctest.
#   scripts/test.sh            release build in build/
#   KPROF_SANITIZE=1 scripts/test.sh   ASan+UBSan build in build-asan/
# Installs missing Debian packages first (scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh --samples

build=build
flags=()
if [[ "${KPROF_SANITIZE:-0}" == 1 ]]; then
  build=build-asan
  flags+=(-DKPROF_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug)
fi
jobs=$(nproc)
cmake -S . -B "$build" -G Ninja "${flags[@]}" >/dev/null
ninja -C "$build" -j"$jobs"
cd "$build"
ctest --output-on-failure -j"$jobs" --timeout 600
