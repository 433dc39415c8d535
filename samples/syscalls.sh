#!/usr/bin/env bash
# The third seed's micro-benchmark: cycles and ns per gettimeofday (vDSO and
# real syscall), uname, chdir, open+close and getpid, printed as the seed's
# table (one row of cycles, one of nanoseconds, one of the thread's CPU
# nanoseconds).
#
#   samples/syscalls.sh [--kprof OUT.kprof] [--seconds N] [--iterations N]
#                       [--threads N]
#
#   --kprof OUT    run under `kprof record -o OUT` ($KPROF or the built kprof)
#   --seconds N    repeat rounds (with a compute loop between them) for N s;
#                  without it one round of --iterations calls each
#   --iterations N calls per measurement (default 100000)
#   --threads N    N threads of one process side by side (contending for
#                  the working directory's and the file table's locks)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

kprof_out='' args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --kprof) kprof_out=$2; shift 2 ;;
    --seconds|--iterations|--threads) args+=("$1" "$2"); shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) sample_die "unknown option '$1' (try --help)" ;;
  esac
done

bin_dir=$(mktemp -d "${TMPDIR:-/tmp}/kprof-syscalls.XXXXXX")
trap 'rm -rf "$bin_dir"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
cc -O2 -g -fno-omit-frame-pointer -pthread -o "$bin_dir/syscalls" "$samples_dir/syscalls/syscalls.c" ||
  sample_die "cannot build syscalls/syscalls.c (needs a C compiler)"

if [[ -n $kprof_out ]]; then
  "$(find_kprof)" record -o "$kprof_out" -- "$bin_dir/syscalls" "${args[@]}"
else
  "$bin_dir/syscalls" "${args[@]}"
fi
