"""Tables of every stored type and the query grammar over them (plandiff --typed).

As grammar.py's, the tables hold at most 30,000 rows whose data is a function of the
row number, so ANALYZE samples them whole in both systems. s1 is ANALYZEd, s2 never
(estimates from its pages and the types' default widths), s3 VACUUM ANALYZEd with NULLs
in every column. Strings compare in the "C" collation (plandiff's cluster is initdb'd
with it).
"""

from grammar import setup_statements

# name -> (CREATE TABLE, rows, {column: (expression of i, kind)}, indexes, analyze)
TYPED_TABLES = {
    "s1": ("CREATE TABLE s1 (id int, t text, v varchar(20), c char(8), n numeric(10,2), "
           "f float8, r real, d date, ts timestamp, b bool, sm smallint)", 20000,
           {"id": ("i", "int"),
            "t": ("CASE WHEN i % 10 = 0 THEN 'common' ELSE 'k' || ((i * 7919) % 3000) END", "text"),
            "v": ("'v' || (i % 50)", "text"),
            "c": ("'c' || (i % 400)", "char"),
            "n": ("(i % 1000) * 1.25", "numeric"),
            "f": ("i / 7.0", "float"),
            "r": ("(i % 300) / 7.0", "real"),
            "d": ("date '2020-01-01' + (i * 13) % 1500", "date"),
            "ts": ("timestamp '2021-01-01 00:00' + i * interval '37 minutes'", "timestamp"),
            "b": ("i % 3 = 0", "bool"),
            "sm": ("i % 120", "smallint")},
           ["CREATE INDEX s1_id ON s1 (id)", "CREATE INDEX s1_t ON s1 (t)",
            "CREATE INDEX s1_d_sm ON s1 (d, sm)", "CREATE INDEX s1_n ON s1 (n)",
            "CREATE INDEX s1_c ON s1 (c)", "CREATE INDEX s1_v ON s1 (v)"], True),
    "s2": ("CREATE TABLE s2 (k int, t text, n numeric, d date, b bool)", 3000,
           {"k": ("i", "int"), "t": ("'k' || (i % 300)", "text"), "n": ("i / 3.0", "numeric"),
            "d": ("date '2021-06-01' + i % 400", "date"), "b": ("i % 2 = 0", "bool")},
           [], False),
    "s3": ("CREATE TABLE s3 (a int, t varchar(40), n numeric(12,3), d date, f float8, b bool, "
           "tz timestamptz)",
           10000,
           {"a": ("i % 5000", "int"),
            "t": ("CASE WHEN i % 7 = 0 THEN NULL ELSE repeat('x', i % 30) || i END", "text"),
            "n": ("CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 37 % 100000) / 1000.0 END", "numeric"),
            "d": ("CASE WHEN i % 13 = 0 THEN NULL ELSE date '2019-01-01' + i % 900 END", "date"),
            "f": ("CASE WHEN i % 5 = 0 THEN NULL ELSE (i % 1000) * 0.5 END", "float"),
            "b": ("CASE WHEN i % 4 = 0 THEN NULL ELSE i % 3 = 1 END", "bool"),
            "tz": ("CASE WHEN i % 17 = 0 THEN NULL ELSE timestamptz '2020-06-01 00:00+00' + "
                   "i * interval '53 minutes' END", "timestamptz")},
           ["CREATE INDEX s3_a ON s3 (a)", "CREATE INDEX s3_t ON s3 (t)",
            "CREATE INDEX s3_d ON s3 (d)", "CREATE INDEX s3_n_f ON s3 (n, f)",
            "CREATE INDEX s3_tz ON s3 (tz)"], "vacuum"),
}


def typed_setup_statements():
    return setup_statements(TYPED_TABLES)


def family(kind):
    """Kinds PostgreSQL compares with each other."""
    if kind in ("int", "smallint", "numeric", "float", "real"):
        return "number"
    if kind in ("text", "char"):
        return "string"
    if kind in ("date", "timestamp", "timestamptz"):
        return "time"
    return kind


class TypedQueryGenerator:
    """Single-table SELECTs over the typed tables: comparisons of every type with
    constants, LIKE / ILIKE patterns, IN lists, IS NULL, boolean tests, expressions on
    either side (arithmetic, ||, functions, CASE, COALESCE, casts), NULL constants; select
    lists of columns, expressions and aggregates; DISTINCT, DISTINCT ON; ORDER BY columns and
    expressions; LIMIT."""

    def __init__(self, rng):
        self.r = rng

    def const(self, kind):
        r = self.r
        if kind in ("int", "smallint"):
            return str(r.randint(-10, 20000 if kind == "int" else 130))
        if kind == "text":
            return "'%s'" % r.choice(["common", "k1", "k17", "k2999", "k5", "v1", "v42", "x",
                                      "k", "", "zz", "xxx1"])
        if kind == "char":
            return "'%s'" % r.choice(["c1", "c12", "c399", "c2", "b", "c1  "])
        if kind == "numeric":
            return r.choice(["%d" % r.randint(0, 1300), "%d.%02d" % (r.randint(0, 1300),
                                                                     r.randint(0, 99))])
        if kind in ("float", "real"):
            return r.choice(["%d" % r.randint(0, 3000), "%d.5" % r.randint(0, 3000)])
        if kind == "date":
            return "'%04d-%02d-%02d'" % (r.randint(2019, 2024), r.randint(1, 12), r.randint(1, 28))
        if kind == "timestamp":
            return "'2021-%02d-%02d %02d:00'" % (r.randint(1, 12), r.randint(1, 28),
                                                 r.randint(0, 23))
        if kind == "timestamptz":
            return r.choice(["'2020-%02d-%02d %02d:00%s'" % (r.randint(6, 12), r.randint(1, 28),
                                                             r.randint(0, 23),
                                                             r.choice(["", "+00", "+02", "-05:30",
                                                                       " EST", " UTC"])),
                             "now() - interval '%d days'" % r.randint(1, 3000)])
        return r.choice(["true", "false"])

    def pattern(self):
        return "'%s'" % self.r.choice(["k1%", "k12%", "%9", "c1%", "v4%", "common", "k_",
                                       "%x%", "K1%", "x%", "%", "k1_3"])

    def expression(self, cols):
        """An expression over a column, with its kind."""
        c = self.r.choice(list(cols))
        kind = cols[c][1]
        r = self.r
        if kind in ("text", "char"):
            return r.choice([("length(%s)" % c, "int"), ("lower(%s)" % c, "text"),
                             ("upper(%s)" % c, "text"), ("%s || 'x'" % c, "text"),
                             ("substring(%s, 1, 2)" % c, "text"),
                             ("coalesce(%s, 'none')" % c, "text")])
        if kind in ("int", "smallint"):
            return r.choice([("%s + 1" % c, "int"), ("%s * 2" % c, "int"),
                             ("%s %% 7" % c, "int"), ("-%s" % c, "int"),
                             ("%s::numeric / 3" % c, "numeric")])
        if kind == "numeric":
            return r.choice([("%s * 2" % c, "numeric"), ("round(%s)" % c, "numeric"),
                             ("coalesce(%s, 0)" % c, "numeric"), ("abs(%s - 500)" % c, "numeric"),
                             ("%s * (1 - 0.25)" % c, "numeric")])
        if kind in ("float", "real"):
            return r.choice([("%s * 2" % c, "float"), ("abs(%s - 100)" % c, "float"),
                             ("floor(%s)" % c, "float")])
        if kind == "date":
            return r.choice([("%s + 30" % c, "date"), ("extract(year from %s)" % c, "numeric"),
                             ("date_trunc('month', %s::timestamp)" % c, "timestamp"),
                             ("date_trunc('month', %s)" % c, "timestamptz")])
        if kind == "timestamp":
            return r.choice([("%s - interval '1 day'" % c, "timestamp"),
                             ("date_part('hour', %s)" % c, "float")])
        if kind == "timestamptz":
            return r.choice([("%s + interval '1 hour'" % c, "timestamptz"),
                             ("date_trunc('day', %s)" % c, "timestamptz"),
                             ("%s AT TIME ZONE 'UTC'" % c, "timestamp"),
                             ("extract(hour from %s)" % c, "numeric"),
                             ("%s::date" % c, "date")])
        return ("CASE WHEN %s THEN 1 ELSE 0 END" % c, "int")

    def atom(self, cols):
        r = self.r
        k = r.random()
        c = r.choice(list(cols))
        kind = cols[c][1]
        if k < 0.35:
            if kind == "bool":
                return r.choice(["%s" % c, "NOT %s" % c, "%s IS TRUE" % c,
                                 "%s IS NOT FALSE" % c, "%s = %s" % (c, self.const(kind))])
            return "%s %s %s" % (c, r.choice(["=", "<", "<=", ">", ">=", "<>"]), self.const(kind))
        if k < 0.45 and kind in ("text", "char"):
            return "%s %s %s" % (c, r.choice(["LIKE", "LIKE", "NOT LIKE", "ILIKE"]), self.pattern())
        if k < 0.55 and kind != "bool":
            a, b = sorted([self.const(kind), self.const(kind)])
            return "%s BETWEEN %s AND %s" % (c, a, b)
        if k < 0.65 and kind != "bool":
            return "%s %sIN (%s)" % (c, r.choice(["", "", "NOT "]),
                                     ", ".join(self.const(kind) for _ in range(r.randint(1, 4))))
        if k < 0.72:
            return "%s IS %sNULL" % (c, r.choice(["", "NOT "]))
        if k < 0.88:
            e, ekind = self.expression(cols)
            if ekind == "bool":
                return e
            return "%s %s %s" % (e, r.choice(["=", "<", ">", "<>"]), self.const(ekind))
        if k < 0.90 and kind != "bool":
            return "%s %s NULL" % (c, r.choice(["=", "<", "<>"]))
        if k < 0.93:
            # Two columns of one family (across widths and types: numeric against float8,
            # date against timestamp), or a CASE over a condition.
            same = [o for o in cols if o != c and family(cols[o][1]) == family(kind)]
            if same and kind != "bool":
                return "%s %s %s" % (c, r.choice(["=", "<", ">", "<>"]), r.choice(same))
            return "CASE WHEN %s THEN 'a' ELSE 'b' END = '%s'" % (self.atom(cols), r.choice("ab"))
        if k < 0.96:
            return "NOT (%s)" % self.atom(cols)
        return r.choice(["true", "false", "NULL", "1 = 1"])

    def where(self, cols, depth=0):
        k = self.r.random()
        if depth >= 2 or k < 0.5:
            return self.atom(cols)
        op = "AND" if k < 0.8 else "OR"
        parts = [self.where(cols, depth + 1) for _ in range(self.r.randint(2, 3))]
        return "(" + (" %s " % op).join(parts) + ")"

    def select_list(self, cols):
        r = self.r
        names = list(cols)
        k = r.random()
        if k < 0.25:
            return "*", False
        if k < 0.50:
            return ", ".join(r.sample(names, r.randint(1, min(3, len(names))))), False
        if k < 0.62:
            items = [r.choice(names) if r.random() < 0.5 else self.expression(cols)[0]
                     for _ in range(r.randint(1, 3))]
            return ", ".join(items), False
        if k < 0.88:
            aggs = []
            for _ in range(r.randint(1, 3)):
                c = r.choice(names)
                kind = cols[c][1]
                fns = ["count"] if kind == "bool" else ["count", "min", "max"]
                if kind in ("int", "smallint", "numeric", "float", "real"):
                    fns += ["sum", "avg"]
                arg = c
                if r.random() < 0.2:
                    arg, ekind = self.expression(cols)
                    fns = ["count", "min", "max"]
                    if ekind in ("int", "numeric", "float"):
                        fns += ["sum", "avg"]
                elif r.random() < 0.1 and kind != "bool":
                    arg = "DISTINCT " + c
                aggs.append("%s(%s)" % (r.choice(fns), arg))
            return ", ".join(aggs), True
        if k < 0.94:
            if r.random() < 0.3:
                return "DISTINCT %s" % ", ".join(
                    self.expression(cols)[0] if r.random() < 0.7 else r.choice(names)
                    for _ in range(r.randint(1, 2))), True
            return "DISTINCT %s" % r.choice(names), True
        c = r.choice(names)
        return r.choice(["count(DISTINCT %s)" % c, "count(*)"]), True

    def distinct_on_query(self, cols):
        """SELECT DISTINCT ON over s1, ordered down to its unique id so that the row each
        group keeps is the same in both systems."""
        r = self.r
        on = r.sample([c for c in cols if c != "id"], r.randint(1, 2))
        select = r.choice(["*", ", ".join(on + ["id"]), "id, " + r.choice(list(cols))])
        sql = "SELECT DISTINCT ON (%s) %s FROM s1" % (", ".join(on), select)
        if r.random() < 0.7:
            sql += " WHERE " + self.where(cols)
        sql += " ORDER BY " + ", ".join(c + r.choice(["", " DESC"]) for c in on)
        sql += ", id" + r.choice(["", " DESC"])
        if r.random() < 0.4:
            sql += " LIMIT %d" % r.choice([1, 5, 10, 100])
        return sql

    def query(self):
        table = self.r.choice(list(TYPED_TABLES))
        cols = TYPED_TABLES[table][2]
        if table == "s1" and self.r.random() < 0.1:
            return self.distinct_on_query(cols)
        select, aggregate = self.select_list(cols)
        sql = "SELECT %s FROM %s" % (select, table)
        if self.r.random() < 0.85:
            sql += " WHERE " + self.where(cols)
        if not aggregate or select.startswith("DISTINCT"):
            if self.r.random() < 0.5:
                if select.startswith("DISTINCT"):
                    first = select[len("DISTINCT "):].split(",")[0]
                    keys = ["1"] if " " in first or "(" in first else [first]
                elif self.r.random() < 0.3:
                    keys = [self.expression(cols)[0]]
                else:
                    keys = self.r.sample(list(cols), self.r.randint(1, 2))
                if keys:
                    sql += " ORDER BY " + ", ".join(
                        k + self.r.choice(["", " DESC", " ASC"]) for k in keys)
            if self.r.random() < 0.4:
                sql += " LIMIT %d" % self.r.choice([1, 5, 10, 100])
        return sql

    def settings(self):
        return []
