#!/usr/bin/env python3
"""Issue 29: a client of `tidepool serve` never names a path of the server's. SET
io_trace takes a plain file name, written into the trace directory (traces/ beside
the data directory by default, mode 0700; --trace-dir elsewhere), mode 0600; a path
is refused with 22023 and creates nothing; a FIFO in the trace directory is refused
without the session waiting on it."""

import json
import os
import stat
import subprocess

import tpserver
from tpserver import check, fail


def run(binary):
    tpserver.need_psycopg2()
    import psycopg2

    with tpserver.TempDir() as tmp:
        tpserver.tidepool_sql(binary, tmp.data, "CREATE TABLE t (a int); "
                              "INSERT INTO t SELECT i FROM generate_series(1, 1000) i")
        traces = os.path.join(tmp.path, "traces")
        with tpserver.Server(binary, tmp.data) as server:
            check(os.path.isdir(traces), "the default trace directory is traces/ beside the data")
            check(stat.S_IMODE(os.stat(traces).st_mode) == 0o700, "it was created with mode 0700")
            conn = psycopg2.connect(server.dsn())
            conn.autocommit = True
            cur = conn.cursor()
            for name in ("../escape.json", os.path.join(tmp.path, "escape.json"), "..",
                         "sub/x.json"):
                try:
                    cur.execute("SET io_trace = %s", (name,))
                    fail("SET io_trace = %r was accepted" % name)
                except psycopg2.Error as e:
                    check(e.pgcode == "22023", "SET io_trace = %r refused with 22023" % name)
            check(not os.path.exists(os.path.join(tmp.path, "escape.json")), "nothing was created")
            cur.execute("SET io_trace = 'scan \"1\".json'")
            cur.execute("SELECT count(*) FROM t -- \"quoted\" \\ $(id)")
            check(cur.fetchone()[0] == 1000, "the traced statement answers")
            path = os.path.join(traces, 'scan "1".json')
            with open(path) as f:
                doc = json.load(f)
            check(doc["otherData"]["statement"].endswith('-- "quoted" \\ $(id)'),
                  "the trace is JSON holding the statement as sent")
            check(stat.S_IMODE(os.stat(path).st_mode) == 0o600, "the trace is mode 0600")
            os.mkfifo(os.path.join(traces, "fifo"))
            cur.execute("SET io_trace = 'fifo'")
            cur.execute("SELECT count(*) FROM t")
            check(cur.fetchone()[0] == 1000, "a FIFO named by io_trace does not block the session")
            check(any("not a regular file" in n for n in conn.notices),
                  "the session is warned that it is not a regular file")
            conn.close()
        elsewhere = os.path.join(tmp.path, "elsewhere")
        with tpserver.Server(binary, tmp.data, args=["--trace-dir", elsewhere]) as server:
            conn = psycopg2.connect(server.dsn())
            conn.autocommit = True
            cur = conn.cursor()
            cur.execute("SET io_trace = 'b.json'")
            cur.execute("SELECT count(*) FROM t")
            cur.fetchone()
            check(os.path.isfile(os.path.join(elsewhere, "b.json")), "--trace-dir is used")
            conn.close()
        r = subprocess.run([binary, "serve", "-D", tmp.data, "--port", "0", "--listen",
                            "127.0.0.1", "--trace-dir", os.path.join(tmp.data, "t")],
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 1 and "inside the data directory" in r.stderr,
              "a trace directory inside the data directory is refused: " + r.stderr.strip())
        check(not os.path.exists(os.path.join(tmp.data, "t")), "and nothing is created there")

if __name__ == "__main__":
    tpserver.main(run)
