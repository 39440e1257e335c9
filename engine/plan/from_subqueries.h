// Subqueries in FROM and WITH's queries pulled up into the query around them, as
// PostgreSQL 15's inline_cte and pull_up_subqueries (is_simple_subquery) do before the
// join search:
//
//   WITH w AS (SELECT a, b FROM t WHERE b < 5)          -- referenced once: inlined
//   SELECT s.c, w.b FROM (SELECT a, b + 1 AS c FROM t WHERE b > 2) s JOIN w ON s.a = w.a
//     becomes
//   SELECT (t.b + 1) AS c, t_1.b AS b FROM t JOIN t t_1 ON t.a = t_1.a
//     with `t.b > 2` filtering the first t and `t_1.b < 5` the second, each where its
//     subquery stood (FromItem::pulled_quals), before the join's own ON and the WHERE.
//
// A reference to a subquery's column becomes a copy of its select-list expression; the
// tables of every level get the names EXPLAIN gives them (select_rtable_names_for_explain:
// the query's own tables first, then each pulled-up subquery's, a name already taken
// suffixed `_1`, `_2`, ...), so a pulled-up table reads and prints like a table written in
// the outer query. Names resolve level by level with PostgreSQL's errors (42P01, 42703,
// 42702, 42712, 42P10). The result is planned by the join planner (`Select::pulled_up`),
// or, left with one table (and no subquery in WHERE), by the single-table planner.
//
// What PostgreSQL plans as a Subquery Scan or a CTE Scan (a subquery with GROUP BY,
// aggregates, DISTINCT, ORDER BY, LIMIT or OFFSET; a WITH query referenced twice or AS
// MATERIALIZED), and what pulling up would need more of (a PlaceHolderVar: an output that
// is not strict over the subquery's columns read above an outer join that nulls it; a
// subquery in WHERE inside one in FROM) is refused by name. A LATERAL subquery reads the
// items before it: pulled up, its WHERE conjuncts over them join the lowest join holding
// them; one PostgreSQL plans on its own stays a FROM item (engine/plan/from_lateral.h). EXISTS / IN
// (SELECT ...) in the query's WHERE have their references to the query's names replaced the same
// way and are left to the join binder (their tables named in PostgreSQL's range-table order:
// EXISTS's before the FROM subqueries', IN's after). JOIN ... USING beside a subquery becomes the
// ON clause it stands for, its merged columns resolving as PostgreSQL's join RTE lists them.
#pragma once

#include "engine/plan/plan_context.h"
#include "engine/sql/ast.h"

namespace tp {

// Whether `s` has a WITH clause or a subquery anywhere in its FROM clause.
bool has_from_subqueries(const sql::Select& s);

// `s` (has_from_subqueries) with every subquery in FROM and WITH query pulled up.
sql::Select pull_up_from_subqueries(PlanContext& ctx, const sql::Select& s);

}  // namespace tp
