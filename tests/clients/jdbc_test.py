#!/usr/bin/env python3
"""JDBC (Debian's libpostgresql-jdbc-java, run by a headless JDK) against
`tidepool serve` (issue 33): JdbcClient.java's batch insert, a PreparedStatement
past prepareThreshold with getMetaData, and fetchSize in a transaction print
lines compared here with `tidepool sql`'s answers."""

import os
import shutil
import subprocess

import tpserver
from tpserver import check, fail

HERE = os.path.dirname(os.path.abspath(__file__))
JAR = "/usr/share/java/postgresql.jar"


def run(binary):
    java = shutil.which("java")
    if java is None:
        tpserver.skip("a JDK (default-jdk-headless) is not installed")
    if not os.path.isfile(JAR):
        tpserver.skip("libpostgresql-jdbc-java is not installed")
    with tpserver.TempDir() as tmp:
        with tpserver.Server(binary, tmp.data) as server:
            r = subprocess.run([java, "-cp", JAR, os.path.join(HERE, "JdbcClient.java"),
                                str(server.port)], capture_output=True, text=True, timeout=240)
            print(r.stdout)
            print(r.stderr)
            check(r.returncode == 0, "the JDBC client exits 0")
        lines = r.stdout.splitlines()
        check(lines[0] == "batch 50", "a batch of 50 inserts")
        for k in range(7):
            rows = tpserver.tidepool_sql(
                binary, tmp.data,
                "SELECT a, b, n FROM j WHERE a >= %d AND b LIKE 's1%%' ORDER BY a" % (10 + k))
            expected = "query a:int4 b:varchar n:numeric" + "".join(" " + row for row in rows)
            if lines[1 + k] != expected:
                fail("run %d:\n  jdbc:         %s\n  tidepool sql: %s" % (k, lines[1 + k], expected))
            check(True, "prepared run %d (%d rows) equal to tidepool sql" % (k, len(rows)))
        check(lines[8] == "fetch 1275", "fetchSize 7 read every row in batches")


if __name__ == "__main__":
    tpserver.main(run)
