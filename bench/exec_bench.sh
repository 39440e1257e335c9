#!/usr/bin/env bash
# Query execution figures (issue 5), all through `tidepool sql`:
#   1. cached, one thread: seq scan count(*) with a one-column qual, index scan,
#      bitmap heap scan (rows/s from EXPLAIN (ANALYZE, TIMING OFF)'s Execution Time);
#   2. cold, direct I/O: a full index scan of a shuffled table with index_prefetch
#      off and on at effective_io_concurrency 1, 8, 32, 128, each against fio's
#      random 8 kB O_DIRECT read rate at the same depth on the same file. The pool is
#      1 MB (128 pages), so nearly every row of the shuffled table is a heap read.
#
#   bench/exec_bench.sh [CACHED_ROWS] [COLD_ROWS] [DIR]   (defaults 10,000,000 and 100,000)
set -euo pipefail
cached_rows=${1:-10000000}
cold_rows=${2:-100000}
dir=${3:-./bench-exec-data}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${TIDEPOOL_BIN:-$root/build/bin/tidepool}
[ -x "$bin" ] || { echo "build first: tools/reproduce or cmake --build build" >&2; exit 1; }
command -v fio >/dev/null || { echo "fio is missing: tools/install-deps" >&2; exit 1; }

exec_ms() {  # SQL... -> Execution Time of the last EXPLAIN, in ms
  "$bin" sql -D "$dir" -At "$@" | sed -n 's/^Execution Time: \([0-9.]*\) ms$/\1/p' | tail -1
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# ---- 1. cached
rm -rf "$dir"
"$bin" sql -D "$dir" -c "CREATE TABLE t (a int, b int); INSERT INTO t SELECT i, i % 1000 FROM generate_series(1, $cached_rows) s(i); CREATE INDEX ON t (a); ANALYZE t;" >/dev/null
sb="--set shared_buffers=2GB"
half=$((cached_rows / 2))
for what in seq index bitmap; do
  case $what in
    seq) sets=(); q="SELECT count(*) FROM t WHERE b < 500"; rows=$cached_rows ;;
    index) sets=(-c "SET enable_seqscan = off" -c "SET enable_bitmapscan = off"); q="SELECT count(*) FROM t WHERE a <= $half"; rows=$half ;;
    bitmap) sets=(-c "SET enable_seqscan = off" -c "SET enable_indexscan = off"); q="SELECT count(*) FROM t WHERE a <= $half"; rows=$half ;;
  esac
  # Warm the pool in the same process, then five timed runs; report the median.
  runs=()
  for i in 1 2 3 4 5; do runs+=(-c "EXPLAIN (ANALYZE, TIMING OFF) $q"); done
  times=$("$bin" sql -D "$dir" -At $sb "${sets[@]}" -c "$q" "${runs[@]}" |
    sed -n 's/^Execution Time: \([0-9.]*\) ms$/\1/p')
  ms=$(echo "$times" | median)
  printf 'cached %-6s %9d rows  median %8.1f ms  %6.1f M rows/s  (runs: %s)\n' "$what" "$rows" "$ms" \
    "$(echo "$rows / ($ms / 1000) / 1000000" | bc -l)" "$(echo $times)"
done

# ---- 2. cold, direct I/O, shuffled
rm -rf "$dir"
"$bin" sql -D "$dir" -c "CREATE TABLE t (a int, b int) WITH (fillfactor=10); INSERT INTO t SELECT i, i FROM generate_series(1, $cold_rows) s(i) ORDER BY random(); CREATE INDEX ON t (a); ANALYZE t;" >/dev/null
file=$(ls -S "$dir"/base/* | head -1)
echo "cold table: $cold_rows rows, $(( $(stat -c %s "$file") / 8192 )) pages, shuffled"
cold=(--set io_direct=on --set io_method=io_uring --set shared_buffers=1MB -c "SET enable_seqscan = off" -c "SET enable_bitmapscan = off")
q="EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) SELECT count(*) FROM t WHERE a > 0"
off_ms=$(exec_ms "${cold[@]}" -c "SET index_prefetch = off" -c "$q")
printf 'prefetch off: %9.1f ms  %7.0f rows/s\n' "$off_ms" "$(echo "$cold_rows / ($off_ms / 1000)" | bc -l)"
for eic in 1 8 32 128; do
  on_ms=$(exec_ms "${cold[@]}" -c "SET index_prefetch = on" -c "SET effective_io_concurrency = $eic" -c "$q")
  iops=$(fio --name=rand --filename="$file" --rw=randread --bs=8k --iodepth=$eic --ioengine=io_uring \
    --direct=1 --readonly --runtime=4 --time_based --output-format=terse --terse-version=3 | awk -F';' '{print $8}')
  rate=$(echo "$cold_rows / ($on_ms / 1000)" | bc -l)
  printf 'eic %3d  prefetch on: %9.1f ms  %7.0f rows/s  %5.2fx off  fio randread %6d IOPS  rows/s vs IOPS %.2f\n' \
    "$eic" "$on_ms" "$rate" "$(echo "$off_ms / $on_ms" | bc -l)" "$iops" "$(echo "$rate / $iops" | bc -l)"
done
rm -rf "$dir"
