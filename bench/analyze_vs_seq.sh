#!/usr/bin/env bash
# ANALYZE through a read stream (issue 14, item 5): a cold ANALYZE of the rpc
# experiment's table against a cold seq scan of it, per io_method, in one run.
#
#   bench/analyze_vs_seq.sh [ROWS] [DIR]    (default 1,000,000 rows: 45,455 heap pages;
#                                            ANALYZE samples 30,000 of them)
#
#   ROUNDS=N        rounds (default 4); each round runs both, the order alternating
#   METHODS="io_uring worker"
#   KEEP=1          reuse DIR's table if it is there (and keep it afterwards)
#   TIDEPOOL_BIN    the binary (default build/rel/bin/tidepool)
#
# Each statement runs in a fresh process (empty pool) with io_direct = on, so both are
# cold: `SELECT count(*) FROM t` and `ANALYZE t`, timed by the shell's \timing. Prints
# each round and the median of the per-round ratios ANALYZE / seq scan.
set -euo pipefail
rows=${1:-1000000}
dir=${2:-./bench-analyze-data}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${TIDEPOOL_BIN:-$root/build/rel/bin/tidepool}
[ -x "$bin" ] || { echo "build first: cmake --build build/rel --target tidepool" >&2; exit 1; }
rounds=${ROUNDS:-4}
methods=${METHODS:-"io_uring worker"}

if [ "${KEEP:-0}" != 1 ] || [ ! -d "$dir" ]; then
  [ -e "$dir" ] && [ ! -f "$dir/TIDEPOOL_DATADIR" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ] &&
    { echo "$dir exists and is not a tidepool data directory: not touching it" >&2; exit 1; }
  rm -rf "$dir"
  "$bin" sql -D "$dir" -c "CREATE TABLE t (a int, b int) WITH (fillfactor=10); INSERT INTO t SELECT i, i FROM generate_series(1, $rows) s(i) ORDER BY random(); CREATE INDEX t_a_idx ON t (a); ANALYZE t;" >/dev/null
fi

timed() {  # method, statement -> milliseconds
  printf '\\timing on\n%s;\n' "$2" |
    "$bin" sql -D "$dir" --set io_method="$1" --set io_direct=on | awk '/^Time:/ {print $2}'
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

echo "table: $rows rows, fillfactor 10; $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs, tidepool $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
for method in $methods; do
  ratios=()
  for ((r = 1; r <= rounds; r++)); do
    if ((r % 2)); then
      seq=$(timed "$method" "SELECT count(*) FROM t"); an=$(timed "$method" "ANALYZE t")
    else
      an=$(timed "$method" "ANALYZE t"); seq=$(timed "$method" "SELECT count(*) FROM t")
    fi
    ratio=$(awk -v a="$an" -v s="$seq" 'BEGIN {printf "%.2f", a / s}')
    ratios+=("$ratio")
    echo "$method round $r: seq scan $seq ms, ANALYZE $an ms, ratio $ratio"
  done
  echo "$method: median ANALYZE / seq scan = $(printf '%s\n' "${ratios[@]}" | median)"
done
[ "${KEEP:-0}" = 1 ] || rm -rf "$dir"
