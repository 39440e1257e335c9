// UNION [ALL] as PostgreSQL 15 plans it (prepunion.c, and prepjointree.c's
// flatten_simple_union_all).
//
// Each branch is planned on its own by the planner a plain SELECT goes to. Then:
//   - a tree of UNION ALL whose branches all return the union's column types is
//     PostgreSQL's append relation: an Append over the branches' cheapest paths, a branch
//     it cannot pull up (a join, a WHERE, GROUP BY, LIMIT, ...) costed with the Subquery
//     Scan setrefs removes (cpu_tuple_cost per row), its width the rows' average;
//   - anything else goes through generate_union_paths: an Append over each branch's
//     Subquery Scan (shown only where it casts a column to the union's type), UNION ALL
//     operands of a UNION folded into it, then for UNION a HashAggregate or a Sort and
//     Unique as choose_hashed_setop picks (the groups taken to be all the input rows).
// Then ORDER BY (output columns by name or position only) as a Sort, and LIMIT / OFFSET.
//
//   PlannedQuery q = plan_set_operation(ctx, select);   // select.set_operation set
#pragma once

#include "engine/plan/planner.h"

namespace tp {

PlannedQuery plan_set_operation(PlanContext& ctx, const sql::Select& select);

}  // namespace tp
