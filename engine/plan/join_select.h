// A SELECT over several tables, planned end to end: the query bound
// (engine/plan/join_query.h), each base relation's paths made by the scan chooser with
// its restrictions (ScanQuery::upper hands them over unbuilt), the join search
// (engine/plan/join_search.h), then what grouping_planner adds over the final join
// relation: the select list's cost on every path, the cheapest path or a Sort over it for
// ORDER BY (a merge join's order may already be it), the Limit, and the executor tree
// (engine/plan/join_build.h) under a projection of the computed columns.
#pragma once

#include "engine/plan/plan_context.h"
#include "engine/plan/planner.h"
#include "engine/sql/ast.h"

namespace tp {

PlannedQuery plan_join_select(PlanContext& ctx, const sql::Select& s);

}  // namespace tp
