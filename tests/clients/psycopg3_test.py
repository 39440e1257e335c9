#!/usr/bin/env python3
"""psycopg 3 over the extended query protocol (issue 33): parameterised queries
(Parse/Bind/Execute, types inferred by the server), prepare=True (named
statements), binary results, COPY in and out; every result equal to
`tidepool sql`'s for the same query with the values written in."""

import datetime
import decimal

import tpserver
from tpserver import check, fail

LOAD = [
    "CREATE TABLE t (a int PRIMARY KEY, b text, n numeric(10,2), d date)",
    "INSERT INTO t SELECT i, 'r' || i, i * 1.25, DATE '2020-01-01' + i "
    "FROM generate_series(1, 5000) s(i)",
    "ANALYZE t",
]


def need_psycopg():
    try:
        import psycopg  # noqa: F401
    except ImportError:
        tpserver.skip("python3-psycopg is not installed")


def text(v):
    if v is None:
        return ""
    return str(v)


def run(binary):
    need_psycopg()
    import psycopg

    cases = [  # (query with %s, values, the same query written out)
        ("SELECT a, b FROM t WHERE a = %s", (42,), "SELECT a, b FROM t WHERE a = 42"),
        ("SELECT count(*) FROM t WHERE a BETWEEN %s AND %s AND b LIKE %s", (10, 900, "r1%"),
         "SELECT count(*) FROM t WHERE a BETWEEN 10 AND 900 AND b LIKE 'r1%'"),
        ("SELECT a, n FROM t WHERE n > %s ORDER BY a LIMIT 5", (decimal.Decimal("6000.5"),),
         "SELECT a, n FROM t WHERE n > 6000.5 ORDER BY a LIMIT 5"),
        ("SELECT a FROM t WHERE d = %s", (datetime.date(2020, 3, 1),),
         "SELECT a FROM t WHERE d = '2020-03-01'"),
        ("SELECT sum(a) FROM t WHERE b = ANY(%s)", (["r1", "r2", "r3"],), None),
    ]
    with tpserver.TempDir() as tmp:
        for sql in LOAD:
            tpserver.tidepool_sql(binary, tmp.data, sql)
        expected = {c[2]: tpserver.tidepool_sql(binary, tmp.data, c[2]) for c in cases if c[2]}
        with tpserver.Server(binary, tmp.data) as server:
            with psycopg.connect(server.dsn(), autocommit=True) as conn:
                for query, values, written in cases:
                    if written is None:
                        continue
                    for prepare in (False, True):
                        rows = conn.execute(query, values, prepare=prepare).fetchall()
                        got = ["|".join(text(v) for v in r) for r in rows]
                        if got != expected[written]:
                            fail("%s %r: %r, tidepool sql %r" % (query, values, got, expected[written]))
                        check(True, "%s (prepare=%s): %d rows equal" % (query, prepare, len(rows)))
                binary_rows = conn.cursor(binary=True).execute(
                    "SELECT a, b, n, d FROM t WHERE a <= %s ORDER BY a", (3,)).fetchall()
                check(binary_rows[2] == (3, "r3", decimal.Decimal("3.75"), datetime.date(2020, 1, 4)),
                      "binary results: %r" % (binary_rows[2],))
                try:
                    conn.execute("SELECT a FROM t WHERE a = %s", ("x",))
                    fail("a bad parameter raised nothing")
                except psycopg.errors.InvalidTextRepresentation as e:
                    check(e.sqlstate == "22P02", "a bad parameter is 22P02 at Bind")
                # COPY in and out.
                conn.execute("CREATE TABLE c (a int, b text)")
                with conn.cursor().copy("COPY c FROM STDIN") as cp:
                    for i in range(1000):
                        cp.write_row((i, None if i % 10 == 0 else "v%d" % i))
                check(conn.execute("SELECT count(*), count(b) FROM c").fetchone() == (1000, 900),
                      "COPY FROM STDIN loaded 1000 rows, 100 NULL")
                with conn.cursor().copy("COPY (SELECT a, b FROM c WHERE a < 3 ORDER BY a) TO STDOUT") as cp:
                    out = [tuple(r) for r in cp.rows()]
                check(out == [("0", None), ("1", "v1"), ("2", "v2")], "COPY TO STDOUT: %r" % out)


if __name__ == "__main__":
    tpserver.main(run)
