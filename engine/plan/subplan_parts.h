// Pieces of subplans.cc's planning of InitPlans and SubPlans: the query EXISTS plans
// (simplify_EXISTS_query), where EXPLAIN shows a SubPlan, and how a subquery's value is
// read from its planned query's rows.
#pragma once

#include <string>

#include "engine/plan/planner.h"
#include "scans/subplan_host.h"

namespace tp {

// simplify_EXISTS_query: what EXISTS's subquery returns does not matter, nor its order:
// `SELECT 1 FROM ... WHERE ... [GROUP BY ... HAVING ...]`.
sql::Select exists_query(const sql::Select& s, int position);
// The node whose EXPLAIN details print `text` (a Filter running a SubPlan); sort and
// group keys do not count (the scan below computes them). Null when none.
scans::ExecNode* node_running(scans::ExecNode& n, const std::string& text);
// The first scan or join of `n`'s tree from the top: the node that computes the select
// list (a select list's SubPlan runs there).
scans::ExecNode* first_scan(scans::ExecNode& n);
// The Result above a sort that computes the select list (sort_input_target.h), if any.
scans::ExecNode* projecting_result(scans::ExecNode& n);
// EXISTS's plan returns no column: width 0 throughout.
void zero_widths(scans::ExecNode& n);
// The value of a planned subquery's one column in a row of its plan: a plain column's
// slot, or an aggregate's result (or integer arithmetic over them).
scans::SubqueryValue value_of(const PlannedQuery& q);

}  // namespace tp
