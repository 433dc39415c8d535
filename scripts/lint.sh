#!/usr/bin/env bash
# Style and static checks; each failure fails the run:
#   1. clang-format --dry-run -Werror over every tracked C++ file (.clang-format);
#   2. clang-tidy (.clang-tidy; stats/.clang-tidy adds
#      bugprone-easily-swappable-parameters) over every library's sources,
#      with a header filter that covers every library;
#   3. no library or CLI source file over 650 lines (split it by concern).
#   scripts/lint.sh [BUILD_DIR]   BUILD_DIR holds compile_commands.json
#                                 (default: build; CMake writes it there)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
jobs=$(nproc)
libs=(core perfabi collector symbolizer unwind importer stats report export cli)
status=0

mapfile -t cxx < <(git ls-files '*.cpp' '*.h')
echo "lint: clang-format over ${#cxx[@]} files"
if ! clang-format-14 --dry-run -Werror "${cxx[@]}"; then
  echo "lint: clang-format: the files above are not formatted (clang-format-14 -i FILE)" >&2
  status=1
fi

if [[ ! -f "$build/compile_commands.json" ]]; then
  echo "lint: no $build/compile_commands.json: configure with cmake first" >&2
  exit 2
fi
mapfile -t sources < <(git ls-files "${libs[@]/%//*.cpp}")
filter="^$PWD/($(IFS='|'; echo "${libs[*]}"))/"
echo "lint: clang-tidy over ${#sources[@]} library sources"
run-clang-tidy-14 -quiet -j "$jobs" -p "$build" -header-filter="$filter" \
  "${sources[@]/#/$PWD/}" >"$build/clang-tidy.log" 2>&1 || true
# run-clang-tidy-14 has no -warnings-as-errors: any warning or error fails.
if grep -qE '(warning|error):' "$build/clang-tidy.log"; then
  grep -E '(warning|error):' "$build/clang-tidy.log" | sort -u >&2
  echo "lint: clang-tidy found the problems above (full log: $build/clang-tidy.log)" >&2
  status=1
fi

long=0
for f in $(git ls-files "${libs[@]/%//*.cpp}" "${libs[@]/%//*.h}"); do
  n=$(wc -l <"$f")
  if ((n > 650)); then
    echo "lint: $f has $n lines (over 650): split it by concern" >&2
    long=1
  fi
done
((long == 0)) || status=1
[[ $status -eq 0 ]] && echo "lint: clean"
exit "$status"
