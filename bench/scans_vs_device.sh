#!/usr/bin/env bash
# Scans that reach the device (issue 14, item 6): cold direct-I/O scans of the rpc
# experiment's table against the raw device, per io_method, in one run.
#
#   bench/scans_vs_device.sh [ROWS] [DIR]    (default 1,000,000 rows: 45,455 heap pages)
#
#   ROUNDS=N          rounds (default 5); medians are reported, with the range
#   EIC=N             effective_io_concurrency of the index scan (default 32)
#   SEQ_RUNS="worker:3 worker:8 io_uring"   the seq scan's method:io_workers runs
#   INDEX_RUNS="worker:16 io_uring"         the index scan's (the worker method's device
#                     depth is its io_workers; io_uring ignores io_workers)
#   KEEP=1            reuse DIR's table if it is there (and keep it afterwards)
#   TIDEPOOL_BIN, DEVICE_PROBE_BIN   the binaries (default build/rel/bin/...)
#
# The table is the rpc experiment's: `CREATE TABLE t (a int, b int) WITH (fillfactor=10)`,
# ROWS rows inserted ORDER BY random(), an index on a, ANALYZE. Each scan runs in a fresh
# process (empty 128 MB pool) with io_direct = on:
#   seq:   EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM t       (effective_io_concurrency 16)
#          its bytes read per second against fio reading the heap file with 128 kB
#          O_DIRECT reads at depth 16 (the stream's shape at the defaults)
#   index: SET enable_seqscan = off; SET index_prefetch = on;
#          EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM t ORDER BY a   (effective_io_concurrency EIC)
#          its blocks read per second against fio's random 8 kB O_DIRECT reads of the
#          heap file at depth EIC (5 s)
# and, per index run, bench/device_probe's raw rate through the aio layer alone (its own
# 1 GB file: sequential 128 kB at depth 16, random 8 kB at depth EIC). Every round runs
# everything back to back, so the device's drift hits engine and device alike; the
# ratios are medians of per-round ratios.
set -euo pipefail
rows=${1:-1000000}
dir=${2:-./bench-scans-data}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${TIDEPOOL_BIN:-$root/build/rel/bin/tidepool}
probe=${DEVICE_PROBE_BIN:-$root/build/rel/bin/device_probe}
rounds=${ROUNDS:-5}
eic=${EIC:-32}
seq_runs=${SEQ_RUNS:-worker:3 worker:8 io_uring}
index_runs=${INDEX_RUNS:-worker:16 io_uring}
[ -x "$bin" ] || { echo "build first: cmake --build build/rel --target tidepool" >&2; exit 1; }
[ -x "$probe" ] || { echo "build first: cmake --build build/rel --target device_probe" >&2; exit 1; }
command -v fio >/dev/null || { echo "fio is missing: tools/install-deps" >&2; exit 1; }

if [ "${KEEP:-0}" != 1 ] || [ ! -d "$dir/base" ]; then
  rm -rf "$dir"
  "$bin" sql -D "$dir" -c "CREATE TABLE t (a int, b int) WITH (fillfactor=10);
    INSERT INTO t SELECT i, i FROM generate_series(1, $rows) s(i) ORDER BY random();
    CREATE INDEX t_a_idx ON t (a); ANALYZE t;" >/dev/null
fi
heap=$(ls -S "$dir"/base/* | head -1)
bytes=$(stat -c %s "$heap")
echo "# scans_vs_device: $rows rows, $((bytes / 8192)) heap pages ($((bytes / 1048576)) MB)," \
  "kernel $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)," \
  "commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "# rounds=$rounds eic=$eic; seq runs: $seq_runs; index runs: $index_runs"

# method:io_workers -> method and io_workers (3 if not given).
split_run() { run_method=${1%%:*}; run_workers=${1#*:}; [ "$run_workers" != "$1" ] || run_workers=3; }

# Prints the execution time (ms), the blocks read and the Prefetch line of one cold
# EXPLAIN ANALYZE in a fresh process.
engine() {  # method io_workers eic -c SQL...
  local method=$1 workers=$2 e=$3
  shift 3
  local out ms reads prefetch
  out=$("$bin" sql -D "$dir" -At --set io_direct=on --set io_method="$method" \
    --set io_workers="$workers" --set effective_io_concurrency="$e" "$@")
  ms=$(echo "$out" | sed -n 's/^Execution Time: \([0-9.]*\) ms$/\1/p')
  reads=$(echo "$out" | sed -n 's/.*Buffers: shared.* read=\([0-9]*\).*/\1/p' | head -1)
  prefetch=$(echo "$out" | sed -n 's/^ *Prefetch: //p' | head -1)
  [ -n "$ms" ] && [ -n "$reads" ] || { echo "no EXPLAIN ANALYZE figures in: $out" >&2; exit 1; }
  echo "$ms $reads | $prefetch"
}
fio_seq() {  # MB/s (10^6 bytes)
  fio --name=seq --filename="$heap" --rw=read --bs=128k --iodepth=16 --ioengine=io_uring \
    --direct=1 --readonly --output-format=terse --terse-version=3 |
    awk -F';' '{printf "%.0f", $7 * 1024 / 1e6}'
}
fio_rand() {  # IOPS
  fio --name=rand --filename="$heap" --rw=randread --bs=8k --iodepth="$eic" --ioengine=io_uring \
    --direct=1 --readonly --runtime=5 --time_based --output-format=terse --terse-version=3 |
    awk -F';' '{printf "%.0f", $8}'
}
probe_dir=$dir/probe
mkdir -p "$probe_dir"
probe_rates() {  # method io_workers -> "seq_MBps rand_IOPS"
  "$probe" --dir="$probe_dir" --size-mb=1024 --seconds=2 --methods="$1" --direct=on \
    --depths="$eic" --io-workers="$2" |
    awk '/pattern=seq/ {for (i = 1; i <= NF; i++) if ($i ~ /^MB\/s=/) s = substr($i, 6)}
         /pattern=random/ {for (i = 1; i <= NF; i++) if ($i ~ /^IOPS=/) r = substr($i, 6)}
         END {printf "%.0f %.0f", s, r}'
}

declare -A s
add() { s[$1]+="$2 "; }
for ((r = 1; r <= rounds; r++)); do
  v=$(fio_seq)
  add fio_seq "$v"
  echo "round $r fio seq 128kB d16: $v MB/s"
  for run in $seq_runs; do
    split_run "$run"
    read -r ms reads rest <<<"$(engine "$run_method" "$run_workers" 16 \
      -c 'EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM t')"
    v=$(echo "$reads * 8192 / ($ms / 1000) / 1000000" | bc -l)
    add "seq_$run" "$v"
    printf 'round %d seq %-10s %7.1f ms %d blocks %6.0f MB/s %s\n' "$r" "$run" "$ms" "$reads" "$v" "$rest"
  done
  v=$(fio_rand)
  add fio_rand "$v"
  echo "round $r fio rand 8kB d$eic: $v IOPS"
  for run in $index_runs; do
    split_run "$run"
    read -r ms reads rest <<<"$(engine "$run_method" "$run_workers" "$eic" \
      -c 'SET enable_seqscan = off' -c 'SET index_prefetch = on' \
      -c 'EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM t ORDER BY a')"
    v=$(echo "$reads / ($ms / 1000)" | bc -l)
    add "index_$run" "$v"
    printf 'round %d index %-10s %8.1f ms %d blocks %6.0f reads/s %s\n' "$r" "$run" "$ms" "$reads" "$v" "$rest"
  done
  for run in $index_runs; do
    split_run "$run"
    read -r ps pr <<<"$(probe_rates "$run_method" "$run_workers")"
    add "probe_seq_$run" "$ps"
    add "probe_rand_$run" "$pr"
    echo "round $r device_probe $run: seq 128kB d16 $ps MB/s, rand 8kB d$eic $pr IOPS"
  done
done

median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
range() { tr ' ' '\n' | grep . | sort -n | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.0f..%.0f", lo, hi}'; }
med() { echo "${s[$1]}" | median; }
rng() { echo "${s[$1]}" | range; }
# The median of the per-round ratios engine / device, in percent.
ratio_med() {  # engine_key device_key
  local -a a b
  read -r -a a <<<"${s[$1]}"
  read -r -a b <<<"${s[$2]}"
  for i in "${!a[@]}"; do echo "100 * ${a[$i]} / ${b[$i]}" | bc -l; done | tr '\n' ' ' | median
}
echo
echo "summary: medians of $rounds rounds [range]; ratios are medians of the per-round ratios"
printf 'device  fio seq 128kB d16 %.0f MB/s [%s]; fio rand 8kB d%d %.0f IOPS [%s]\n' \
  "$(med fio_seq)" "$(rng fio_seq)" "$eic" "$(med fio_rand)" "$(rng fio_rand)"
# The seq runs are set against the device_probe run of the same method (its io_workers
# as in INDEX_RUNS).
probe_run() { for p in $index_runs; do [ "${p%%:*}" = "$1" ] && { echo "$p"; return; }; done; }
for run in $seq_runs; do
  split_run "$run"
  p=$(probe_run "$run_method")
  printf 'seq   %-10s %6.0f MB/s [%s] = %3.0f%% of fio seq  (device_probe %s seq %.0f MB/s: %3.0f%%)\n' \
    "$run" "$(med "seq_$run")" "$(rng "seq_$run")" "$(ratio_med "seq_$run" fio_seq)" \
    "$p" "$(med "probe_seq_$p")" "$(ratio_med "seq_$run" "probe_seq_$p")"
done
for run in $index_runs; do
  split_run "$run"
  printf 'index %-10s %6.0f reads/s [%s] = %3.0f%% of fio rand d%d  (device_probe %s rand d%d %.0f IOPS: %3.0f%%)\n' \
    "$run" "$(med "index_$run")" "$(rng "index_$run")" "$(ratio_med "index_$run" fio_rand)" "$eic" \
    "$run" "$eic" "$(med "probe_rand_$run")" "$(ratio_med "index_$run" "probe_rand_$run")"
done
[ "${KEEP:-0}" = 1 ] || rm -rf "$dir"
