"""The live page (`tidepool serve --http`, tools/live) in a real browser: Debian's
headless Chromium, driven over the DevTools protocol on a pipe (no driver, no
library), while index and seq scans that do not fit in the pool run through the
server. The page loads; its grid has one cell per buffer; the cells change as the
scans run (two screenshots, and each cell's colour on the canvas compared); a read
stream's bar and a ring's outline appear; over a minute at the default rate the
page keeps up with the events and its JS heap and DOM do not grow. The HTTP port
answers `../` paths with 404 and a broken request with 400, and is not reachable
on a non-loopback address when --listen does not name one. The screenshots are
kept in the build folder (live_page/), the README's among them."""

import base64
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tpserver  # noqa: E402
from tpserver import check, fail  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
OUT = os.path.join(os.getcwd(), "live_page")  # ctest runs this in the build's tests/clients


class Browser:
    """Headless Chromium with the DevTools protocol on fds 3 (commands in) and 4
    (answers out), NUL-separated JSON; one page target, attached flat."""

    def __init__(self, profile):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def fds():
            tpserver.die_with_parent()
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu",
             "--disable-dev-shm-usage", "--no-first-run", "--remote-debugging-pipe",
             "--user-data-dir=" + profile, "--window-size=1280,960", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=False,
            preexec_fn=fds)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.next_id = 0
        self.buffer = b""
        self.session = None

    def call(self, method, params=None, timeout=30, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" not in self.buffer:
                if time.monotonic() > deadline:
                    fail("Chromium did not answer %s within %d s" % (method, timeout))
                ready, _, _ = select.select([self.from_chrome], [], [], 1)
                if ready:
                    chunk = os.read(self.from_chrome, 1 << 20)
                    if not chunk:
                        fail("Chromium closed its DevTools pipe (during %s)" % method)
                    self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    fail("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})

    def open(self, url):
        target = self.call("Target.createTarget", {"url": "about:blank"}, session=False)
        attached = self.call("Target.attachToTarget",
                             {"targetId": target["targetId"], "flatten": True}, session=False)
        self.session = attached["sessionId"]
        self.call("Page.enable")
        self.call("Page.navigate", {"url": url})

    def js(self, expression, timeout=30):
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": True}, timeout)
        if "exceptionDetails" in r:
            fail("page script %r threw: %s" % (expression[:60], r["exceptionDetails"]))
        return r["result"].get("value")

    def wait_for(self, expression, what, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.js(expression)
            if value:
                return value
            time.sleep(0.2)
        fail("the page did not show %s within %d s" % (what, timeout))

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        return path

    def heap_after_gc(self):
        self.call("HeapProfiler.collectGarbage")
        return self.call("Runtime.getHeapUsage")["usedSize"]

    def close(self):
        try:
            os.write(self.to_chrome, json.dumps({"id": 0, "method": "Browser.close"}).encode()
                     + b"\0")
            self.proc.wait(timeout=15)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait(timeout=15)


def http_status(port, request):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request)
        head = s.recv(4096).decode("latin-1")
    return int(head.split(" ")[1]) if head.startswith("HTTP/1.") else 0


def non_loopback_address():
    """This host's address on its default route, or None (no route but loopback)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 9))  # no packet is sent
            address = s.getsockname()[0]
    except OSError:
        return None
    return None if address.startswith("127.") else address


class Load:
    """Index and seq scans of a table four times the pool, one after the other, on
    one connection, until stopped (at most `limit` seconds)."""

    def __init__(self, dsn, limit=150):
        import psycopg2
        self.conn = psycopg2.connect(dsn)
        self.conn.autocommit = True
        self.stop_at = time.monotonic() + limit
        self.stopped = threading.Event()
        self.error = None
        self.runs = 0
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self):
        try:
            cur = self.conn.cursor()
            cur.execute("SET enable_bitmapscan = off")
            while not self.stopped.is_set() and time.monotonic() < self.stop_at:
                cur.execute("SET enable_seqscan = off")
                cur.execute("SELECT sum(b) FROM t WHERE a >= 0")
                cur.fetchall()
                cur.execute("SET enable_seqscan = on")
                cur.execute("SELECT sum(b) FROM t")
                cur.fetchall()
                self.runs += 1
        except Exception as e:  # reported by stop()
            self.error = e

    def stop(self):
        self.stopped.set()
        self.thread.join(timeout=120)
        self.conn.close()
        if self.error is not None:
            fail("the scans failed: %s" % self.error)


def run(binary):
    tpserver.need_program(CHROMIUM)
    tpserver.need_psycopg2()
    os.makedirs(OUT, exist_ok=True)
    with tpserver.TempDir() as tmp:
        # 200,000 rows at fillfactor 10, shuffled against the index: 9,091 pages (71 MB)
        # against a 16 MB pool (2,048 buffers).
        tpserver.tidepool_sql(binary, tmp.data,
                              "CREATE TABLE t (a int, b int) WITH (fillfactor=10); "
                              "INSERT INTO t SELECT (i * 7919) % 200000, i "
                              "FROM generate_series(1, 200000) s(i); "
                              "CREATE INDEX t_a ON t (a); ANALYZE t")
        http_port = tpserver.free_port()
        with tpserver.Server(binary, tmp.data, ["--http", str(http_port),
                                                "--set", "shared_buffers=16MB"],
                             lifetime=280) as server:
            check("live view at http://127.0.0.1:%d/" % http_port in server.log_text(),
                  "serve prints the live view's address")
            check(http_status(http_port, b"GET /../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n")
                  == 404, "a ../ path is 404")
            check(http_status(http_port, b"GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\n\r\n")
                  == 404, "an escaped ../ path is 404")
            check(http_status(http_port, b"BREW / HTTP/1.1\r\n\r\n") == 405,
                  "another method is 405")
            check(http_status(http_port, b"\x16\x03\x01 garbage\r\n\r\n") == 400,
                  "a broken request line is 400")
            other = non_loopback_address()
            if other is None:
                print("note: no non-loopback address here; that check is skipped")
            else:
                try:
                    socket.create_connection((other, http_port), timeout=5).close()
                    fail("the live view answered on %s without --listen naming it" % other)
                except OSError:
                    print("ok: the live view is not reachable on %s (loopback only)" % other)

            profile = tempfile.mkdtemp(prefix="tidepool-chromium-")
            browser = Browser(profile)
            load = None
            try:
                browser.call("Target.setDiscoverTargets", {"discover": False}, session=False)
                browser.open("http://127.0.0.1:%d/" % http_port)
                browser.wait_for("typeof last !== 'undefined' && last !== null",
                                 "a first snapshot")
                check(browser.js("document.title") == "tidepool: the buffer pool, live",
                      "the page loads")
                grid = browser.js("({cells: last.pool.cells, buffers: last.pool.buffers, "
                                  "per: last.pool.cell, drawn: document.getElementById('grid')"
                                  ".dataset.cells|0})")
                check(grid["buffers"] == 2048 and grid["cells"] == 2048 and grid["per"] == 1
                      and grid["drawn"] == 2048,
                      "the grid has one cell per buffer (%r)" % grid)

                load = Load(server.dsn())
                browser.wait_for("last.rates.reads > 0", "reads while the scans run")
                # The first moment's colours stay in the page (not sent here and back).
                check(browser.js("window.tpBefore = cellColours(); tpBefore.length") == 2048,
                      "each cell has a colour on the canvas")
                first = browser.screenshot(os.path.join(OUT, "live-page-1.png"))
                time.sleep(2)
                second = browser.screenshot(os.path.join(OUT, "live-page-2.png"))
                changed = browser.js("differingCells(tpBefore, cellColours())")
                check(changed > 0, "the grid's cells changed colour in 2 s of scans (%d of "
                      "2,048)" % changed)
                check(open(first, "rb").read() != open(second, "rb").read(),
                      "the two screenshots differ")
                distance = browser.wait_for(
                    "(() => { const b = document.querySelector('.stream[data-distance]');"
                    " return b ? +b.dataset.distance : 0; })()", "a read stream's bar", 60)
                check(distance >= 1, "a read stream's distance shows (%d)" % distance)
                browser.wait_for("last.rings.length > 0", "a seq scan's ring", 60)
                browser.screenshot(os.path.join(OUT, "live-page.png"))

                # A minute at the default rate: every event drawn, nothing kept. (The
                # heap settles within some 15 s of the page's start: measured from there.)
                time.sleep(10)
                heap0 = browser.heap_after_gc()
                nodes0 = browser.call("Memory.getDOMCounters")["nodes"]
                seq0 = browser.js("last.seq")
                t0 = time.monotonic()
                time.sleep(60)
                seq1 = browser.js("last.seq")
                elapsed = time.monotonic() - t0
                heap1 = browser.heap_after_gc()
                nodes1 = browser.call("Memory.getDOMCounters")["nodes"]
                rate = (seq1 - seq0) / elapsed
                check(rate >= 3.0, "the page kept up: %.1f snapshots a second (4 sent)" % rate)
                check(heap1 < heap0 + 512 * 1024,
                      "its JS heap did not grow over a minute (%d kB, then %d kB)"
                      % (heap0 // 1024, heap1 // 1024))
                check(nodes1 < nodes0 * 2 + 200,
                      "its DOM did not grow (%d nodes, then %d)" % (nodes0, nodes1))
                print("scans run meanwhile: %d" % load.runs)
            finally:
                if load is not None:
                    load.stop()
                browser.close()
                shutil.rmtree(profile, ignore_errors=True)
    print("screenshots: " + OUT)


if __name__ == "__main__":
    tpserver.main(run)
