#!/usr/bin/env bash
# A soak of `tidepool serve` under mixed load (issue 13, item 7): pgbench clients run
# point lookups, range counts and INSERTs at once for MINUTES minutes; afterwards the
# table holds exactly as many rows as pgbench committed INSERTs, every index passes
# tp_verify, and pgbench reports no failed transaction. Exit code 0 only then.
#
#   bench/server_soak.sh [MINUTES] [CLIENTS]     (defaults 10 and 8)
# The server listens on 127.0.0.1 on a free port and is always stopped; the data
# directory is a temporary one.
set -euo pipefail
minutes=${1:-10}
clients=${2:-8}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${TIDEPOOL_BIN:-$root/build/bin/tidepool}
pgbench=${PGBENCH:-/usr/lib/postgresql/15/bin/pgbench}
[ -x "$bin" ] || { echo "build first: cmake --build build" >&2; exit 1; }
[ -x "$pgbench" ] || { echo "pgbench is missing: tools/install-deps" >&2; exit 1; }
work=$(mktemp -d)
dir="$work/data"
. "$root/bench/server_lib.sh"
trap 'stop_server; rm -rf "$work"' EXIT

rows=200000
"$bin" sql -D "$dir" -c "CREATE TABLE t (a int PRIMARY KEY, b int);
  INSERT INTO t SELECT i, i FROM generate_series(1, $rows) s(i) ORDER BY random();
  CREATE TABLE s (a bigint, b int); CREATE INDEX s_a ON s (a); VACUUM ANALYZE;" >/dev/null
printf '\\set id random(1, %d)\nSELECT a, b FROM t WHERE a = :id;\n' "$rows" >"$work/lookup.sql"
printf '\\set lo random(1, %d)\nSELECT count(*) FROM t WHERE a BETWEEN :lo AND :lo + 2000;\n' \
  "$rows" >"$work/range.sql"
printf '\\set v random(1, 1000000000)\nINSERT INTO s VALUES (:v, :client_id);\n' >"$work/insert.sql"

# A small pool, so that the lookups and range counts also read and evict while INSERTs dirty pages.
start_server --set shared_buffers=8MB

seconds=${SOAK_SECONDS:-$((minutes * 60))}  # SOAK_SECONDS: a short trial run
echo "soak: $clients clients, $seconds s, lookups:range:insert = 6:2:2, shared_buffers 8MB"
out=$(timeout $((seconds + 300)) "$pgbench" -n -M simple -c "$clients" -j 2 -T "$seconds" \
  -f "$work/lookup.sql@6" -f "$work/range.sql@2" -f "$work/insert.sql@2" \
  -h 127.0.0.1 -p "$port" -U tidepool tidepool 2>&1) || { echo "$out" >&2; exit 1; }
stop_server
echo "$out" | grep -E '^(number of (transactions actually processed|failed transactions)|tps|SQL script| - [0-9]+ transactions)'
failed=$(echo "$out" | sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p')
# The third script's committed transactions: the line after "SQL script 3".
inserts=$(echo "$out" | awk '/^SQL script 3/ {f=1} f && /^ - [0-9]+ transactions/ {print $2; exit}')
have=$("$bin" sql -D "$dir" -At -c "SELECT count(*) FROM s")
verify_t=$("$bin" sql -D "$dir" -At -c "SELECT tp_verify('t_pkey')")
verify_s=$("$bin" sql -D "$dir" -At -c "SELECT tp_verify('s_a')")
echo "committed INSERTs: $inserts; rows in s: $have"
echo "$verify_t"
echo "$verify_s"
[ "${failed:-x}" = 0 ] || { echo "FAILED: $failed failed transactions" >&2; exit 1; }
[ "$inserts" = "$have" ] || { echo "FAILED: $inserts INSERTs committed, $have rows" >&2; exit 1; }
case "$verify_t$verify_s" in *"is valid"*"is valid"*) ;; *) echo "FAILED: an index does not verify" >&2; exit 1 ;; esac
echo "soak passed"
