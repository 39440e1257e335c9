"""GROUP BY queries over the typed tables (plandiff --grouping).

Grouping keys are columns, expressions and select-list ordinals; the select list mixes
keys, aggregates (count, sum, avg, min, max, DISTINCT ones) and arithmetic over them;
HAVING compares aggregates (and keys, which PostgreSQL moves to WHERE); ORDER BY names
keys, aggregates, output ordinals and aliases; LIMIT; under enable_hashagg, enable_sort,
enable_incremental_sort, work_mem, and parallel costs low enough for partial grouping
under a Gather or Gather Merge.
"""

from typed_grammar import TYPED_TABLES, TypedQueryGenerator

NUMERIC_KINDS = ("int", "smallint", "numeric", "float", "real")


class GroupingQueryGenerator(TypedQueryGenerator):

    def aggregate(self, cols):
        r = self.r
        c = r.choice(list(cols))
        kind = cols[c][1]
        if r.random() < 0.15:
            return "count(*)", "int"
        fns = ["count"] if kind == "bool" else ["count", "min", "max"]
        if kind in NUMERIC_KINDS:
            fns += ["sum", "avg", "sum"]
        fn = r.choice(fns)
        arg = c
        if r.random() < 0.15:
            arg, ekind = self.expression(cols)
            fn = r.choice(["count", "min", "max"] +
                          (["sum", "avg"] if ekind in ("int", "numeric", "float") else []))
            kind = ekind
        elif r.random() < 0.08 and kind != "bool":
            arg = "DISTINCT " + c
        result = "int" if fn == "count" else ("numeric" if fn == "avg" and kind != "float"
                                              else kind)
        return "%s(%s)" % (fn, arg), result

    def key(self, cols):
        r = self.r
        if r.random() < 0.7:
            c = r.choice(list(cols))
            return c, cols[c][1]
        return self.expression(cols)

    def query(self):
        r = self.r
        table = r.choice(list(TYPED_TABLES))
        cols = TYPED_TABLES[table][2]
        keys = []
        for _ in range(r.choice([1, 1, 1, 2, 2, 3])):
            k = self.key(cols)
            if k[0] not in [x[0] for x in keys]:
                keys.append(k)
        select, aggs = [], []
        for k, _ in keys:
            if r.random() < 0.85:
                select.append(k)
        for _ in range(r.randint(0, 3)):
            aggs.append(self.aggregate(cols))
        for a, kind in aggs:
            if kind in ("int", "numeric") and r.random() < 0.15:
                select.append("%s %s %d" % (a, r.choice(["+", "*", "-"]), r.randint(1, 5)))
            else:
                select.append(a)
        if not select:
            select.append("count(*)")
        aliased = []
        for i, s in enumerate(select):
            if r.random() < 0.15:
                s += " AS x%d" % i
            aliased.append(s)
        sql = "SELECT %s FROM %s" % (", ".join(aliased), table)
        if r.random() < 0.6:
            sql += " WHERE " + self.where(cols)
        group = []
        for k, _ in keys:
            if k in select and r.random() < 0.2:
                group.append(str(select.index(k) + 1))
            else:
                group.append(k)
        if r.random() < 0.06:
            # HAVING without GROUP BY: the aggregates' one row, filtered.
            a, kind = self.aggregate(cols)
            sql = "SELECT %s FROM %s" % (", ".join(x for x, _ in aggs) or "count(*)", table)
            if r.random() < 0.5:
                sql += " WHERE " + self.where(cols)
            return sql + " HAVING %s %s %s" % (
                "count(*)" if kind == "bool" else a, r.choice([">", "<", "<>"]),
                self.const("smallint" if kind in ("int", "bool") else kind))
        sql += " GROUP BY " + ", ".join(group)
        if r.random() < 0.3:
            conds = []
            for _ in range(r.randint(1, 2)):
                if r.random() < 0.75:
                    a, kind = self.aggregate(cols)
                    if kind == "bool":
                        a, kind = "count(*)", "int"
                    conds.append("%s %s %s" % (a, r.choice([">", "<", "=", ">=", "<>"]),
                                               self.const(kind if kind != "int" else "smallint")))
                else:
                    k, kind = keys[0]
                    conds.append("%s %s %s" % (k, r.choice([">", "<", "<>"]), self.const(kind))
                                 if kind != "bool" else k)
            sql += " HAVING " + " AND ".join(conds)
        if r.random() < 0.6:
            items = []
            for _ in range(r.randint(1, 2)):
                k = r.random()
                if k < 0.4 and keys:
                    items.append(r.choice(keys)[0])
                elif k < 0.6:
                    items.append(str(r.randint(1, len(select))))
                elif k < 0.8 and aggs:
                    items.append(r.choice(aggs)[0])
                else:
                    items.append("count(*)")
            sql += " ORDER BY " + ", ".join(
                i + r.choice(["", "", " DESC", " NULLS FIRST", " DESC NULLS LAST"]) for i in items)
            if r.random() < 0.5:
                sql += " LIMIT %d" % r.choice([1, 3, 10, 100])
        return sql

    def settings(self):
        r = self.r
        out = []
        if r.random() < 0.15:
            out.append("SET enable_hashagg = off")
        if r.random() < 0.1:
            out.append("SET enable_sort = off")
        if r.random() < 0.1:
            out.append("SET enable_incremental_sort = off")
        if r.random() < 0.15:
            out.append("SET work_mem = '%s'" % r.choice(["64kB", "128kB", "1MB"]))
        if r.random() < 0.35:
            # Parallel plans over these small tables: partial grouping under Gathers.
            out += ["SET min_parallel_table_scan_size = 0",
                    "SET min_parallel_index_scan_size = 0",
                    "SET parallel_setup_cost = %d" % r.choice([0, 10, 100]),
                    "SET parallel_tuple_cost = %s" % r.choice(["0.001", "0.01", "0.1"])]
        return out
