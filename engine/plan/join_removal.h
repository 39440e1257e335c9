// remove_useless_joins (analyzejoins.c): a LEFT JOIN whose nullable side is one table
// that nothing above the join reads, and that the join's equalities match at most once
// per row (a unique index on columns the ON clause or a constant pins), returns each
// preserved row exactly once whatever it finds: the table is left out of the plan.
//
//   SELECT o.* FROM o LEFT JOIN r ON r.rid = o.cust      (r.rid unique)   ->   o alone
#pragma once

#include "engine/plan/join_query.h"
#include "engine/plan/plan_context.h"

namespace tp {

// Marks such tables in q.removed and drops their special joins and clauses.
void remove_useless_joins(JoinQuery& q, const PlanContext& ctx);

// relation_has_unique_index_for: a usable unique index of `table` all of whose key
// columns are among `columns` (those a join equates, and those a constant fixes).
bool unique_index_on(const PlanContext& ctx, const RelationEntry& table,
                     const std::vector<int>& columns);

}  // namespace tp
