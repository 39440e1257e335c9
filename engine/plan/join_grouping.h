// GROUP BY, HAVING and aggregates over a join, planned as PostgreSQL 15's
// create_grouping_paths plans them (serially): the join relation's paths, each with the
// grouping input's projection (the keys that are expressions) costed on, weighed by
// engine/plan/grouping.h as the single table's are (Sort + GroupAggregate over the
// cheapest, GroupAggregate over a path already in the keys' order, such as a Merge
// Join's, Incremental Sort over one in a leading part of it, HashAggregate; Aggregate
// without GROUP BY), then HAVING, ORDER BY and LIMIT as there (grouping_steps.h).
//
//   JoinGrouping g(ctx, select, query);
//   JoinSearch search(ctx, query, inputs, g.query_pathkeys(), ...);
//   PlannedQuery out = g.plan(search.run(), stats, [&](const JoinPath& p) { ... });
//
// group_pathkeys are over the join's equivalence classes: GROUP BY a.x over a.x = b.y is
// in a merge join's order on b.y, and GROUP BY a.x, b.y sorts on one key. The groups are
// estimate_num_groups' over several tables: the vars of each table together, a var an
// equivalence class makes equal to an earlier one counted once (the one with fewer
// distinct values).
#pragma once

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "engine/plan/join_path.h"
#include "engine/plan/join_query.h"
#include "engine/plan/join_search.h"
#include "engine/plan/plan_context.h"
#include "engine/plan/planner.h"
#include "engine/plan/selectivity.h"
#include "engine/sql/ast.h"
#include "scans/exec_node.h"

namespace tp {

struct GroupingColumns;

// A base relation as estimate_num_groups sees it.
struct JoinGroupingRel {
  const RelationStatsView* view = nullptr;
  double rows = 0;  // after its restrictions
};

class JoinGrouping {
 public:
  JoinGrouping(PlanContext& ctx, const sql::Select& s, const JoinQuery& q);
  ~JoinGrouping();
  JoinGrouping(const JoinGrouping&) = delete;
  JoinGrouping& operator=(const JoinGrouping&) = delete;

  // group_pathkeys, the join search's query_pathkeys.
  const std::vector<PathKey>& query_pathkeys() const;

  // The plan over `rel` (the join of every relation); `build` makes a path's nodes, its
  // columns `rel.vars` in order.
  PlannedQuery plan(const JoinRelation& rel, const std::vector<JoinGroupingRel>& base,
                    const std::function<std::unique_ptr<scans::ExecNode>(const JoinPath&)>& build);

 private:
  class Planner;
  std::unique_ptr<Planner> p_;
};

// estimate_num_groups over expressions of the join's vars (each a var, or -1 and the
// expression), `rows` input rows: add_unique_group_var's list (a var an equivalence class
// makes equal to an earlier one kept once, the one with fewer distinct values), then
// each table's product; a boolean expression two groups.
double join_num_groups(const JoinQuery& q, const std::vector<JoinGroupingRel>& base,
                       const std::vector<std::pair<int, const TypedExpr*>>& exprs, double rows);

// Binds `s`'s grouping over the vars `columns` resolves (JoinQuery::grouped), marking the
// vars it reads as the output's.
void bind_join_grouping(JoinQuery& q, const sql::Select& s, const GroupingColumns& columns);

}  // namespace tp
