"""Inner and outer joins of the typed tables (plandiff --joins).

Two to four table references (a table may appear twice under two aliases), joined by
equalities of columns of one family (s1.id = s3.a, s1.t = s2.t, s1.sm = s2.k, ...), now and
then by an inequality or by nothing (a cross join), written as a FROM list with WHERE, as
[INNER | LEFT | RIGHT | FULL] JOIN ... ON (with now and then a restriction of one side in
the ON clause), or as JOIN ... USING where the columns share a name; each table restricted
by typed_grammar's predicates; `col IS NULL` on a joined table now and then (an outer join
kept, reduced to an inner join, or made an anti join); `[NOT] EXISTS (SELECT ...)` and
`col IN (SELECT ...)` over another table now and then (semi and anti joins); uncorrelated
scalar subqueries (`col = (SELECT max(x) ...)`, InitPlans) and `col NOT IN (SELECT ...)`
(hashed SubPlans) now and then; now and then
a table reference written as a subquery in FROM, `(SELECT <its columns> FROM table WHERE
...) alias`, or as a WITH query referenced once (both pulled up: a column of the select
list now and then an expression of the same family under the column's name); select lists
of qualified columns, * and expressions, now and then DISTINCT; now and then GROUP BY over
the join (keys of any table, aggregates, HAVING) and correlated scalar subqueries (a count
per row of the join, in the select list or in WHERE); ORDER BY and LIMIT; under the join
methods' settings, work_mem, hash_mem_multiplier and the collapse limits.

With plandiff's --parallel, `parallel_settings` adds to a share of the queries (drawn from
a generator of its own, so the queries are those of the run without it) parallel costs low
enough for partial join paths under Gathers over these small tables, now and then with
enable_parallel_hash off.
"""

from grouping_grammar import GroupingQueryGenerator
from typed_grammar import TYPED_TABLES, family


class JoinQueryGenerator(GroupingQueryGenerator):

    def join_condition(self, left, right):
        """An equality of a column of `left` with one of `right` (aliases -> cols), or an
        inequality, or None (no condition)."""
        r = self.r
        lalias, lcols = left
        ralias, rcols = right
        pairs = [(a, b) for a in lcols for b in rcols
                 if family(lcols[a][1]) == family(rcols[b][1]) and lcols[a][1] != "bool"]
        if not pairs or r.random() < 0.06:
            return None, None
        a, b = r.choice(pairs)
        op = "=" if r.random() < 0.9 else r.choice(["<", ">=", "<>"])
        using = None
        if op == "=" and a.split(".")[1] == b.split(".")[1] and lcols[a][1] == rcols[b][1]:
            using = a.split(".")[1]
        return "%s %s %s" % (a, op, b), using

    def query(self):
        r = self.r
        names = list(TYPED_TABLES)
        refs = []
        for i in range(r.choice([2, 2, 2, 3, 3, 4])):
            table = r.choice(names)
            alias = "%s%d" % (table[0:1], i) if r.random() < 0.5 or table in [t for t, _ in refs] \
                else table
            if alias in [a for _, a in refs]:
                alias = "x%d" % i
            refs.append((table, alias))
        cols = []
        for table, alias in refs:
            cols.append((alias, {"%s.%s" % (alias, c): v
                                 for c, v in TYPED_TABLES[table][2].items()}))
        style = r.choice(["list", "on", "on"])
        ctes = []
        subqueries = r.random() < 0.3
        items = [self.subquery_item(table, alias, ctes) if subqueries and r.random() < 0.6 else
                 ("%s %s" % (table, alias) if table != alias else table)
                 for table, alias in refs]
        from_sql = items[0]
        where = []
        # A join that may return millions of rows (a condition-less or inequality join,
        # three tables or more) is read through a LIMIT without ORDER BY, so that neither
        # system computes all of it.
        risky = len(refs) > 2
        unbounded = False  # a condition-less or inequality join: too many rows to group
        for i in range(1, len(refs)):
            item = items[i]
            cond, using = self.join_condition(cols[r.randrange(i)], cols[i])
            unbounded = unbounded or cond is None or " = " not in cond
            risky = risky or unbounded
            if style == "list":
                from_sql += ", " + item
                if cond:
                    where.append(cond)
            elif cond is None:
                from_sql += " CROSS JOIN " + item
            elif using and r.random() < 0.3 and i == 1:
                from_sql += " %sJOIN %s USING (%s)" % (r.choice(["", "LEFT ", "RIGHT "]), item,
                                                       using)
            else:
                kind = r.choice(["", "INNER ", "LEFT ", "LEFT ", "RIGHT ", "FULL "])
                if kind == "FULL " and " = " not in cond:
                    kind = "LEFT "
                if kind in ("LEFT ", "RIGHT ") and r.random() < 0.25:
                    cond += " AND " + self.where(cols[i][1] if kind == "LEFT " else
                                                 cols[r.randrange(i)][1])
                from_sql += " %sJOIN %s ON %s" % (kind, item, cond)
        all_cols = {}
        for _, c in cols:
            all_cols.update(c)
        for alias, c in cols:
            if r.random() < 0.6:
                where.append(self.where(c))
        if r.random() < 0.1:
            where.append("(%s OR %s)" % (self.where(r.choice(cols)[1]), self.where(r.choice(cols)[1])))
        if r.random() < 0.2:
            where.append("%s IS NULL" % r.choice(list(r.choice(cols[1:])[1])))
        if r.random() < 0.25:
            where.append(self.sublink(cols, names))
        if r.random() < 0.15:
            where.append(self.subplan(cols, names))
        if r.random() < 0.05:
            where.append(self.correlated(cols, names, "WHERE"))
        # GROUP BY and DISTINCT read the whole join before a LIMIT: not an unbounded one.
        if r.random() < 0.15 and not unbounded:
            return self.grouped(from_sql, ctes, where, all_cols)
        picked = r.sample(list(all_cols), min(len(all_cols), r.randint(1, 4)))
        if r.random() < 0.05:
            picked.append(self.correlated(cols, names, "SELECT"))
        if r.random() < 0.1:
            select = "*"
        else:
            items = list(picked)
            if r.random() < 0.3:
                items.append(self.expression(all_cols)[0])
            select = ", ".join(items)
        # SELECT DISTINCT sorts only by what it returns.
        distinct = r.random() < 0.15 and not unbounded
        sql = "SELECT %s%s FROM %s" % ("DISTINCT " if distinct else "", select, from_sql)
        if ctes:
            sql = "WITH " + ", ".join(ctes) + " " + sql
        if where:
            sql += " WHERE " + " AND ".join(where)
        if r.random() < 0.5 and not risky:
            orderable = picked if distinct and select != "*" else list(all_cols)
            keys = r.sample(orderable, min(len(orderable), r.randint(1, 2)))
            sql += " ORDER BY " + ", ".join(k + r.choice(["", " DESC"]) for k in keys)
        if r.random() < 0.3 or risky:
            sql += " LIMIT %d" % r.choice([1, 5, 10, 100])
        return sql

    def grouped(self, from_sql, ctes, where, all_cols):
        """GROUP BY over the join: keys from any of its tables (by name or ordinal),
        aggregates over any of them, HAVING now and then, ORDER BY keys or aggregates."""
        r = self.r
        keys = r.sample(list(all_cols), min(len(all_cols), r.choice([1, 1, 2])))
        aggs = [self.aggregate(all_cols)[0] for _ in range(r.randint(1, 2))]
        select = [k for k in keys if r.random() < 0.85] + aggs
        sql = "SELECT %s FROM %s" % (", ".join(select), from_sql)
        if ctes:
            sql = "WITH " + ", ".join(ctes) + " " + sql
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " GROUP BY " + ", ".join(
            str(select.index(k) + 1) if k in select and r.random() < 0.2 else k for k in keys)
        if r.random() < 0.25:
            sql += " HAVING count(*) %s %d" % (r.choice([">", "<", ">="]), r.choice([1, 2, 5]))
        if r.random() < 0.6:
            items = r.sample(keys + aggs, min(len(keys + aggs), r.randint(1, 2)))
            # Every key in ORDER BY, so that a LIMIT keeps the same groups in both.
            items += [k for k in keys if k not in items]
            sql += " ORDER BY " + ", ".join(i + r.choice(["", " DESC"]) for i in items)
        if r.random() < 0.3:
            sql += " LIMIT %d" % r.choice([1, 5, 10, 100])
        return sql

    def correlated(self, cols, names, where_to):
        """A correlated scalar subquery over another table: a count or max per row of the
        join, in the select list or compared in WHERE (a SubPlan)."""
        r = self.r
        table = r.choice(names)
        alias = "c%d" % r.randrange(100)
        qcols = {"%s.%s" % (alias, c): v for c, v in TYPED_TABLES[table][2].items()}
        cond, _ = self.join_condition(r.choice(cols), (alias, qcols))
        if not cond or " = " not in cond:
            return "true" if where_to == "WHERE" else "1"
        sub = "(SELECT count(*) FROM %s %s WHERE %s)" % (table, alias, cond)
        if where_to == "WHERE":
            return "%s %s %d" % (sub, r.choice([">", "=", "<"]), r.choice([0, 1, 2]))
        return sub

    def subquery_item(self, table, alias, ctes):
        """`table` as a simple subquery in FROM (or a WITH query named once) giving its
        columns under their names, restricted now and then."""
        r = self.r
        columns = TYPED_TABLES[table][2]
        inner = {"%s.%s" % (table, c): v for c, v in columns.items()}
        outputs = []
        for c, v in columns.items():
            if v[1] in ("int", "smallint") and r.random() < 0.15:
                outputs.append("%s + 0 AS %s" % (c, c))
            else:
                outputs.append(c)
        body = "SELECT %s FROM %s" % (", ".join(outputs), table)
        if r.random() < 0.7:
            body += " WHERE " + self.where(inner)
        if r.random() < 0.3:
            name = "w%d" % len(ctes)
            ctes.append("%s AS (%s)" % (name, body))
            return "%s %s" % (name, alias)
        return "(%s) %s" % (body, alias)

    def sublink(self, cols, names):
        """EXISTS / NOT EXISTS correlated on an equality, or IN over one column."""
        r = self.r
        table = r.choice(names)
        alias = "q%d" % r.randrange(100)
        qcols = {"%s.%s" % (alias, c): v for c, v in TYPED_TABLES[table][2].items()}
        cond, _ = self.join_condition(r.choice(cols), (alias, qcols))
        extra = (" AND " + self.where(qcols)) if r.random() < 0.5 else ""
        if cond and " = " in cond and r.random() < 0.6:
            neg = "NOT " if r.random() < 0.4 else ""
            return "%sEXISTS (SELECT 1 FROM %s %s WHERE %s%s)" % (neg, table, alias, cond, extra)
        outer, inner = (cond.split(" = ") if cond and " = " in cond else
                        (None, None))
        if outer is None:
            return "true"
        return "%s IN (SELECT %s FROM %s %s WHERE true%s)" % (outer, inner, table, alias, extra)

    def subplan(self, cols, names):
        """An uncorrelated scalar subquery compared with a column (an InitPlan: `k = $0`)
        or NOT IN over one column of the same type (a hashed SubPlan)."""
        r = self.r
        ocols = r.choice(cols)[1]
        outer = r.choice(list(ocols))
        kind = ocols[outer][1]
        table = r.choice(names)
        alias = "q%d" % r.randrange(100)
        qcols = {"%s.%s" % (alias, c): v for c, v in TYPED_TABLES[table][2].items()}
        same = [c for c in qcols if qcols[c][1] == kind]
        if not same or kind not in ("int", "smallint", "date", "numeric", "float"):
            return "true"
        inner = r.choice(same)
        extra = (" WHERE " + self.where(qcols)) if r.random() < 0.5 else ""
        if kind in ("int", "smallint", "date") and r.random() < 0.5:
            return "%s NOT IN (SELECT %s FROM %s %s%s)" % (outer, inner, table, alias, extra)
        op = "=" if kind == "int" and r.random() < 0.5 else r.choice(["<", ">="])
        return "%s %s (SELECT %s(%s) FROM %s %s%s)" % (
            outer, op, r.choice(["max", "min"]), inner, table, alias, extra)

    def settings(self):
        r = self.r
        out = []
        for name, p in (("enable_hashjoin", 0.15), ("enable_mergejoin", 0.15),
                        ("enable_nestloop", 0.1), ("enable_material", 0.1)):
            if r.random() < p:
                out.append("SET %s = off" % name)
        if r.random() < 0.15:
            out.append("SET work_mem = '%s'" % r.choice(["64kB", "256kB", "1MB"]))
        if r.random() < 0.1:
            out.append("SET hash_mem_multiplier = %s" % r.choice(["1", "4"]))
        if r.random() < 0.1:
            out.append("SET join_collapse_limit = %d" % r.choice([1, 2]))
        if r.random() < 0.05:
            out.append("SET from_collapse_limit = %d" % r.choice([1, 2]))
        return out


def parallel_settings(r):
    """Parallel settings for one query, from the random generator `r`, or none."""
    if r.random() >= 0.5:
        return []
    out = ["SET min_parallel_table_scan_size = 0",
           "SET min_parallel_index_scan_size = 0",
           "SET parallel_setup_cost = %d" % r.choice([0, 0, 10, 100]),
           "SET parallel_tuple_cost = %s" % r.choice(["0", "0.001", "0.01", "0.1"])]
    if r.random() < 0.5:
        out.append("SET enable_parallel_hash = off")
    return out
