#!/usr/bin/env bash
# The main job, from a fresh Debian machine: install what it needs (the build
# and qemu's, not the tests'), then profile the same workload under three
# configurations of one Debian kernel (generic, cloud and PREEMPT_RT, booted
# in qemu, five runs each) and print what changed. Options are passed on to
# samples/kernel-diff-demo.sh (--runs N, --kernels L, --out DIR, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh --demo
exec ./samples/kernel-diff-demo.sh "$@"
