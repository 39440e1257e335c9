#!/usr/bin/env bash
# A cold direct-I/O sequential scan through the pool and a read stream, against
# fio reading the same file the same way, in one run (issue 3's check).
#
#   bench/scan_vs_fio.sh [ROWS] [DIR]     (default 1,000,000 rows: 45,455 pages)
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

fio_mbps=$(fio --name=seq --filename="$file" --rw=read --bs=128k --iodepth=16 --ioengine=io_uring \
  --direct=1 --readonly --output-format=terse --terse-version=3 | awk -F';' '{printf "%.0f", $7/1024*1.048576}')
echo "fio (io_uring, O_DIRECT, 128 kB, depth 16): ${fio_mbps} MB/s"

for method in io_uring worker sync; do
  out=$("$bin" sql -D "$dir" -At --set io_direct=on --set io_method=$method \
    -c '\timing on' -c 'SELECT count(*) FROM t')
  count=$(echo "$out" | sed -n 2p)
  ms=$(echo "$out" | sed -n 's/^Time: \([0-9.]*\) ms$/\1/p')
  mbps=$(echo "$bytes / ($ms / 1000) / 1000000" | bc -l)
  printf 'tidepool io_method=%-8s count=%s  %8.1f ms  %6.0f MB/s  (%.0f%% of fio)\n' \
    "$method" "$count" "$ms" "$mbps" "$(echo "100 * $mbps / $fio_mbps" | bc -l)"
done
rm -rf "$dir"
