#!/usr/bin/env bash
# The Debian package (cpack -G DEB, packaging/CMakeLists.txt), built from
# this build tree and checked as a fresh Debian 12 would receive it: what it
# holds (kprof, a man page per command, bash completion), that dpkg accepts
# it here (--dry-run: dependencies met, nothing installed), that the
# packaged kprof runs the README's quick-start diff, that each man page
# renders with its NAME line, and that the completion completes commands,
# options and function names from a profile.
#   package_test.sh BUILD_DIR SOURCE_DIR
# Exit 0: all hold; 77 (a skip, with the reason): no help2man, dpkg-deb or
# cpack here; 1: a check failed (each failure on its own line).
set -uo pipefail
build=$1 src=$2
for t in cpack dpkg-deb help2man; do
  command -v "$t" >/dev/null || { echo "SKIP: no $t here (scripts/install-deps.sh installs it)"; exit 77; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kprof-package.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

(cd "$build" && cpack -G DEB -B "$tmp/out" >"$tmp/cpack.log" 2>&1) ||
  { cat "$tmp/cpack.log"; echo "FAIL: cpack -G DEB"; exit 1; }
deb=$(ls "$tmp"/out/kprof_*_amd64.deb 2>/dev/null | head -1)
[[ -f $deb ]] || { echo "FAIL: no kprof_*.deb in $tmp/out"; exit 1; }
root=$tmp/root
dpkg-deb -x "$deb" "$root" || { echo "FAIL: dpkg-deb -x $deb"; exit 1; }

# What it holds.
[[ -x $root/usr/bin/kprof ]] || fail "no usr/bin/kprof"
for cmd in "" -record -report -diff -info -export -script -annotate -symbolize -import -events; do
  page=$root/usr/share/man/man1/kprof$cmd.1
  [[ -f $page ]] || { fail "no man page kprof$cmd.1"; continue; }
  if command -v man >/dev/null; then
    MANWIDTH=100 man -l "$page" 2>/dev/null | grep -qE "^ +kprof$cmd - " ||
      fail "kprof$cmd.1 renders without its NAME line"
  fi
done
grep -qF -- '\-\-symbol' "$root/usr/share/man/man1/kprof-report.1" ||
  fail "kprof-report.1 lacks an option kprof report --help lists (--symbol)"
completion=$root/usr/share/bash-completion/completions/kprof
[[ -f $completion ]] || fail "no bash completion"
depends=$(dpkg-deb -f "$deb" Depends)
# Every shared library kprof is linked against (libdw and zstd are linked
# in from their .a files unless KPROF_STATIC_LIBS=OFF), by the package that
# ships it here; libpfm4 and Capstone are dlopen()ed, so named by hand.
# (ldd names where each lies on this machine; dpkg -S which package put it there.)
needed=$(ldd "$root/usr/bin/kprof" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p')
[[ -n $needed ]] || fail "ldd finds no shared libraries for usr/bin/kprof"
pkgs=(libpfm4 libcapstone4)
for path in $needed; do
  # dpkg knows each file by the path its package ships it at: /lib or /usr/lib
  # (usrmerge makes both reach it; ldd may say either).
  pkg=
  for p in "$path" "$(readlink -f "$path")" "/usr$path" "${path#/usr}"; do
    pkg=$(dpkg -S "$p" 2>/dev/null | head -1 | cut -d: -f1) || true
    [[ -n $pkg ]] && break
  done
  [[ -n $pkg ]] && pkgs+=("$pkg") || fail "no package here ships $path, which usr/bin/kprof needs"
done
for lib in "${pkgs[@]}"; do
  [[ $depends == *"$lib"* ]] || fail "Depends lacks $lib: $depends"
done
dpkg --dry-run -i "$deb" >"$tmp/dpkg.log" 2>&1 || fail "dpkg --dry-run -i: $(tail -3 "$tmp/dpkg.log")"

# The packaged binary runs the quick start.
out=$("$root/usr/bin/kprof" diff --no-pager --label generic --label rt "$src/samples/generic.kprof" \
  "$src/samples/rt.kprof" 2>&1) || fail "the packaged kprof's quick-start diff failed: ${out:0:300}"
[[ $out == *rt_spin_unlock* ]] || fail "the quick-start diff does not show rt_spin_unlock"
[[ $("$root/usr/bin/kprof" report --version) == "kprof "* ]] || fail "kprof report --version"

# The completion: commands, options from --help, function names from a profile.
complete_line() {  # WORDS...: what _kprof offers for the last word
  PATH=$root/usr/bin:$PATH bash -c 'source "$1"; shift; COMP_WORDS=("$@");
    COMP_CWORD=$(($# - 1)); _kprof; printf "%s\n" "${COMPREPLY[@]}"' _ "$completion" "$@"
}
[[ $(complete_line kprof rep) == report ]] || fail "kprof rep<TAB> is not report: $(complete_line kprof rep)"
complete_line kprof report --sym | grep -qx -- --symbol || fail "kprof report --sym<TAB> lacks --symbol"
(cd "$src" && complete_line kprof report samples/rt.kprof --symbol rt_spin_l) | grep -qx rt_spin_lock ||
  fail "kprof report samples/rt.kprof --symbol rt_spin_l<TAB> lacks rt_spin_lock"

[[ $failed -eq 0 ]] && echo "ok: $(basename "$deb"): $(dpkg-deb -c "$deb" | wc -l) entries, runs, completes"
exit $failed
