#!/usr/bin/env python3
"""64 connections opened at once against --max-connections 32: 32 are served,
the others refused with PostgreSQL's "sorry, too many clients already"
(53300). Then clients that disconnect in the middle of a long query: the
server stays up, serves the next client, and gives the slots back (32
connections open again)."""

import socket
import struct
import threading
import time

import tpserver
from tpserver import check, fail

MAX = 32
ATTEMPTS = 64


def open_all(psycopg2, dsn, n):
    """n connections attempted at once; returns (open connections, error texts)."""
    barrier = threading.Barrier(n)
    conns, errors, lock = [], [], threading.Lock()

    def attempt():
        try:
            barrier.wait(timeout=30)
            c = psycopg2.connect(dsn)
            with lock:
                conns.append(c)
        except Exception as e:  # noqa: BLE001 (every failure is counted)
            with lock:
                errors.append(str(e).strip())

    threads = [threading.Thread(target=attempt) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    if any(t.is_alive() for t in threads):
        fail("a connection attempt hung")
    return conns, errors


def startup_packet():
    params = b"user\0tidepool\0database\0tidepool\0\0"
    return struct.pack("!ii", 8 + len(params), 196608) + params


def read_until_ready(sock):
    """Reads backend messages until ReadyForQuery."""
    buf = b""
    while True:
        while len(buf) < 5:
            chunk = sock.recv(65536)
            if not chunk:
                fail("the server closed the connection during startup")
            buf += chunk
        kind, length = buf[0:1], struct.unpack("!i", buf[1:5])[0]
        while len(buf) < 1 + length:
            chunk = sock.recv(65536)
            if not chunk:
                fail("the server closed the connection during startup")
            buf += chunk
        if kind == b"E":
            fail("startup refused: %r" % buf[:length + 1])
        buf = buf[1 + length:]
        if kind == b"Z":
            return


def disconnect_mid_query(port, sql):
    """Sends a long query on a raw connection and closes the socket at once."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(startup_packet())
        read_until_ready(sock)
        q = sql.encode() + b"\0"
        sock.sendall(b"Q" + struct.pack("!i", 4 + len(q)) + q)
        time.sleep(0.2)  # the statement is running


def reopen_all(psycopg2, dsn, n, seconds=60):
    """n connections again, retried until the slots are free (bounded)."""
    deadline = time.monotonic() + seconds
    while True:
        conns, errors = open_all(psycopg2, dsn, n)
        if len(conns) == n:
            return conns
        for c in conns:
            c.close()
        if time.monotonic() > deadline:
            fail("only %d of %d connections after %d s: %s" % (len(conns), n, seconds, errors[:1]))
        time.sleep(0.5)


def run(binary):
    tpserver.need_psycopg2()
    import psycopg2

    with tpserver.TempDir() as tmp:
        for sql in ["CREATE TABLE t (a int, b int)",
                    "INSERT INTO t SELECT i, i FROM generate_series(1, 200000) s(i)"]:
            tpserver.tidepool_sql(binary, tmp.data, sql)
        with tpserver.Server(binary, tmp.data, ["--max-connections", str(MAX)]) as server:
            dsn = server.dsn()
            conns, errors = open_all(psycopg2, dsn, ATTEMPTS)
            check(len(conns) == MAX, "%d of %d connections served" % (len(conns), ATTEMPTS))
            check(len(errors) == ATTEMPTS - MAX, "%d refused" % len(errors))
            bad = [e for e in errors if "sorry, too many clients already" not in e]
            check(not bad, "each refusal says \"sorry, too many clients already\" %s" % bad[:1])
            for c in conns:
                c.autocommit = True
                with c.cursor() as cur:
                    cur.execute("SELECT count(*) FROM t WHERE a <= 5")
                    if cur.fetchone()[0] != 5:
                        fail("a served connection read a wrong count")
            check(True, "every served connection runs a query")
            for c in conns:
                c.close()

            long_query = "SELECT * FROM t ORDER BY a DESC"
            for _ in range(3):
                disconnect_mid_query(server.port, long_query)
            check(server.alive(), "the server is up after 3 clients vanished mid-query")
            conn = psycopg2.connect(dsn)
            conn.autocommit = True
            with conn.cursor() as cur:
                cur.execute("SELECT count(*), sum(a) FROM t")
                check(cur.fetchone() == (200000, 200000 * 200001 // 2),
                      "the next client is served")
            conn.close()
            conns = reopen_all(psycopg2, dsn, MAX)
            check(len(conns) == MAX, "the vanished clients' slots are free again: %d open" % MAX)
            for c in conns:
                c.close()


if __name__ == "__main__":
    tpserver.main(run)
