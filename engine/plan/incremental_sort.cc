#include "engine/plan/incremental_sort.h"

#include <algorithm>
#include <cmath>

namespace tp {

namespace {

double groups_of(const std::vector<GroupRel>& rels, double input_rows, double booleans) {
  double numdistinct = booleans;
  for (const GroupRel& g : rels) {
    const RelationStatsView& rel = *g.view;
    if (g.columns.empty() || rel.tuples <= 0) continue;
    double reldistinct = 1, relmaxndistinct = 1;
    for (int c : g.columns) {
      bool is_default = false;
      const double nd = get_variable_numdistinct(rel, c, &is_default);
      reldistinct *= nd;
      relmaxndistinct = std::max(relmaxndistinct, nd);
    }
    double clamp = rel.tuples;
    if (g.columns.size() > 1) {
      clamp *= 0.1;
      if (clamp < relmaxndistinct) clamp = std::min(relmaxndistinct, rel.tuples);
    }
    if (reldistinct > clamp) reldistinct = clamp;
    // The values a random rel_rows of the table's rows hold (Dell'Era's approximation).
    if (reldistinct > 0 && g.rel_rows < rel.tuples)
      reldistinct *=
          (1 - std::pow((rel.tuples - g.rel_rows) / rel.tuples, rel.tuples / reldistinct));
    numdistinct *= clamp_row_est(reldistinct);
  }
  numdistinct = std::ceil(numdistinct);
  if (numdistinct > input_rows) numdistinct = input_rows;
  if (numdistinct < 1.0) numdistinct = 1.0;
  return numdistinct;
}

}  // namespace

double estimate_num_groups(const RelationStatsView& rel, const std::vector<int>& columns,
                           double input_rows, double rel_rows, int boolean_exprs,
                           const std::vector<int>& expr_vars) {
  input_rows = clamp_row_est(input_rows);
  // A boolean grouping expression (a boolean column too) makes two groups, whatever
  // the statistics say, outside the per-table clamp below.
  double booleans = std::pow(2.0, boolean_exprs);
  std::vector<int> distinct;
  for (int c : columns) {
    if (rel.columns[size_t(c)].type == TypeId::kBool) {
      booleans *= 2.0;
      continue;
    }
    if (std::find(distinct.begin(), distinct.end(), c) == distinct.end()) distinct.push_back(c);
  }
  for (int c : expr_vars)
    if (std::find(distinct.begin(), distinct.end(), c) == distinct.end()) distinct.push_back(c);
  if (distinct.empty() && booleans == 1.0) return 1.0;
  return groups_of(std::vector<GroupRel>{{&rel, rel_rows, distinct}}, input_rows, booleans);
}

double estimate_num_groups(const std::vector<GroupRel>& rels, double input_rows,
                           int boolean_exprs) {
  return groups_of(rels, clamp_row_est(input_rows), std::pow(2.0, boolean_exprs));
}

PathCost cost_incremental_sort(const CostSettings& cs, const PathCost& input, double input_groups,
                               int width, double limit_tuples) {
  double input_tuples = input.rows;
  const double input_run_cost = input.total - input.startup;
  if (input_tuples < 2.0) input_tuples = 2.0;
  const double group_tuples = input_tuples / input_groups;
  const double group_input_run_cost = input_run_cost / input_groups;
  // One group's tuplesort (cost_sort over nothing: its own startup and run costs), of
  // half as many rows again as the average group: PostgreSQL's allowance for groups of
  // uneven size.
  const double sorted_tuples = 1.5 * group_tuples;
  const PathCost group =
      cost_sort(cs, PathCost{0, 0, sorted_tuples}, sorted_tuples, width, 0, limit_tuples);
  const double group_startup_cost = group.startup;
  const double group_run_cost = group.total - group.startup;
  const double startup_cost = group_startup_cost + input.startup + group_input_run_cost;
  double run_cost = group_run_cost + (group_run_cost + group_startup_cost) * (input_groups - 1) +
                    group_input_run_cost * (input_groups - 1);
  run_cost += (cs.cpu_tuple_cost + 0.0) * input_tuples;  // finding the groups
  run_cost += 2.0 * cs.cpu_tuple_cost * input_groups;
  return {startup_cost, startup_cost + run_cost, input_tuples};
}

size_t index_order_prefix(const std::vector<int>& keys,
                          const std::vector<std::pair<int, bool>>& order,
                          const std::vector<int>& constant, bool& backward) {
  std::vector<int> index_keys;
  for (int k : keys)
    if (std::find(constant.begin(), constant.end(), k) == constant.end()) index_keys.push_back(k);
  size_t n = 0;
  while (n < order.size() && n < index_keys.size() && order[n].first == index_keys[n] &&
         order[n].second == order[0].second)
    ++n;
  backward = n > 0 && order[0].second;
  return n;
}

}  // namespace tp
