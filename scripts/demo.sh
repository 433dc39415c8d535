#!/usr/bin/env bash
# The main job, from a fresh Debian machine: install what is needed, then
# profile the same workload under two Debian kernels (generic and PREEMPT_RT,
# booted in qemu) and print `kprof diff generic rt`. Options are passed on to
# samples/kernel-diff-demo.sh (--seconds N, --repeatable, --out DIR, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh --samples
exec ./samples/kernel-diff-demo.sh "$@"
