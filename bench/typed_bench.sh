#!/usr/bin/env bash
# Cached scans over typed columns (issue 32), tidepool beside PostgreSQL 15 in one run:
# a table of ROWS rows (int, numeric(15,2) price and discount, text label, date), loaded
# by the same INSERT ... SELECT in both, then each query's median of 5 EXPLAIN (ANALYZE,
# TIMING OFF) Execution Times after a warming run, with no parallel workers (one core
# each) and shared_buffers 2GB in both; both systems' answers compared.
#   text qual:     SELECT count(*) FROM li WHERE label LIKE 'item 1%'
#   numeric expr:  SELECT sum(price * (1 - disc)) FROM li
#   numeric sums:  SELECT sum(price), avg(disc) FROM li
#   text max:      SELECT max(label) FROM li
# and CREATE INDEX on the text column and on the int column: the median of 3 builds
# (each dropped after), one process each, PostgreSQL with max_parallel_maintenance_workers
# = 0 and its default maintenance_work_mem (64 MB: an external sort, faster on this
# machine than its in-memory sort with 1 GB), tidepool sorting in memory.
# Needs root (PostgreSQL runs as the postgres user), postgresql-15.
#
#   bench/typed_bench.sh [ROWS] [DIR]     defaults 10,000,000 and a scratch directory
set -euo pipefail
rows=${1:-10000000}
dir=${2:-$(mktemp -d /tmp/typed-bench.XXXXXX)}
root=$(cd "$(dirname "$0")/.." && pwd)
pg_buffers=2GB
mkdir -p "$dir"
chmod 755 "$dir"
# shellcheck source=bench/pg_lib.sh
. "$root/bench/pg_lib.sh"
pg_check

machine_line
pg_create

setup="CREATE TABLE li (k int, price numeric(15,2), disc numeric(15,2), label text, shipdate date);
INSERT INTO li SELECT g, (g % 100000) * 0.37, (g % 11) * 0.01, 'item ' || (g % 50000),
  date '1992-01-01' + g % 2500 FROM generate_series(1, $rows) g;"
psql_run -c "$setup" -c "VACUUM li" >/dev/null
"$bin" sql -D "$tpdir" -c "$setup" >/dev/null
echo "table: $rows rows; PostgreSQL $(psql_run -c "SELECT pg_relation_size('li') / 8192") pages, tidepool $("$bin" sql -D "$tpdir" -At -c "SELECT pg_relation_size('li') / 8192") pages"

names=("text qual" "numeric expr" "numeric sums" "text max")
queries=("SELECT count(*) FROM li WHERE label LIKE 'item 1%'"
  "SELECT sum(price * (1 - disc)) FROM li"
  "SELECT sum(price), avg(disc) FROM li"
  "SELECT max(label) FROM li")
echo
echo "| query | tidepool | PostgreSQL 15 | tidepool rows/s | PostgreSQL rows/s | ratio |"
echo "|---|---|---|---|---|---|"
for i in "${!queries[@]}"; do
  q=${queries[$i]}
  runs=()
  for _ in 1 2 3 4 5; do runs+=(-c "EXPLAIN (ANALYZE, TIMING OFF) $q"); done
  want=$(psql_run -c "$q")
  out=$("$bin" sql -D "$tpdir" -At --set shared_buffers=2GB -c "SET max_parallel_workers_per_gather = 0" \
    -c "$q" "${runs[@]}")
  got=$(echo "$out" | sed -n 2p)
  [ "$got" = "$want" ] || { echo "${names[$i]}: tidepool $got, PostgreSQL $want" >&2; exit 1; }
  tp=$(echo "$out" | exec_ms | median)
  pgms=$(psql_run -c "SET max_parallel_workers_per_gather = 0" -c "$q" "${runs[@]}" | exec_ms | median)
  printf '| %s | %.1f ms | %.1f ms | %.1f M | %.1f M | %.2fx |\n' "${names[$i]}" "$tp" "$pgms" \
    "$(echo "$rows / $tp / 1000" | bc -l)" "$(echo "$rows / $pgms / 1000" | bc -l)" \
    "$(echo "$pgms / $tp" | bc -l)"
done

# Index builds: "Time:" lines of the CREATE INDEX statements (odd lines; DROP's are even).
build_ms() { sed -n 's/^Time: \([0-9.]*\) ms.*$/\1/p' | awk 'NR % 2 == 1'; }
echo
echo "| index build | tidepool | PostgreSQL 15 | tidepool rows/s | PostgreSQL rows/s | ratio |"
echo "|---|---|---|---|---|---|"
for col in label k; do
  stmts=()
  for _ in 1 2 3; do stmts+=(-c "CREATE INDEX li_build ON li ($col)" -c "DROP INDEX li_build"); done
  tp=$("$bin" sql -D "$tpdir" -At --set shared_buffers=2GB -c "SELECT count(*) FROM li" \
    -c '\timing on' "${stmts[@]}" | build_ms | median)
  pgms=$(psql_run -c "SET max_parallel_maintenance_workers = 0" -c "SELECT count(*) FROM li" \
    -c '\timing on' "${stmts[@]}" | build_ms | median)
  printf '| `CREATE INDEX ON li (%s)` | %.0f ms | %.0f ms | %.1f M | %.1f M | %.2fx |\n' "$col" "$tp" \
    "$pgms" "$(echo "$rows / $tp / 1000" | bc -l)" "$(echo "$rows / $pgms / 1000" | bc -l)" \
    "$(echo "$pgms / $tp" | bc -l)"
done
