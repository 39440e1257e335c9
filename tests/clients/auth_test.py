#!/usr/bin/env python3
"""Issue 29: passwords. `tidepool passwd` writes a password file (mode 0600,
verifiers only); `tidepool serve --password-file` makes psql, psycopg2 and
psycopg 3 log in with SCRAM-SHA-256; a wrong password and an unknown user get
PostgreSQL's FATAL 28P01 alike; a client without a password is refused; the
server refuses to listen beyond loopback without a password file (checked
before it binds anything, so this test never listens there)."""

import os
import stat
import subprocess
import time

import tpserver
from tpserver import check, fail

PSQL = "/usr/bin/psql"


def passwd(binary, path, user, password):
    r = subprocess.run([binary, "passwd", path, user], input=password + "\n",
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, "tidepool passwd %s %s: %s" % (os.path.basename(path), user,
                                                           (r.stdout + r.stderr).strip()))


def psql(server, user, password, sql="SELECT count(*) FROM t"):
    env = dict(os.environ, PGCONNECT_TIMEOUT="10")
    env.pop("PGPASSWORD", None)
    if password is not None:
        env["PGPASSWORD"] = password
    return subprocess.run([PSQL, "-X", "-w", "-A", "-t", "-h", "127.0.0.1", "-p",
                           str(server.port), "-U", user, "-d", "tidepool", "-c", sql],
                          env=env, capture_output=True, text=True, timeout=60)


def refused_wrong_password(driver, connect, error, dsn):
    try:
        connect(dsn)
        fail(driver + " logged in with a wrong password")
    except error as e:
        check("password authentication failed" in str(e),
              driver + " with a wrong password: OperationalError")


def run(binary):
    tpserver.need_program(PSQL)
    tpserver.need_psycopg2()
    try:
        import psycopg
    except ImportError:
        tpserver.skip("python3-psycopg (psycopg 3) is not installed")
    import psycopg2

    with tpserver.TempDir() as tmp:
        tpserver.tidepool_sql(binary, tmp.data, "CREATE TABLE t (a int); "
                              "INSERT INTO t SELECT i FROM generate_series(1, 500) i")
        pwfile = os.path.join(tmp.path, "passwords")
        passwd(binary, pwfile, "alice", "pencil")
        passwd(binary, pwfile, "bob", "s3cret 'quoted' \u00e9")
        check(stat.S_IMODE(os.stat(pwfile).st_mode) == 0o600, "the password file is mode 0600")
        with open(pwfile) as f:
            text = f.read()
        check("pencil" not in text and "s3cret" not in text and
              text.count("SCRAM-SHA-256$4096:") == 2, "it holds two verifiers and no password")

        with tpserver.Server(binary, tmp.data, args=["--password-file", pwfile]) as server:
            # The socket accepts a moment before the line is printed: wait for it.
            deadline = time.monotonic() + 10
            while "listening on" not in server.log_text() and time.monotonic() < deadline:
                time.sleep(0.05)
            check("scram-sha-256: 2 users" in server.log_text(),
                  "the listening line names the authentication")
            r = psql(server, "alice", "pencil")
            check(r.returncode == 0 and r.stdout.strip() == "500",
                  "psql logs in with the right password: " + (r.stdout + r.stderr).strip())
            r = psql(server, "bob", "s3cret 'quoted' \u00e9")
            check(r.returncode == 0 and r.stdout.strip() == "500",
                  "a password with spaces, quotes and a non-ASCII letter works: " +
                  (r.stdout + r.stderr).strip())
            for user, password in (("alice", "pencils"), ("mallory", "pencil")):
                r = psql(server, user, password)
                check(r.returncode != 0 and
                      'password authentication failed for user "%s"' % user in r.stderr,
                      "psql as %s with a wrong password is refused: %s" % (user, r.stderr.strip()))
            r = psql(server, "alice", None)
            check(r.returncode != 0 and "no password supplied" in r.stderr,
                  "psql without a password is refused: " + r.stderr.strip())

            conn = psycopg2.connect(server.dsn(user="alice", password="pencil"))
            conn.autocommit = True
            cur = conn.cursor()
            cur.execute("SELECT sum(a) FROM t WHERE a <= %s", (10,))
            check(cur.fetchone()[0] == 55, "psycopg2 logs in with a password and queries")
            conn.close()
            refused_wrong_password("psycopg2", psycopg2.connect, psycopg2.OperationalError,
                                   server.dsn(user="alice", password="wrong"))

            with psycopg.connect(server.dsn(user="bob"), password="s3cret 'quoted' \u00e9",
                                 autocommit=True) as conn:
                n = conn.execute("SELECT count(*) FROM t WHERE a > 100").fetchone()[0]
                check(n == 400, "psycopg 3 logs in with SCRAM-SHA-256 and queries")
                cur = psycopg.ClientCursor(conn)
                cur.execute("SELECT max(a) FROM t WHERE a < %s", (77,))
                check(cur.fetchone()[0] == 76, "psycopg 3's client-side binding works")
            refused_wrong_password("psycopg 3", psycopg.connect, psycopg.OperationalError,
                                   server.dsn(user="bob", password="nope"))

        r = subprocess.run([binary, "serve", "-D", tmp.data, "--port", "0", "--listen",
                            "0.0.0.0"], capture_output=True, text=True, timeout=60)
        check(r.returncode == 1 and "beyond loopback without passwords" in r.stderr,
              "no listening beyond loopback without a password file: " + r.stderr.strip())


if __name__ == "__main__":
    tpserver.main(run)
