# The scratch PostgreSQL 15 cluster a bench script compares tidepool with, and the
# helpers its timings go through; sourced by typed_bench.sh, parallel_index_bench.sh,
# clients_bench.sh and copy_bench.sh.
# The script sets $root (the checkout), $dir (its scratch directory) and $pg_buffers
# (shared_buffers) first; pg_check refuses to go on without a build, PostgreSQL 15 or
# root; pg_create makes and starts the cluster (the "C" collation, as tidepool compares
# strings), and the EXIT trap this file sets stops it and removes $dir.
bin=${TIDEPOOL_BIN:-$root/build/bin/tidepool}
pg=/usr/lib/postgresql/15/bin
pgdir=$dir/pg
tpdir=$dir/tidepool
port=$((20000 + RANDOM % 20000))

pg_check() {
  [ -x "$bin" ] || { echo "build first: cmake --build build" >&2; exit 1; }
  [ -x "$pg/postgres" ] || { echo "no PostgreSQL 15: tools/install-deps" >&2; exit 1; }
  [ "$(id -u)" -eq 0 ] || { echo "run as root (the postgres user, dropping caches)" >&2; exit 1; }
}
as_pg() { runuser -u postgres -- "$@"; }
pg_start() {
  as_pg "$pg/pg_ctl" -D "$pgdir/data" -l "$pgdir/log" -w \
    -o "-c listen_addresses='' -c unix_socket_directories=$pgdir -p $port -c autovacuum=off -c jit=off -c shared_buffers=$pg_buffers" \
    start >/dev/null
}
pg_stop() { as_pg "$pg/pg_ctl" -D "$pgdir/data" -m fast -w stop >/dev/null 2>&1 || true; }
pg_create() {
  mkdir -p "$pgdir" && chown postgres "$pgdir"
  as_pg "$pg/initdb" -D "$pgdir/data" -A trust -U postgres --no-sync --lc-collate=C \
    --lc-ctype=C >/dev/null
  pg_start
}
# pg_and_tidepool_on_loopback [PG_OPTION...] [-- TIDEPOOL_ARG...]: the cluster made
# and restarted on 127.0.0.1 (a Unix socket would spare it what TCP costs tidepool)
# and `tidepool serve` over $dir/tidepool beside it (server_lib.sh), both with
# $pg_buffers; sets pg_port and tp_port, and the EXIT trap stops both.
pg_and_tidepool_on_loopback() {
  local pg_options=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do pg_options+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  pg_create
  pg_stop
  as_pg "$pg/pg_ctl" -D "$pgdir/data" -l "$pgdir/log" -w \
    -o "-c listen_addresses=127.0.0.1 -c unix_socket_directories=$pgdir -p $port -c autovacuum=off -c jit=off -c shared_buffers=$pg_buffers ${pg_options[*]}" \
    start >/dev/null
  pg_port=$port
  server_pid=""
  . "$root/bench/server_lib.sh"
  trap 'stop_server; pg_cleanup' EXIT
  local saved=$dir
  dir=$saved/tidepool
  start_server --set shared_buffers=$pg_buffers "$@"
  dir=$saved
  tp_port=$port
}
psql_run() { psql -h "$pgdir" -p "$port" -U postgres -X -q -At "$@"; }
pg_cleanup() { pg_stop; rm -rf "$dir"; }
trap pg_cleanup EXIT

# The median of numbers one per line; a plan's "Execution Time" in ms.
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
exec_ms() { sed -n 's/^Execution Time: \([0-9.]*\) ms$/\1/p'; }
machine_line() {
  echo "machine: $(nproc) cores, kernel $(uname -r), tidepool $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'), $(psql --version | head -1)"
}
