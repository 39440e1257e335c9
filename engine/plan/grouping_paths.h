// SELECT ... GROUP BY over one table, planned as PostgreSQL 15 plans it: the query bound
// (engine/plan/grouping_bind.h), the scan's target as make_group_input_target makes it
// (the keys, computed at the scan when they are expressions, and the columns the rest
// reads), the table's paths weighed by engine/plan/grouping.h, and the chosen plan's
// nodes: [Sort | Incremental Sort] -> GroupAggregate / Group, or HashAggregate; then
// ORDER BY's Sort and the Limit.
#pragma once

#include "engine/plan/planner.h"

namespace tp {

// SELECT with GROUP BY or HAVING; SELECT DISTINCT over groups is refused by name.
PlannedQuery plan_grouped_select(PlanContext& ctx, const sql::Select& s, const RelationEntry& rel);

}  // namespace tp
