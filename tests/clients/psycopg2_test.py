#!/usr/bin/env python3
"""psycopg2 in autocommit mode reads the same rows as `tidepool sql` for a set
of queries (counts, sums, avg as numeric, ORDER BY with LIMIT, WHERE ranges,
text, bool, NULL, EXPLAIN), and each value arrives as the Python type of its
PostgreSQL type: int for int4/int8, Decimal for numeric, str for text, bool."""

from decimal import Decimal

import tpserver
from tpserver import check, fail

LOAD = [
    "CREATE TABLE t (a int PRIMARY KEY, b bigint)",
    "INSERT INTO t SELECT i, i * 7 % 1000 FROM generate_series(1, 20000) s(i)",
    "CREATE INDEX t_b_idx ON t (b)",
    "ANALYZE t",
]

# (query, the Python types of the first row's values; None: do not check)
QUERIES = [
    ("SELECT count(*) FROM t", [int]),
    ("SELECT sum(a), sum(b) FROM t", [int, Decimal]),
    ("SELECT avg(a), avg(b) FROM t", [Decimal, Decimal]),
    ("SELECT min(a), max(a), min(b), max(b) FROM t WHERE a BETWEEN 100 AND 2000", [int] * 4),
    ("SELECT * FROM t ORDER BY a LIMIT 10", [int, int]),
    ("SELECT * FROM t ORDER BY a DESC LIMIT 5", [int, int]),
    ("SELECT a, b FROM t WHERE a >= 500 AND a < 520 ORDER BY a", [int, int]),
    ("SELECT * FROM t WHERE a IN (3, 5, 7, 19999) ORDER BY a", [int, int]),
    ("SELECT count(*) FROM t WHERE b > 900", [int]),
    ("SELECT a FROM t WHERE b = 7 ORDER BY a LIMIT 20", [int]),
    ("SELECT max(a), count(*) FROM t WHERE a < 0", [type(None), int]),
    ("SELECT 'hello', 'it''s', 42, 12345678901, true, false, NULL",
     [str, str, int, int, bool, bool, type(None)]),
    ("SELECT 7 > 3, 1 = 2, 1.5 + 1", [bool, bool, Decimal]),
    ("SELECT pg_size_pretty(pg_relation_size('t'))", [str]),
    ("EXPLAIN SELECT * FROM t WHERE a = 5", [str]),
    ("EXPLAIN SELECT count(*) FROM t WHERE b BETWEEN 1 AND 10", [str]),
]


def as_psql_text(v):
    """A value as `tidepool sql -A -t` prints it (psql's unaligned format)."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "t" if v else "f"
    return str(v)


def run(binary):
    tpserver.need_psycopg2()
    import psycopg2

    with tpserver.TempDir() as tmp:
        for sql in LOAD:
            tpserver.tidepool_sql(binary, tmp.data, sql)
        expected = {q: tpserver.tidepool_sql(binary, tmp.data, q) for q, _ in QUERIES}
        with tpserver.Server(binary, tmp.data) as server:
            conn = psycopg2.connect(server.dsn())
            conn.autocommit = True
            cur = conn.cursor()
            for q, types in QUERIES:
                cur.execute(q)
                rows = cur.fetchall()
                got = ["|".join(as_psql_text(v) for v in row) for row in rows]
                if got != expected[q]:
                    fail("%s\n  psycopg2:     %r\n  tidepool sql: %r" % (q, got[:20], expected[q][:20]))
                check(True, "%s: %d rows equal" % (q, len(rows)))
                if types and rows:
                    actual = [type(v) for v in rows[0]]
                    check(actual == types, "%s: types %s" % (q, [t.__name__ for t in actual]))
            # Several statements in one Query message: psycopg2 returns the last result.
            cur.execute("SELECT 1; SELECT count(*) FROM t WHERE a <= 10")
            check(cur.fetchall() == [(10,)], "two statements in one query")
            # An error is psycopg2's exception of its SQLSTATE, and the connection goes on.
            try:
                cur.execute("SELECT * FROM nosuch")
                fail("a missing table raised nothing")
            except psycopg2.errors.UndefinedTable as e:
                check(e.pgcode == "42P01", "undefined table is 42P01")
            try:
                cur.execute("INSERT INTO t VALUES (1, 1)")
                fail("a duplicate key raised nothing")
            except psycopg2.errors.UniqueViolation as e:
                check(e.pgcode == "23505", "unique violation is 23505")
            try:
                cur.execute("SELEC 1")
                fail("a syntax error raised nothing")
            except psycopg2.errors.SyntaxError as e:
                check(e.pgcode == "42601", "syntax error is 42601")
            cur.execute("INSERT INTO t VALUES (20001, 5)")
            check(cur.rowcount == 1, "INSERT through psycopg2 reports 1 row")
            cur.execute("SELECT count(*) FROM t")
            check(cur.fetchone()[0] == 20001, "the inserted row is read back")
            conn.close()
        after = tpserver.tidepool_sql(binary, tmp.data, "SELECT count(*), sum(b) FROM t")
        check(after == ["20001|%s" % (int(expected["SELECT sum(a), sum(b) FROM t"][0]
                                          .split("|")[1]) + 5)],
              "tidepool sql reads the row psycopg2 inserted after the server stopped")


if __name__ == "__main__":
    tpserver.main(run)
