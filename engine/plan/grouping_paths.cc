#include "engine/plan/grouping_paths.h"

#include "engine/plan/grouping_planner.h"

namespace tp {

PlannedQuery plan_grouped_select(PlanContext& ctx, const sql::Select& s, const RelationEntry& rel) {
  return grouping_detail::GroupingPlanner(ctx, s, rel).plan();
}

}  // namespace tp
