#!/usr/bin/env bash
# A cold direct-I/O sequential scan through the pool and a read stream, against
# fio reading the same file the same way, in one run (issue 3's check).
#
#   bench/scan_vs_fio.sh [ROWS] [DIR]     (default 1,000,000 rows: 45,455 pages;
#                                          ROUNDS=N rounds, default 3)
#
# For each io_method: `SELECT count(*) FROM t` in a fresh process (empty pool)
# with io_direct=on, effective_io_concurrency 16, io_combine_limit 128kB;
# fio: 128 kB sequential O_DIRECT reads at depth 16 (io_uring) of the table's file.
set -euo pipefail
rows=${1:-1000000}
dir=${2:-./bench-scan-data}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${TIDEPOOL_BIN:-$root/build/bin/tidepool}
[ -x "$bin" ] || { echo "build first: tools/reproduce or cmake --build build" >&2; exit 1; }
command -v fio >/dev/null || { echo "fio is missing: tools/install-deps" >&2; exit 1; }

rm -rf "$dir"
"$bin" sql -D "$dir" -c "CREATE TABLE t (a int, b int) WITH (fillfactor=10); INSERT INTO t SELECT i, i FROM generate_series(1, $rows) s(i) ORDER BY random();" >/dev/null
file=$(ls -S "$dir"/base/* | head -1)
bytes=$(stat -c %s "$file")
echo "table: $rows rows, $((bytes / 8192)) pages, $((bytes / 1048576)) MB, kernel $(uname -r)"

# Rounds alternate fio and the three methods so drift hits them alike; medians reported.
rounds=${ROUNDS:-3}
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
declare -A samples
for ((r = 1; r <= rounds; r++)); do
  mbps=$(fio --name=seq --filename="$file" --rw=read --bs=128k --iodepth=16 --ioengine=io_uring \
    --direct=1 --readonly --output-format=terse --terse-version=3 | awk -F';' '{printf "%.0f", $7/1024*1.048576}')
  samples[fio]+="$mbps "
  for method in io_uring worker sync; do
    out=$("$bin" sql -D "$dir" -At --set io_direct=on --set io_method=$method \
      -c '\timing on' -c 'SELECT count(*) FROM t')
    count=$(echo "$out" | sed -n 2p)
    [ "$count" = "$rows" ] || { echo "count(*) returned $count, not $rows" >&2; exit 1; }
    ms=$(echo "$out" | sed -n 's/^Time: \([0-9.]*\) ms$/\1/p')
    samples[$method]+="$(echo "$bytes / ($ms / 1000) / 1000000" | bc -l) "
  done
done
fio_mbps=$(echo ${samples[fio]} | tr ' ' '\n' | median)
echo "fio (io_uring, O_DIRECT, 128 kB, depth 16): ${fio_mbps} MB/s (median of $rounds: ${samples[fio]})"
for method in io_uring worker sync; do
  m=$(echo ${samples[$method]} | tr ' ' '\n' | median)
  printf 'tidepool io_method=%-8s %6.0f MB/s  (%.0f%% of fio; median of %d)\n' \
    "$method" "$m" "$(echo "100 * $m / $fio_mbps" | bc -l)" "$rounds"
done
rm -rf "$dir"
