#!/bin/bash
# Captures a fixture from PostgreSQL 15: runs SETUP, then each line of QUERIES, and
# prints per query `Q sql`, then `R rows` (rows joined by ',', columns by '|'; a
# command's tag) or `E message` for an error, and with --plans the `P` lines of its
# EXPLAIN. It works in a database of its own, tp_fixture (made afresh with LC_COLLATE
# 'C'; FIXTURE_DB names another, so that two captures can run at once); psql's
# connection comes from PGHOST / PGPORT / PGUSER.
#
#   tests/engine/session/pg15/capture.sh row_sources_setup.sql row_sources_queries.sql > row_sources.out
set -euo pipefail
here=$(dirname "$0")
setup=$here/$1 queries=$here/$2 plans=${3:-}
db=${FIXTURE_DB:-tp_fixture}
psql -X -q -d postgres -v ON_ERROR_STOP=1 -c "drop database if exists $db" \
  -c "create database $db lc_collate 'C' lc_ctype 'C' template template0" >/dev/null
export PGDATABASE=$db
psql -X -q -v ON_ERROR_STOP=1 -f "$setup" >/dev/null
while IFS= read -r q; do
  [ -z "$q" ] && continue
  echo "Q $q"
  out=$(psql -X -At -F '|' -R ',' -c "$q" 2>&1) || true
  case "$out" in
    ERROR:*) echo "E ${out#ERROR:  }" | head -1 ;;
    *) echo "R $out" ;;
  esac
  if [ "$plans" = --plans ]; then
    psql -X -At -c "explain $q" | sed 's/^/P /'
  fi
done < "$queries"
