#include "engine/plan/join_build.h"

#include <algorithm>
#include <bit>

#include "engine/core/error.h"
#include "engine/plan/join_cost.h"
#include "engine/plan/outer_joins.h"
#include "engine/plan/plan_steps.h"
#include "scans/distinct.h"
#include "scans/hash.h"
#include "scans/hash_join.h"
#include "scans/materialize.h"
#include "scans/memoize.h"
#include "scans/merge_join.h"
#include "scans/nest_loop.h"
#include "scans/one_time_false.h"
#include "scans/project.h"
#include "scans/sort_limit_agg.h"

namespace tp {

namespace {

uint32_t position_in(const std::vector<uint32_t>& layout, uint32_t var) {
  const auto it = std::find(layout.begin(), layout.end(), var);
  if (it == layout.end()) throw Error("internal error: a join reads a var its input lacks");
  return uint32_t(it - layout.begin());
}

std::string and_text(const std::vector<std::string>& parts) {
  if (parts.empty()) return "";
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
      if (p.param_build && passed_params_) return parameterized(p, passed_params_);
      if (p.param_build) throw Error("internal error: a parameterized scan outside a nested loop");
      if (p.partial_scan) {
        if (!partial_leaf_) throw Error("internal error: a partial scan outside a Gather");
        node = partial_leaf_();
        break;
      }
      const int rel = std::countr_zero(p.relids);
      node = scans_[size_t(rel)][size_t(p.scan)]();
      break;
    }
    case JoinPath::Kind::kGather:
      return build_gather(p);
    case JoinPath::Kind::kUnique:
      node = build_unique(p);
      break;
    case JoinPath::Kind::kDummy:
      node = std::make_unique<scans::OneTimeFalseNode>(nullptr);
      break;
    case JoinPath::Kind::kMaterial:
      node = std::make_unique<scans::MaterializeNode>(
          build(*p.outer), uint64_t(ctx_.settings.costs.work_mem_kb) * 1024,
          p.outer->required_outer != 0 ? passed_params_ : nullptr, &ctx_.storage.temp_space());
      break;
    default:
      return build_join(p);
  }
  node->estimate = {p.cost.startup, p.cost.total, p.cost.rows, p.width};
  return node;
}

namespace {

// A join input's node and its row: the relation's vars, then the key expressions
// computed above them: by the input itself (a side unique-ified on expressions) or by a
// projection this join adds (a hash or merge key, a parameter that is no plain column).
struct BuiltInput {
  std::unique_ptr<scans::ExecNode> node;
  std::vector<uint32_t> layout;  // vars; UINT32_MAX for a computed key
  // Every computed key: the `present` ones the row holds (its UINT32_MAX slots, in
  // order), then those project() adds.
  std::vector<const TypedExpr*> computed;
  size_t present = 0;

  BuiltInput(std::unique_ptr<scans::ExecNode> n, std::vector<uint32_t> l,
             const std::vector<TypedExpr>& holds = {})
      : node(std::move(n)), layout(std::move(l)) {
    for (const TypedExpr& e : holds) computed.push_back(&e);
    present = computed.size();
  }

  uint32_t slot(const TypedExpr& key) {
    if (key.kind == TypedExpr::Kind::kColumn) return position_in(layout, key.slot);
    for (size_t i = 0; i < computed.size(); ++i)
      if (deparse(*computed[i]) == deparse(key)) return computed_slot(i);
    computed.push_back(&key);
    return computed_slot(computed.size() - 1);
  }
  // The row's slot types: the vars' and the computed keys' in the row, then the new keys'.
  std::vector<TypeId> types(const JoinQuery& q) const {
    std::vector<TypeId> out;
    size_t held = 0;
    for (uint32_t v : layout)
      out.push_back(v != UINT32_MAX ? q.vars[v].type : computed[held++]->type);
    for (size_t i = present; i < computed.size(); ++i) out.push_back(computed[i]->type);
    return out;
  }
  // Adds the projection of the new computed keys, once every key has its slot.
  void project() {
    if (computed.size() == present) return;
    std::vector<std::shared_ptr<const TypedExpr>> exprs;
    for (size_t i = present; i < computed.size(); ++i) {
      auto e = std::make_shared<TypedExpr>(*computed[i]);
      remap_vars(*e, layout);
      exprs.push_back(std::move(e));
    }
    const scans::PlanEstimate estimate = node->estimate;
    node = std::make_unique<scans::ProjectNode>(std::move(node), std::move(exprs));
    node->estimate = estimate;
    layout.insert(layout.end(), computed.size() - present, UINT32_MAX);
    present = computed.size();
  }

 private:
  uint32_t computed_slot(size_t i) const {
    if (i >= present) return uint32_t(layout.size() + i - present);
    size_t seen = 0;  // the i-th UINT32_MAX slot of the row
    for (size_t at = 0; at < layout.size(); ++at)
      if (layout[at] == UINT32_MAX && seen++ == i) return uint32_t(at);
    throw Error("internal error: a computed key outside its input's row");
  }
};

TypedExpr and_of(const std::vector<const RestrictClause*>& clauses) {
  if (clauses.size() == 1) return clauses[0]->expr;
  TypedExpr f;
  f.kind = TypedExpr::Kind::kAnd;
  f.type = TypeId::kBool;
  for (const RestrictClause* c : clauses) f.args.push_back(c->expr);
  return f;
}

scans::JoinType exec_join_type(JoinKind k) {
  switch (k) {
    case JoinKind::kLeft:
      return scans::JoinType::kLeft;
    case JoinKind::kRight:
      return scans::JoinType::kRight;
    case JoinKind::kFull:
      return scans::JoinType::kFull;
    case JoinKind::kSemi:
      return scans::JoinType::kSemi;
    case JoinKind::kAnti:
      return scans::JoinType::kAnti;
    default:
      return scans::JoinType::kInner;
  }
}

// The Join Filter: every clause of the join's restrictlist but the hash or merge keys
// (and, for a nested loop, those its parameterized inner side applies); an outer join's
// WHERE clauses are its Filter instead (extract_actual_join_clauses).
void set_join_filter(const JoinPath& p, const std::vector<uint32_t>& combined,
                     scans::JoinSpec& spec) {
  std::vector<const RestrictClause*> filter, qual;
  for (size_t i = 0; i < p.restrict->clauses.size(); ++i) {
    if (std::find(p.join_keys.begin(), p.join_keys.end(), i) != p.join_keys.end()) continue;
    const RestrictClause& c = p.restrict->clauses[i];
    (is_outer_join(p.join_kind) && c.pushed_down ? qual : filter).push_back(&c);
  }
  if (!filter.empty()) {
    TypedExpr f = and_of(filter);
    spec.filter_text = deparse(f);
    remap_vars(f, combined);
    spec.filter = std::make_shared<const TypedExpr>(std::move(f));
  }
  if (!qual.empty()) {
    TypedExpr f = and_of(qual);
    spec.qual_text = deparse(f);
    remap_vars(f, combined);
    spec.qual = std::make_shared<const TypedExpr>(std::move(f));
  }
}

// A merge key as the Sort Key prints it: a column (under a binary-compatible cast too:
// the sort reads the column itself, tlist_member_ignore_relabel), else the expression
// the sort's input computes, in parentheses.
// A column sorted by another type's order (a varchar as char(n), which compares without
// trailing blanks) names that order's operator: `s0.t USING <`.
std::string key_text(const TypedExpr& k) {
  const TypedExpr& bare = strip_relabel(k);
  if (bare.kind != TypedExpr::Kind::kColumn) return "(" + deparse(k) + ")";
  return k.type == TypeId::kBpchar && bare.type != TypeId::kBpchar ? bare.name + " USING <"
                                                                   : bare.name;
}

}  // namespace

std::unique_ptr<scans::ExecNode> JoinPlanBuilder::parameterized(
    const JoinPath& p, const scans::ExecParams* params) const {
  std::unique_ptr<scans::ExecNode> node;
  if (p.kind == JoinPath::Kind::kMemoize) {
    std::vector<size_t> keys;
    std::string text;
    for (size_t i = 0; i < p.param_keys.size(); ++i) {
      keys.push_back(p.memo_params.empty() ? i : p.memo_params[i]);
      // Printed without its implicit casts (ruleutils hides them at the top of an
      // expression): a varchar key relabeled as text, a smallint widened to float8.
      const TypedExpr* key = &p.param_keys[i];
      while (key->kind == TypedExpr::Kind::kCall && key->args.size() == 1 &&
             (key->form == TypedExpr::Form::kRelabel ||
              (key->form == TypedExpr::Form::kCast && !key->explicit_cast)))
        key = &key->args[0];
      text += (i ? ", " : "") + deparse(*key);
    }
    node = std::make_unique<scans::MemoizeNode>(parameterized(*p.outer, params), params,
                                                std::move(keys), std::move(text),
                                                p.param_binary || p.lateral, p.memo_singlerow,
                                                uint32_t(std::min(p.memo_entries, 4294967295.0)),
                                                uint64_t(hash_memory_limit(ctx_.settings.costs)));
  } else if (p.param_build) {
    node = p.param_build(params);
  } else {
    const scans::ExecParams* saved = passed_params_;
    passed_params_ = params;
    node = build_join(p);
    passed_params_ = saved;
  }
  node->estimate = {p.cost.startup, p.cost.total, p.cost.rows, p.width};
  return node;
}

// A path's row: its relations' vars, then (a unique-ified side grouped by expressions)
// the keys computed below it, which no var names.
std::vector<uint32_t> JoinPlanBuilder::layout_of(const JoinPath& p) const {
  std::vector<uint32_t> layout = search_.output_vars(p.relids);
  if (p.kind == JoinPath::Kind::kUnique)
    layout.insert(layout.end(), p.unique_exprs.size(), UINT32_MAX);
  return layout;
}

// The computed keys a path's row holds after its vars (layout_of's UINT32_MAX slots).
const std::vector<TypedExpr>& JoinPlanBuilder::held_keys(const JoinPath& p) const {
  static const std::vector<TypedExpr> none;
  return p.kind == JoinPath::Kind::kUnique ? p.unique_exprs : none;
}

std::unique_ptr<scans::ExecNode> JoinPlanBuilder::build_unique(const JoinPath& p) const {
  const std::vector<uint32_t> layout = search_.output_vars(p.outer->relids);
  std::vector<uint32_t> keys;
  std::vector<scans::SortKey> sort_keys;
  std::string text;
  for (uint32_t v : p.unique_vars) {
    keys.push_back(position_in(layout, v));
    sort_keys.push_back({keys.back(), false, false});
    text += (text.empty() ? "" : ", ") + q_.var_name(v);
  }
  std::unique_ptr<scans::ExecNode> input = build(*p.outer);
  if (!p.unique_exprs.empty()) {
    // Keys that are expressions: computed after the vars, grouped on there.
    BuiltInput in(std::move(input), layout);
    keys.clear();
    sort_keys.clear();
    text.clear();
    for (const TypedExpr& e : p.unique_exprs) {
      keys.push_back(in.slot(e));
      sort_keys.push_back({keys.back(), false, false});
      text += (text.empty() ? "" : ", ") + deparse(e);
    }
    in.project();
    input = std::move(in.node);
  }
  // Past hash_mem it keeps its table in memory, as a DISTINCT's does, where PostgreSQL
  // would spill (an estimate under hash_mem chose it).
  if (p.unique_hashed)
    return std::make_unique<scans::HashAggregateNode>(std::move(input), std::move(keys),
                                                      std::move(text), 0, kSortMemoryLimitBytes);
  input = sorted(std::move(input), std::move(sort_keys), std::move(text), p.outer->width,
                 p.unique_sort_cost);
  return std::make_unique<scans::UniqueNode>(std::move(input), std::move(keys));
}

std::unique_ptr<scans::ExecNode> JoinPlanBuilder::sorted(std::unique_ptr<scans::ExecNode> input,
                                                         std::vector<scans::SortKey> keys,
                                                         std::string text, int width,
                                                         const PathCost& cost) const {
  auto sort = std::make_unique<scans::SortNode>(std::move(input), std::move(keys), std::move(text),
                                                -1, kSortMemoryLimitBytes);
  sort->estimate = {cost.startup, cost.total, cost.rows, width};
  return sort;
}

std::unique_ptr<scans::ExecNode> JoinPlanBuilder::build_join(const JoinPath& p) const {
  BuiltInput outer(build(*p.outer), layout_of(*p.outer), held_keys(*p.outer));
  // A parameterized inner scan reads values of the outer row (a Nested Loop's
  // parameters, set before each rescan): columns, or expressions computed above the
  // outer side as a key would be.
  std::unique_ptr<scans::ExecParams> params;
  std::vector<uint32_t> param_slots;
  std::unique_ptr<scans::ExecNode> inner_node;
  // (An inner side parameterized by a relation above this join reads that Nested
  // Loop's parameters instead: passed_params_.)
  if (p.inner->required_outer != 0 && (p.inner->required_outer & ~p.outer->relids) == 0) {
    std::vector<TypeId> types;
    for (const TypedExpr& e : p.inner->param_exprs) {
      types.push_back(e.type);
      param_slots.push_back(outer.slot(e));
    }
    params = std::make_unique<scans::ExecParams>(std::move(types));
    inner_node = parameterized(*p.inner, params.get());
  } else {
    inner_node = build(*p.inner);
  }
  BuiltInput inner(std::move(inner_node), layout_of(*p.inner), held_keys(*p.inner));
  // The keys' slots on each side, in join_keys' order.
  std::vector<uint32_t> outer_keys, inner_keys;
  std::vector<std::string> cond;
  for (size_t i : p.join_keys) {
    if (p.kind == JoinPath::Kind::kNestLoop) break;  // the inner scan applies them
    const RestrictClause& c = p.restrict->clauses[i];
    const TypedExpr& ok = search_.side_key(c, p.outer->relids);
    const TypedExpr& ik = &ok == &c.key1 ? c.key2 : c.key1;
    const bool first = &ok == &c.key1;
    outer_keys.push_back(outer.slot(first ? c.exec1 : c.exec2));
    inner_keys.push_back(inner.slot(first ? c.exec2 : c.exec1));
    // get_switched_clauses: the outer side first. A Merge Join reads an expression key
    // from its input's target list where the Sort it puts below computed it: printed in
    // parentheses, as EXPLAIN prints a reference to a computed column. A join below
    // returns no such column: the expression is computed again.
    const auto side = [&](const TypedExpr& e, bool sorted_here) {
      const bool computed = p.kind == JoinPath::Kind::kMergeJoin && sorted_here &&
                            strip_relabel(e).kind != TypedExpr::Kind::kColumn;
      return computed ? "(" + deparse(e) + ")" : deparse(e);
    };
    cond.push_back("(" + side(ok, !p.outer_sort.empty()) + " = " + side(ik, !p.inner_sort.empty()) +
                   ")");
  }
  outer.project();
  inner.project();
  std::vector<uint32_t> combined = outer.layout;
  combined.insert(combined.end(), inner.layout.begin(), inner.layout.end());
  scans::JoinSpec spec;
  spec.type = exec_join_type(p.join_kind);
  spec.outer_types = outer.types(q_);
  spec.inner_types = inner.types(q_);
  for (uint32_t v : search_.output_vars(p.relids)) spec.output.push_back(position_in(combined, v));
  set_join_filter(p, combined, spec);
  std::unique_ptr<scans::ExecNode> node;
  if (p.kind == JoinPath::Kind::kNestLoop) {
    auto nl =
        std::make_unique<scans::NestLoopNode>(std::move(outer.node), std::move(inner.node), spec,
                                              std::move(params), std::move(param_slots));
    if (p.nestloop_batch) nl->enable_prefetch(ctx_.settings.nestloop_prefetch_rows);
    node = std::move(nl);
  } else if (p.kind == JoinPath::Kind::kHashJoin) {
    auto hash = std::make_unique<scans::HashNode>(
        std::move(inner.node), std::move(inner_keys), uint32_t(p.hash_buckets),
        uint32_t(p.hash_batches), uint64_t(hash_memory_limit(ctx_.settings.costs)),
        p.inner->required_outer != 0 ? passed_params_ : nullptr, &ctx_.storage.temp_space());
    hash->estimate = {p.inner->cost.total, p.inner->cost.total, p.inner->cost.rows, p.inner->width};
    node = std::make_unique<scans::HashJoinNode>(std::move(outer.node), std::move(hash), spec,
                                                 std::move(outer_keys), and_text(cond));
  } else {
    node = build_merge(p, std::move(outer.node), std::move(inner.node), spec, outer_keys,
                       inner_keys, and_text(cond));
  }
  node->estimate = {p.cost.startup, p.cost.total, p.cost.rows, p.width};
  return node;
}

std::unique_ptr<scans::ExecNode> JoinPlanBuilder::build_merge(
    const JoinPath& p, std::unique_ptr<scans::ExecNode> outer,
    std::unique_ptr<scans::ExecNode> inner, const scans::JoinSpec& spec,
    const std::vector<uint32_t>& outer_keys, const std::vector<uint32_t>& inner_keys,
    std::string cond) const {
  std::vector<scans::MergeKey> keys;
  std::vector<scans::SortKey> outer_sort, inner_sort;
  std::string outer_text, inner_text;
  const std::vector<PathKey>& order = !p.outer_sort.empty() ? p.outer_sort : p.outer->pathkeys;
  for (size_t k = 0; k < p.join_keys.size(); ++k) {
    const RestrictClause& c = p.restrict->clauses[p.join_keys[k]];
    const PathKey pk = k < order.size() ? order[k] : PathKey{c.key, false, false};
    keys.push_back({outer_keys[k], inner_keys[k], pk.descending, pk.nulls_first});
    outer_sort.push_back({outer_keys[k], pk.descending, pk.nulls_first});
    inner_sort.push_back({inner_keys[k], pk.descending, pk.nulls_first});
    const std::string dir = pk.descending ? " DESC" : "";
    const TypedExpr& ok = search_.side_key(c, p.outer->relids);
    const TypedExpr& ik = &ok == &c.key1 ? c.key2 : c.key1;
    outer_text += (outer_text.empty() ? "" : ", ") + key_text(ok) + dir;
    inner_text += (inner_text.empty() ? "" : ", ") + key_text(ik) + dir;
  }
  if (!p.outer_sort.empty())
    outer = sorted(std::move(outer), std::move(outer_sort), outer_text, p.outer->width,
                   p.outer_sort_cost);
  if (!p.inner_sort.empty())
    inner = sorted(std::move(inner), std::move(inner_sort), inner_text, p.inner->width,
                   p.inner_sort_cost);
  if (p.materialize_inner) {
    inner = std::make_unique<scans::MaterializeNode>(
        std::move(inner), uint64_t(ctx_.settings.costs.work_mem_kb) * 1024, nullptr,
        &ctx_.storage.temp_space());
    inner->estimate = {p.inner_material_cost.startup, p.inner_material_cost.total,
                       p.inner->cost.rows, p.inner->width};
  }
  return std::make_unique<scans::MergeJoinNode>(std::move(outer), std::move(inner), spec,
                                                std::move(keys), std::move(cond),
                                                kSortMemoryLimitBytes);
}

std::unique_ptr<scans::ExecNode> project_join_columns(
    std::unique_ptr<scans::ExecNode> node, const std::vector<std::shared_ptr<TypedExpr>>& computed,
    std::vector<uint32_t>& layout) {
  if (computed.empty()) return node;
  std::vector<std::shared_ptr<const TypedExpr>> exprs;
  for (const auto& e : computed) {
    auto copy = std::make_shared<TypedExpr>(*e);
    remap_vars(*copy, layout);
    exprs.push_back(std::move(copy));
  }
  for (size_t i = 0; i < computed.size(); ++i) layout.push_back(UINT32_MAX - uint32_t(i));
  const scans::PlanEstimate estimate = node->estimate;
  auto p = std::make_unique<scans::ProjectNode>(std::move(node), std::move(exprs));
  p->estimate = estimate;
  return p;
}

}  // namespace tp
