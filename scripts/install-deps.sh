#!/usr/bin/env bash
# Installs the Debian packages kprof needs to build, test and fuzz, when missing:
#   install-deps.sh            build and test
#   install-deps.sh --demo     build, and the qemu demo's tools (scripts/demo.sh)
#   install-deps.sh --samples  all of it, with PostgreSQL for samples/oltp.sh (scripts/test.sh)
# Safe to run repeatedly; needs root (or sudo) only when something is missing.
set -euo pipefail

# What builds kprof (the demo needs only this, and its own packages below).
pkgs=(
  build-essential cmake ninja-build pkg-config
  libpfm4-dev libdw-dev libelf-dev libzstd-dev liblzma-dev libbz2-dev zlib1g-dev libboost-dev
  libcli11-dev nlohmann-json3-dev file
  libisal-dev  # ISA-L: the file format's CRC-32
  libcapstone-dev  # kprof annotate's disassembler
  help2man  # the man pages (packaging/), from each command's --help
)
# The qemu demo (scripts/demo.sh): the guests' tools.
demo=(busybox-static cpio qemu-system-x86)
# The tests, and fuzzing and lint.
tests=(
  libgtest-dev googletest python3
  clang-14 libclang-rt-14-dev clang-format-14 clang-tidy-14 linux-perf  # clang-*: fuzzing, scripts/lint.sh
  golang-go  # go tool pprof: reads kprof export's pprof files in tests/export
  chromium python3-websocket python3-pil  # tests/browser: the HTML pages in a real browser
)
case "${1:-}" in
  --demo) pkgs+=("${demo[@]}") ;;  # the main job: nothing the tests alone need
  # Everything: the tests and the samples' (PostgreSQL, the qemu demo).
  --samples) pkgs+=("${tests[@]}" "${demo[@]}" postgresql-15 postgresql-client-15 kmod) ;;
  "") pkgs+=("${tests[@]}") ;;
  *) echo "usage: install-deps.sh [--demo | --samples]" >&2; exit 2 ;;
esac

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
sudo_cmd=()
[[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
