#!/usr/bin/env bash
# Issue 33, item 3: COPY FROM through psql's \copy, tidepool beside PostgreSQL 15, and
# tidepool's COPY beside its own INSERT ... SELECT of the same rows (the rate COPY is to
# reach). One text file of ROWS rows `(int, int, text)`; each round loads it into an
# empty table on both servers over TCP on loopback, then tidepool makes the same rows
# with generate_series; every load is counted back. Prints the best time of each and
# the two ratios.
#
#   bench/copy_bench.sh [DIR]
#     ROWS=10000000, ROUNDS=2 (alternations). Needs root (PostgreSQL runs as postgres).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-./bench-copy-data}
rows=${ROWS:-10000000}
rounds=${ROUNDS:-2}
pg_buffers=1GB
rm -rf "$dir"
mkdir -p "$dir"
. "$root/bench/pg_lib.sh"
pg_check
work=$dir/work
mkdir -p "$work"

pg_and_tidepool_on_loopback

file=$work/rows.txt
awk -v n="$rows" 'BEGIN { for (i = 1; i <= n; i++) printf "%d\t%d\tfiller-%d\n", i, i % 1000, i }' >"$file"
tp() { psql -X -q -At -h 127.0.0.1 -p "$tp_port" -U tidepool tidepool "$@"; }
pgq() { psql -X -q -At -h 127.0.0.1 -p "$pg_port" -U postgres postgres "$@"; }
tp -c "CREATE TABLE t (a int, b int, c text)"
pgq -c "CREATE TABLE t (a int, b int, c text)"

# seconds CLIENT STATEMENT: the statement's wall time, after emptying t; checks the count.
seconds() {
  local client=$1 statement=$2 start end count
  "$client" -c "TRUNCATE t"
  start=$(date +%s.%N)
  "$client" -c "$statement"
  end=$(date +%s.%N)
  count=$("$client" -c "SELECT count(*) FROM t")
  [ "$count" = "$rows" ] || { echo "$client loaded $count rows, not $rows" >&2; exit 1; }
  echo "$end - $start" | bc -l
}
best() { sort -n | head -1; }

machine_line
echo "$rows rows (int, int, text), $(du -m "$file" | cut -f1) MB of text; best of $rounds alternated"
tp_copy=() pg_copy=() tp_insert=()
for _ in $(seq 1 "$rounds"); do
  tp_copy+=("$(seconds tp "\\copy t FROM '$file'")")
  pg_copy+=("$(seconds pgq "\\copy t FROM '$file'")")
  tp_insert+=("$(seconds tp "INSERT INTO t SELECT i, i % 1000, 'filler-' || i FROM generate_series(1, $rows) s(i)")")
done
runs() { printf ' %.2f' "$@"; }
echo "runs (s): tidepool COPY$(runs "${tp_copy[@]}"); PostgreSQL COPY$(runs "${pg_copy[@]}");" \
  "INSERT ... SELECT$(runs "${tp_insert[@]}")"
c=$(printf '%s\n' "${tp_copy[@]}" | best)
p=$(printf '%s\n' "${pg_copy[@]}" | best)
i=$(printf '%s\n' "${tp_insert[@]}" | best)
printf 'COPY FROM: tidepool %.2f s, PostgreSQL 15 %.2f s: tidepool %.2fx as fast\n' "$c" "$p" "$(echo "$p / $c" | bc -l)"
printf "tidepool's INSERT ... SELECT of the same rows %.2f s: COPY at %.2fx its rate\n" "$i" "$(echo "$i / $c" | bc -l)"
