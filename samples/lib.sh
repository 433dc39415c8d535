# shellcheck shell=bash
# Shared by the sample workloads (sourced, not run): option helpers and how
# to find kprof. A sample runs bare, or with `--kprof OUT.kprof` under
# `kprof record -o OUT.kprof`.

samples_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
samples_root=$(dirname "$samples_dir")

sample_die() { echo "$(basename "$0"): $*" >&2; exit 1; }
sample_skip() { echo "$(basename "$0"): SKIP: $*" >&2; exit 77; }

# The kprof to record with: $KPROF, else kprof on PATH, else the newest
# build/*/cli/kprof of this checkout.
find_kprof() {
  if [[ -n ${KPROF:-} ]]; then
    [[ -x $KPROF ]] || sample_die "KPROF=$KPROF is not an executable"
    echo "$KPROF"; return
  fi
  if command -v kprof >/dev/null; then command -v kprof; return; fi
  local k
  k=$(ls -t "$samples_root"/build*/cli/kprof 2>/dev/null | head -1 || true)
  [[ -n $k ]] || sample_die "no kprof found: build it (ninja -C build kprof) or set KPROF=/path/to/kprof"
  echo "$k"
}

# Absolute path of a file that may not exist yet.
abs_path() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
