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
// over an integer index key they are its runtime keys (`Index Cond: (k = t.k)`).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/plan/planner.h"
#include "scans/exec_params.h"

namespace tp {

struct CorrelatedPlan {
  PlannedQuery q;
  std::unique_ptr<scans::ExecParams> params;
  std::vector<std::string> outer_columns;  // the outer table's columns, in parameter order
};

// `sub` planned with the columns of `outer` (named `outer_refname` in the query) that its
// own table does not resolve as parameters, their kParam slots from `slot_base`.
CorrelatedPlan plan_correlated(PlanContext& ctx, const sql::Select& sub, const RelationEntry& outer,
                               const std::string& outer_refname, uint32_t slot_base);

}  // namespace tp
