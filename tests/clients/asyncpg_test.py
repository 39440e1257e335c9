#!/usr/bin/env python3
"""asyncpg (issue 33), which speaks only the extended protocol with binary
formats: fetch with parameters, a prepared statement reused, the parameter and
result types the server describes, and copy_records_to_table (binary COPY);
every result equal to `tidepool sql`'s."""

import asyncio
import datetime

import tpserver
from tpserver import check


def need_asyncpg():
    try:
        import asyncpg  # noqa: F401
    except ImportError:
        tpserver.skip("python3-asyncpg is not installed")


async def exercise(server):
    import asyncpg

    conn = await asyncpg.connect(host="127.0.0.1", port=server.port, user="tidepool",
                                 database="tidepool", timeout=10)
    try:
        await conn.execute("CREATE TABLE t (a int PRIMARY KEY, b text, f float8, d date)")
        n = await conn.copy_records_to_table(
            "t", records=[(i, "s%d" % i, i / 4, datetime.date(2021, 1, 1) + datetime.timedelta(days=i))
                          for i in range(1, 2001)])
        check(n == "COPY 2000", "copy_records_to_table: %s" % n)
        row = await conn.fetchrow("SELECT a, b, f, d FROM t WHERE a = $1", 42)
        check(tuple(row) == (42, "s42", 10.5, datetime.date(2021, 2, 12)), "fetchrow: %r" % (tuple(row),))
        st = await conn.prepare("SELECT count(*) FROM t WHERE a BETWEEN $1 AND $2")
        check([t.name for t in st.get_parameters()] == ["int4", "int4"], "parameter types inferred")
        counts = [await st.fetchval(lo, lo + 99) for lo in (1, 501, 1951)]
        check(counts == [100, 100, 50], "a prepared statement reused: %r" % counts)
        sums = await conn.fetchval("SELECT sum(f) FROM t WHERE b LIKE $1", "s1%")
        return sums
    finally:
        await conn.close()


def run(binary):
    need_asyncpg()
    with tpserver.TempDir() as tmp:
        with tpserver.Server(binary, tmp.data) as server:
            got = asyncio.run(exercise(server))
        expected = tpserver.tidepool_sql(binary, tmp.data, "SELECT sum(f) FROM t WHERE b LIKE 's1%'")
        check(len(expected) == 1 and float(expected[0]) == got,
              "sum over the copied rows: %r, tidepool sql %r" % (got, expected))


if __name__ == "__main__":
    tpserver.main(run)
