#!/usr/bin/env bash
# Joins (issue 31), tidepool beside PostgreSQL 15 in one run: tables o (ROWS orders: id
# with an index, cust, amount numeric), c (ROWS / 10 customers: cid with a unique index,
# name text, region) and s (ROWS shipments: id with an index, score), loaded by the same
# INSERT ... SELECT in both; serial in both (tidepool plans joins serially).
#   hash join:    SELECT o.id, c.name FROM o JOIN c ON o.cust = c.cid WHERE c.region < 50
#   top 1000:     the join ORDER BY o.cust, o.id LIMIT 1000
#   small range:  the join WHERE o.id < 20000
#   nested loop:  the join WHERE o.id <= ROWS / 10, hash and merge joins off (a Nested
#                 Loop over ROWS / 10 outer rows, each looking c up by its index)
#   merge join:   SELECT o.amount, s.score FROM o JOIN s ON o.id = s.id, hash join off
#                 (a Merge Join of two index scans of ROWS rows)
# Cached: each query's median of 5 EXPLAIN (ANALYZE, TIMING OFF) Execution Times after
# a warming run, shared_buffers 2GB. Cold: each query once in a fresh tidepool process
# (an empty pool) under io_direct = on, io_uring and index_prefetch = on (direct I/O has
# no kernel read-ahead: the index scans' own look-ahead takes its place), against
# PostgreSQL restarted with the kernel's page cache dropped (PostgreSQL 15 has no direct
# I/O; its index scans read through the kernel's read-ahead), median of 3. Both
# systems' rows are compared (sorted, by digest) and so are their plans (EXPLAIN COSTS
# OFF). Needs root (PostgreSQL runs as the postgres user; dropping caches), postgresql-15.
#
#   bench/join_bench.sh [ROWS] [DIR]     defaults 1,000,000 and a scratch directory
set -euo pipefail
rows=${1:-1000000}
dir=${2:-$(mktemp -d /tmp/join-bench.XXXXXX)}
root=$(cd "$(dirname "$0")/.." && pwd)
pg_buffers=2GB
mkdir -p "$dir"
chmod 755 "$dir"
# shellcheck source=bench/pg_lib.sh
. "$root/bench/pg_lib.sh"
pg_check

machine_line
pg_create

customers=$((rows / 10))
setup="CREATE TABLE o (id int, cust int, amount numeric(12,2));
CREATE TABLE c (cid int, name text, region int);
CREATE TABLE s (id int, score int);
INSERT INTO o SELECT i, (i::bigint * 7919) % $customers, (i % 10000) * 0.01 FROM generate_series(1, $rows) i;
INSERT INTO c SELECT i, 'customer ' || i, i % 100 FROM generate_series(0, $customers - 1) i;
INSERT INTO s SELECT i, i % 977 FROM generate_series(1, $rows) i;
CREATE UNIQUE INDEX c_cid ON c (cid);
CREATE INDEX o_id ON o (id);
CREATE INDEX s_id ON s (id);"
psql_run -c "$setup" -c "VACUUM ANALYZE o" -c "VACUUM ANALYZE c" -c "VACUUM ANALYZE s" >/dev/null
"$bin" sql -D "$tpdir" -c "$setup" -c "VACUUM ANALYZE o" -c "VACUUM ANALYZE c" \
  -c "VACUUM ANALYZE s" >/dev/null
echo "tables: o $rows rows, c $customers rows, s $rows rows"

join="SELECT o.id, c.name FROM o JOIN c ON o.cust = c.cid"
names=("hash join" "top 1000" "small range" "nested loop" "merge join")
queries=("$join WHERE c.region < 50"
  "$join ORDER BY o.cust, o.id LIMIT 1000"
  "$join WHERE o.id < 20000"
  "$join WHERE o.id <= $customers"
  "SELECT o.amount, s.score FROM o JOIN s ON o.id = s.id")
# Each query's settings, as -c arguments: SETs separated by ';'.
settings=("" "" "" "SET enable_hashjoin = off;SET enable_mergejoin = off" "SET enable_hashjoin = off")
sets() {
  local -a out=(-c "SET max_parallel_workers_per_gather = 0")
  local s
  IFS=';' read -ra parts <<<"$1"
  for s in "${parts[@]}"; do out+=(-c "$s"); done
  printf '%s\0' "${out[@]}"
}
tp_run() { "$bin" sql -D "$tpdir" -At "$@" | grep -v '^SET$' || true; }
cold_pg() {
  pg_stop
  sync
  echo 3 >/proc/sys/vm/drop_caches
  pg_start
  psql_run "$@" | exec_ms
}

declare -a plan_of
echo
echo "Cached:"
echo
echo "| query | plan | tidepool | PostgreSQL 15 | ratio |"
echo "|---|---|---|---|---|"
for i in "${!queries[@]}"; do
  q=${queries[$i]}
  mapfile -d '' set_args < <(sets "${settings[$i]}")
  runs=()
  for _ in 1 2 3 4 5; do runs+=(-c "EXPLAIN (ANALYZE, TIMING OFF) $q"); done
  want=$(psql_run "${set_args[@]}" -c "$q" | sort | md5sum)
  got=$(tp_run --set shared_buffers=2GB "${set_args[@]}" -c "$q" | sort | md5sum)
  [ "$got" = "$want" ] || { echo "${names[$i]}: tidepool's rows differ from PostgreSQL's" >&2; exit 1; }
  pg_plan=$(psql_run "${set_args[@]}" -c "EXPLAIN (COSTS OFF) $q")
  tp_plan=$(tp_run "${set_args[@]}" -c "EXPLAIN (COSTS OFF) $q")
  plan=$(echo "$pg_plan" | grep -o '[A-Z][A-Za-z ]*\(Join\|Loop\)' | head -1)
  [ "$pg_plan" = "$tp_plan" ] || plan="$plan (tidepool's plan differs: $(echo "$tp_plan" | head -1))"
  plan_of[$i]=$plan
  tp=$(tp_run --set shared_buffers=2GB "${set_args[@]}" -c "$q" "${runs[@]}" | exec_ms | median)
  pgms=$(psql_run "${set_args[@]}" -c "$q" "${runs[@]}" | exec_ms | median)
  printf '| %s | %s | %.1f ms | %.1f ms | %.2fx |\n' "${names[$i]}" "$plan" "$tp" "$pgms" \
    "$(echo "$pgms / $tp" | bc -l)"
done

echo
echo "Cold (tidepool: io_direct = on, io_uring, index_prefetch = on, a fresh pool; PostgreSQL: restarted, page cache dropped):"
echo
echo "| query | plan | tidepool | PostgreSQL 15 | ratio |"
echo "|---|---|---|---|---|"
for i in "${!queries[@]}"; do
  q=${queries[$i]}
  mapfile -d '' set_args < <(sets "${settings[$i]}")
  tp_times=() pg_times=()
  for _ in 1 2 3; do
    tp_times+=("$(tp_run --set shared_buffers=2GB --set io_direct=on --set io_method=io_uring \
      "${set_args[@]}" -c "SET index_prefetch = on" -c "EXPLAIN (ANALYZE, TIMING OFF) $q" | exec_ms)")
    pg_times+=("$(cold_pg "${set_args[@]}" -c "EXPLAIN (ANALYZE, TIMING OFF) $q")")
  done
  tp=$(printf '%s\n' "${tp_times[@]}" | median)
  pgms=$(printf '%s\n' "${pg_times[@]}" | median)
  printf '| %s | %s | %.1f ms | %.1f ms | %.2fx |\n' "${names[$i]}" "${plan_of[$i]}" "$tp" \
    "$pgms" "$(echo "$pgms / $tp" | bc -l)"
done
