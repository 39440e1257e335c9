// create_unique_path and the unique-ified joins of a semi join (joinpath.c's
// JOIN_UNIQUE_INNER and JOIN_UNIQUE_OUTER): the semi join's right side made distinct on
// its join vars (a HashAggregate, or a Unique over a Sort; nothing when a unique index
// already proves it) and joined to the left side as an inner join, either way round.
#include <algorithm>
#include <bit>

#include "engine/plan/incremental_sort.h"
#include "engine/plan/join_removal.h"
#include "engine/plan/join_search.h"

namespace tp {

JoinPathPtr JoinSearch::unique_path(const JoinRelation& rel, const SpecialJoin& sj) {
  if (auto it = unique_cache_.find(rel.relids); it != unique_cache_.end()) return it->second;
  JoinPathPtr& cached = unique_cache_[rel.relids];
  const JoinPathPtr& sub = rel.cheapest_total;
  // A unique index on the vars (or on them and columns a constant fixes): already so.
  const bool computed = !sj.semi_rhs_exprs.empty();
  if (std::has_single_bit(rel.relids) && !computed) {
    const int r = std::countr_zero(rel.relids);
    std::vector<int> cols = q_.rels[size_t(r)].constant_columns;
    for (uint32_t v : sj.semi_rhs_vars)
      if (q_.vars[v].rel == r) cols.push_back(q_.vars[v].column);
    if (unique_index_on(ctx_, *q_.rels[size_t(r)].rel, cols)) return cached = sub;
  }
  const double groups = semi_rhs_groups(sj, rel.rows);
  const int ncols = int(computed ? sj.semi_rhs_exprs.size() : sj.semi_rhs_vars.size());
  PathCost sorted = cost_sort(cs_, sub->cost, rel.rows, sub->width);
  sorted.total += cs_.cpu_operator_cost * rel.rows * ncols;
  auto path = std::make_shared<JoinPath>();
  path->kind = JoinPath::Kind::kUnique;
  path->relids = rel.relids;
  path->width = sub->width;
  path->outer = sub;
  path->parallel_safe = sub->parallel_safe;
  path->unique_vars = sj.semi_rhs_vars;
  if (computed) path->unique_exprs = sj.semi_rhs_exprs;
  path->cost = sorted;
  path->unique_sort_cost = sorted;
  if (sj.semi_can_hash && (sub->width + 64) * groups <= hash_memory_limit(cs_)) {
    GroupAggInput in;
    in.strategy = AggStrategy::kHashed;
    in.group_columns = ncols;
    in.groups = groups;
    in.input = sub->cost;
    in.input_width = sub->width;
    const PathCost hashed = cost_agg(cs_, in).path;
    if (hashed.total < sorted.total) {
      path->cost = hashed;
      path->unique_hashed = true;
    }
  }
  path->cost.rows = groups;
  // The Sort below a Unique is costed without its comparisons.
  path->unique_sort_cost.total -= cs_.cpu_operator_cost * rel.rows * ncols;
  path->unique_sort_cost.rows = rel.rows;
  return cached = path;
}

// estimate_num_groups over a semi join's right-hand keys (the vars an expression reads
// pulled out), for `rows` rows of its right side.
double JoinSearch::semi_rhs_groups(const SpecialJoin& sj, double rows) const {
  std::vector<uint32_t> vars = sj.semi_rhs_vars;
  if (!sj.semi_rhs_exprs.empty()) {
    vars.clear();
    for (const TypedExpr& e : sj.semi_rhs_exprs) expr_slots(e, vars);
  }
  std::vector<GroupRel> groups_over;
  for (uint32_t v : vars) {
    const QueryVar& var = q_.vars[v];
    auto g = std::find_if(groups_over.begin(), groups_over.end(),
                          [&](const GroupRel& x) { return x.view == base_[size_t(var.rel)].view; });
    if (g == groups_over.end()) {
      groups_over.push_back({base_[size_t(var.rel)].view, base_[size_t(var.rel)].rows, {}});
      g = groups_over.end() - 1;
    }
    if (std::find(g->columns.begin(), g->columns.end(), var.column) == g->columns.end())
      g->columns.push_back(var.column);
  }
  const bool stats = std::all_of(groups_over.begin(), groups_over.end(),
                                 [](const GroupRel& g) { return g.view != nullptr; });
  return stats ? estimate_num_groups(groups_over, rows) : clamp_row_est(rows);
}

// get_loop_count for a scan of `rel` parameterized by `other`: the scans the outer side
// asks for, as many as its rows, fewer when `other` is the right side of a semi join
// with `rel` on its left, which may be unique-ified first (adjust_rowcount_for_semijoins:
// its distinct keys over the product of its relations' rows; one when it cannot be,
// as estimate_num_groups of no keys is).
double JoinSearch::loop_count(size_t rel, size_t other) const {
  double rows = rels_[other].rows;
  for (const SpecialJoin& sj : q_.special_joins) {
    if (sj.kind != JoinKind::kSemi || !(sj.syn_lefthand & (Relids(1) << rel)) ||
        !(sj.syn_righthand & (Relids(1) << other)))
      continue;
    double raw = 1;
    for (size_t r = 0; r < q_.rels.size(); ++r)
      if ((sj.syn_righthand & (Relids(1) << r)) && !q_.is_removed(r)) raw *= rels_[r].rows;
    rows = std::min(rows, sj.semi_can_unique ? semi_rhs_groups(sj, raw) : 1.0);
  }
  return rows;
}

}  // namespace tp
