#!/usr/bin/env python3
"""psql runs the random_page_cost article's SQL file unchanged against
`tidepool serve` (-X -v ON_ERROR_STOP=1 -f): every statement succeeds, the
command tags, row counts and plan nodes are PostgreSQL's."""

import os
import subprocess

import tpserver
from tpserver import check

PSQL = "/usr/bin/psql"
HERE = os.path.dirname(os.path.abspath(__file__))


def run(binary):
    tpserver.need_program(PSQL)
    with tpserver.TempDir() as tmp, tpserver.Server(binary, tmp.data) as server:
        env = dict(os.environ, PGCONNECT_TIMEOUT="10")
        r = subprocess.run([PSQL, "-X", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
                            "-p", str(server.port), "-U", "tidepool", "-d", "tidepool",
                            "-f", os.path.join(HERE, "rpc_article.sql")],
                           capture_output=True, text=True, timeout=300, env=env)
        print(r.stdout)
        print(r.stderr)
        check(r.returncode == 0, "psql -f rpc_article.sql exits 0")
        out = r.stdout
        for tag in ["CREATE TABLE", "INSERT 0 20000", "CREATE INDEX", "VACUUM", "SET", "RESET"]:
            check(("\n" + tag + "\n") in ("\n" + out), "command tag " + tag)
        lines = [line.strip() for line in out.splitlines()]
        check("20000" in lines, "count(*) is 20000")
        check(str(910 * 8192) in lines, "pg_relation_size is 910 pages")
        check("1 | 2000 | 2001000" in lines, "min, max, sum over a BETWEEN 1 AND 2000")
        check("Seq Scan on t" in out, "EXPLAIN ANALYZE shows the Seq Scan")
        check("Index Scan using t_a_idx on t" in out, "EXPLAIN ANALYZE shows the Index Scan")
        check("Buffers:" in out, "BUFFERS shows buffer counts")
        check("actual time=" in out and "rows=20000" in out, "ANALYZE shows actual rows")
        check("Time: " in out, "psql's \\timing works")
        check("ERROR" not in r.stderr, "no error")


if __name__ == "__main__":
    tpserver.main(run)
