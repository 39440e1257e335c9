#include "engine/plan/sort_input_target.h"

#include <algorithm>

#include "engine/plan/select_list.h"

namespace tp {

SortInputTarget make_sort_input_target(const CostSettings& cs,
                                       const std::vector<std::shared_ptr<TypedExpr>>& computed,
                                       const std::vector<const TypedExpr*>& sort_keys,
                                       bool limited) {
  SortInputTarget t;
  t.full_cost = select_list_cost(cs, computed);
  for (const auto& e : computed) {
    const bool sorted_on =
        std::find(sort_keys.begin(), sort_keys.end(), e.get()) != sort_keys.end();
    // cost_qual_eval's per-tuple cost above 10 * cpu_operator_cost: "expensive".
    const bool expensive = select_list_cost(cs, {e}) > 10 * cs.cpu_operator_cost;
    (limited && !sort_keys.empty() && !sorted_on && expensive ? t.late : t.early).push_back(e);
  }
  t.early_cost = t.late.empty() ? t.full_cost : select_list_cost(cs, t.early);
  return t;
}

PathCost result_over_sort(const CostSettings& cs, PathCost sorted, double full_cost) {
  sorted.total += (cs.cpu_tuple_cost + full_cost) * sorted.rows;
  return sorted;
}

}  // namespace tp
