#!/usr/bin/env bash
# Parallel Index Scan and Parallel Bitmap Heap Scan (issue 30), tidepool beside
# PostgreSQL 15 in one run, with 0, 1 and 2 parallel workers:
#   index:  SELECT sum(c) FROM t WHERE a <= ROWS/2   (Parallel Index Scan on t_a; a = i,
#           so the heap is read in order)
#   bitmap: SELECT sum(c) FROM t WHERE b < 300       (Parallel Bitmap Heap Scan on t_b; b
#           spread over the table, 30% of the rows)
# Plans are forced as the AIO article forces them: enable_seqscan off (and
# enable_bitmapscan / enable_indexscan off for the other), parallel_setup_cost and
# parallel_tuple_cost 0, max_parallel_workers_per_gather and the table's
# parallel_workers = N; each plan's node and Workers Launched are checked, and the sums
# of both systems compared.
#   cached: the median of 5 EXPLAIN (ANALYZE, TIMING OFF) Execution Times after a warming
#           run; shared_buffers 1GB in both.
#   cold:   tidepool in a fresh process with io_direct = on (its pool empty, the kernel's
#           cache not used); PostgreSQL restarted after `echo 3 > /proc/sys/vm/drop_caches`
#           (it reads through the kernel's cache, which starts empty). ROUNDS rounds,
#           medians.
# Needs root (drop_caches; PostgreSQL runs as the postgres user), postgresql-15.
#
#   bench/parallel_index_bench.sh [ROWS] [DIR]     defaults 3,000,000 and a scratch directory
set -euo pipefail
rows=${1:-3000000}
dir=${2:-$(mktemp -d /tmp/parallel-index-bench.XXXXXX)}
rounds=${ROUNDS:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
pg_buffers=1GB
mkdir -p "$dir"
chmod 755 "$dir"
# shellcheck source=bench/pg_lib.sh
. "$root/bench/pg_lib.sh"
pg_check

setup="CREATE TABLE t (a int, b int, c int);
INSERT INTO t SELECT i, i % 1000, i FROM generate_series(1, $rows) s(i);
CREATE INDEX t_a ON t (a); CREATE INDEX t_b ON t (b); ANALYZE t;"
half=$((rows / 2))
declare -A query node forced
query[index]="SELECT sum(c) FROM t WHERE a <= $half"
node[index]="Index Scan using t_a"
forced[index]="SET enable_seqscan = off; SET enable_bitmapscan = off"
query[bitmap]="SELECT sum(c) FROM t WHERE b < 300"
node[bitmap]="Bitmap Heap Scan on t"
forced[bitmap]="SET enable_seqscan = off; SET enable_indexscan = off"
# The settings that make N workers the plan, in either system.
settings() {
  echo "${forced[$1]}; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;"
  echo "SET max_parallel_workers_per_gather = $2;"
  if [ "$2" -eq 0 ]; then echo "ALTER TABLE t RESET (parallel_workers);"
  else echo "ALTER TABLE t SET (parallel_workers = $2);"; fi
}
# Checks a plan ($1) ran `node` with N workers ($3) for query kind $2.
check_plan() {
  local want="${node[$2]}"
  [ "$3" -gt 0 ] && want="Parallel $want"
  echo "$1" | grep -q "$want" || { echo "$2, $3 workers: no \"$want\" in:" >&2; echo "$1" >&2; exit 1; }
  if [ "$3" -gt 0 ]; then
    echo "$1" | grep -q "Workers Launched: $3" || { echo "$2, $3 workers: not all launched" >&2; exit 1; }
  fi
}

machine_line
pg_create
psql_run -c "$setup" >/dev/null
"$bin" sql -D "$tpdir" -c "$setup" >/dev/null
pages=$(psql_run -c "SELECT pg_relation_size('t') / 8192")
echo "table: $rows rows, $pages pages; index: a <= $half, bitmap: b < 300"

declare -A result
for kind in index bitmap; do
  want=$(psql_run -c "SET enable_seqscan = off" -c "${query[$kind]}" | tail -1)
  for n in 0 1 2; do
    runs=()
    for _ in 1 2 3 4 5; do runs+=(-c "EXPLAIN (ANALYZE, TIMING OFF) ${query[$kind]}"); done
    out=$("$bin" sql -D "$tpdir" -At --set shared_buffers=1GB -c "$(settings $kind $n)" \
      -c "${query[$kind]}" -c "${query[$kind]}" "${runs[@]}")
    got=$(echo "$out" | grep -E '^[0-9]+$' | head -1)
    [ "$got" = "$want" ] || { echo "tidepool $kind $n workers: sum $got, PostgreSQL $want" >&2; exit 1; }
    check_plan "$out" "$kind" "$n"
    result[tp/cached/$kind/$n]=$(echo "$out" | exec_ms | median)
    out=$(psql_run -c "$(settings $kind $n)" -c "${query[$kind]}" -c "${query[$kind]}" "${runs[@]}")
    check_plan "$out" "$kind" "$n"
    result[pg/cached/$kind/$n]=$(echo "$out" | exec_ms | median)
  done
done

declare -A samples
for ((r = 1; r <= rounds; r++)); do
  for kind in index bitmap; do
    for n in 0 1 2; do
      out=$("$bin" sql -D "$tpdir" -At --set io_direct=on -c "$(settings $kind $n)" \
        -c "EXPLAIN (ANALYZE, TIMING OFF) ${query[$kind]}")
      check_plan "$out" "$kind" "$n"
      samples[tp/cold/$kind/$n]+="$(echo "$out" | exec_ms) "
      psql_run -c "$(settings $kind $n)" >/dev/null  # the reloption, before the restart
      pg_stop
      sync
      echo 3 > /proc/sys/vm/drop_caches
      pg_start
      out=$(psql_run -c "$(settings $kind $n)" -c "EXPLAIN (ANALYZE, TIMING OFF) ${query[$kind]}")
      check_plan "$out" "$kind" "$n"
      samples[pg/cold/$kind/$n]+="$(echo "$out" | exec_ms) "
    done
  done
done
for key in "${!samples[@]}"; do
  result[$key]=$(echo "${samples[$key]}" | tr ' ' '\n' | grep . | median)
done

echo
echo "| scan | | 0 workers | 1 worker | 2 workers | 1 vs 0 | 2 vs 0 |"
echo "|---|---|---|---|---|---|---|"
for mode in cached cold; do
  for kind in index bitmap; do
    for sys in tp pg; do
      name=tidepool; [ $sys = pg ] && name="PostgreSQL 15"
      r0=${result[$sys/$mode/$kind/0]} r1=${result[$sys/$mode/$kind/1]} r2=${result[$sys/$mode/$kind/2]}
      printf '| %s %s | %s | %.1f ms | %.1f ms | %.1f ms | %.2fx | %.2fx |\n' "$mode" "$kind" "$name" \
        "$r0" "$r1" "$r2" "$(echo "$r0 / $r1" | bc -l)" "$(echo "$r0 / $r2" | bc -l)"
    done
  done
done
echo
for mode in cached cold; do
  for kind in index bitmap; do
    printf '%s %s, tidepool / PostgreSQL time:' "$mode" "$kind"
    for n in 0 1 2; do
      printf ' %d workers %.2f;' "$n" "$(echo "${result[tp/$mode/$kind/$n]} / ${result[pg/$mode/$kind/$n]}" | bc -l)"
    done
    echo
  done
done
