#!/usr/bin/env bash
# Issue 33, item 7: `tidepool serve` beside PostgreSQL 15 under pgbench, cached, both over
# TCP on loopback, the two servers alternated run by run:
#   - pgbench's built-in select-only script (`-S`) on `pgbench -i -s SCALE` tables;
#   - a primary-key lookup script (`SELECT a, b FROM t WHERE a = :id`, ROWS rows);
# each with `-M simple` and `-M prepared` (a prepared statement per query: tidepool's
# plan cache runs the generic plan's tree again, as PostgreSQL does), 1, 2 and 8 clients,
# transactions per second after a warming run. Every run must report 0 failed
# transactions. Prints one line per case: both figures and tidepool's ratio.
#
#   bench/clients_bench.sh [DIR]
#     SCALE=10 (pgbench -i -s), ROWS=200000 (the lookup table, fillfactor 10),
#     SECONDS_PER_RUN=10, CLIENTS="1 2 8", ROUNDS=2 (alternations; the best of each
#     system's runs is reported). Needs root (PostgreSQL runs as postgres).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-./bench-clients-data}
scale=${SCALE:-10}
rows=${ROWS:-200000}
seconds=${SECONDS_PER_RUN:-10}
clients=${CLIENTS:-1 2 8}
rounds=${ROUNDS:-2}
pg_buffers=256MB
rm -rf "$dir"
mkdir -p "$dir"
. "$root/bench/pg_lib.sh"
pg_check
pgbench=$pg/pgbench
work=$dir/work
mkdir -p "$work"
cores=$(nproc)

pg_and_tidepool_on_loopback -c max_connections=40 -- --max-connections 40

setup=(-c "CREATE TABLE t (a int PRIMARY KEY, b int) WITH (fillfactor = 10)"
  -c "INSERT INTO t SELECT i, i FROM generate_series(1, $rows) s(i)" -c "VACUUM ANALYZE t")
"$pgbench" -i -q -s "$scale" -h 127.0.0.1 -p "$pg_port" -U postgres postgres >/dev/null 2>&1
"$pgbench" -i -q -s "$scale" -h 127.0.0.1 -p "$tp_port" -U tidepool tidepool >/dev/null 2>&1
psql -X -q -h 127.0.0.1 -p "$pg_port" -U postgres postgres "${setup[@]}" >/dev/null
psql -X -q -h 127.0.0.1 -p "$tp_port" -U tidepool tidepool "${setup[@]}" >/dev/null
printf '\\set id random(1, %d)\nSELECT a, b FROM t WHERE a = :id;\n' "$rows" >"$work/lookup.sql"

# tps PORT USER DB MODE CLIENTS ARGS...: pgbench's tps; fails on any failed transaction.
tps() {
  local port=$1 user=$2 db=$3 mode=$4 c=$5 jobs out failed
  shift 5
  jobs=$((c < cores ? c : cores))
  out=$(PGCONNECT_TIMEOUT=10 timeout $((seconds + 120)) "$pgbench" -n -M "$mode" -c "$c" -j "$jobs" \
    -T "$seconds" -h 127.0.0.1 -p "$port" -U "$user" "$@" "$db" 2>&1) || { echo "$out" >&2; exit 1; }
  failed=$(echo "$out" | sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p')
  [ "${failed:-0}" = 0 ] || { echo "$out" >&2; exit 1; }
  echo "$out" | sed -n 's/^tps = \([0-9.]*\) .*/\1/p'
}
best() { sort -n | tail -1; }

machine_line
echo "pgbench -S at scale $scale; lookups over $rows rows (fillfactor 10); ${seconds} s a run, best of $rounds alternated"
tps "$pg_port" postgres postgres prepared 4 -S >/dev/null  # warm both pools
tps "$tp_port" tidepool tidepool prepared 4 -S >/dev/null
tps "$pg_port" postgres postgres prepared 4 -f "$work/lookup.sql" >/dev/null
tps "$tp_port" tidepool tidepool prepared 4 -f "$work/lookup.sql" >/dev/null
for workload in select-only lookup; do
  if [ "$workload" = select-only ]; then args=(-S); else args=(-f "$work/lookup.sql"); fi
  for mode in simple prepared; do
    for c in $clients; do
      pg_runs=() tp_runs=()
      for _ in $(seq 1 "$rounds"); do
        pg_runs+=("$(tps "$pg_port" postgres postgres "$mode" "$c" "${args[@]}")")
        tp_runs+=("$(tps "$tp_port" tidepool tidepool "$mode" "$c" "${args[@]}")")
      done
      pg_tps=$(printf '%s\n' "${pg_runs[@]}" | best)
      tp_tps=$(printf '%s\n' "${tp_runs[@]}" | best)
      printf '%-11s -M %-8s %d clients: tidepool %8.0f tps, PostgreSQL 15 %8.0f tps: %.2fx\n' \
        "$workload" "$mode" "$c" "$tp_tps" "$pg_tps" "$(echo "$tp_tps / $pg_tps" | bc -l)"
    done
  done
done
