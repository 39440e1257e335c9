#!/usr/bin/env bash
# GROUP BY (issue 31), tidepool beside PostgreSQL 15 in one run: a cached table of ROWS
# rows (int k, its group g = k % 1000, numeric price, a text label of 1,000 values),
# loaded by the same INSERT ... SELECT in both; each query's median of 5 EXPLAIN
# (ANALYZE, TIMING OFF) Execution Times after a warming run, shared_buffers 2GB in
# both, first with no parallel workers (one core each), then with PostgreSQL's default
# of 2 per Gather (Finalize over Partial aggregation in both). Both systems' groups are
# compared, sorted.
#   int keys:      SELECT g, count(*), sum(k) FROM t GROUP BY g
#   text keys:     SELECT label, sum(price), avg(price) FROM t GROUP BY label
#   having, top:   SELECT g, max(price) FROM t GROUP BY g HAVING count(*) > 5 ORDER BY 2 DESC, 1 LIMIT 10
# Needs root (PostgreSQL runs as the postgres user), postgresql-15.
#
#   bench/grouping_bench.sh [ROWS] [DIR]     defaults 10,000,000 and a scratch directory
set -euo pipefail
rows=${1:-10000000}
dir=${2:-$(mktemp -d /tmp/grouping-bench.XXXXXX)}
root=$(cd "$(dirname "$0")/.." && pwd)
pg_buffers=2GB
mkdir -p "$dir"
chmod 755 "$dir"
# shellcheck source=bench/pg_lib.sh
. "$root/bench/pg_lib.sh"
pg_check

machine_line
pg_create

setup="CREATE TABLE t (k int, g int, price numeric(15,2), label text);
INSERT INTO t SELECT i, i % 1000, (i % 100000) * 0.37, 'label ' || (i % 1000)
  FROM generate_series(1, $rows) i;"
psql_run -c "$setup" -c "VACUUM ANALYZE t" >/dev/null
"$bin" sql -D "$tpdir" -c "$setup" -c "ANALYZE t" >/dev/null
echo "table: $rows rows into 1,000 groups"

names=("int keys" "text keys" "having, top")
queries=("SELECT g, count(*), sum(k) FROM t GROUP BY g"
  "SELECT label, sum(price), avg(price) FROM t GROUP BY label"
  "SELECT g, max(price) FROM t GROUP BY g HAVING count(*) > 5 ORDER BY 2 DESC, 1 LIMIT 10")
for workers in 0 2; do
  echo
  echo "max_parallel_workers_per_gather = $workers"
  echo
  echo "| query | tidepool | PostgreSQL 15 | tidepool rows/s | PostgreSQL rows/s | ratio |"
  echo "|---|---|---|---|---|---|"
  for i in "${!queries[@]}"; do
    q=${queries[$i]}
    set_workers="SET max_parallel_workers_per_gather = $workers"
    runs=()
    for _ in 1 2 3 4 5; do runs+=(-c "EXPLAIN (ANALYZE, TIMING OFF) $q"); done
    want=$(psql_run -c "$set_workers" -c "$q" | sort)
    got=$("$bin" sql -D "$tpdir" -At --set shared_buffers=2GB -c "$set_workers" -c "$q" |
      grep -v '^SET$' | sort)
    [ "$got" = "$want" ] || { echo "${names[$i]}: tidepool's groups differ from PostgreSQL's" >&2; exit 1; }
    tp=$("$bin" sql -D "$tpdir" -At --set shared_buffers=2GB -c "$set_workers" -c "$q" "${runs[@]}" |
      exec_ms | median)
    pgms=$(psql_run -c "$set_workers" -c "$q" "${runs[@]}" | exec_ms | median)
    printf '| %s | %.1f ms | %.1f ms | %.1f M | %.1f M | %.2fx |\n' "${names[$i]}" "$tp" "$pgms" \
      "$(echo "$rows / $tp / 1000" | bc -l)" "$(echo "$rows / $pgms / 1000" | bc -l)" \
      "$(echo "$pgms / $tp" | bc -l)"
  done
done
