// A correlated scalar subquery planned as PostgreSQL 15 plans a SubPlan's query:
//
//   SELECT id, (SELECT count(*) FROM u WHERE u.k = t.k) FROM t
//
//     SubPlan 1
//       ->  Aggregate
//             ->  Seq Scan on u
//                   Filter: (k = t.k)          t.k: a parameter the outer row sets
//
// Its references to the outer table become parameters (kParam, printed as the outer
// column) that the subquery host sets from each outer row before it rescans the plan;
// compared with an index key (as they are, or cast to the key's type) they are its runtime
// keys (`Index Cond: (k = t.k)`, `Index Cond: (n = (t.k)::numeric)`).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/plan/planner.h"
#include "scans/exec_params.h"

namespace tp {

struct CorrelatedPlan {
  PlannedQuery q;
  std::unique_ptr<scans::ExecParams> params;
  // The outer tables' columns (reference name, column), in parameter order.
  std::vector<std::pair<std::string, std::string>> outer_columns;
  // The parameters after them: index keys' expressions of the outer values (slot i:
  // outer value i), such as `(t.k)::numeric` for a numeric key.
  std::vector<TypedExpr> derived;
};

// A table of the outer query and the name the query gives it.
struct OuterTable {
  std::string refname;
  const RelationEntry* rel = nullptr;
  // Its columns print bare: the outer query's relations are a dummy Result (a WHERE
  // that is always false), which has no relation to qualify them by.
  bool shown_bare = false;
};

// `sub` planned with the columns of the `outer` tables that its own table does not
// resolve as parameters, their kParam slots from `slot_base`.
CorrelatedPlan plan_correlated(PlanContext& ctx, const sql::Select& sub,
                               const std::vector<OuterTable>& outer, uint32_t slot_base);

}  // namespace tp
