"""The tables plandiff builds and the grammar its queries come from.

Every table holds at most 30,000 rows, the ANALYZE sample at the default statistics
target, so PostgreSQL and tidepool both sample it whole and hold the same statistics.
The data is a function of the row number only (no random()), so both get the same rows.
One table (t6) is never analyzed: both then estimate from its pages and, once an index
is built on it, from the counts CREATE INDEX records. One (t7) is VACUUM ANALYZEd: its
pages are all-visible, so index-only scans skip the heap.
"""

# name -> (CREATE TABLE, rows, {column: (expression of i, low, high)}, indexes,
#          True: ANALYZE / False: nothing / "vacuum": VACUUM ANALYZE)
TABLES = {
    "t1": ("CREATE TABLE t1 (a int, b int, c int, d int)", 20000,
           {"a": ("i", 1, 20000), "b": ("i % 100", 0, 99),
            "c": ("(i * 7919) % 20000", 0, 19999), "d": ("i / 50", 0, 400)},
           ["CREATE INDEX t1_a ON t1 (a)", "CREATE INDEX t1_b ON t1 (b)",
            "CREATE INDEX t1_cd ON t1 (c, d)", "CREATE INDEX t1_bc ON t1 (b, c)"], True),
    "t2": ("CREATE TABLE t2 (a int, b int PRIMARY KEY, c int)", 5000,
           {"a": ("i % 10", 0, 9), "b": ("i", 1, 5000), "c": ("(i * 37) % 997", 0, 996)},
           ["CREATE INDEX t2_a ON t2 (a)", "CREATE INDEX t2_ac ON t2 (a, c)"], True),
    "t3": ("CREATE TABLE t3 (x int, y bigint, z int) WITH (fillfactor=50)", 30000,
           {"x": ("(i * 31) % 1000", 0, 999), "y": ("i * 3", 3, 90000), "z": ("i % 7", 0, 6)},
           ["CREATE INDEX t3_x ON t3 (x)", "CREATE INDEX t3_y ON t3 (y)",
            "CREATE INDEX t3_zx ON t3 (z, x)"], True),
    "t4": ("CREATE TABLE t4 (k int PRIMARY KEY, v int)", 200,
           {"k": ("i", 1, 200), "v": ("i % 13", 0, 12)},
           ["CREATE INDEX t4_v ON t4 (v)"], True),
    "t5": ("CREATE TABLE t5 (a int, b int)", 30000,
           {"a": ("i / 1000", 0, 30), "b": ("(i * 7) % 30000", 0, 29999)},
           ["CREATE INDEX t5_a ON t5 (a)", "CREATE INDEX t5_b ON t5 (b)"], True),
    "t6": ("CREATE TABLE t6 (a int, b int)", 10000,
           {"a": ("i", 1, 10000), "b": ("i % 50", 0, 49)},
           ["CREATE INDEX t6_a ON t6 (a)"], False),
    "t7": ("CREATE TABLE t7 (a int, b int, c bigint) WITH (fillfactor=10)", 30000,
           {"a": ("(i * 7919) % 30000", 0, 29999), "b": ("i % 1000", 0, 999), "c": ("i", 1, 30000)},
           ["CREATE INDEX t7_a ON t7 (a)", "CREATE INDEX t7_b ON t7 (b)",
            "CREATE INDEX t7_ba ON t7 (b, a)", "CREATE INDEX t7_c ON t7 (c)"], "vacuum"),
}

# Settings a query may run under (one group, or none): the planner's switches, and
# parallel query made cheap enough to matter on these small tables.
SETTINGS = [
    ["SET enable_sort = off"],
    ["SET enable_seqscan = off"],
    ["SET enable_seqscan = off", "SET enable_indexscan = off"],
    ["SET enable_bitmapscan = off"],
    ["SET parallel_setup_cost = 0", "SET parallel_tuple_cost = 0",
     "SET min_parallel_table_scan_size = 0", "SET min_parallel_index_scan_size = 0"],
    ["SET parallel_setup_cost = 10", "SET parallel_tuple_cost = 0.001",
     "SET min_parallel_index_scan_size = 0"],
    ["SET parallel_setup_cost = 0", "SET parallel_tuple_cost = 0.01",
     "SET min_parallel_table_scan_size = 0", "SET max_parallel_workers_per_gather = 4"],
    ["SET parallel_setup_cost = 0", "SET parallel_tuple_cost = 0",
     "SET min_parallel_table_scan_size = 0", "SET min_parallel_index_scan_size = 0",
     "SET parallel_leader_participation = off"],
]


def setup_statements(tables=None):
    """The statements that build `tables` (TABLES by default): each column's values
    are the first item of its entry, an expression of the row number i."""
    out = []
    for name, (create, rows, cols, indexes, analyze) in (tables or TABLES).items():
        out.append("DROP TABLE IF EXISTS %s" % name)
        out.append(create)
        exprs = ", ".join(entry[0] for entry in cols.values())
        out.append("INSERT INTO %s SELECT %s FROM generate_series(1, %d) s(i)" %
                   (name, exprs, rows))
        out.extend(indexes)
        if analyze == "vacuum":
            out.append("VACUUM ANALYZE %s" % name)
        elif analyze:
            out.append("ANALYZE %s" % name)
    return out


class QueryGenerator:
    """Single-table SELECTs: select lists of columns or aggregates, WHERE trees of
    comparisons, BETWEEN, IN and NOT under AND and OR, ORDER BY, LIMIT; and, now and
    then, the SQL researchers type next (DISTINCT, OFFSET, FETCH FIRST, IS NULL,
    count(DISTINCT ...), expressions over aggregates, schema-qualified names)."""

    def __init__(self, rng):
        self.r = rng

    def const(self, col_range, slack=0.1):
        lo, hi = col_range
        span = hi - lo
        v = self.r.randint(int(lo - slack * span), int(hi + slack * span))
        if self.r.random() < 0.04:
            return "%d.5" % v
        return str(v)

    def atom(self, cols):
        c = self.r.choice(list(cols))
        rng = cols[c][1:]
        k = self.r.random()
        if k < 0.45:
            return "%s %s %s" % (c, self.r.choice(["=", "<", "<=", ">", ">=", "<>"]),
                                 self.const(rng))
        if k < 0.65:
            a, b = sorted([int(float(self.const(rng))), int(float(self.const(rng)))])
            return "%s BETWEEN %d AND %d" % (c, a, b)
        if k < 0.85:
            n = self.r.randint(1, 5)
            return "%s IN (%s)" % (c, ", ".join(self.const(rng, 0) for _ in range(n)))
        if k < 0.88:
            return "NOT (%s)" % self.atom(cols)
        if k < 0.91:
            return "%s IS %sNULL" % (c, self.r.choice(["", "NOT "]))
        if k < 0.94:
            return self.array_atom(c, rng)
        if k < 0.96:
            return "%s %s %s" % (self.const(rng), self.r.choice(["=", "<", "<=", ">", ">="]), c)
        a, b = sorted([int(float(self.const(rng))), int(float(self.const(rng)))])
        return "%s BETWEEN SYMMETRIC %d AND %d" % (c, b, a)

    def array_atom(self, c, rng):
        """= ANY and <> ALL over arrays of zero, one or a few elements: PostgreSQL keeps
        them array operators (only IN (v) becomes a plain comparison)."""
        n = self.r.choice([0, 1, 1, 2, 3])
        items = [self.const(rng, 0) for _ in range(n)]
        op = self.r.choice(["= ANY", "= ANY", "<> ALL"])
        if self.r.random() < 0.5:
            # A string literal takes the column's type: integers only.
            return "%s %s ('{%s}')" % (c, op, ",".join(str(int(float(v))) for v in items))
        if not items:
            return "%s %s (ARRAY[]::int[])" % (c, op)
        return "%s %s (ARRAY[%s])" % (c, op, ", ".join(items))

    def settings(self):
        """The SET statements a query runs under: none for most."""
        if self.r.random() < 0.75:
            return []
        return self.r.choice(SETTINGS)

    def where(self, cols, depth=0):
        k = self.r.random()
        if depth >= 2 or k < 0.5:
            return self.atom(cols)
        op = "AND" if k < 0.8 else "OR"
        n = self.r.randint(2, 3)
        parts = [self.where(cols, depth + 1) for _ in range(n)]
        return "(" + (" %s " % op).join(parts) + ")"

    def select_list(self, cols):
        names = list(cols)
        k = self.r.random()
        if k < 0.40:
            return "*", False
        if k < 0.65:
            return ", ".join(self.r.sample(names, self.r.randint(1, min(3, len(names))))), False
        if k < 0.72:
            return "count(*)", True
        if k < 0.85:
            c = self.r.choice(names)
            return self.r.choice(["min(%s)", "max(%s)"]) % c, True
        if k < 0.93:
            aggs = [self.r.choice(["min", "max", "sum", "avg", "count"]) + "(%s)" %
                    self.r.choice(names) for _ in range(self.r.randint(1, 3))]
            return ", ".join(aggs), True
        c = self.r.choice(names)
        return self.r.choice(["DISTINCT %s" % c, "count(DISTINCT %s)" % c, "count(1)",
                              "max(%s) + 1" % c]), True

    def query(self):
        table = self.r.choice(list(TABLES))
        cols = TABLES[table][2]
        select, aggregate = self.select_list(cols)
        name = "public." + table if self.r.random() < 0.02 else table
        if self.r.random() < 0.03:
            name += " x"
        sql = "SELECT %s FROM %s" % (select, name)
        if self.r.random() < 0.8:
            sql += " WHERE " + self.where(cols)
        if not aggregate or select.startswith("DISTINCT"):
            if self.r.random() < 0.5:
                keys = self.r.sample(list(cols), self.r.randint(1, min(2, len(cols))))
                if select.startswith("DISTINCT"):
                    keys = [select.split()[1]]
                sql += " ORDER BY " + ", ".join(
                    k + self.r.choice(["", " DESC", " ASC", " DESC NULLS LAST"
                                       if self.r.random() < 0.1 else ""]) for k in keys)
            k = self.r.random()
            if k < 0.35:
                sql += " LIMIT %d" % self.r.choice([1, 5, 10, 100, 1000])
            elif k < 0.40:
                sql += " LIMIT 10 OFFSET %d" % self.r.choice([0, 10, 500])
            elif k < 0.42:
                sql += " FETCH FIRST %d ROWS ONLY" % self.r.choice([1, 10])
        return sql
