#include "engine/plan/grouping_paths.h"

#include "engine/core/error.h"
#include "engine/plan/grouping_planner.h"

namespace tp {

PlannedQuery plan_grouped_select(PlanContext& ctx, const sql::Select& s, const RelationEntry& rel) {
  if (s.distinct)
    throw Error(std::string("SELECT DISTINCT with ") +
                (s.group_by.empty() ? "HAVING" : "GROUP BY") + " is not supported yet")
        .at_position(s.group_by.empty() ? s.having->position : s.group_by_position)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  return grouping_detail::GroupingPlanner(ctx, s, rel).plan();
}

}  // namespace tp
