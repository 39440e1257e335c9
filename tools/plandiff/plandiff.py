#!/usr/bin/python3
"""tidepool's planner against PostgreSQL 15, query by query.

Builds the same small tables in a scratch PostgreSQL 15 cluster and in a scratch
tidepool data directory (each at most 30,000 rows, so ANALYZE samples them whole and
both systems hold the same statistics), generates queries from a seeded grammar of
single-table SELECTs, and runs `EXPLAIN` of each in both. A query matches when both
plans have the same shape (node types, scan directions, relations and indexes, in the
same tree) and the top nodes' total costs are within 0.5%. Prints a summary by cause
and writes every mismatch, both plans side by side, to OUT/mismatches.txt.

    tools/plandiff/plandiff.py [--queries 1000] [--seed 1] [--out plandiff-out]

Needs postgresql-15 and python3-psycopg2 (tools/install-deps) and a Release build
(build/rel/bin/tidepool, or --tidepool BIN). Both servers listen on loopback or a
Unix socket in the scratch directory only, and both are stopped at the end.
"""
import argparse
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

try:
    import psycopg2
except ImportError:
    # The suite's differential test (--fail-on-rows) is skipped without the driver.
    print("python3-psycopg2 is not installed (tools/install-deps installs it)")
    sys.exit(77 if "--fail-on-rows" in sys.argv else 1)

from grammar import QueryGenerator, TABLES, setup_statements
from grouping_grammar import GroupingQueryGenerator
from join_grammar import JoinQueryGenerator, parallel_settings
from typed_grammar import TypedQueryGenerator, typed_setup_statements

PG_BIN = "/usr/lib/postgresql/15/bin"
COST_TOLERANCE = 0.005


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def as_postgres(cmd):
    """initdb and postgres refuse to run as root: run them as the postgres user then."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--"] + cmd
    return cmd


class PgServer:
    """A scratch PostgreSQL 15 cluster on a Unix socket in `root`, defaults except what
    keeps its plans comparable: no autovacuum (it would set the visibility map, which
    tidepool does not have), no JIT."""

    def __init__(self, root, pg_bin):
        self.dir = os.path.join(root, "pg")
        self.pg_bin = pg_bin
        self.port = free_port()

    def __enter__(self):
        os.makedirs(self.dir)
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
            os.chmod(os.path.dirname(self.dir), 0o755)
        # The "C" collation (strings compare byte-wise, as tidepool's) in UTF8.
        subprocess.run(as_postgres([os.path.join(self.pg_bin, "initdb"), "-D", self.dir + "/data",
                                    "-A", "trust", "-U", "postgres", "--no-sync",
                                    "--locale=C", "--encoding=UTF8"]),
                       check=True, capture_output=True)
        opts = ("-c listen_addresses='' -c unix_socket_directories=%s -p %d -c autovacuum=off "
                "-c jit=off -c fsync=off" % (self.dir, self.port))
        subprocess.run(as_postgres([os.path.join(self.pg_bin, "pg_ctl"), "-D", self.dir + "/data",
                                    "-o", opts, "-l", self.dir + "/log", "-w", "start"]),
                       check=True, capture_output=True)
        return self

    def connect(self):
        return psycopg2.connect(host=self.dir, port=self.port, user="postgres", dbname="postgres")

    def __exit__(self, *exc):
        subprocess.run(as_postgres([os.path.join(self.pg_bin, "pg_ctl"), "-D", self.dir + "/data",
                                    "-m", "immediate", "-w", "stop"]), capture_output=True)


class TidepoolServer:
    """`tidepool serve` on a scratch data directory, loopback only."""

    def __init__(self, root, binary):
        self.data = os.path.join(root, "tidepool")
        self.binary = binary
        self.port = free_port()

    def __enter__(self):
        self.log = open(self.data + ".log", "w")
        self.proc = subprocess.Popen([self.binary, "serve", "-D", self.data, "--port",
                                      str(self.port), "--listen", "127.0.0.1"],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                sys.exit("tidepool serve exited %d; see %s.log" % (self.proc.returncode, self.data))
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return self
            except OSError:
                time.sleep(0.1)
        self.proc.kill()
        sys.exit("tidepool serve did not accept connections within 60 s")

    def connect(self):
        return psycopg2.connect(host="127.0.0.1", port=self.port, user="tidepool",
                                dbname="tidepool", connect_timeout=10)

    def __exit__(self, *exc):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


def run_setup(conn, statements):
    conn.autocommit = True
    with conn.cursor() as cur:
        for sql in statements:
            cur.execute(sql)


NODE_RE = re.compile(r"^(\s*)(?:->  )?(.*?)  \(cost=([0-9.]+)\.\.([0-9.]+) rows=(\d+) width=(\d+)\)")


def explain(conn, sql, settings=()):
    """The plan's lines under `settings` (SET statements after RESET ALL), or the
    error's first line as ("error", message)."""
    try:
        with conn.cursor() as cur:
            cur.execute("RESET ALL")
            for st in settings:
                cur.execute(st)
            cur.execute("EXPLAIN " + sql)
            return [r[0] for r in cur.fetchall()], None
    except psycopg2.Error as e:
        return None, (e.pgerror or str(e)).strip().splitlines()[0]


# A query that runs longer than this in either system is cancelled (the protocol's
# CancelRequest) and reported as a `timeout`: a bound on the whole run, and a finding.
QUERY_SECONDS = 60


def rows_of(conn, sql, settings=()):
    """The query's rows as text (NULL as None), sorted (ties under ORDER BY may come in
    any order); or the error's first line as (None, message)."""
    fired = threading.Event()

    def cancel():
        fired.set()  # before the cancel, which the query's error may overtake
        conn.cancel()

    timer = threading.Timer(QUERY_SECONDS, cancel)
    try:
        with conn.cursor() as cur:
            cur.execute("RESET ALL")
            for st in settings:
                cur.execute(st)
            timer.start()
            cur.execute(sql)
            rows = [tuple(None if v is None else str(v) for v in r) for r in cur.fetchall()]
    except psycopg2.Error as e:
        conn.rollback() if not conn.autocommit else None
        if fired.is_set():
            return None, "timeout: cancelled after %d s" % QUERY_SECONDS
        return None, (e.pgerror or str(e)).strip().splitlines()[0]
    finally:
        timer.cancel()
    rows.sort(key=lambda r: tuple((v is None, v or "") for v in r))
    return rows, None


def values_close(a, b):
    """Two values as text: equal, or floats within rounding (a float sum's last digits
    follow the order rows come in, which a sort, a spill or the workers change). Only
    values with a fraction or an exponent are floats; a real (at most 9 significant
    digits, its sum rounded to 24 bits at every step) gets 1e-4, a double 1e-9."""
    if a == b:
        return True
    if a is None or b is None or not any(c in a + b for c in ".eE"):
        return False
    try:
        x, y = float(a), float(b)
    except (TypeError, ValueError):
        return False
    digits = max(len(v.lstrip("-").replace(".", "").split("e")[0].lstrip("0")) for v in (a, b))
    tolerance = 1e-4 if digits <= 9 else 1e-9
    return abs(x - y) <= tolerance * max(abs(x), abs(y))


def rows_close(pg_rows, tp_rows):
    if pg_rows == tp_rows:
        return True
    if pg_rows is None or tp_rows is None or len(pg_rows) != len(tp_rows):
        return False
    return all(len(p) == len(t) and all(values_close(a, b) for a, b in zip(p, t))
               for p, t in zip(pg_rows, tp_rows))


def shape(lines):
    """The plan's nodes: (depth, header without costs and aliases), and the top node's
    startup and total cost and rows."""
    nodes, top = [], None
    for line in lines:
        m = NODE_RE.match(line)
        if not m:
            continue
        indent, header = len(m.group(1)), m.group(2)
        # "Seq Scan on t1 t" and "Seq Scan on t1" are one shape: drop an alias.
        header = re.sub(r" on (\S+) \1$", r" on \1", header)
        nodes.append((indent, header))
        if top is None:
            top = (float(m.group(3)), float(m.group(4)), int(m.group(5)))
    return nodes, top


def compare(pg_lines, tp_lines):
    """None if the plans match, else the cause."""
    pg_nodes, pg_top = shape(pg_lines)
    tp_nodes, tp_top = shape(tp_lines)
    if [h for _, h in pg_nodes] != [h for _, h in tp_nodes] or \
            [d for d, _ in pg_nodes] != [d for d, _ in tp_nodes]:
        return "plan shape"
    pg_cost, tp_cost = pg_top[1], tp_top[1]
    if abs(pg_cost - tp_cost) > COST_TOLERANCE * max(abs(pg_cost), 1e-9):
        return "top cost"
    return None


# A constant compared with (after a comparison operator or LIKE), and BETWEEN's bounds.
VALUE = r"(-?\d+(?:\.\d+)?(?![\w.])|'(?:[^']|'')*')"
COMPARED_RE = re.compile(r"((?:<>|<=|>=|=|<|>)\s*|\bLIKE\s+)" + VALUE, re.IGNORECASE)
BETWEEN_RE = re.compile(r"(\bBETWEEN\s+)" + VALUE + r"(\s+AND\s+)" + VALUE, re.IGNORECASE)


def as_prepared(sql):
    """The query with its compared constants as $1 .. $n, and the constants (EXECUTE's
    arguments); None when it compares with none."""
    values = []

    def param(value):
        values.append(value)
        return "$%d" % len(values)
    sql = BETWEEN_RE.sub(lambda m: m.group(1) + param(m.group(2)) + m.group(3) +
                         param(m.group(4)), sql)
    sql = COMPARED_RE.sub(lambda m: m.group(1) + param(m.group(2)), sql)
    return (sql, values) if values else None


def generic_form(settings, sql):
    """`sql` as a prepared statement run with its constants under force_generic_plan:
    (settings, statement) for explain() and rows_of(); None when it has no constant."""
    prepared = as_prepared(sql)
    if prepared is None:
        return None
    template, values = prepared
    execute = "EXECUTE pd(%s)" % ", ".join(values)
    # Run once before: the rows compared come from the generic plan run again (a tree
    # kept between executions, engine/session/plan_cache.h).
    return (list(settings) + ["DEALLOCATE ALL", "PREPARE pd AS " + template,
                              "SET plan_cache_mode = force_generic_plan", execute], execute)


def node_kinds(lines):
    return " / ".join(re.sub(r" (on|using) .*", "", h) for _, h in shape(lines)[0])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root_dir = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="plandiff-out")
    ap.add_argument("--tidepool", default=os.path.join(root_dir, "build/rel/bin/tidepool"))
    ap.add_argument("--pg-bin", default=PG_BIN)
    ap.add_argument("--show", type=int, default=3, help="mismatches printed per cause")
    ap.add_argument("--results", action="store_true",
                    help="also run each query in both and compare the rows")
    ap.add_argument("--fail-on-rows", action="store_true",
                    help="with --results: exit 1 when any query's rows or result error differ "
                         "(a test of the suite); exit 77 when PostgreSQL 15 is not installed")
    ap.add_argument("--typed", action="store_true",
                    help="the tables of every type and their grammar (typed_grammar.py)")
    ap.add_argument("--grouping", action="store_true",
                    help="GROUP BY queries over the typed tables (grouping_grammar.py)")
    ap.add_argument("--joins", action="store_true",
                    help="inner and outer joins of the typed tables (join_grammar.py)")
    ap.add_argument("--generic", action="store_true",
                    help="each query's compared constants as parameters of a prepared "
                    "statement, run with plan_cache_mode = force_generic_plan (queries "
                    "without one are left out)")
    ap.add_argument("--parallel", action="store_true",
                    help="with --joins: parallel costs on half the queries (the same queries "
                    "as without it)")
    args = ap.parse_args()
    if not os.access(args.tidepool, os.X_OK):
        sys.exit("no tidepool binary at %s: build first (cmake --build build/rel)" % args.tidepool)
    if not os.access(os.path.join(args.pg_bin, "postgres"), os.X_OK):
        if args.fail_on_rows:
            print("no PostgreSQL 15 at %s: skipped" % args.pg_bin)
            sys.exit(77)
        sys.exit("no PostgreSQL 15 at %s: tools/install-deps installs it" % args.pg_bin)
    os.makedirs(args.out, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="plandiff-")
    try:
        with PgServer(scratch, args.pg_bin) as pg, TidepoolServer(scratch, args.tidepool) as tp:
            pg_conn, tp_conn = pg.connect(), tp.connect()
            typed = args.typed or args.grouping or args.joins
            setup = typed_setup_statements() if typed else setup_statements()
            run_setup(pg_conn, setup)
            run_setup(tp_conn, setup)
            version = pg_conn.server_version
            gen = (JoinQueryGenerator if args.joins else
                   GroupingQueryGenerator if args.grouping else
                   TypedQueryGenerator if args.typed else QueryGenerator)(random.Random(args.seed))
            queries = [(gen.settings(), gen.query()) for _ in range(args.queries)]
            if args.parallel:
                # A generator of its own: the queries stay those of the run without it.
                pr = random.Random(args.seed * 7919 + 17)
                queries = [(s + parallel_settings(pr), q) for s, q in queries]
            if args.generic:
                queries = [g for g in (generic_form(s, q) for s, q in queries) if g]
            results = []
            for settings, sql in queries:
                pg_plan, pg_err = explain(pg_conn, sql, settings)
                tp_plan, tp_err = explain(tp_conn, sql, settings)
                q = "; ".join(settings + [sql])
                if pg_err:
                    cause = "PostgreSQL refused"
                elif tp_err:
                    cause = "tidepool refused"
                else:
                    cause = compare(pg_plan, tp_plan)
                if args.results and not pg_err and not tp_err:
                    pg_rows, pg_rerr = rows_of(pg_conn, sql, settings)
                    tp_rows, tp_rerr = rows_of(tp_conn, sql, settings)
                    if "timeout" in (pg_rerr or "") + (tp_rerr or ""):
                        # Both: a query too heavy for the grammar's tables; tidepool
                        # alone: a hang, or a plan far off PostgreSQL's (the plan
                        # comparison says which). Reported; no wrong row.
                        cause = ("timeout" if "timeout" in (tp_rerr or "") and
                                 "timeout" not in (pg_rerr or "") else "timeout in both")
                        pg_plan, tp_plan = [str(pg_rerr)], [str(tp_rerr)]
                    elif pg_rerr != tp_rerr:
                        cause = "result error"
                        pg_plan, tp_plan = [str(pg_rerr)], [str(tp_rerr)]
                    elif not rows_close(pg_rows, tp_rows) and not (
                            (" LIMIT " in q.upper() or " FETCH FIRST " in q.upper()) and
                            len(pg_rows) == len(tp_rows)):
                        # (a LIMIT or FETCH FIRST may keep other rows among ties)
                        cause = "result rows"
                        pg_plan = [repr(r) for r in (pg_rows or [])[:5]]
                        tp_plan = [repr(r) for r in (tp_rows or [])[:5]]
                results.append((q, cause, pg_plan if pg_plan is not None else [str(pg_err)],
                                tp_plan if tp_plan is not None else [str(tp_err)]))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    report(results, args, version)
    if args.fail_on_rows:
        wrong = [r for r in results if r[1] in ("result rows", "result error")]
        for q, cause, pg, tp in wrong:
            print("%s: %s\n-- PostgreSQL 15:\n%s\n-- tidepool:\n%s" %
                  (cause, q, "\n".join(pg), "\n".join(tp)))
        sys.exit(1 if wrong else 0)


def report(results, args, version):
    matched = sum(1 for r in results if r[1] is None)
    by_cause = {}
    for q, cause, pg, tp in results:
        if cause is None:
            continue
        if cause == "tidepool refused":
            key = (cause, re.sub(r"\d+", "N", tp[0])[:100])
        elif cause == "plan shape":
            key = (cause, node_kinds(pg) + "  vs  " + node_kinds(tp))
        elif cause in ("result rows", "result error", "timeout", "timeout in both"):
            key = (cause, "")
        else:
            key = (cause, node_kinds(pg))
        by_cause.setdefault(key, []).append((q, pg, tp))
    total = len(results)
    print("plandiff: %d queries (seed %d), PostgreSQL %d: %d match (%.1f%%)" %
          (total, args.seed, version, matched, 100.0 * matched / max(total, 1)))
    for (cause, detail), items in sorted(by_cause.items(), key=lambda kv: -len(kv[1])):
        print("%5d  %-18s %s" % (len(items), cause, detail))
    with open(os.path.join(args.out, "mismatches.txt"), "w") as f:
        for (cause, detail), items in sorted(by_cause.items(), key=lambda kv: -len(kv[1])):
            f.write("=== %d x %s: %s\n" % (len(items), cause, detail))
            for q, pg, tp in items[:max(args.show, 1) * 5]:
                f.write("\n%s;\n-- PostgreSQL 15:\n%s\n-- tidepool:\n%s\n" %
                        (q, "\n".join(pg), "\n".join(tp)))
            f.write("\n")
    with open(os.path.join(args.out, "summary.txt"), "w") as f:
        f.write("%d %d\n" % (total, matched))
    print("mismatches: %s" % os.path.join(args.out, "mismatches.txt"))


if __name__ == "__main__":
    main()
