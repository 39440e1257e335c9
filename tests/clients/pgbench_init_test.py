#!/usr/bin/env python3
"""pgbench's own workload (issue 33): `pgbench -i -s 2` (DROP/CREATE with char
fillers and a timestamp column, then BEGIN; TRUNCATE; INSERTs; COPY ... WITH
(FREEZE ON); COMMIT, VACUUM ANALYZE, ALTER TABLE ... ADD PRIMARY KEY) loads
200,000 accounts, and `pgbench -S` runs through -M simple, -M extended and
-M prepared with 1 and 8 clients, zero failed transactions each. The built-in
TPC-B-like script needs UPDATE: it fails with tidepool's clear refusal."""

import os
import re
import subprocess

import tpserver
from tpserver import check

PGBENCH = "/usr/lib/postgresql/15/bin/pgbench"
SECONDS = 3


def pgbench(server, *args, timeout=120):
    cmd = [PGBENCH, *args, "-h", "127.0.0.1", "-p", str(server.port), "-U", "tidepool", "tidepool"]
    print("running: " + " ".join(cmd))
    env = dict(os.environ, PGCONNECT_TIMEOUT="10")
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    print(r.stdout)
    print(r.stderr)
    return r


def run(binary):
    tpserver.need_program(PGBENCH)
    with tpserver.TempDir() as tmp:
        with tpserver.Server(binary, tmp.data) as server:
            r = pgbench(server, "-i", "-s", "2")
            check(r.returncode == 0, "pgbench -i -s 2 exits 0")
            for mode in ["simple", "extended", "prepared"]:
                for clients in ["1", "8"]:
                    r = pgbench(server, "-S", "-M", mode, "-c", clients, "-j", "2",
                                "-T", str(SECONDS), timeout=SECONDS + 120)
                    check(r.returncode == 0, "pgbench -S -M %s -c %s exits 0" % (mode, clients))
                    failed = re.search(r"number of failed transactions: (\d+)", r.stdout)
                    tps = re.search(r"tps = ([0-9.]+)", r.stdout)
                    check(failed is not None and int(failed.group(1)) == 0,
                          "-M %s -c %s: zero failed transactions" % (mode, clients))
                    check(tps and float(tps.group(1)) > 0, "-M %s -c %s: tps %s" %
                          (mode, clients, tps and tps.group(1)))
            r = pgbench(server, "-M", "prepared", "-t", "1")
            check(r.returncode != 0 and "UPDATE is not supported by tidepool" in r.stderr,
                  "the TPC-B-like script is refused, naming UPDATE")
        counts = [tpserver.tidepool_sql(binary, tmp.data, "SELECT count(*) FROM pgbench_" + t)[0]
                  for t in ("accounts", "branches", "tellers")]
        check(counts == ["200000", "2", "20"], "the tables hold pgbench's rows: %s" % counts)
        plan = tpserver.tidepool_sql(binary, tmp.data,
                                     "EXPLAIN (COSTS OFF) SELECT abalance FROM pgbench_accounts "
                                     "WHERE aid = 5")
        check(plan[0] == "Index Scan using pgbench_accounts_pkey on pgbench_accounts",
              "the primary key serves the lookup: %s" % plan[0])


if __name__ == "__main__":
    tpserver.main(run)
