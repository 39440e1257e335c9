#!/usr/bin/env bash
# What the live page costs a running query (issue 35, item 5): a cached seq scan
# (`SELECT count(*) FROM t`, 1,000,000 rows, 4,425 pages, all in the pool) run by
# pgbench through `tidepool serve --http`, in windows of SECONDS each, alternating:
#   closed  no page open (no client on the HTTP port);
#   open    one page's event stream at the default rate (4 snapshots a second), as a
#           browser would hold it (curl reading /events);
#   fast    the same at 20 a second, the most a page may ask.
# Each round runs the three in turn, so the machine's drift falls on all of them
# alike; the figures are each window's transactions per second, and the ratio is the
# median over rounds of closed/open (above 1: the page slows the query down).
#
#   bench/live_cost.sh [ROUNDS] [DIR]
#     defaults 5 rounds and ./bench-live-data; SECONDS_PER_RUN=N (default 10).
set -euo pipefail
rounds=${1:-5}
dir=${2:-./bench-live-data}
seconds=${SECONDS_PER_RUN:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${TIDEPOOL_BIN:-$root/build/bin/tidepool}
pgbench=${PGBENCH:-/usr/lib/postgresql/15/bin/pgbench}
[ -x "$bin" ] || { echo "build first: tools/reproduce or cmake --build build" >&2; exit 1; }
[ -x "$pgbench" ] || { echo "pgbench is missing: tools/install-deps" >&2; exit 1; }
command -v curl >/dev/null || { echo "curl is missing" >&2; exit 1; }
work=$(mktemp -d)
viewer=""
stop_viewer() {
  if [ -n "$viewer" ]; then
    kill "$viewer" 2>/dev/null || true
    wait "$viewer" 2>/dev/null || true
    viewer=""
  fi
}
# shellcheck source=bench/server_lib.sh
source "$root/bench/server_lib.sh"
trap 'stop_viewer; stop_server; rm -rf "$work"' EXIT

if [ ! -d "$dir" ]; then
  "$bin" sql -D "$dir" -c "CREATE TABLE t (a int, b int);
    INSERT INTO t SELECT i, i FROM generate_series(1, 1000000) s(i); ANALYZE t" >/dev/null
fi
http=$(free_port)
start_server --http "$http"
echo 'SELECT count(*) FROM t;' >"$work/scan.sql"
tps() {
  "$pgbench" -n -M simple -h 127.0.0.1 -p "$port" -U tidepool -f "$work/scan.sql" \
    -c 1 -T "$seconds" tidepool 2>/dev/null | awk '/^tps = / {print $3}'
}
tps >/dev/null  # warms the pool
printf '%-6s %12s %12s %12s\n' round closed open fast
for r in $(seq 1 "$rounds"); do
  closed=$(tps)
  curl -sN "http://127.0.0.1:$http/events" >/dev/null &
  viewer=$!
  open=$(tps)
  stop_viewer
  curl -sN "http://127.0.0.1:$http/events?hz=20" >/dev/null &
  viewer=$!
  fast=$(tps)
  stop_viewer
  printf '%-6s %12s %12s %12s\n' "$r" "$closed" "$open" "$fast"
  echo "$closed $open $fast" >>"$work/rows"
done
python3 - "$work/rows" <<'EOF'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
for name, col in (("open (4/s)", 1), ("fast (20/s)", 2)):
    ratio = statistics.median(r[0] / r[col] for r in rows)
    print("closed/%s: median %.3f (%+.1f%% time per query with the page open)"
          % (name, ratio, (ratio - 1) * 100))
EOF
