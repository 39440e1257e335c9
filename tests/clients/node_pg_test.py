#!/usr/bin/env python3
"""node-postgres (npm's `pg`, installed into tests/clients/node by
tools/install-deps) against `tidepool serve` (issue 33): node/pg_client.js's
parameterised inserts and queries, a named statement reused past the plan
cache's five custom plans, NULL parameters, a rolled-back block, a
multi-statement query and a unique violation's SQLSTATE, each line compared
with `tidepool sql`'s answer."""

import os
import shutil
import subprocess

import tpserver
from tpserver import check, fail

NODE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node")


def expected_lines(binary, data):
    def one(sql):
        return tpserver.tidepool_sql(binary, data, sql)

    lines = ["inserted " + one("SELECT count(*) FROM n")[0],
             "fields a:23 b:25 f:701 m:1700",
             "row " + one("SELECT a, b, f, m FROM n WHERE a = 42")[0]]
    for lo in range(1, 242, 40):
        rows = one("SELECT a, b FROM n WHERE a BETWEEN %d AND %d AND b LIKE 's%%' ORDER BY a"
                   % (lo, lo + 29))
        lines.append("range %d %s" % (lo, " ".join(rows)))
    lines.append("nulls " + one("SELECT count(*) FROM n WHERE b IS NULL")[0])
    lines.append("multi %s %s" % (one("SELECT sum(f) FROM n")[0], one("SELECT max(m) FROM n")[0]))
    lines.append('error 23505 duplicate key value violates unique constraint "n_pkey"')
    lines.append("after " + one("SELECT b FROM n WHERE a = 5")[0])
    return lines


def run(binary):
    node = shutil.which("node")
    if node is None:
        tpserver.skip("Node.js is not installed")
    if not os.path.isdir(os.path.join(NODE_DIR, "node_modules", "pg")):
        tpserver.skip("node-postgres is not installed in tests/clients/node")
    with tpserver.TempDir() as tmp:
        with tpserver.Server(binary, tmp.data) as server:
            r = subprocess.run([node, os.path.join(NODE_DIR, "pg_client.js"), str(server.port)],
                               capture_output=True, text=True, timeout=240)
            print(r.stdout)
            print(r.stderr)
            check(r.returncode == 0, "the node-postgres client exits 0")
        got = r.stdout.splitlines()
        want = expected_lines(binary, tmp.data)
        check(len(got) == len(want), "%d result lines (want %d)" % (len(got), len(want)))
        for g, w in zip(got, want):
            if g != w:
                fail("node-postgres and tidepool sql differ:\n  node:         %s\n  tidepool sql: %s"
                     % (g, w))
            check(True, g[:70])
        check(tpserver.tidepool_sql(binary, tmp.data, "SELECT count(*) FROM n WHERE a = 1000") == ["0"],
              "the rolled-back insert left no row")


if __name__ == "__main__":
    tpserver.main(run)
