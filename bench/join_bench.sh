#!/usr/bin/env bash
# Joins (issue 31), tidepool beside PostgreSQL 15 in one run: cached tables o (ROWS
# orders: id, cust, amount numeric) and c (ROWS / 10 customers: cid with a unique index,
# name text, region), loaded by the same INSERT ... SELECT in both; each query's median
# of 5 EXPLAIN (ANALYZE, TIMING OFF) Execution Times after a warming run, shared_buffers
# 2GB and no parallel workers in both (tidepool plans joins serially). Both systems'
# rows are compared (sorted, by digest) and so are their plans (EXPLAIN COSTS OFF).
#   hash join:       SELECT o.id, c.name FROM o JOIN c ON o.cust = c.cid WHERE c.region < 50
#   merge join:      SELECT o.id, c.name FROM o JOIN c ON o.cust = c.cid ORDER BY o.cust LIMIT 1000
#   index loop:      SELECT o.id, c.name FROM o JOIN c ON o.cust = c.cid WHERE o.id < 20000
# Needs root (PostgreSQL runs as the postgres user), postgresql-15.
#
#   bench/join_bench.sh [ROWS] [DIR]     defaults 2,000,000 and a scratch directory
set -euo pipefail
rows=${1:-2000000}
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
INSERT INTO o SELECT i, (i::bigint * 7919) % $customers, (i % 10000) * 0.01 FROM generate_series(1, $rows) i;
INSERT INTO c SELECT i, 'customer ' || i, i % 100 FROM generate_series(0, $customers - 1) i;
CREATE UNIQUE INDEX c_cid ON c (cid);
CREATE INDEX o_id ON o (id);"
psql_run -c "$setup" -c "VACUUM ANALYZE o" -c "VACUUM ANALYZE c" >/dev/null
"$bin" sql -D "$tpdir" -c "$setup" -c "VACUUM ANALYZE o" -c "VACUUM ANALYZE c" >/dev/null
echo "tables: o $rows rows, c $customers rows"

names=("hash join" "merge join" "index loop")
queries=("SELECT o.id, c.name FROM o JOIN c ON o.cust = c.cid WHERE c.region < 50"
  "SELECT o.id, c.name FROM o JOIN c ON o.cust = c.cid ORDER BY o.cust, o.id LIMIT 1000"
  "SELECT o.id, c.name FROM o JOIN c ON o.cust = c.cid WHERE o.id < 20000")
serial="SET max_parallel_workers_per_gather = 0"
echo
echo "| query | plan | tidepool | PostgreSQL 15 | ratio |"
echo "|---|---|---|---|---|"
for i in "${!queries[@]}"; do
  q=${queries[$i]}
  runs=()
  for _ in 1 2 3 4 5; do runs+=(-c "EXPLAIN (ANALYZE, TIMING OFF) $q"); done
  want=$(psql_run -c "$serial" -c "$q" | sort | md5sum)
  got=$("$bin" sql -D "$tpdir" -At --set shared_buffers=2GB -c "$serial" -c "$q" |
    grep -v '^SET$' | sort | md5sum)
  [ "$got" = "$want" ] || { echo "${names[$i]}: tidepool's rows differ from PostgreSQL's" >&2; exit 1; }
  pg_plan=$(psql_run -c "$serial" -c "EXPLAIN (COSTS OFF) $q")
  tp_plan=$("$bin" sql -D "$tpdir" -At -c "$serial" -c "EXPLAIN (COSTS OFF) $q" | grep -v '^SET$')
  plan=$(echo "$pg_plan" | head -1 | sed 's/ *(.*//; s/^ *//')
  [ "$pg_plan" = "$tp_plan" ] || plan="$plan (tidepool: $(echo "$tp_plan" | head -1))"
  tp=$("$bin" sql -D "$tpdir" -At --set shared_buffers=2GB -c "$serial" -c "$q" "${runs[@]}" |
    exec_ms | median)
  pgms=$(psql_run -c "$serial" -c "$q" "${runs[@]}" | exec_ms | median)
  printf '| %s | %s | %.1f ms | %.1f ms | %.2fx |\n' "${names[$i]}" "$plan" "$tp" "$pgms" \
    "$(echo "$pgms / $tp" | bc -l)"
done
