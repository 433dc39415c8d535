#!/usr/bin/env bash
# The kernel demo: profile the same workload under three configurations of
# one Debian 6.1 kernel (generic, cloud: a minimal config for VMs, and rt:
# PREEMPT_RT), each booted in qemu (TCG, no KVM needed; one virtual CPU whose
# clock counts instructions, so runs repeat whatever else the host runs),
# several recordings per kernel, and print what changed: what differs
# besides the kernel, the cost per system call per kernel and the functions
# behind its change, the matched diff with verdicts from run-to-run
# variance, time off CPU, and a page.
#
#   samples/kernel-diff-demo.sh [--out DIR] [--runs N] [--seconds N] [--real-clock]
#                               [--smoke] [--no-install] [--timeout S]
#
#   --out DIR      where the profiles, serial logs and read-back files go
#                  (default samples/cache/demo-out: DIR/LABEL-RUN.kprof, DIR/diff.html)
#   --kernels L    which of generic,cloud,rt to boot (default all three)
#   --runs N       recordings per kernel, one after another in one boot (default 5)
#   --seconds N    length of each in-guest recording, in the guest's time (default 8)
#   --real-clock   two virtual CPUs (-smp 2, one host thread each) on the host's
#                  clock, instead of one (-smp 1) whose clock counts its
#                  instructions (-icount shift=3,sleep=off: 8 ns each). On the
#                  host's clock every cost moves with the host's load (runs
#                  of one boot spread by SD 11-18% even alone, bench/demo_spread.sh);
#                  on the instruction clock runs repeat to sampling noise
#   --smoke        boot both kernels with an initramfs that only writes
#                  `uname -r` to the disk and powers off (no kprof needed)
#   --no-install   never apt-get install; skip if a tool is missing
#   --timeout S    kill a guest that has not powered off after S s (default 240);
#                  such a guest, or one whose recordings failed, is booted once more
#
# Steps: (1) tools (qemu-system-x86, busybox-static, cpio) via apt-get when
# missing (busybox's insmod loads the modules, so kmod is not needed), the two
# pinned kernel packages via `apt-get download` into samples/cache/
# (git-ignored), and from them only vmlinuz, the virtio modules and the .config; (2) a
# statically linked kprof (its own CMake build dir, $KPROF_STATIC_BUILD,
# default build-static; or $KPROF_STATIC, a ready one) and the static syscalls
# workload, packed with busybox into an initramfs; (3) each kernel boots in
# turn, its init records the workload and writes the results as a tar to the
# raw virtio disk, which the host reads back; (4) `kprof diff`.
#
# The kernels: when apt's package lists lack the pinned version, the script
# runs `apt-get update` (as root) and looks again. A pin that is still not
# there is stale (the version left the archive): that fails, naming the
# package and how to update KABI and KPKG_VERSION below. Only a mirror that
# cannot be reached (apt-get update or apt-get download failing to connect or
# resolve) or a host whose apt has no bookworm source is a skip.
#
# Environment: KPROF_DEMO_KABI and KPROF_DEMO_KPKG_VERSION override the pin
# (e.g. KPROF_DEMO_KPKG_VERSION=0.0-bogus to check the stale-pin failure);
# KPROF_DEMO_CACHE the cache directory (default samples/cache); KPROF_DEMO_FREQ
# the guests' sampling rate (default 999 Hz);
# KPROF_STATIC_BUILD and KPROF_STATIC as in (2).
#
# Exit status: 0 done, 77 skipped (no x86-64, qemu or the tools cannot be
# installed, the mirror cannot be reached, no bookworm apt source; the reason
# is printed on a SKIP: line), anything else a failure (1: a stale pin among
# them). No qemu outlives the script.
set -euo pipefail

# Pinned kernels: bookworm's 6.1.176-1 (the linux-image-amd64 metapackage of
# Debian 12's point release). To move the pin, `apt-cache madison
# linux-image-amd64` gives the current version and `apt-cache show
# linux-image-amd64=VERSION | grep ^Depends` its ABI (linux-image-6.1.0-NN-amd64);
# `apt-cache search linux-image-6.1` lists the others.
readonly KABI=${KPROF_DEMO_KABI:-6.1.0-50}
readonly KPKG_VERSION=${KPROF_DEMO_KPKG_VERSION:-6.1.176-1}
readonly SUITE=bookworm
FLAVORS=(amd64 cloud-amd64 rt-amd64)
LABELS=(generic cloud rt)
# The guests' workload: two threads of samples/syscalls (sharing the working
# directory's and the file table's locks: spinlocks, sleeping ones on RT, where
# a thread preempted holding one blocks the other) and its compute loop,
# crunch: the control, whose cost per round should not change with the
# kernel. Sampled at FREQ Hz.
readonly THREADS=2 FREQ=${KPROF_DEMO_FREQ:-999}
# The calls it makes (under TCG the vDSO's clock falls back to a system call):
# counted, and only these (kprof record --syscalls-only: a few counting
# events instead of ~360, whose closing would cost seconds a run).
readonly CALLS=gettimeofday,clock_gettime,newuname,chdir,openat,close,getpid
readonly MODULES=(virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_blk)

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
cache=${KPROF_DEMO_CACHE:-$here/cache}
static_build=${KPROF_STATIC_BUILD:-$root/build-static}
kprof_static=
out=$cache/demo-out
seconds=8
runs=5
kernels=generic,cloud,rt
real_clock=0
smoke=0
install=1
timeout_s=240

die() { echo "kernel-diff-demo: $*" >&2; exit 1; }
skip() { echo "kernel-diff-demo: SKIP: $*" >&2; exit 77; }
say() { echo "== $*" >&2; }

while [[ $# -gt 0 ]]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --kernels) kernels=$2; shift 2 ;;
    --real-clock) real_clock=1; shift ;;
    --smoke) smoke=1; shift ;;
    --no-install) install=0; shift ;;
    --timeout) timeout_s=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (try --help)" ;;
  esac
done
[[ $seconds =~ ^[0-9]+$ && $seconds -gt 0 ]] || die "--seconds wants a positive integer, not '$seconds'"
[[ $runs =~ ^[0-9]+$ && $runs -gt 0 ]] || die "--runs wants a positive integer, not '$runs'"
want_flavors=() want_labels=()
for i in "${!LABELS[@]}"; do
  [[ ,$kernels, == *,${LABELS[$i]},* ]] || continue
  want_flavors+=("${FLAVORS[$i]}") want_labels+=("${LABELS[$i]}")
done
for k in ${kernels//,/ }; do
  [[ " ${LABELS[*]} " == *" $k "* ]] || die "--kernels: no kernel '$k' (generic, cloud, rt)"
done
[[ ${#want_labels[@]} -ge 2 || $smoke -eq 1 ]] ||
  die "--kernels wants two or more of generic,cloud,rt to diff (one is enough with --smoke)"
FLAVORS=("${want_flavors[@]}") LABELS=("${want_labels[@]}")
readonly FLAVORS LABELS

work=$(mktemp -d "${TMPDIR:-/tmp}/kprof-demo.XXXXXX")
qemu_pid= fail_reason=
cleanup() {
  if [[ -n $qemu_pid ]] && kill -0 "$qemu_pid" 2>/dev/null; then
    kill "$qemu_pid" 2>/dev/null || true
    sleep 0.5
    kill -9 "$qemu_pid" 2>/dev/null || true
    wait "$qemu_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- (1) tools and kernels ---------------------------------------------------
need_tools() {
  local missing=() t pkg
  for t in qemu-system-x86_64:qemu-system-x86 busybox:busybox-static cpio:cpio \
           dpkg-deb:dpkg; do
    command -v "${t%%:*}" >/dev/null || missing+=("${t#*:}")
  done
  # The busybox in the initramfs must be the static one.
  if command -v busybox >/dev/null && ldd "$(command -v busybox)" >/dev/null 2>&1; then
    missing+=(busybox-static)
  fi
  [[ ${#missing[@]} -eq 0 ]] && return
  [[ $install -eq 1 && $(id -u) -eq 0 ]] && command -v apt-get >/dev/null ||
    skip "missing ${missing[*]} (apt-get install ${missing[*]}, or run as root without --no-install)"
  say "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" \
    >"$work/apt.log" 2>&1 || skip "apt-get install ${missing[*]} failed: $(first_error "$work/apt.log")"
}

# first_error LOG: apt's first error line in LOG (else its first warning, else
# its last line).
first_error() {
  grep -m1 '^E: ' "$1" || grep -m1 '^W: ' "$1" || tail -1 "$1"
}

# What apt says when the mirror cannot be reached (as opposed to a 404 or a
# version apt does not know).
readonly NET_ERRORS='Could not (connect|resolve)|Unable to connect|Temporary failure resolving|Failed to connect|Connection (timed out|failed|refused)|Network is unreachable|No route to host|Operation timed out|[[:space:]]50[0234][[:space:]]'

# The packages that carry a flavor's kernel, in order of preference (the
# signed one is the same kernel with a Secure Boot signature).
kernel_pkgs() { echo "linux-image-$KABI-$1-unsigned linux-image-$KABI-$1"; }

# kernel_ready FLAVOR: vmlinuz, the modules and the .config of the pinned kernel are in the cache.
kernel_ready() {
  [[ -f $cache/$KABI-$1/vmlinuz && -f $cache/$KABI-$1/config && $(cat "$cache/$KABI-$1/.complete" 2>/dev/null) == "$KPKG_VERSION" ]]
}

# cached_deb FLAVOR: prints the cached .deb of the flavor's pinned kernel, if any.
cached_deb() {
  local p
  for p in $(kernel_pkgs "$1"); do
    [[ -f $cache/${p}_${KPKG_VERSION}_amd64.deb ]] || continue
    echo "$cache/${p}_${KPKG_VERSION}_amd64.deb"
    return 0
  done
  return 1
}

apt_versions() {  # PKG: the versions of PKG in apt's package lists
  apt-cache madison "$1" 2>/dev/null | awk -F'|' '{gsub(/ /, "", $2); print $2}' | sort -u
}

# apt_update: refreshes apt's package lists, at most once a run; fails when
# apt could not fetch every index (the log is $work/update.log).
apt_update_rc=
apt_update() {
  if [[ -z $apt_update_rc ]]; then
    say "apt-get update (apt's lists lack the pinned kernel or are stale)"
    apt_update_rc=0
    apt-get update --error-on=any -o DPkg::Lock::Timeout=120 >"$work/update.log" 2>&1 ||
      apt_update_rc=1
    if grep -q 'error-on.*not understood' "$work/update.log"; then  # apt < 2.1.16
      apt_update_rc=0
      apt-get update >"$work/update.log" 2>&1 || apt_update_rc=1
    fi
    grep -q '^[EW]: Failed to fetch' "$work/update.log" && apt_update_rc=1
  fi
  return "$apt_update_rc"
}

# has_suite: one of apt's sources is $SUITE (by name in sources.list, or by
# the codename of a fetched release).
# shellcheck disable=SC2016  # $(RELEASE) and $(CODENAME) are apt's, not the shell's
has_suite() {
  { apt-get indextargets --no-release-info --format '$(RELEASE)'
    apt-get indextargets --format '$(CODENAME)'; } 2>/dev/null | grep -qxF "$SUITE"
}

# The stale-pin failure: one message naming the package, the version, and
# how to move the pin.
pin_gone() {
  local flavor=$1 pkgs newest abi found
  pkgs=$(kernel_pkgs "$flavor")
  found=$(apt_versions "${pkgs%% *}" | paste -sd' ')
  newest=$(apt_versions linux-image-amd64 | sort -V | tail -1)
  abi=$(apt-cache show "linux-image-amd64=$newest" 2>/dev/null |
        sed -n 's/^Depends: linux-image-\([0-9][^ ,]*\)-amd64 .*/\1/p' | head -1)
  die "stale pin: the kernel ${pkgs%% *}=$KPKG_VERSION (or ${pkgs#* }=$KPKG_VERSION) is not in the archive any more: apt-get update succeeded and no apt source has that version (apt has ${pkgs%% *} at: ${found:-no version}).
  Update the pin: KABI and KPKG_VERSION at the top of $here/kernel-diff-demo.sh${newest:+ (linux-image-amd64 is at $newest here${abi:+: KABI=$abi KPKG_VERSION=$newest})}; \`apt-cache madison linux-image-amd64\` and \`apt-cache search linux-image-6.1\` list the kernels. Then refresh samples/generic.kprof and samples/rt.kprof (samples/README.md).${KPROF_DEMO_KABI:+ (KABI came from KPROF_DEMO_KABI=$KPROF_DEMO_KABI.)}${KPROF_DEMO_KPKG_VERSION:+ (KPKG_VERSION came from KPROF_DEMO_KPKG_VERSION=$KPROF_DEMO_KPKG_VERSION.)}"
}

# find_pinned FLAVOR: sets pinned[FLAVOR] to the package apt can download at
# $KPKG_VERSION. Refreshes apt's lists when they lack it; fails when the
# archive no longer has it; skips when the mirror cannot be reached to tell.
declare -A pinned=()
find_pinned() {
  local flavor=$1 p pass
  local want="linux-image-$KABI-$flavor=$KPKG_VERSION"
  command -v apt-get >/dev/null ||
    skip "no apt-get to download the kernel $want (not a Debian host); put ${want/=/_}_amd64.deb in $cache/"
  for pass in lists updated; do
    for p in $(kernel_pkgs "$flavor"); do
      apt_versions "$p" | grep -qxF "$KPKG_VERSION" && { pinned[$flavor]=$p; return 0; }
    done
    [[ $pass == updated ]] && break
    if [[ $(id -u) -ne 0 ]]; then
      has_suite || skip "apt has no $SUITE source, where the pinned kernel $want lives (add one, or put the .deb in $cache/)"
      die "the pinned kernel $want is not in apt's package lists, which may be stale; refreshing them needs root: run apt-get update as root and try again (if it is still missing then, the pin is stale: see KABI and KPKG_VERSION at the top of $here/kernel-diff-demo.sh)"
    fi
    apt_update || true
  done
  if [[ $apt_update_rc -ne 0 ]]; then
    grep -qE "$NET_ERRORS" "$work/update.log" &&
      skip "network: apt-get update could not reach the mirror ($(first_error "$work/update.log")), so whether the archive still has the pinned kernel $want is unknown"
    die "apt-get update failed ($(first_error "$work/update.log")), and apt's lists lack the pinned kernel $want"
  fi
  has_suite || skip "apt has no $SUITE source, where the pinned kernel $want lives (add one, or put the .deb in $cache/)"
  pin_gone "$flavor"
}

# download_kernel FLAVOR: apt-get download of the flavor's pinned package
# into the cache.
download_kernel() {
  local flavor=$1 try
  for try in 1 2; do
    [[ -n ${pinned[$flavor]:-} ]] || find_pinned "$flavor"
    local pkg=${pinned[$flavor]}
    say "downloading $pkg=$KPKG_VERSION"
    (cd "$cache" && apt-get download "$pkg=$KPKG_VERSION") >"$work/dl.log" 2>&1 && return 0
    grep -qE "$NET_ERRORS" "$work/dl.log" &&
      skip "network: cannot download $pkg=$KPKG_VERSION from the mirror ($(first_error "$work/dl.log"))"
    # Else apt's lists may be stale (a 404: the version left the mirror):
    # refresh them once and look again, which fails on a stale pin.
    [[ $try -eq 1 && -z $apt_update_rc && $(id -u) -eq 0 ]] || break
    apt_update || true
    unset "pinned[$flavor]"
  done
  local also=
  [[ ${apt_update_rc:-0} -eq 0 ]] || also="; apt-get update failed too: $(first_error "$work/update.log")"
  die "apt-get download $pkg=$KPKG_VERSION failed: $(first_error "$work/dl.log")$also"
}

# Fetches the flavor's package into the cache and extracts vmlinuz, the .config and the
# virtio modules to $cache/$KABI-$flavor/ (kept: later runs start there).
fetch_kernel() {
  local flavor=$1 deb m f
  local dir=$cache/$KABI-$flavor
  kernel_ready "$flavor" && return
  mkdir -p "$cache"
  if ! deb=$(cached_deb "$flavor"); then
    download_kernel "$flavor"
    deb=$(cached_deb "$flavor") ||
      die "apt-get download of ${pinned[$flavor]}=$KPKG_VERSION left no .deb in $cache"
  fi
  rm -rf "$dir" && mkdir -p "$dir/modules"
  dpkg-deb --fsys-tarfile "$deb" >"$work/kernel.tar"
  tar -xf "$work/kernel.tar" -C "$work" --wildcards './boot/vmlinuz-*' './boot/config-*' \
    "./lib/modules/$KABI-$flavor/modules.builtin"
  mv "$work/boot/vmlinuz-$KABI-$flavor" "$dir/vmlinuz"
  # Its .config: the guest's kprof record finds it at /boot/config-RELEASE
  # (Debian's kernels have no /proc/config.gz), so the diff names the options.
  mv "$work/boot/config-$KABI-$flavor" "$dir/config"
  for m in "${MODULES[@]}"; do
    f=$(tar -tf "$work/kernel.tar" | grep -E "/$m\.ko(\.xz|\.zst)?$" | head -1 || true)
    if [[ -n $f ]]; then
      tar -xf "$work/kernel.tar" -C "$work" "$f"
      mv "$work/$f" "$dir/modules/"
    elif ! grep -q "/$m\.ko" "$work/lib/modules/$KABI-$flavor/modules.builtin"; then
      echo "kernel-diff-demo: note: $m is neither a module nor built into $KABI-$flavor" >&2
    fi
  done
  rm -rf "${work:?}/kernel.tar" "${work:?}/boot" "${work:?}/lib"
  echo "$KPKG_VERSION" >"$dir/.complete"
}

# --- (2) static kprof, workload and initramfs ---------------------------------
build_static_kprof() {
  if [[ -n ${KPROF_STATIC:-} ]]; then
    file -L "$KPROF_STATIC" | grep -q 'statically linked' ||
      die "KPROF_STATIC=$KPROF_STATIC is not a statically linked executable"
    kprof_static=$KPROF_STATIC
    return
  fi
  say "building static kprof in $static_build"
  if [[ ! -f $static_build/build.ninja ]]; then
    # static.cmake makes find_library and pkg-config pick the .a files.
    cmake -S "$root" -B "$static_build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DKPROF_TESTS=OFF -DCMAKE_EXE_LINKER_FLAGS=-static \
      -DCMAKE_PROJECT_INCLUDE="$here/static.cmake" \
      >"$work/cmake.log" 2>&1 || die "cmake for the static build failed:
$(tail -20 "$work/cmake.log")"
  fi
  ninja -C "$static_build" -j2 kprof >"$work/ninja.log" 2>&1 ||
    die "static kprof does not build or link: $(grep -m3 -E 'error|undefined' "$work/ninja.log")"
  kprof_static=$static_build/cli/kprof
}

build_workload() {
  cc -O2 -g -fno-omit-frame-pointer -pthread -static -o "$1" "$here/syscalls/syscalls.c" ||
    die "cannot build the static syscalls workload (is libc6-dev installed?)"
}

# The guest's /init. @MODE@, @RUNS@, @SECONDS@, @THREADS@, @FREQ@, @CALLS@
# and @MODULES@ are filled in per build.
write_init() {
  cat >"$1" <<'EOF'
#!/bin/sh
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
mount -t tmpfs tmpfs /tmp
for m in @MODULES@; do
  for f in /modules/$m.ko*; do [ -f "$f" ] && insmod "$f"; done
done
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do usleep 100000; i=$((i+1)); done
echo 0 > /proc/sys/kernel/kptr_restrict
echo -1 > /proc/sys/kernel/perf_event_paranoid
mkdir -p /tmp/out /tmp/run
uname -r > /tmp/out/uname
dmesg > /tmp/out/dmesg.txt  # the boot's clock choices (tsc, clocksource) among it
if [ @MODE@ = record ]; then
  cd /tmp/run
  i=1
  while [ $i -le @RUNS@ ]; do
    echo "KPROF-DEMO: run $i starts at $(cut -d' ' -f1 /proc/uptime) s"
    # A watchdog: a run takes about @SECONDS@ s; one still going after
    # @RUN_LIMIT@ s is stuck. What each of its threads waits on goes to the
    # serial log (the host shows its tail), then it is stopped and the run
    # counts as failed, so the guest still writes back and powers off.
    ( sleep @RUN_LIMIT@
      echo "KPROF-DEMO: run $i stuck after @RUN_LIMIT@ s; its tasks:"
      for p in $(pidof kprof syscalls); do
        for t in /proc/$p/task/*; do
          echo "-- $(cat $t/comm) ${t#/proc/} $(cut -d' ' -f3 $t/stat) wchan=$(cat $t/wchan)"
          cat $t/stack 2>/dev/null | head -12
        done
      done
      kill -TERM $(pidof kprof) 2>/dev/null; sleep 10
      kill -KILL $(pidof kprof syscalls) 2>/dev/null ) &
    watchdog=$!
    # kprof's lines with the guest's uptime in front: where each run's time goes.
    { /bin/kprof record -g --syscalls-only @CALLS@ --off-cpu -F @FREQ@ --score-from 'rounds_per_s=([0-9.]+)' \
        -o /tmp/out/run-$i.kprof -- /bin/syscalls --seconds @SECONDS@ --iterations 20000 \
        --threads @THREADS@ > /tmp/out/workload-$i.txt
      echo $? > /tmp/out/record-$i.rc; } 2>&1 |
      while IFS= read -r line; do echo "$(cut -d' ' -f1 /proc/uptime) $line"; done \
        > /tmp/out/record-$i.log
    kill $watchdog 2>/dev/null
    echo "KPROF-DEMO: run $i of @RUNS@ recorded at $(cut -d' ' -f1 /proc/uptime) s"
    i=$((i+1))
  done
  cd /
fi
if [ -b /dev/vda ]; then
  tar -c -C /tmp/out . > /dev/vda && sync && echo "KPROF-DEMO: results written"
else
  echo "KPROF-DEMO: no /dev/vda"
fi
poweroff -f
EOF
}

build_initramfs() {
  local flavor=$1 dest=$2 mode=$3 a
  local r=$work/root-$flavor
  rm -rf "$r" && mkdir -p "$r"/{bin,sbin,proc,sys,dev,tmp,modules,boot}
  cp "$(command -v busybox)" "$r/bin/busybox"
  for a in $("$r/bin/busybox" --list); do
    [[ $a == busybox ]] || ln -sf busybox "$r/bin/$a"
  done
  cp "$cache/$KABI-$flavor/modules/"* "$r/modules/" 2>/dev/null || true
  cp "$cache/$KABI-$flavor/config" "$r/boot/config-$KABI-$flavor"
  write_init "$r/init"
  sed -i "s|@MODE@|$mode|; s|@RUNS@|$runs|g; s|@SECONDS@|$seconds|g; s|@RUN_LIMIT@|$((seconds * 10 + 30))|g; s|@THREADS@|$THREADS|; s|@FREQ@|$FREQ|; s|@CALLS@|$CALLS|; s|@MODULES@|${MODULES[*]}|" "$r/init"
  chmod +x "$r/init"
  if [[ $mode == record ]]; then
    strip -g -o "$r/bin/kprof" "$kprof_static"  # debug info is not needed in the guest
    cp "$work/syscalls" "$r/bin/syscalls"
  fi
  (cd "$r" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$dest"
}

# --- (3) boot ------------------------------------------------------------------
# Boots one kernel; its results land in $out/$label/. A guest that hangs or
# whose recordings fail is booted once more (TCG under a loaded host has been
# seen to stall a guest once in many boots), the first try's serial log kept
# and its tail shown; a second failure ends the demo with the same.
boot() {
  local flavor=$1 label=$2
  local log=$out/$label.serial.log
  boot_once "$flavor" "$label" && return 0
  mv "$log" "$out/$label.serial.try1.log" 2>/dev/null || true
  echo "kernel-diff-demo: warning: $fail_reason; booting $label once more. The end of its serial log ($out/$label.serial.try1.log):" >&2
  serial_tail "$out/$label.serial.try1.log" >&2
  boot_once "$flavor" "$label" && return 0
  echo "kernel-diff-demo: the end of $label's serial log:" >&2
  serial_tail "$log" >&2
  die "$fail_reason (twice); serial log: $log"
}

# The last lines of a serial log, without the console's escape sequences.
serial_tail() { sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\r//g' "$1" 2>/dev/null | tail -25 | sed 's/^/  | /'; }

# One boot; on failure returns 1 with fail_reason set.
boot_once() {
  local flavor=$1 label=$2
  local dir=$cache/$KABI-$flavor img=$work/out-$label.img log=$out/$label.serial.log
  local append="console=ttyS0 quiet panic=-1" cpu=(-smp 1 -icount "shift=3,sleep=off") i rc
  [[ $flavor == rt-* ]] && append+=" noirqdebug"
  [[ $real_clock -eq 1 ]] && cpu=(-smp 2)
  rm -f "$img" && truncate -s 256M "$img"
  say "booting $KABI-$flavor ($label)"
  local t0=$SECONDS
  qemu-system-x86_64 -machine q35 -accel tcg "${cpu[@]}" -m 1G -nographic -no-reboot \
    -kernel "$dir/vmlinuz" -initrd "$work/initrd-$label.gz" -append "$append" \
    -drive "file=$img,format=raw,if=virtio" </dev/null >"$log" 2>&1 &
  qemu_pid=$!
  while kill -0 "$qemu_pid" 2>/dev/null; do
    if (( SECONDS - t0 > timeout_s )); then
      kill "$qemu_pid" 2>/dev/null || true
      wait "$qemu_pid" 2>/dev/null || true
      qemu_pid=
      fail_reason="$label guest still running after ${timeout_s}s"
      return 1
    fi
    sleep 0.5
  done
  wait "$qemu_pid" || die "qemu for $label failed; serial log: $log"
  qemu_pid=
  rm -rf "${out:?}/$label" && mkdir -p "$out/$label"
  tar -xf "$img" -C "$out/$label" 2>/dev/null ||
    { fail_reason="$label guest wrote no results to its disk"; return 1; }
  rm -f "$img"
  if [[ $mode == record ]]; then
    for ((i = 1; i <= runs; i++)); do
      rc=$(cat "$out/$label/record-$i.rc" 2>/dev/null || echo missing)
      [[ $rc == 0 && -s $out/$label/run-$i.kprof ]] && continue
      fail_reason="kprof record (run $i) in the $label guest failed (rc $rc): $(tail -3 "$out/$label/record-$i.log" 2>/dev/null | tr "\n" " ")"
      return 1
    done
  fi
  say "$label: $(cat "$out/$label/uname") in $((SECONDS - t0))s"
}

# --- main ----------------------------------------------------------------------
[[ $(uname -m) == x86_64 ]] || skip "the demo boots x86-64 kernels (this is $(uname -m))"
# The pins first: a stale one fails before anything is installed or built.
for f in "${FLAVORS[@]}"; do
  kernel_ready "$f" || cached_deb "$f" >/dev/null || find_pinned "$f"
done
need_tools
mkdir -p "$out"
out=$(cd "$out" && pwd)
for f in "${FLAVORS[@]}"; do fetch_kernel "$f"; done

mode=smoke
if [[ $smoke -eq 0 ]]; then
  mode=record
  build_static_kprof
  build_workload "$work/syscalls"
fi
for i in "${!FLAVORS[@]}"; do
  build_initramfs "${FLAVORS[$i]}" "$work/initrd-${LABELS[$i]}.gz" "$mode"
done
for i in "${!FLAVORS[@]}"; do boot "${FLAVORS[$i]}" "${LABELS[$i]}"; done
[[ $smoke -eq 1 ]] && { say "smoke test done: all ${#FLAVORS[@]} kernels booted and wrote back"; exit 0; }

# Each kernel's runs, as $out/LABEL-N.kprof; `kprof diff` takes them as
# groups: LABEL1's runs -- LABEL2's runs -- ... (boot_once checked each run).
groups=() labels=()
for l in "${LABELS[@]}"; do
  [[ ${#groups[@]} -eq 0 ]] || groups+=(--)
  labels+=(--label "$l")
  for ((i = 1; i <= runs; i++)); do
    mv "$out/$l/run-$i.kprof" "$out/$l-$i.kprof"
    groups+=("$out/$l-$i.kprof")
  done
done
# --no-pager: the demo goes on after each part (on a terminal kprof would page it).
kdiff() { "$kprof_static" diff --no-pager "${labels[@]}" "$@" "${groups[@]}"; }
part() { echo; say "$*"; }

part "1/5 what differs besides the kernel (each guest's environment and kernel configuration)"
kdiff --sections env
part "2/5 the cost of each system call per kernel, from kprof's own counts (kprof record -g --syscalls), and 3/5 the functions that account for each change"
kdiff --per-call --top 5
echo "the workload's own figure, CPU ns per call (the thread's CPU clock; run 1 of each kernel):"
{ head -1 "$out/${LABELS[0]}/workload-1.txt"
  for l in "${LABELS[@]}"; do grep ' (cpu ns)' "$out/$l/workload-1.txt" | sed "s/^[^\t]*/$l/"; done
} | awk -F'\t' '{ printf "%-8s", $1; for (i = 2; i <= NF; i++) printf "  %17s", $i; print "" }'
part "4/5 the matched diff over the $runs runs per kernel (verdicts from run-to-run variance), and time off CPU"
kdiff --sections matched,off-cpu,floor --top 15 --html "$out/diff.html"
kdiff --off-cpu --sections matched --top 8
part "5/5 all of it on one page (delta chart, sortable table, on- and off-CPU differential flame graphs, cost per call): $out/diff.html"
