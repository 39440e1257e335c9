// SELECT DISTINCT over a join, planned as PostgreSQL 15's create_distinct_paths plans it
// over the final join relation (serially): the relation's paths with the select list's
// projection costed on (apply_scanjoin_target_to_paths), then engine/plan/distinct.h's
// choice between a Unique over a path already in the DISTINCT order (a Merge Join's,
// an index scan's), a Unique over a Sort of the cheapest path, and a HashAggregate over
// it (under a Sort for ORDER BY); then the Limit.
//
//   JoinDistinct d(ctx, select, query);
//   JoinSearch search(ctx, query, inputs, d.query_pathkeys(), ...);
//   PlannedQuery out = d.plan(search.run(), stats, [&](const JoinPath& p) { ... });
//
// distinct_pathkeys are over the join's equivalence classes: `DISTINCT a.x, b.y` over
// `a.x = b.y` sorts on one key (and its Unique compares one column), and a key WHERE
// fixes to a constant sorts nothing; the HashAggregate still groups by every entry, as
// PostgreSQL's does. The groups are join_num_groups' over the whole DISTINCT clause.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/plan/join_grouping.h"
#include "engine/plan/join_path.h"
#include "engine/plan/join_query.h"
#include "engine/plan/plan_context.h"
#include "engine/plan/planner.h"
#include "engine/sql/ast.h"
#include "scans/exec_node.h"

namespace tp {

// SELECT DISTINCT's clause while the query is bound: ORDER BY's `item` as the select-list
// entry it must be (the first equal one, as findTargetlistEntrySQL99 finds it; else
// PostgreSQL's 42P10 at `position`), put in the clause once; then every other entry.
void add_distinct_item(JoinQuery& q, const JoinOrderItem& item, int position);
void finish_distinct_clause(JoinQuery& q);

class JoinDistinct {
 public:
  JoinDistinct(PlanContext& ctx, const sql::Select& s, const JoinQuery& q);

  // distinct_pathkeys (which begin with ORDER BY's): the join search's query_pathkeys.
  const std::vector<PathKey>& query_pathkeys() const { return pathkeys_; }

  // The plan over `rel` (the join of every relation); `build` makes a path's nodes, its
  // columns `rel.vars` in order.
  PlannedQuery plan(const JoinRelation& rel, const std::vector<JoinGroupingRel>& base,
                    const std::function<std::unique_ptr<scans::ExecNode>(const JoinPath&)>& build);

 private:
  int target_width(const TypedExpr& e) const;

  PlanContext& ctx_;
  const sql::Select& s_;
  const JoinQuery& q_;
  std::vector<PathKey> pathkeys_;
  std::vector<size_t> key_items_;  // the DISTINCT item each pathkey comes from
  std::string key_text_;           // the Sort Key under the Unique
};

}  // namespace tp
