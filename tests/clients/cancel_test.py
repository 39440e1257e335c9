#!/usr/bin/env python3
"""A cancel during a cold index scan: psycopg2's conn.cancel() from a second
thread sends a CancelRequest with the backend key; the statement ends with
QueryCanceled (57014, "canceling statement due to user request") and the same
connection runs the next statement."""

import threading
import time

import tpserver
from tpserver import check, fail

ROWS = 300000  # 13,637 pages at fillfactor 10: an index scan of seconds from a cold pool


def run(binary):
    tpserver.need_psycopg2()
    import psycopg2

    with tpserver.TempDir() as tmp:
        for sql in ["CREATE TABLE big (a int, b int) WITH (fillfactor = 10)",
                    "INSERT INTO big SELECT i, i FROM generate_series(1, %d) s(i) "
                    "ORDER BY random()" % ROWS,
                    "CREATE INDEX big_a_idx ON big (a)", "VACUUM ANALYZE big"]:
            tpserver.tidepool_sql(binary, tmp.data, sql)
        with tpserver.Server(binary, tmp.data, ["--set", "shared_buffers=1MB"]) as server:
            conn = psycopg2.connect(server.dsn())
            conn.autocommit = True
            cur = conn.cursor()
            cur.execute("SET enable_seqscan = off")
            cur.execute("SET enable_bitmapscan = off")
            cur.execute("EXPLAIN SELECT sum(b) FROM big WHERE a > 0")
            plan = "\n".join(r[0] for r in cur.fetchall())
            check("Index Scan using big_a_idx" in plan, "the query is an index scan:\n" + plan)
            timer = threading.Timer(0.5, conn.cancel)
            start = time.monotonic()
            timer.start()
            try:
                cur.execute("SELECT sum(b) FROM big WHERE a > 0")
                fail("the index scan finished in %.1f s before the cancel" %
                     (time.monotonic() - start))
            except psycopg2.errors.QueryCanceled as e:
                check(e.pgcode == "57014", "QueryCanceled carries 57014")
                check("canceling statement due to user request" in str(e),
                      "message: " + str(e).strip())
            finally:
                timer.join(timeout=10)
            check(time.monotonic() - start < 30, "the cancel took effect promptly")
            cur.execute("SELECT count(*) FROM big WHERE a <= 10")
            check(cur.fetchone()[0] == 10, "the connection runs the next statement")
            conn.close()


if __name__ == "__main__":
    tpserver.main(run)
