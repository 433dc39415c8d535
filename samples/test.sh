#!/usr/bin/env bash
# Tests for the sample workloads and the two-kernel demo.
#
#   samples/test.sh [--kprof PATH] [--demo] [--only NAME]...
#
#   --kprof PATH  the kprof to test (default: $KPROF, kprof on PATH, or the
#                 newest build*/cli/kprof)
#   --demo        also run the two-kernel demo end to end (~2-5 min, needs
#                 apt or a filled samples/cache/); also KPROF_TEST_DEMO=1
#   --only NAME   run only this test (repeatable): syscalls, oltp, compile,
#                 shipped, demo
#
# Every test asserts on what kprof recorded (its `report --csv -` rows), so a
# broken recorder or symbolizer fails them. A test whose prerequisite is
# missing (PostgreSQL, googletest sources, qemu, the network) says
# `SKIP NAME: why` (the workload script's own SKIP: reason); a workload that
# exits 77 without one fails. Exit status: 1 something failed; 77 every test
# that ran skipped (so with one --only, as ctest runs them: exactly when that
# test skipped); 0 otherwise (when several ran, some may have skipped: the
# summary line names them); 2 a bad option.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"

demo=${KPROF_TEST_DEMO:-0} only=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --kprof) KPROF=$2; shift 2 ;;
    --demo) demo=1; shift ;;
    --only)
      case ${2:-} in
        syscalls|oltp|compile|shipped|demo) only+=("$2"); shift 2 ;;
        *) echo "test.sh: no test '${2:-}' (syscalls, oltp, compile, shipped, demo)" >&2; exit 2 ;;
      esac ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "test.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
KPROF=$(find_kprof) || exit 1
export KPROF
KPROF=$(abs_path "$KPROF")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kprof-samples-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
echo "testing with $KPROF" >&2

passed=() failed=() skipped=() skip_reason=
fail() { echo "  FAIL: $*" >&2; return 1; }
# skip REASON: the test cannot run here; REASON goes on its SKIP line.
skip() { skip_reason=$*; return 77; }

# workload LOG CMD...: runs a workload script, its stderr shown and kept in
# LOG, and returns its status; 77 counts as a skip only with the script's own
# `SKIP: reason` line (sample_skip), which becomes the test's reason.
workload() {
  local log=$1 rc reason a name
  shift
  { "$@" 2>&1 1>&3 3>&- | tee "$log" >&2; rc=${PIPESTATUS[0]}; } 3>&1
  [[ $rc -eq 77 ]] || return "$rc"
  reason=$(sed -n 's/^.*SKIP: //p' "$log" | tail -1)
  [[ -n $reason ]] && { skip "$reason"; return; }
  for a in "$@"; do [[ $a == *.sh ]] && { name=$(basename "$a"); break; }; done
  fail "${name:-$1} exited 77 without a SKIP: line"
}

# report_csv PROFILE SORT: every row as CSV (samples,percent,image,function,mode).
report_csv() { "$KPROF" report "$1" --sort "$2" --csv -; }

# check_top_image CSV N PATTERN...: one of the first N rows has an image whose
# basename matches one of the extended regexes.
check_top_image() {
  python3 - "$@" <<'EOF'
import csv, os, re, sys
path, n, pats = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rows = list(csv.DictReader(open(path, newline="")))
if not rows:
    sys.exit("no rows in the report")
top = rows[:n]
for r in top:
    if any(re.fullmatch(p, os.path.basename(r["image"])) for p in pats):
        print(f"  ok: {r['function']} in {r['image']} ({r['percent']}%) in the top {n}", file=sys.stderr)
        sys.exit(0)
print(f"  none of {pats} among the top {n}:", file=sys.stderr)
for r in top:
    print(f"    {r['percent']:>8}%  {r['image']}  {r['function']}", file=sys.stderr)
sys.exit(1)
EOF
}

# check_kernel_profile CSV MIN_SAMPLES: at least MIN_SAMPLES samples, some of
# them in the kernel, and >= 95% of those named.
check_kernel_profile() {
  python3 - "$@" <<'EOF'
import csv, sys
path, minimum = sys.argv[1], int(sys.argv[2])
rows = list(csv.DictReader(open(path, newline="")))
total = sum(int(r["samples"]) for r in rows)
kernel = [r for r in rows if r["mode"] == "kernel"]
ksamples = sum(int(r["samples"]) for r in kernel)
named = sum(int(r["samples"]) for r in kernel if not r["function"].startswith("[unknown"))
print(f"  {path}: {total} samples, {ksamples} in the kernel, {named} of them named",
      file=sys.stderr)
if total < minimum: sys.exit(f"fewer than {minimum} samples")
if ksamples == 0: sys.exit("no kernel samples")
if named < 0.95 * ksamples: sys.exit(f"only {100 * named / ksamples:.1f}% of kernel samples named")
EOF
}

# check_kernel_function CSV N REGEX: a kernel row among the N with the most
# samples has a function (clone suffix aside) that the extended regex matches.
check_kernel_function() {
  python3 - "$@" <<'EOF'
import csv, re, sys
path, n, pat = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = [r for r in csv.DictReader(open(path, newline="")) if r["mode"] == "kernel"]
rows.sort(key=lambda r: -int(r["samples"]))
hits = [r for r in rows[:n] if re.fullmatch(pat, r["function"].split(".")[0])]
if hits:
    print("  ok: " + ", ".join(f"{r['function']} ({r['samples']})" for r in hits)
          + f" among the top {n} kernel functions", file=sys.stderr)
    sys.exit(0)
print(f"  no kernel function matching {pat} among the top {n}:", file=sys.stderr)
for r in rows[:n]:
    print(f"    {r['samples']:>6}  {r['function']}", file=sys.stderr)
sys.exit(1)
EOF
}

# has_function CSV NAME: NAME (exactly, or with a clone suffix) is a kernel row.
has_function() {
  python3 - "$@" <<'EOF'
import csv, sys
path, name = sys.argv[1], sys.argv[2]
rows = csv.DictReader(open(path, newline=""))
sys.exit(0 if any(r["function"].split(".")[0] == name and r["mode"] == "kernel" for r in rows)
         else 1)
EOF
}

test_syscalls() {
  "$here/syscalls.sh" --iterations 2000 >"$tmp/sys.txt" || fail "syscalls.sh failed" || return
  head -1 "$tmp/sys.txt" | grep -q $'^Kernel\tgettimeofday()\tgettimeofday(SYS)\tuname()\tchdir()\topen()+close()\tgetpid(SYS)$' ||
    fail "unexpected table header: $(head -1 "$tmp/sys.txt")" || return
  grep -qE $'^[^\t]+ \\(cycles\\)(\t[0-9]+){6}$' "$tmp/sys.txt" || fail "no cycles row" || return
  grep -qE $'^[^\t]+ \\(ns\\)(\t[0-9.]+){6}$' "$tmp/sys.txt" || fail "no ns row" || return
  grep -qE $'^[^\t]+ \\(cpu ns\\)(\t[0-9.]+){6}$' "$tmp/sys.txt" || fail "no cpu ns row" || return
  "$here/syscalls.sh" --kprof "$tmp/sys.kprof" --seconds 2 --iterations 5000 >/dev/null ||
    fail "syscalls.sh --kprof failed" || return
  report_csv "$tmp/sys.kprof" function >"$tmp/sys.csv" || fail "kprof report failed" || return
  check_top_image "$tmp/sys.csv" 15 syscalls || return
  # Its kernel side is named, and is the syscall path, or the point where
  # that path turns interrupts back on: cpu-clock cannot sample with them
  # off, and on some guest kernels (pvm_irq_enable under PVM) every kernel
  # sample lands there (report/skid.h is_irq_enable_point: *_irq_enable).
  check_kernel_profile "$tmp/sys.csv" 50 || fail "kernel functions of the syscalls profile" || return
  check_kernel_function "$tmp/sys.csv" 20 \
    'do_syscall_64|entry_SYSCALL_64.*|x64_sys_call|__(x64|ia32)_sys_[a-z0-9_]+|__do_sys_[a-z0-9_]+|[a-z0-9_]*_irq_enable'
}

test_oltp() {
  # Its own TMPDIR, so that the leftover check below sees only this run's
  # cluster; the server (as postgres) must traverse it.
  mkdir -p "$tmp/t" && chmod 711 "$tmp" "$tmp/t"
  workload "$tmp/oltp.err" env TMPDIR="$tmp/t" "$here/oltp.sh" --kprof "$tmp/oltp.kprof" \
    --seconds 3 >"$tmp/oltp.out"
  local rc=$?
  [[ $rc -eq 77 ]] && return 77
  [[ $rc -eq 0 ]] || fail "oltp.sh exited $rc" || return
  grep -qE '^tps=[0-9]+(\.[0-9]+)?$' "$tmp/oltp.out" || fail "no tps= line" || return
  [[ $(cat "$tmp/oltp.kprof.tps") == $(cat "$tmp/oltp.out") ]] || fail "OUT.tps differs" || return
  echo "  $(cat "$tmp/oltp.out")" >&2
  compgen -G "$tmp/t/kprof-oltp.*" >/dev/null &&
    { fail "oltp.sh left its cluster directory: $(compgen -G "$tmp/t/kprof-oltp.*")"; return; }
  report_csv "$tmp/oltp.kprof" function >"$tmp/oltp.csv" || fail "kprof report failed" || return
  check_top_image "$tmp/oltp.csv" 10 postgres
  # Debian's postgres is stripped: its unnamed code is split by .eh_frame
  # extents, so no big '[unknown]' blob hides changes (issue 12).
  awk -F, '$3 ~ /postgres$/ && $4 == "[unknown]" && $2 > 2 { bad = 1 } END { exit bad }' \
    "$tmp/oltp.csv" || { fail "postgres [unknown] holds over 2% of the OLTP profile"; return; }
  grep -q ',postgres+0x' "$tmp/oltp.csv" || { fail "no postgres+0x... rows"; return; }
  # cpu-clock skid: the OLTP profile's time at interrupt-enable points is said.
  if "$KPROF" info "$tmp/oltp.kprof" | grep -q 'fell back: *yes'; then
    "$KPROF" report "$tmp/oltp.kprof" --top 1 | grep -q 'fell at interrupt-enable points' ||
      { fail "no cpu-clock skid notice in the OLTP report"; return; }
  fi
}

test_compile() {
  workload "$tmp/cc.err" "$here/compile.sh" --kprof "$tmp/cc.kprof" --jobs 2 --seconds 8 \
    >"$tmp/cc.out"
  local rc=$?
  [[ $rc -eq 77 ]] && return 77
  [[ $rc -eq 0 ]] || fail "compile.sh exited $rc" || return
  report_csv "$tmp/cc.kprof" function >"$tmp/cc.csv" || fail "kprof report failed" || return
  check_top_image "$tmp/cc.csv" 10 'cc1plus|cc1|clang.*|as'
}

# The profiles shipped in samples/ (made by the demo) still read and diff.
test_shipped() {
  local g=$here/generic.kprof r=$here/rt.kprof
  [[ -f $g && -f $r ]] || { skip "no shipped profiles ($g and $r)"; return; }
  check_demo_profiles "$g" "$r"
}

check_demo_profiles() {
  local g=$1 r=$2 f
  report_csv "$g" function >"$tmp/g.csv" || fail "kprof report $g failed" || return
  report_csv "$r" function >"$tmp/r.csv" || fail "kprof report $r failed" || return
  check_kernel_profile "$tmp/g.csv" 200 || fail "generic profile" || return
  check_kernel_profile "$tmp/r.csv" 200 || fail "rt profile" || return
  for f in rt_spin_lock rt_spin_unlock; do
    has_function "$tmp/r.csv" "$f" || fail "$f not in the RT profile" || return
    has_function "$tmp/g.csv" "$f" && { fail "$f in the generic profile"; return; }
  done
  "$KPROF" diff --label generic --label rt "$g" "$r" >"$tmp/diff.txt" ||
    fail "kprof diff failed" || return
  for f in rt_spin_lock rt_spin_unlock; do
    grep -E "(^|[[:space:]])$f([[:space:]]|$)" "$tmp/diff.txt" | grep -q '+++' ||
      { fail "no '+++' row for $f in kprof diff:"; head -60 "$tmp/diff.txt" >&2; return 1; }
  done
  echo "  ok: rt_spin_lock and rt_spin_unlock are +++ on the RT side, absent from generic" >&2
  # Issue 24: the environment says why, before any row.
  grep -qE '^kernel\.preempt +.* +rt( |$)' "$tmp/diff.txt" ||
    { fail "the preemption model is not among the differing facts:"; head -30 "$tmp/diff.txt" >&2; return 1; }
  grep -qE '^PREEMPT_RT +- +y ' "$tmp/diff.txt" ||
    { fail "PREEMPT_RT (- against y) is not among the differing options:"; head -40 "$tmp/diff.txt" >&2; return 1; }
  grep -E "(^|[[:space:]])rt_spin_unlock([[:space:]]|$)" "$tmp/diff.txt" | grep -q 'CONFIG_PREEMPT_RT' ||
    { fail "rt_spin_unlock's row does not say it is CONFIG_PREEMPT_RT's code"; return 1; }
  echo "  ok: the diff names PREEMPT_RT and the preemption model as differing, and rt_spin_unlock as its code" >&2
}

test_demo() {
  [[ $demo -eq 1 ]] || { skip "long (minutes): run with --demo or KPROF_TEST_DEMO=1"; return; }
  mkdir -p "$tmp/t"
  TMPDIR=$tmp/t "$here/kernel-diff-demo.sh" --out "$tmp/demo" >"$tmp/demo.diff" 2>"$tmp/demo.log"
  local rc=$?
  if [[ $rc -eq 77 ]]; then
    local reason
    reason=$(sed -n 's/^.*SKIP: //p' "$tmp/demo.log" | tail -1)
    [[ -n $reason ]] && { skip "$reason"; return; }
    tail -20 "$tmp/demo.log" >&2
    fail "kernel-diff-demo.sh exited 77 without a SKIP: line"; return
  fi
  [[ $rc -eq 0 ]] || { tail -20 "$tmp/demo.log" >&2; fail "kernel-diff-demo.sh exited $rc"; return; }
  # A guest booted twice passes, but says why (and the first try's log tail).
  grep -A26 'warning:' "$tmp/demo.log" >&2 || true
  pgrep -f "$tmp/t/kprof-demo" >/dev/null && { fail "a qemu was left running"; return; }
  grep -q 'id="kprof-data"' "$tmp/demo/diff.html" 2>/dev/null ||
    { fail "the demo wrote no diff page ($tmp/demo/diff.html)"; return; }
  grep -qF "$tmp/demo/diff.html" "$tmp/demo.log" ||
    { fail "the demo did not print the page's path"; return; }
  local l i groups=()
  for l in generic cloud rt; do
    [[ ${#groups[@]} -eq 0 ]] || groups+=(--)
    for i in 1 2 3 4 5; do
      [[ -s $tmp/demo/$l-$i.kprof ]] || { fail "no run $i of the $l kernel ($tmp/demo/$l-$i.kprof)"; return; }
      groups+=("$tmp/demo/$l-$i.kprof")
    done
    # The guests record off-CPU time.
    "$KPROF" info "$tmp/demo/$l-1.kprof" | grep -qE '^off-CPU: +[0-9,]+ switches of [0-9,]+ threads' ||
      { fail "the $l guest recorded no off-CPU time"; return; }
  done
  check_demo_profiles "$tmp/demo/generic-1.kprof" "$tmp/demo/rt-1.kprof" || return
  check_demo_story "$tmp/demo" "${groups[@]}" || return
  local page_rc=0
  /usr/bin/python3 "$here/../tests/browser/demo_page.py" "$tmp/demo/diff.html" || page_rc=$?
  case $page_rc in
    0) echo "  ok: the page renders in chromium, its flame graph deeper than one level" >&2 ;;
    77) echo "  (the page was not opened in a browser: no chromium here)" >&2 ;;
    *) fail "the demo's page in chromium"; return ;;
  esac
}

# check_demo_story DIR RUNS...: what the demo must show (issue 27), from its
# own output ($tmp/demo.diff) and kprof's exports of the same runs.
check_demo_story() {
  local dir=$1
  shift
  local labels=(--label generic --label cloud --label rt)
  # 1: PREEMPT_RT differs, and only the rt kernel has it.
  grep -qE '^PREEMPT_RT +- +- +y ' "$tmp/demo.diff" ||
    { fail "PREEMPT_RT (- - y) is not in the configuration diff"; return 1; }
  "$KPROF" diff "${labels[@]}" "$@" --json "$tmp/story.json" >/dev/null ||
    { fail "kprof diff --json of the demo's runs failed"; return 1; }
  "$KPROF" diff "${labels[@]}" --per-call --csv "$tmp/story.csv" "$@" >/dev/null ||
    { fail "kprof diff --per-call of the demo's runs failed"; return 1; }
  "$KPROF" report --per-call "$dir/rt-1.kprof" --csv "$tmp/rt1.csv" >/dev/null ||
    { fail "kprof report --per-call of rt run 1 failed"; return 1; }
  python3 "$here/demo_story.py" "$tmp/story.json" "$tmp/story.csv" "$tmp/rt1.csv" \
    "$dir/rt/workload-1.txt" || { fail "the demo's story"; return 1; }
}

for t in syscalls oltp compile shipped demo; do
  if [[ ${#only[@]} -gt 0 && " ${only[*]} " != *" $t "* ]]; then continue; fi
  echo "--- $t" >&2
  start=$SECONDS skip_reason=
  "test_$t"
  rc=$?
  # 77 is a skip only with a reason (skip); any other 77 is a failure.
  [[ $rc -eq 77 && -z $skip_reason ]] && { echo "  FAIL: 77 without a skip reason" >&2; rc=1; }
  case $rc in
    0) passed+=("$t"); echo "PASS $t ($((SECONDS - start)) s)" >&2 ;;
    77) skipped+=("$t"); echo "SKIP $t: $skip_reason" >&2 ;;
    *) failed+=("$t"); echo "FAIL $t ($((SECONDS - start)) s)" >&2 ;;
  esac
done
echo "passed: ${passed[*]:-none}; skipped: ${skipped[*]:-none}; failed: ${failed[*]:-none}" >&2
[[ ${#failed[@]} -eq 0 ]] || exit 1
# Every test that ran skipped (with one --only: that one did), for ctest's
# SKIP_RETURN_CODE.
[[ ${#passed[@]} -gt 0 ]] || exit 77
