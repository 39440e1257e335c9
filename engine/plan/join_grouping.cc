#include "engine/plan/join_grouping.h"

#include <algorithm>
#include <utility>

#include "engine/core/error.h"
#include "engine/plan/grouping_nodes.h"
#include "engine/plan/grouping_steps.h"
#include "engine/plan/incremental_sort.h"
#include "engine/plan/join_build.h"

namespace tp {
namespace {

// A key no path's order gives: a grouping key that is an expression.
constexpr uint32_t kExprKey = 0x80000000u;

template <typename T>
bool contains(const std::vector<T>& v, const T& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

void bind_join_grouping(JoinQuery& q, const sql::Select& s, const GroupingColumns& columns) {
  auto g = std::make_shared<GroupedSelect>(bind_grouped_select(columns, s));
  auto need = [&q](const TypedExpr& e) {
    std::vector<uint32_t> vars;
    expr_slots(e, vars);
    for (uint32_t v : vars) q.vars[v].where_needed |= kOutputNeed;
  };
  for (const GroupKey& k : g->keys) need(*k.expr);
  for (const BoundAgg& a : g->aggs) {
    if (a.column >= 0) q.vars[size_t(a.column)].where_needed |= kOutputNeed;
    if (a.arg) need(*a.arg);
  }
  for (int v : g->input_vars) q.vars[size_t(v)].where_needed |= kOutputNeed;
  q.names = g->names;
  q.grouped = std::move(g);
}

class JoinGrouping::Planner : public grouping_detail::GroupingSteps {
 public:
  Planner(PlanContext& ctx, const sql::Select& s, const JoinQuery& q)
      : GroupingSteps(ctx, s, *q.grouped), q_(q) {
    choose_pathkeys();
    for (const BoundAgg& a : g_.aggs) {
      const int32_t typmod = a.arg           ? a.arg->typmod
                             : a.column >= 0 ? q_.vars[size_t(a.column)].typmod
                                             : kNoTypmod;
      calls_.push_back({a.kind, a.column, a.type, a.distinct, a.arg ? deparse(*a.arg) : "",
                        a.arg ? expr_cost_units(*a.arg) : 0, typmod});
      outputs_.push_back(output_aggregate(a.kind, a.type));
    }
  }

  std::vector<PathKey> query_pathkeys;

  PlannedQuery plan(const JoinRelation& rel, const std::vector<JoinGroupingRel>& base,
                    const std::function<std::unique_ptr<scans::ExecNode>(const JoinPath&)>& build) {
    base_ = &base;
    const GroupingInputRel in = input_rel(rel);
    GroupingQuery gq = common_query(input_width_);
    gq.incremental_sort = [this](const PathCost& input, size_t presorted, double limit) {
      return cost_incremental_sort(cs_, input, presorted_groups(presorted, input.rows),
                                   input_width_, limit);
    };
    gq.order_incremental_sort = [this, width = gq.width](const PathCost& grouped, size_t presorted,
                                                         double limit) {
      return cost_incremental_sort(cs_, grouped, presorted_groups(presorted, grouped.rows), width,
                                   limit);
    };
    chosen_.choice = choose_grouping(cs_, gq, {in});
    width_ = gq.width;
    const GroupingInput& input = in.inputs[chosen_.choice.input];
    PlanTop top{build(*rel.paths[chosen_.choice.input]), input.cost};
    top.node->estimate = {input.cost.startup, input.cost.total, input.cost.rows, input_width_};
    return build_above(std::move(top), rel.vars, input.presorted);
  }

 private:
  int column_width_of(int c) const override { return q_.vars[size_t(c)].width; }

  // group_pathkeys: each key's class (a key of its own for an expression), a class
  // already listed or fixed to a constant left out.
  void choose_pathkeys() {
    same_key_.assign(g_.keys.size(), -1);
    for (size_t i = 0; i < g_.keys.size(); ++i) {
      const GroupKey& k = g_.keys[i];
      uint32_t key = kExprKey + uint32_t(i);
      if (k.column >= 0) {
        if (contains(q_.fixed, uint32_t(k.column))) continue;
        key = q_.key_of(uint32_t(k.column));
      }
      auto it = std::find_if(query_pathkeys.begin(), query_pathkeys.end(),
                             [&](const PathKey& p) { return p.key == key; });
      if (it != query_pathkeys.end()) {
        same_key_[i] = int(pathkeys_[size_t(it - query_pathkeys.begin())]);
        continue;
      }
      pathkeys_.push_back(i);
      query_pathkeys.push_back({key, k.descending, k.nulls_first});
      const std::string text = grouping_detail::sort_key_text(
          k.column >= 0 ? k.text : "(" + k.text + ")", k.descending, k.nulls_first);
      sort_text_ += (sort_text_.empty() ? "" : ", ") + text;
    }
  }

  // The join's paths under the grouping input's target (make_group_input_target: the
  // keys, the vars the rest reads), its expressions costed per row as
  // apply_scanjoin_target_to_paths' projection does.
  GroupingInputRel input_rel(const JoinRelation& rel) {
    std::vector<uint32_t> vars;
    auto add_var = [&](uint32_t v) {
      if (contains(vars, v)) return;
      vars.push_back(v);
      input_width_ += q_.vars[v].width;
    };
    for (const GroupKey& k : g_.keys)
      if (k.column >= 0) add_var(uint32_t(k.column));
    for (int v : g_.input_vars) add_var(uint32_t(v));
    double units = 0;
    for (const GroupKey& k : g_.keys)
      if (k.column < 0) {
        units += expr_cost_units(*k.expr);
        input_width_ += type_avg_width(k.expr->type, k.expr->typmod);
      }
    const double projection = units * cs_.cpu_operator_cost;
    GroupingInputRel in;
    for (const JoinPathPtr& p : rel.paths) {
      PathCost c = p->cost;
      c.total += projection * c.rows;
      in.inputs.push_back({c, common_pathkeys(p->pathkeys, query_pathkeys), true});
    }
    in.cheapest = cheapest_total_input(in.inputs);
    std::vector<std::pair<int, const TypedExpr*>> keys;
    for (const GroupKey& k : g_.keys) keys.push_back({k.column, k.expr.get()});
    in.num_groups = g_.keys.empty() ? 1 : groups_over(keys, in.inputs[in.cheapest].cost.rows);
    in.input_width = input_width_;
    return in;
  }

  // estimate_num_groups over the first `n` group_pathkeys, as cost_incremental_sort
  // asks it: each class by its first member.
  double presorted_groups(size_t n, double rows) const {
    std::vector<std::pair<int, const TypedExpr*>> exprs;
    for (size_t i = 0; i < n; ++i) {
      const GroupKey& k = g_.keys[pathkeys_[i]];
      const uint32_t key = query_pathkeys[i].key;
      if (k.column >= 0 && key < q_.classes.size())
        exprs.push_back({int(q_.first_member_var(key)), k.expr.get()});
      else if (k.column >= 0)
        exprs.push_back({int(q_.expression_class_var(uint32_t(k.column))), k.expr.get()});
      else
        exprs.push_back({k.column, k.expr.get()});
    }
    return groups_over(exprs, rows);
  }

  double groups_over(const std::vector<std::pair<int, const TypedExpr*>>& exprs,
                     double rows) const {
    return join_num_groups(q_, *base_, exprs, rows);
  }

  // The grouping's nodes over the chosen path (its columns `layout`): the expression
  // keys and aggregate arguments projected after them, the Sort or Incremental Sort,
  // the grouping node; then the select list, ORDER BY and LIMIT.
  PlannedQuery build_above(PlanTop top, const std::vector<uint32_t>& layout, size_t presorted) {
    std::vector<std::shared_ptr<const TypedExpr>> computed;
    auto var_slot = [&](uint32_t v) {
      return uint32_t(std::find(layout.begin(), layout.end(), v) - layout.begin());
    };
    auto compute = [&](const TypedExpr& e) {
      auto copy = std::make_shared<TypedExpr>(e);
      remap_vars(*copy, layout);
      computed.push_back(std::move(copy));
      return uint32_t(layout.size() + computed.size() - 1);
    };
    std::vector<uint32_t> keys;
    for (const GroupKey& k : g_.keys)
      keys.push_back(k.column >= 0 ? var_slot(uint32_t(k.column)) : compute(*k.expr));
    specs_.clear();
    for (const BoundAgg& a : g_.aggs) {
      const uint32_t slot = a.arg           ? compute(*a.arg)
                            : a.column >= 0 ? var_slot(uint32_t(a.column))
                                            : 0;
      specs_.push_back({a.kind, slot, a.distinct, a.type, is_typed_input(a.type)});
    }
    const GroupingChoice& c = chosen_.choice;
    GroupingNodes n;
    n.computed = std::move(computed);
    n.input_sort = c.input_sort;
    n.sort_keys = key_sort(keys);
    n.sort_text = sort_text_;
    n.presorted = presorted;
    n.presorted_text = presorted_text(presorted);
    n.sort_estimate = {c.sort.startup, c.sort.total, c.sort.rows, input_width_};
    n.spec = grouping_spec(c.strategy, scans::AggMode::kSimple, keys, specs_,
                           c.input_sort != InputSort::kNone, c.planned_partitions);
    n.agg_estimate = {c.agg.startup, c.agg.total, c.agg.rows, width_};
    top.node = n.build(std::move(top.node));
    top.path = c.agg;
    PlannedQuery out = outputs_above(top);
    if (s_.limit || s_.offset.value_or(0) > 0) add_limit(s_.limit, s_.offset.value_or(0), top);
    out.root = std::move(top.node);
    return out;
  }

  const JoinQuery& q_;
  const std::vector<JoinGroupingRel>* base_ = nullptr;
  int input_width_ = 0;
};

// exprs_known_equal: two vars of one equivalence class, with or without a constant.
static bool known_equal(const JoinQuery& q, uint32_t a, uint32_t b) {
  if (q.key_of(a) == q.key_of(b) && q.key_of(a) < q.classes.size()) return true;
  return std::any_of(q.constant_classes.begin(), q.constant_classes.end(), [&](const JoinClass& c) {
    return std::find(c.members.begin(), c.members.end(), a) != c.members.end() &&
           std::find(c.members.begin(), c.members.end(), b) != c.members.end();
  });
}

double join_num_groups(const JoinQuery& q, const std::vector<JoinGroupingRel>& base,
                       const std::vector<std::pair<int, const TypedExpr*>>& exprs, double rows) {
  // Every estimate is clamped to the input rows, and never below one group.
  if (clamp_row_est(rows) <= 1) return 1;
  int bools = 0;
  std::vector<std::pair<uint32_t, double>> infos;  // var, its distinct count
  auto add = [&](uint32_t v) {
    const QueryVar& var = q.vars[v];
    bool is_default = false;
    const double nd =
        get_variable_numdistinct(*base[size_t(var.rel)].view, var.column, &is_default);
    for (size_t i = 0; i < infos.size();) {
      const uint32_t o = infos[i].first;
      if (o == v) return;
      const bool equal = q.vars[o].rel != var.rel && known_equal(q, o, v);
      if (equal && infos[i].second <= nd) return;
      if (equal)
        infos.erase(infos.begin() + std::ptrdiff_t(i));
      else
        ++i;
    }
    infos.push_back({v, nd});
  };
  for (const auto& [var, e] : exprs) {
    if (e->type == TypeId::kBool) {
      ++bools;
      continue;
    }
    if (var >= 0) {
      add(uint32_t(var));
      continue;
    }
    std::vector<uint32_t> vars;
    expr_slots(*e, vars);
    for (uint32_t v : vars) add(v);
  }
  std::vector<GroupRel> rels;
  std::vector<int> rel_of;
  for (const auto& [v, nd] : infos) {
    const QueryVar& var = q.vars[v];
    auto it = std::find(rel_of.begin(), rel_of.end(), var.rel);
    if (it == rel_of.end()) {
      rel_of.push_back(var.rel);
      const JoinGroupingRel& b = base[size_t(var.rel)];
      rels.push_back({b.view, b.rows, {}});
      it = rel_of.end() - 1;
    }
    rels[size_t(it - rel_of.begin())].columns.push_back(var.column);
  }
  return estimate_num_groups(rels, rows, bools);
}

JoinGrouping::JoinGrouping(PlanContext& ctx, const sql::Select& s, const JoinQuery& q)
    : p_(std::make_unique<Planner>(ctx, s, q)) {}

JoinGrouping::~JoinGrouping() = default;

const std::vector<PathKey>& JoinGrouping::query_pathkeys() const {
  return p_->query_pathkeys;
}

PlannedQuery JoinGrouping::plan(
    const JoinRelation& rel, const std::vector<JoinGroupingRel>& base,
    const std::function<std::unique_ptr<scans::ExecNode>(const JoinPath&)>& build) {
  return p_->plan(rel, base, build);
}

}  // namespace tp
