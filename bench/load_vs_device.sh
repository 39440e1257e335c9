#!/usr/bin/env bash
# Load speed against the raw device, measured in one run (issue: bulk load target).
#
#   bench/load_vs_device.sh [ROWS] [FILLFACTOR] [DIR]
#
# 1. writes the same number of bytes the table will occupy with dd (1 MB
#    O_DIRECT writes, then fdatasync): what the disk itself needs;
# 2. loads `INSERT ... SELECT i, i FROM generate_series(1, ROWS) ORDER BY random()`
#    into a fresh table with that fillfactor;
# 3. prints both times and their ratio (target: load <= 1.5x the device).
set -euo pipefail
rows=${1:-10000000}
ff=${2:-10}
dir=${3:-./bench-load-data}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${TIDEPOOL_BIN:-$root/build/bin/tidepool}
[ -x "$bin" ] || { echo "build first: tools/reproduce or cmake --build build" >&2; exit 1; }

rm -rf "$dir"
mkdir -p "$dir"
# Pages the table will take: the fillfactor rule for 32-byte (int, int) rows
# (engine/core/heap_tuple.cc, heap_rows_per_page).
per_page=$(( (8192 - 24 - 4 - (32 + 8192 * (100 - ff) / 100)) / 36 + 1 ))
[ "$per_page" -gt 291 ] && per_page=291
pages=$(( (rows + per_page - 1) / per_page ))
bytes=$(( pages * 8192 ))
mb=$(( (bytes + 1048575) / 1048576 ))

start=$(date +%s.%N)
dd if=/dev/zero of="$dir/dd.bin" bs=1M count="$mb" oflag=direct conv=fdatasync status=none
dd_s=$(echo "$(date +%s.%N) - $start" | bc -l)
rm -f "$dir/dd.bin"

start=$(date +%s.%N)
"$bin" sql -D "$dir/data" -c "CREATE TABLE t (a int, b int) WITH (fillfactor=$ff); INSERT INTO t SELECT i, i FROM generate_series(1, $rows) s(i) ORDER BY random();" >/dev/null
load_s=$(echo "$(date +%s.%N) - $start" | bc -l)
size=$("$bin" sql -D "$dir/data" -At -c "SELECT pg_relation_size('t')")

printf 'rows=%s fillfactor=%s pages=%s bytes=%s kernel=%s\n' "$rows" "$ff" "$((size / 8192))" "$size" "$(uname -r)"
printf 'device (dd, 1 MB O_DIRECT writes): %.2f s (%.0f MB/s)\n' "$dd_s" "$(echo "$bytes / $dd_s / 1000000" | bc -l)"
printf 'tidepool load:                      %.2f s (%.0f MB/s)\n' "$load_s" "$(echo "$size / $load_s / 1000000" | bc -l)"
printf 'ratio load/device: %.2f (target <= 1.5)\n' "$(echo "$load_s / $dd_s" | bc -l)"
rm -rf "$dir"
