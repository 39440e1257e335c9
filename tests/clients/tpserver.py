"""What every client test needs: a `tidepool serve` on 127.0.0.1 and a free
port, over a temporary data directory, always stopped at the end; `tidepool
sql` for the expected answers; a skip (exit 77, ctest's SKIP_RETURN_CODE) when
a client is not installed. Every wait is bounded."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

SKIP = 77  # ctest SKIP_RETURN_CODE of every client test


def skip(why):
    print("SKIP: " + why + " (tools/install-deps installs it)")
    sys.exit(SKIP)


def need_program(path):
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        skip(path + " is not installed")
    return path


def need_psycopg2():
    try:
        import psycopg2  # noqa: F401
    except ImportError:
        skip("python3-psycopg2 is not installed")


def fail(why):
    print("FAIL: " + why)
    sys.exit(1)


def check(cond, why):
    if not cond:
        fail(why)
    print("ok: " + why)


def die_with_parent():
    """In the server's child process: SIGKILL when the test process dies (ctest's
    timeout, a crash), so no server outlives its test."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TempDir:
    """A directory removed at the end; `data` is the data directory in it."""

    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="tidepool-clients-")
        self.data = os.path.join(self.path, "data")
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)


def tidepool_sql(binary, data_dir, sql, timeout=300, extra=()):
    """Runs `tidepool sql -D DIR -A -t -c SQL`; returns its output lines."""
    r = subprocess.run([binary, "sql", "-D", data_dir, "-A", "-t", *extra, "-c", sql],
                       capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        fail("tidepool sql -c %r exited %d: %s" % (sql[:80], r.returncode, r.stderr.strip()))
    return r.stdout.splitlines()


class Server:
    """`tidepool serve -D DIR --port P` for a `with` block: started and ready
    (accepting connections) on entry, stopped (SIGTERM, then SIGKILL after a
    bounded wait) on exit, whatever happened in between."""

    def __init__(self, binary, data_dir, args=(), ready_timeout=60, lifetime=200):
        self.binary = binary
        self.data_dir = data_dir
        self.args = list(args)
        self.ready_timeout = ready_timeout
        self.lifetime = lifetime
        self.port = free_port()
        self.proc = None
        self.expired = False
        self.log_path = data_dir.rstrip("/") + ".server.log"

    def __enter__(self):
        self.log = open(self.log_path, "w")
        cmd = [self.binary, "serve", "-D", self.data_dir, "--port", str(self.port),
               "--listen", "127.0.0.1", *self.args]
        print("starting: " + " ".join(cmd))
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT,
                                     preexec_fn=die_with_parent)
        # A client call blocked on a server that hangs returns once the server is
        # killed: the watchdog bounds every wait of the test at `lifetime` seconds.
        self.watchdog = threading.Timer(self.lifetime, self.expire)
        self.watchdog.daemon = True
        self.watchdog.start()
        try:
            self.wait_ready()
        except BaseException:
            self.watchdog.cancel()
            self.stop()
            raise
        return self

    def expire(self):
        print("FAIL: the server ran longer than %d s: killing it" % self.lifetime)
        self.expired = True
        proc = self.proc
        if proc is not None:
            proc.kill()

    def wait_ready(self):
        deadline = time.monotonic() + self.ready_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                fail("tidepool serve exited %d before accepting connections:\n%s" %
                     (self.proc.returncode, self.log_text()))
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        fail("tidepool serve did not accept connections within %d s" % self.ready_timeout)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=30):
        """Stops the server; returns its exit code (None if it had to be killed)."""
        if self.proc is None:
            return None
        code = self.proc.poll()
        if code is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                code = self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
                code = None
        self.proc = None
        self.log.close()
        return code

    def log_text(self):
        self.log.flush()
        with open(self.log_path) as f:
            return f.read()

    def __exit__(self, *exc):
        self.watchdog.cancel()
        code = self.stop()
        if self.expired:
            fail("the test outlived its server's %d s" % self.lifetime)
        if exc[0] is None and code != 0:
            fail("tidepool serve did not stop cleanly on SIGTERM (exit %r):\n%s" %
                 (code, open(self.log_path).read()))

    def dsn(self, **extra):
        parts = {"host": "127.0.0.1", "port": str(self.port), "dbname": "tidepool",
                 "user": "tidepool", "connect_timeout": "10"}
        parts.update(extra)
        return " ".join("%s=%s" % kv for kv in parts.items())


def main(run):
    """Runs `run(binary)` with the tidepool binary named on the command line."""
    if len(sys.argv) != 2:
        print("usage: %s TIDEPOOL_BINARY" % sys.argv[0])
        sys.exit(2)
    run(os.path.abspath(sys.argv[1]))
