// min() and max() from an index, as PostgreSQL's planagg.c plans them: when every
// aggregate of the select list is min or max of a column, each becomes an InitPlan,
//
//   SELECT col FROM t WHERE <the query's WHERE> AND col IS NOT NULL ORDER BY col [DESC] LIMIT 1
//
// answered by the cheapest path that already returns that order (an index scan: a Sort
// does not count) for fetching one row, and a Result returns their values. The query's
// planner then keeps this plan or the plain Aggregate, whichever add_path would.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "engine/plan/cost_model.h"
#include "engine/plan/plan_context.h"
#include "engine/plan/scan_choice.h"
#include "scans/init_plan_result.h"

namespace tp {

struct MinMaxCall {
  bool max = false;  // max (a backward order) or min
  int column = -1;
  TypeId type = TypeId::kInt8;  // the column's: integers, or a typed extreme
  bool typed = false;           // the aggregate keeps its extreme as a Datum (typed_agg.h)
};

struct MinMaxPlan {
  std::unique_ptr<scans::InitPlanResultNode> node;  // its EXPLAIN estimate set
  PathCost cost;
};

// The Result over InitPlans for `calls` (one InitPlan per distinct call, in the order
// they first appear), with `query`'s table and restriction clauses; nullopt when some
// call has no index to answer it. `width` is the Result's output width, `output_cost`
// what computing its columns costs (arithmetic over the aggregates).
std::optional<MinMaxPlan> plan_minmax_aggregates(PlanContext& ctx, const ScanQuery& query,
                                                 const std::vector<MinMaxCall>& calls, int width,
                                                 double output_cost = 0);

// Whether the planner keeps the min/max plan over the plain aggregate (`plain`,
// parallel-safe or not), as add_path weighs the two in the grouped relation.
bool minmax_plan_wins(const PathCost& minmax, const PathCost& plain, bool plain_parallel_safe);

}  // namespace tp
