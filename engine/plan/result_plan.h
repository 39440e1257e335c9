// The plan of a SELECT without FROM, as EXPLAIN shows it: PostgreSQL's Result over no
// relation, costed as cpu_tuple_cost plus the select list's evaluation (after constant
// folding), its width the output types' average widths.
//
//   EXPLAIN SELECT 1, 'a'   ->  Result  (cost=0.00..0.01 rows=1 width=36)
#pragma once

#include "engine/plan/planner.h"

namespace tp {

// Throws tp::Error (0A000, naming it) for a FROM-less SELECT tidepool does not plan:
// WHERE, ORDER BY, DISTINCT, LIMIT / OFFSET, aggregates, set-returning functions.
PlannedQuery plan_result(PlanContext& ctx, const sql::Select& select);

}  // namespace tp
