#!/usr/bin/env bash
# OLTP workload: a throwaway PostgreSQL 15 cluster in a temporary directory
# (unix socket only, no TCP), `pgbench -i`, then a timed pgbench run; prints
# transactions/s.
#
#   samples/oltp.sh [--kprof OUT.kprof] [--seconds N] [--clients N] [--scale N]
#
#   --kprof OUT   profile the timed phase with `kprof record -o OUT` ($KPROF
#                 or the built kprof); the tps goes to OUT.tps as `tps=VALUE`
#   --seconds N   length of the timed pgbench run (default 10)
#   --clients N   pgbench clients and threads (default 2)
#   --scale N     pgbench -i scale factor (default 1: 100000 accounts)
#   --record CMD  profile the timed phase with CMD instead (word-split; the
#                 phase follows as `CMD -- PHASE`), e.g. "perf record
#                 --call-graph dwarf -o perf.data" (bench/dwarf.sh); the tps
#                 is printed only
#
# Under --kprof, kprof records a phase that starts the server, runs the timed
# pgbench and stops the server, so the postgres backends (children of the
# postmaster) are profiled along with pgbench; initdb and `pgbench -i` are not
# recorded. The tps is only known once the run ends, so it is printed and
# written beside the profile, ready for `kprof diff --score` (or whatever
# normalization the diff takes). The cluster is stopped and removed on every
# exit path, Ctrl-C included. Runs the server as `postgres` (or `nobody`) when
# started as root: initdb refuses root. fsync is off: the run measures CPU,
# not the disk.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

pg_bin=${PG_BIN:-/usr/lib/postgresql/15/bin}
kprof_out='' record='' seconds=10 clients=2 scale=1 phase=''

while [[ $# -gt 0 ]]; do
  case $1 in
    --kprof) kprof_out=$2; shift 2 ;;
    --record) record=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    --scale) scale=$2; shift 2 ;;
    --phase-run) phase=$2; shift 2 ;;  # internal: the recorded phase, in cluster dir $2
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) sample_die "unknown option '$1' (try --help)" ;;
  esac
done
for v in seconds clients scale; do
  [[ ${!v} =~ ^[0-9]+$ && ${!v} -gt 0 ]] || sample_die "--$v wants a positive integer, not '${!v}'"
done
[[ -x $pg_bin/postgres && -x $pg_bin/initdb ]] ||
  sample_skip "no PostgreSQL server in $pg_bin (apt-get install postgresql-15, or set PG_BIN)"
command -v pgbench >/dev/null || [[ -x $pg_bin/pgbench ]] ||
  sample_skip "no pgbench (apt-get install postgresql-contrib or postgresql-client-15)"
pgbench=$pg_bin/pgbench
[[ -x $pgbench ]] || pgbench=$(command -v pgbench)

# Who owns and runs the cluster.
as_owner=()
owner=$(id -un)
if [[ $(id -u) -eq 0 ]]; then
  owner=nobody
  id postgres >/dev/null 2>&1 && owner=postgres
  as_owner=(runuser -u "$owner" --)
fi

pg_ctl() { "${as_owner[@]}" "$pg_bin/pg_ctl" -D "$1/data" -l "$1/server.log" "${@:2}"; }
server_start() {
  pg_ctl "$1" -w -t 60 -o "-c listen_addresses='' -c unix_socket_directories='$1' \
-c fsync=off -c port=5432 -c shared_buffers=128MB" start >/dev/null ||
    sample_die "postgres did not start: $(tail -3 "$1/server.log")"
}
server_stop() { pg_ctl "$1" -m "${2:-fast}" -w stop >/dev/null 2>&1 || true; }

# Timed pgbench against the running server; prints pgbench's output.
bench() {
  "$pgbench" -h "$1" -p 5432 -U postgres -n -c "$clients" -j "$clients" -T "$seconds" postgres
}

if [[ -n $phase ]]; then
  # The recorded phase. The outer script owns cleanup; this stops the server
  # on its normal path so its shutdown is part of the profile too.
  server_start "$phase"
  bench "$phase" >"$phase/pgbench.out" 2>&1 || { cat "$phase/pgbench.out" >&2; exit 1; }
  server_stop "$phase"
  exit 0
fi

cluster=$(mktemp -d "${TMPDIR:-/tmp}/kprof-oltp.XXXXXX")
chmod 755 "$cluster"
cleanup() {
  if [[ -f $cluster/data/postmaster.pid ]]; then server_stop "$cluster" immediate; fi
  rm -rf "$cluster"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
[[ $(id -u) -eq 0 ]] && chown "$owner" "$cluster"

echo "oltp: PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') cluster in $cluster" >&2
"${as_owner[@]}" "$pg_bin/initdb" -D "$cluster/data" -U postgres -A trust --no-sync --no-locale \
  -E UTF8 >"$cluster/initdb.log" 2>&1 || sample_die "initdb failed: $(tail -3 "$cluster/initdb.log")"
server_start "$cluster"
"$pgbench" -h "$cluster" -p 5432 -U postgres -i -q -s "$scale" postgres >"$cluster/init.log" 2>&1 ||
  sample_die "pgbench -i failed: $(tail -3 "$cluster/init.log")"

if [[ -n $record ]]; then
  server_stop "$cluster"
  read -ra recorder <<<"$record"
  "${recorder[@]}" -- "$0" --seconds "$seconds" --clients "$clients" --phase-run "$cluster"
elif [[ -n $kprof_out ]]; then
  server_stop "$cluster"
  kprof_out=$(abs_path "$kprof_out")
  "$(find_kprof)" record -o "$kprof_out" -- "$0" --seconds "$seconds" --clients "$clients" \
    --phase-run "$cluster"
else
  bench "$cluster" >"$cluster/pgbench.out" 2>&1 || { cat "$cluster/pgbench.out" >&2; exit 1; }
fi

tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$cluster/pgbench.out" | tail -1)
[[ -n $tps ]] || { cat "$cluster/pgbench.out" >&2; sample_die "no tps in pgbench's output"; }
grep -E '^(number of transactions actually processed|latency average)' "$cluster/pgbench.out" >&2 || true
echo "tps=$tps"
if [[ -n $kprof_out ]]; then
  echo "tps=$tps" >"$kprof_out.tps"
  echo "oltp: profile $kprof_out, score in $kprof_out.tps" >&2
fi
