// make_sort_input_target (PostgreSQL's planner.c): under ORDER BY with a LIMIT, a
// select-list expression dearer than ten operators (a correlated SubPlan) that is not a
// sort key is computed after the sort, only for the rows the sort hands up, by a Result
// above it; the scan or join below computes the rest and the vars those expressions read.
//
//   SELECT t, (SELECT count(*) FROM u WHERE u.k = t.k) FROM t ORDER BY t.a LIMIT 5
//
//   Limit
//     ->  Result                    SubPlan 1 runs here: five times, not once per row
//           ->  Sort  (Sort Key: t.a)
//                 ->  Seq Scan on t
//
// A path already in order computes the whole list itself (a scan or join projects);
// a Sort cannot, so the Result costs cpu_tuple_cost plus the whole list per row
// (create_projection_path), the Sort's width being that of what it carries.
#pragma once

#include <memory>
#include <vector>

#include "engine/core/typed_expr.h"
#include "engine/plan/cost_model.h"

namespace tp {

struct SortInputTarget {
  std::vector<std::shared_ptr<TypedExpr>> early;  // computed below the sort
  std::vector<std::shared_ptr<TypedExpr>> late;   // by the Result above it
  double full_cost = 0;   // per row, the whole select list's (the Result's target)
  double early_cost = 0;  // per row, what the sort's input computes
};

// `computed`: the select list's and ORDER BY's computed columns; `sort_keys`: the ORDER BY
// expressions. No late column without ORDER BY or LIMIT.
SortInputTarget make_sort_input_target(const CostSettings& cs,
                                       const std::vector<std::shared_ptr<TypedExpr>>& computed,
                                       const std::vector<const TypedExpr*>& sort_keys,
                                       bool limited);

// The Result over a sorted path that computes the whole select list.
PathCost result_over_sort(const CostSettings& cs, PathCost sorted, double full_cost);

}  // namespace tp
