#!/usr/bin/env bash
# Parallel query figures (issue 12), all through `tidepool sql`:
#   1. cached: `SELECT count(*) FROM t WHERE b < 500` on 10 M rows with 0, 1 and 2
#      parallel workers (rows/s from the median of 5 EXPLAIN (ANALYZE, TIMING OFF)
#      Execution Times after a warming run, shared_buffers 2GB, one process per
#      worker count; Workers Launched checked). On 2 cores about 2x at 2 workers is
#      the ceiling: the leader and two workers share two cores.
#   2. cold, direct I/O: `SELECT count(*) FROM t` of a fillfactor-10 table with 0
#      and 4 workers, io_method worker and io_uring, each in a fresh process (empty
#      pool), against fio reading the same file with 128 kB O_DIRECT reads at depth 16
#      (the raw device), alternating in rounds; Workers Launched and the pages read
#      checked.
# Workers are forced as the AIO article forces them: max_parallel_workers_per_gather
# and the table's parallel_workers (0 workers: max_parallel_workers_per_gather = 0).
#
#   bench/parallel_bench.sh [CACHED_ROWS] [COLD_ROWS] [DIR]
#     defaults 10,000,000 and 2,000,000 (90,910 pages, 710 MB); ROUNDS=N (default 3)
set -euo pipefail
cached_rows=${1:-10000000}
cold_rows=${2:-2000000}
dir=${3:-./bench-parallel-data}
rounds=${ROUNDS:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${TIDEPOOL_BIN:-$root/build/bin/tidepool}
[ -x "$bin" ] || { echo "build first: tools/reproduce or cmake --build build" >&2; exit 1; }
command -v fio >/dev/null || { echo "fio is missing: tools/install-deps" >&2; exit 1; }

median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
# The table's reloption for N workers (0 workers: max_parallel_workers_per_gather = 0 alone).
reloption() {
  if [ "$1" -eq 0 ]; then echo "ALTER TABLE t RESET (parallel_workers)"; else echo "ALTER TABLE t SET (parallel_workers = $1)"; fi
}
# Checks EXPLAIN ANALYZE output ($1) launched $2 workers (no Gather for 0).
check_launched() {
  local launched
  launched=$(echo "$1" | sed -n 's/^ *Workers Launched: \([0-9]*\)$/\1/p' | head -1)
  if [ "$2" -eq 0 ]; then
    [ -z "$launched" ] || { echo "0 workers: the plan has a Gather" >&2; exit 1; }
  else
    [ "$launched" = "$2" ] || { echo "$2 workers: Workers Launched: ${launched:-none}" >&2; exit 1; }
  fi
}

echo "machine: $(nproc) cores, kernel $(uname -r), tidepool $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"

# ---- 1. cached
rm -rf "$dir"
"$bin" sql -D "$dir" -c "CREATE TABLE t (a int, b int); INSERT INTO t SELECT i, i % 1000 FROM generate_series(1, $cached_rows) s(i); ANALYZE t;" >/dev/null
q="SELECT count(*) FROM t WHERE b < 500"
rem=$((cached_rows % 1000))
expected=$((cached_rows / 1000 * 500 + (rem < 499 ? rem : 499)))  # rows with i % 1000 < 500
declare -A cached_ms
for n in 0 1 2; do
  runs=()
  for _ in 1 2 3 4 5; do runs+=(-c "EXPLAIN (ANALYZE, TIMING OFF) $q"); done
  out=$("$bin" sql -D "$dir" -At --set shared_buffers=2GB -c "SET max_parallel_workers_per_gather = $n" \
    -c "$(reloption $n)" -c "$q" "${runs[@]}")
  count=$(echo "$out" | grep -E '^[0-9]+$' | head -1)  # the first bare number: count(*)
  [ "$count" = "$expected" ] || { echo "$n workers: count(*) returned $count, not $expected" >&2; exit 1; }
  check_launched "$out" "$n"
  times=$(echo "$out" | sed -n 's/^Execution Time: \([0-9.]*\) ms$/\1/p')
  ms=$(echo "$times" | median)
  cached_ms[$n]=$ms
  printf 'cached %d workers: %10d rows  median %7.1f ms  %6.1f M rows/s  %4.2fx 0 workers  (runs: %s)\n' \
    "$n" "$cached_rows" "$ms" "$(echo "$cached_rows / ($ms / 1000) / 1000000" | bc -l)" \
    "$(echo "${cached_ms[0]} / $ms" | bc -l)" "$(echo $times)"
done

# ---- 2. cold, direct I/O
rm -rf "$dir"
"$bin" sql -D "$dir" -c "CREATE TABLE t (a int, b int) WITH (fillfactor=10); INSERT INTO t SELECT i, i FROM generate_series(1, $cold_rows) s(i);" >/dev/null
file=$(ls -S "$dir"/base/* | head -1)
bytes=$(stat -c %s "$file")
pages=$((bytes / 8192))
echo "cold table: $cold_rows rows, $pages pages, $((bytes / 1000000)) MB; io_direct=on, a fresh process per run"
# Each round: fio, then every scan; odd rounds run 0 workers first, even rounds 4 first,
# so drift (the host's cache in front of the VM's disk) hits both alike. Per-round ratios
# (scan / that round's fio, 4 workers / 0 workers) are the figures to trust; medians.
declare -A samples
for ((r = 1; r <= rounds; r++)); do
  fio_r=$(fio --name=seq --filename="$file" --rw=read --bs=128k --iodepth=16 --ioengine=io_uring \
    --direct=1 --readonly --output-format=terse --terse-version=3 | awk -F';' '{printf "%.0f", $7/1024*1.048576}')
  samples[fio]+="$fio_r "
  order="0 4"; [ $((r % 2)) -eq 0 ] && order="4 0"
  for method in worker io_uring; do
    declare -A round=()
    for n in $order; do
      out=$("$bin" sql -D "$dir" -At --set io_direct=on --set io_method=$method \
        -c "SET max_parallel_workers_per_gather = $n" \
        -c "$(reloption $n)" \
        -c "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) SELECT count(*) FROM t")
      check_launched "$out" "$n"
      read_pages=$(echo "$out" | sed -n 's/^ *Buffers: shared.*read=\([0-9]*\).*$/\1/p' | head -1)
      [ "$read_pages" = "$pages" ] || { echo "$method $n workers: read ${read_pages:-?} pages, not $pages" >&2; exit 1; }
      ms=$(echo "$out" | sed -n 's/^Execution Time: \([0-9.]*\) ms$/\1/p')
      round[$n]=$(echo "$bytes / ($ms / 1000) / 1000000" | bc -l)
      samples[$method/$n]+="${round[$n]} "
      samples[$method/$n/fio]+="$(echo "${round[$n]} / $fio_r" | bc -l) "
    done
    samples[$method/speedup]+="$(echo "${round[4]} / ${round[0]}" | bc -l) "
  done
done
med() { echo "${samples[$1]}" | tr ' ' '\n' | grep . | median; }
echo "raw device (fio, io_uring, O_DIRECT, 128 kB, depth 16): $(med fio) MB/s (median of $rounds: ${samples[fio]})"
for method in worker io_uring; do
  printf 'cold direct io_method=%-8s 0 workers %6.0f MB/s (%3.0f%% of fio)  4 workers %6.0f MB/s (%3.0f%% of fio)  4 vs 0: %4.2fx (per round: %s)\n' \
    "$method" "$(med $method/0)" "$(echo "100 * $(med $method/0/fio)" | bc -l)" \
    "$(med $method/4)" "$(echo "100 * $(med $method/4/fio)" | bc -l)" "$(med $method/speedup)" \
    "$(for x in ${samples[$method/speedup]}; do printf '%.2f ' "$x"; done)"
done
rm -rf "$dir"
