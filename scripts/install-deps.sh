#!/usr/bin/env bash
# Installs the Debian packages kprof needs to build, test and fuzz, when missing.
# Safe to run repeatedly; needs root (or sudo) only when something is missing.
set -euo pipefail

pkgs=(
  build-essential cmake ninja-build pkg-config
  libpfm4-dev libdw-dev libelf-dev libzstd-dev liblzma-dev libbz2-dev zlib1g-dev libboost-dev
  libcli11-dev nlohmann-json3-dev libgtest-dev googletest python3
  clang-14 libclang-rt-14-dev clang-format-14 clang-tidy-14 linux-perf file  # clang-*: fuzzing, scripts/lint.sh
  golang-go  # go tool pprof: reads kprof export's pprof files in tests/export
  chromium python3-websocket python3-pil  # tests/browser: the HTML pages in a real browser
)
# Extra packages for samples/ (PostgreSQL, the qemu demo), asked for with --samples.
if [[ "${1:-}" == "--samples" ]]; then
  pkgs+=(postgresql-15 postgresql-client-15 busybox-static cpio kmod qemu-system-x86)
fi

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
