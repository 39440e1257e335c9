#!/usr/bin/env bash
# Load figures of `tidepool serve` (issue 13, item 7), with pgbench as the client:
#   1. cached: select-only point lookups by primary key (`\set id random(1, ROWS)`,
#      `SELECT a, b FROM t WHERE a = :id`) on a table that fits the pool, with 1, 2,
#      4, 8 and 16 clients (`pgbench -n -M simple -f ... -c N -j min(N, cores) -T SECONDS`),
#      transactions per second after a warming run;
#   2. cold: the same lookups on a table four times the pool (the pool holds a quarter
#      of its pages, so most lookups read a heap page, and some index pages, from the
#      kernel's page cache);
#   3. protocol overhead: the cached lookups in one `tidepool sql -f` session (no
#      server, no sockets), queries per second, against pgbench's 1-client figure.
# Every run checks pgbench's "number of failed transactions" is 0; the server runs on
# 127.0.0.1 on a free port and is always stopped.
#
#   bench/server_bench.sh [ROWS] [DIR]
#     defaults 1,000,000 rows (cached; 4,425 pages, 35 MB, shared_buffers 256MB) and
#     ./bench-server-data; SECONDS_PER_RUN=N (default 20); CLIENTS="1 2 4 8 16";
#     COLD_POOL=16MB (the cold table is sized to 4x it).
set -euo pipefail
rows=${1:-1000000}
dir=${2:-./bench-server-data}
seconds=${SECONDS_PER_RUN:-20}
clients=${CLIENTS:-1 2 4 8 16}
cold_pool_mb=${COLD_POOL:-16}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${TIDEPOOL_BIN:-$root/build/bin/tidepool}
pgbench=${PGBENCH:-/usr/lib/postgresql/15/bin/pgbench}
[ -x "$bin" ] || { echo "build first: tools/reproduce or cmake --build build" >&2; exit 1; }
[ -x "$pgbench" ] || { echo "pgbench is missing: tools/install-deps" >&2; exit 1; }
cores=$(nproc)
work=$(mktemp -d)
. "$root/bench/server_lib.sh"
trap 'stop_server; rm -rf "$work" "$dir"' EXIT

# bench_tps SCRIPT CLIENTS SECONDS: pgbench's tps; fails on any failed transaction.
bench_tps() {
  local jobs=$(($2 < cores ? $2 : cores)) out failed
  out=$(PGCONNECT_TIMEOUT=10 timeout $(($3 + 120)) "$pgbench" -n -M simple -f "$1" -c "$2" -j "$jobs" \
    -T "$3" -h 127.0.0.1 -p "$port" -U tidepool tidepool 2>&1) || { echo "$out" >&2; exit 1; }
  failed=$(echo "$out" | sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p')
  [ "${failed:-0}" = 0 ] || { echo "$out" >&2; echo "$failed failed transactions" >&2; exit 1; }
  echo "$out" | sed -n 's/^tps = \([0-9.]*\) .*/\1/p'
}
# lookups TABLE N: the pgbench script of point lookups over ids 1..N.
lookups() {
  printf '\\set id random(1, %d)\nSELECT a, b FROM %s WHERE a = :id;\n' "$2" "$1" >"$work/$1.sql"
  echo "$work/$1.sql"
}

echo "machine: $cores cores, kernel $(uname -r), tidepool $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'), $("$pgbench" --version)"

# ---- 1. cached
rm -rf "$dir"
"$bin" sql -D "$dir" -c "CREATE TABLE t (a int PRIMARY KEY, b int); INSERT INTO t SELECT i, i FROM generate_series(1, $rows) s(i); VACUUM ANALYZE t;" >/dev/null
script=$(lookups t "$rows")
start_server --set shared_buffers=256MB --max-connections 32
bench_tps "$script" 4 5 >/dev/null  # warm the pool
declare -A cached
for c in $clients; do
  cached[$c]=$(bench_tps "$script" "$c" "$seconds")
  printf 'cached point lookups, %2d clients: %9.0f tps\n' "$c" "${cached[$c]}"
done
stop_server

# ---- 3. the same lookups in one tidepool sql session
n=$((seconds * 2000))
python3 -c "
import random
random.seed(1)
for _ in range($n): print('SELECT a, b FROM t WHERE a = %d;' % random.randint(1, $rows))" >"$work/lookups.sql"
"$bin" sql -D "$dir" --set shared_buffers=256MB -c "SELECT count(*) FROM t" >/dev/null
start_ns=$(date +%s%N)
"$bin" sql -D "$dir" -At --set shared_buffers=256MB -c "SELECT count(*) FROM t WHERE a > 0" -f "$work/lookups.sql" >"$work/lookups.out"
elapsed_ns=$(($(date +%s%N) - start_ns))
got=$(wc -l <"$work/lookups.out")
[ "$got" -eq $((n + 1)) ] || { echo "tidepool sql printed $got lines, not $((n + 1))" >&2; exit 1; }
local_qps=$(echo "$n / ($elapsed_ns / 1000000000)" | bc -l)
first=$(echo "$clients" | awk '{print $1}')
printf 'one tidepool sql session:            %9.0f queries/s (%d lookups, process start and a warming count included); pgbench %d client: %.2fx of it\n' \
  "$local_qps" "$n" "$first" "$(echo "${cached[$first]} / $local_qps" | bc -l)"

# ---- 2. cold: a table four times the pool
rm -rf "$dir"
pool_pages=$((cold_pool_mb * 128))
cold_rows=$((pool_pages * 4 * 22))  # fillfactor 10: 22 rows a page
"$bin" sql -D "$dir" -c "CREATE TABLE big (a int PRIMARY KEY, b int) WITH (fillfactor = 10); INSERT INTO big SELECT i, i FROM generate_series(1, $cold_rows) s(i) ORDER BY random(); VACUUM ANALYZE big;" >/dev/null
echo "cold table: $cold_rows rows, $((pool_pages * 4)) heap pages, shared_buffers ${cold_pool_mb}MB"
script=$(lookups big "$cold_rows")
start_server --set shared_buffers=${cold_pool_mb}MB --max-connections 32
bench_tps "$script" 4 5 >/dev/null
for c in $clients; do
  printf 'pool-missing point lookups, %2d clients: %9.0f tps\n' "$c" "$(bench_tps "$script" "$c" "$seconds")"
done
stop_server
