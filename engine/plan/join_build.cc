#include "engine/plan/join_build.h"

#include <algorithm>
#include <bit>

#include "engine/core/error.h"
#include "engine/plan/join_cost.h"
#include "engine/plan/plan_steps.h"
#include "scans/hash.h"
#include "scans/hash_join.h"
#include "scans/materialize.h"
#include "scans/merge_join.h"
#include "scans/nest_loop.h"
#include "scans/sort_limit_agg.h"

namespace tp {

namespace {

uint32_t position_in(const std::vector<uint32_t>& layout, uint32_t var) {
  const auto it = std::find(layout.begin(), layout.end(), var);
  if (it == layout.end()) throw Error("internal error: a join reads a var its input lacks");
  return uint32_t(it - layout.begin());
}

// The clause of the pair with the outer side's var first (get_switched_clauses).
std::string switched_text(const RestrictClause& c, uint32_t outer_var) {
  const TypedExpr& l = c.expr.args[0];
  const TypedExpr& r = c.expr.args[1];
  const bool swap = l.slot != outer_var;
  return "(" + (swap ? r.name : l.name) + " = " + (swap ? l.name : r.name) + ")";
}

std::string and_text(const std::vector<std::string>& parts) {
  if (parts.size() == 1) return parts[0];
  std::string s = "(";
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? " AND " : "") + parts[i];
  return s + ")";
}

}  // namespace

void remap_vars(TypedExpr& e, const std::vector<uint32_t>& layout) {
  if (e.kind == TypedExpr::Kind::kColumn) e.slot = position_in(layout, e.slot);
  for (TypedExpr& a : e.args) remap_vars(a, layout);
}

std::unique_ptr<scans::ExecNode> JoinPlanBuilder::build(const JoinPath& p) const {
  std::unique_ptr<scans::ExecNode> node;
  switch (p.kind) {
    case JoinPath::Kind::kScan: {
      const int rel = std::countr_zero(p.relids);
      node = scans_[size_t(rel)][size_t(p.scan)]();
      break;
    }
    case JoinPath::Kind::kMaterial:
      node = std::make_unique<scans::MaterializeNode>(
          build(*p.outer), uint64_t(ctx_.settings.costs.work_mem_kb) * 1024, nullptr,
          &ctx_.storage.temp_space());
      break;
    default:
      return build_join(p);
  }
  node->estimate = {p.cost.startup, p.cost.total, p.cost.rows, p.width};
  return node;
}

std::unique_ptr<scans::ExecNode> JoinPlanBuilder::sorted(std::unique_ptr<scans::ExecNode> input,
                                                         const JoinPath& side,
                                                         const std::vector<PathKey>& keys,
                                                         const JoinPath& join,
                                                         const PathCost& cost) const {
  const std::vector<uint32_t> layout = search_.output_vars(side.relids);
  std::vector<scans::SortKey> sort_keys;
  std::string text;
  for (const PathKey& k : keys) {
    for (size_t i : join.join_keys) {
      const RestrictClause& c = join.restrict->clauses[i];
      if (c.key != k.key) continue;
      const uint32_t var =
          (side.relids & (Relids(1) << q_.vars[c.var1].rel)) ? c.var1 : c.var2;
      sort_keys.push_back({position_in(layout, var), k.descending, k.nulls_first});
      const TypedExpr& named = c.expr.args[var == c.var1 ? 0 : 1];
      text += (text.empty() ? "" : ", ") + named.name + (k.descending ? " DESC" : "");
      break;
    }
  }
  auto sort = std::make_unique<scans::SortNode>(std::move(input), std::move(sort_keys), text, -1,
                                                kSortMemoryLimitBytes);
  sort->estimate = {cost.startup, cost.total, cost.rows, side.width};
  return sort;
}

std::unique_ptr<scans::ExecNode> JoinPlanBuilder::build_join(const JoinPath& p) const {
  const std::vector<uint32_t> outer_vars = search_.output_vars(p.outer->relids);
  const std::vector<uint32_t> inner_vars = search_.output_vars(p.inner->relids);
  std::vector<uint32_t> combined = outer_vars;
  combined.insert(combined.end(), inner_vars.begin(), inner_vars.end());
  scans::JoinSpec spec;
  for (uint32_t v : outer_vars) spec.outer_types.push_back(q_.vars[v].type);
  for (uint32_t v : inner_vars) spec.inner_types.push_back(q_.vars[v].type);
  for (uint32_t v : search_.output_vars(p.relids)) spec.output.push_back(position_in(combined, v));
  // The Join Filter: every clause a nested loop checks; the others besides the keys.
  std::vector<const RestrictClause*> filter;
  for (size_t i = 0; i < p.restrict->clauses.size(); ++i)
    if (std::find(p.join_keys.begin(), p.join_keys.end(), i) == p.join_keys.end())
      filter.push_back(&p.restrict->clauses[i]);
  if (!filter.empty()) {
    TypedExpr f;
    if (filter.size() == 1) {
      f = filter[0]->expr;
    } else {
      f.kind = TypedExpr::Kind::kAnd;
      f.type = TypeId::kBool;
      for (const RestrictClause* c : filter) f.args.push_back(c->expr);
    }
    spec.filter_text = deparse(f);
    remap_vars(f, combined);
    spec.filter = std::make_shared<const TypedExpr>(std::move(f));
  }
  std::unique_ptr<scans::ExecNode> outer = build(*p.outer);
  std::unique_ptr<scans::ExecNode> inner = build(*p.inner);
  std::unique_ptr<scans::ExecNode> node;
  auto outer_var_of = [&](const RestrictClause& c) {
    return (p.outer->relids & (Relids(1) << q_.vars[c.var1].rel)) ? c.var1 : c.var2;
  };
  if (p.kind == JoinPath::Kind::kNestLoop) {
    node = std::make_unique<scans::NestLoopNode>(std::move(outer), std::move(inner), spec);
  } else if (p.kind == JoinPath::Kind::kHashJoin) {
    std::vector<uint32_t> outer_keys, inner_keys;
    std::vector<std::string> cond;
    for (size_t i : p.join_keys) {
      const RestrictClause& c = p.restrict->clauses[i];
      const uint32_t ov = outer_var_of(c);
      const uint32_t iv = ov == c.var1 ? c.var2 : c.var1;
      outer_keys.push_back(position_in(outer_vars, ov));
      inner_keys.push_back(position_in(inner_vars, iv));
      cond.push_back(switched_text(c, ov));
    }
    auto hash = std::make_unique<scans::HashNode>(
        std::move(inner), std::move(inner_keys), uint32_t(p.hash_buckets),
        uint32_t(p.hash_batches), uint64_t(hash_memory_limit(ctx_.settings.costs)));
    hash->estimate = {p.inner->cost.total, p.inner->cost.total, p.inner->cost.rows,
                      p.inner->width};
    node = std::make_unique<scans::HashJoinNode>(std::move(outer), std::move(hash), spec,
                                                 std::move(outer_keys), and_text(cond));
  } else {
    std::vector<scans::MergeKey> keys;
    std::vector<std::string> cond;
    const std::vector<PathKey>& order = !p.outer_sort.empty() ? p.outer_sort : p.outer->pathkeys;
    for (size_t k = 0; k < p.join_keys.size(); ++k) {
      const RestrictClause& c = p.restrict->clauses[p.join_keys[k]];
      const uint32_t ov = outer_var_of(c);
      const uint32_t iv = ov == c.var1 ? c.var2 : c.var1;
      const PathKey pk = k < order.size() ? order[k] : PathKey{c.key, false, false};
      keys.push_back({position_in(outer_vars, ov), position_in(inner_vars, iv), pk.descending,
                      pk.nulls_first});
      cond.push_back(switched_text(c, ov));
    }
    if (!p.outer_sort.empty())
      outer = sorted(std::move(outer), *p.outer, p.outer_sort, p, p.outer_sort_cost);
    if (!p.inner_sort.empty())
      inner = sorted(std::move(inner), *p.inner, p.inner_sort, p, p.inner_sort_cost);
    if (p.materialize_inner) {
      inner = std::make_unique<scans::MaterializeNode>(
          std::move(inner), uint64_t(ctx_.settings.costs.work_mem_kb) * 1024, nullptr,
          &ctx_.storage.temp_space());
      inner->estimate = {p.inner_material_cost.startup, p.inner_material_cost.total,
                         p.inner->cost.rows, p.inner->width};
    }
    node = std::make_unique<scans::MergeJoinNode>(std::move(outer), std::move(inner), spec,
                                                  std::move(keys), and_text(cond),
                                                  kSortMemoryLimitBytes);
  }
  node->estimate = {p.cost.startup, p.cost.total, p.cost.rows, p.width};
  return node;
}

}  // namespace tp
