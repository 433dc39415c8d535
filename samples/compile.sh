#!/usr/bin/env bash
# Compile workload: a real multi-file C++ build available offline, the
# googletest sources Debian ships in /usr/src/googletest (cmake, then make -j).
#
#   samples/compile.sh [--kprof OUT.kprof] [--jobs N] [--target T] [--source DIR]
#
#   --kprof OUT   profile the `make` (not the cmake configure step) with
#                 `kprof record -o OUT` ($KPROF or the built kprof)
#   --jobs N      make -jN (default: the number of CPUs)
#   --target T    build only T (gtest, gtest_main, gmock, gmock_main; default all)
#   --source DIR  another CMake project to build (default /usr/src/googletest)
#   --seconds N   stop the build after N s (a short profile for tests; the
#                 score is then meaningless)
#
# Prints the wall time of the build as `seconds=VALUE` (the work score: one
# build). The build directory is temporary and removed on every exit path.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

kprof_out='' jobs=$(nproc) target='' src=/usr/src/googletest limit=''
while [[ $# -gt 0 ]]; do
  case $1 in
    --kprof) kprof_out=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --target) target=$2; shift 2 ;;
    --source) src=$2; shift 2 ;;
    --seconds) limit=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) sample_die "unknown option '$1' (try --help)" ;;
  esac
done
[[ $jobs =~ ^[0-9]+$ && $jobs -gt 0 ]] || sample_die "--jobs wants a positive integer, not '$jobs'"
[[ -f $src/CMakeLists.txt ]] || sample_skip "no CMake project in $src (apt-get install googletest)"
command -v cmake >/dev/null && command -v make >/dev/null && command -v c++ >/dev/null ||
  sample_skip "needs cmake, make and a C++ compiler"

build=$(mktemp -d "${TMPDIR:-/tmp}/kprof-compile.XXXXXX")
trap 'rm -rf "$build"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "compile: configuring $src in $build" >&2
cmake -S "$src" -B "$build" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release >"$build.cmake.log" 2>&1 ||
  { cat "$build.cmake.log" >&2; rm -f "$build.cmake.log"; sample_die "cmake failed for $src"; }
rm -f "$build.cmake.log"

# make's output (and its complaints when cut short) goes to make.log; what
# kprof says stays on stderr.
log=$build/make.log
make_cmd=(make -C "$build" -j"$jobs" ${target:+"$target"})
if [[ -n $limit ]]; then
  [[ $limit =~ ^[0-9]+$ && $limit -gt 0 ]] || sample_die "--seconds wants a positive integer"
  # timeout signals make's whole process group, compilers included; a build
  # cut short is still a compile workload, so timeout's 124 counts as success.
  make_cmd=(timeout -s INT "$limit" "${make_cmd[@]}")
fi
make_cmd=(sh -c '"$@" >"$0" 2>&1; rc=$?; [ $rc -eq 124 ] && rc=0; exit $rc' "$log" "${make_cmd[@]}")
start=$(date +%s.%N)
if [[ -n $kprof_out ]]; then
  "$(find_kprof)" record -o "$kprof_out" -- "${make_cmd[@]}"
else
  "${make_cmd[@]}"
fi || { tail -20 "$log" >&2; sample_die "the build failed"; }
end=$(date +%s.%N)
echo "compile: $(grep -c "Building" "$log") compile steps started (make -j$jobs)" >&2
echo "seconds=$(echo "$end - $start" | bc 2>/dev/null || awk "BEGIN{print $end - $start}")"
