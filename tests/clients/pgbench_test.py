#!/usr/bin/env python3
"""pgbench puts 8 clients of real concurrent load on the shared pool:
`pgbench -n -M simple -f SCRIPT -c 8 -j 2 -T 10`, once with point lookups by
primary key on a cached table, once with range scans over a table four times
larger than the pool (--set shared_buffers=2MB); both report zero failed
transactions and a tps above 0, and the server stops cleanly afterwards."""

import os
import re
import subprocess

import tpserver
from tpserver import check

PGBENCH = "/usr/lib/postgresql/15/bin/pgbench"
HERE = os.path.dirname(os.path.abspath(__file__))
SECONDS = 10


def pgbench(server, script):
    cmd = [PGBENCH, "-n", "-M", "simple", "-f", os.path.join(HERE, script), "-c", "8", "-j", "2",
           "-T", str(SECONDS), "-h", "127.0.0.1", "-p", str(server.port), "-U", "tidepool",
           "tidepool"]
    print("running: " + " ".join(cmd))
    env = dict(os.environ, PGCONNECT_TIMEOUT="10")
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=SECONDS + 120, env=env)
    print(r.stdout)
    print(r.stderr)
    check(r.returncode == 0, "pgbench -f %s exits 0" % script)
    processed = re.search(r"number of transactions actually processed: (\d+)", r.stdout)
    failed = re.search(r"number of failed transactions: (\d+)", r.stdout)
    tps = re.search(r"tps = ([0-9.]+)", r.stdout)
    check(processed and int(processed.group(1)) > 0, "%s: transactions processed" % script)
    check(failed is None or int(failed.group(1)) == 0, "%s: zero failed transactions" % script)
    check(tps and float(tps.group(1)) > 0, "%s: tps %s > 0" % (script, tps and tps.group(1)))


def run(binary):
    tpserver.need_program(PGBENCH)
    with tpserver.TempDir() as tmp:
        for sql in ["CREATE TABLE t (a int PRIMARY KEY, b int)",
                    "INSERT INTO t SELECT i, i FROM generate_series(1, 20000) s(i)",
                    # 1,000 pages (8 MB): four times a 2 MB pool.
                    "CREATE TABLE big (a int PRIMARY KEY, b int) WITH (fillfactor = 10)",
                    "INSERT INTO big SELECT i, i FROM generate_series(1, 22000) s(i) "
                    "ORDER BY random()",
                    "VACUUM ANALYZE t", "VACUUM ANALYZE big"]:
            tpserver.tidepool_sql(binary, tmp.data, sql)
        with tpserver.Server(binary, tmp.data) as server:
            pgbench(server, "pgbench_point.sql")
        with tpserver.Server(binary, tmp.data, ["--set", "shared_buffers=2MB"]) as server:
            pgbench(server, "pgbench_range.sql")
        check(tpserver.tidepool_sql(binary, tmp.data, "SELECT tp_verify('big_pkey')")[0]
              .startswith("index \"big_pkey\" is valid"), "the primary key verifies afterwards")


if __name__ == "__main__":
    tpserver.main(run)
