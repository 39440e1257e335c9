#include "engine/plan/join_distinct.h"

#include <algorithm>
#include <utility>

#include "engine/core/error.h"
#include "engine/plan/distinct.h"
#include "engine/plan/distinct_clause.h"
#include "engine/plan/join_build.h"
#include "engine/plan/plan_steps.h"
#include "engine/plan/select_list.h"
#include "engine/plan/where_clause.h"

namespace tp {
namespace {

// A key no path's order gives: a DISTINCT entry that is an expression.
constexpr uint32_t kExprKey = 0x80000000u;

bool in_clause(const JoinQuery& q, size_t target) {
  return std::any_of(q.distinct.begin(), q.distinct.end(),
                     [target](const JoinDistinctItem& d) { return d.target == target; });
}

}  // namespace

void add_distinct_item(JoinQuery& q, const JoinOrderItem& item, int position) {
  const std::string text = deparse(*item.expr);
  size_t t = 0;
  while (t < q.targets.size() && q.targets[t] != item.expr && deparse(*q.targets[t]) != text) ++t;
  if (t == q.targets.size())
    throw Error("for SELECT DISTINCT, ORDER BY expressions must appear in select list")
        .at_position(position)
        .with_sqlstate(sqlstate::kInvalidColumnReference);
  if (!in_clause(q, t)) q.distinct.push_back({t, item.descending, item.nulls_first});
}

void finish_distinct_clause(JoinQuery& q) {
  for (size_t t = 0; t < q.targets.size(); ++t)
    if (!in_clause(q, t)) q.distinct.push_back({t, false, false});
}

JoinDistinct::JoinDistinct(PlanContext& ctx, const sql::Select& s, const JoinQuery& q)
    : ctx_(ctx), s_(s), q_(q) {
  // make_pathkeys_for_sortclauses over the DISTINCT clause: each entry's class (an
  // expression a key of its own, shared by equal expressions), a class already listed
  // or fixed to a constant left out.
  for (size_t i = 0; i < q_.distinct.size(); ++i) {
    const JoinDistinctItem& item = q_.distinct[i];
    const TypedExpr& e = *q_.targets[item.target];
    uint32_t key = 0;
    if (e.kind == TypedExpr::Kind::kColumn) {
      if (q_.is_fixed(e.slot)) continue;
      key = q_.key_of(e.slot);
    } else {
      if (e.is_const()) continue;
      const std::string text = deparse(e);
      size_t first = 0;
      while (deparse(*q_.targets[first]) != text) ++first;
      key = kExprKey + uint32_t(first);
    }
    if (std::any_of(pathkeys_.begin(), pathkeys_.end(),
                    [key](const PathKey& p) { return p.key == key; }))
      continue;
    pathkeys_.push_back({key, item.descending, item.nulls_first});
    key_items_.push_back(i);
    const bool odd_nulls = item.nulls_first != item.descending;
    key_text_ += (key_text_.empty() ? "" : ", ") +
                 (e.kind == TypedExpr::Kind::kColumn ? deparse(e) : "(" + deparse(e) + ")") +
                 (item.descending ? " DESC" : "") +
                 (odd_nulls ? (item.nulls_first ? " NULLS FIRST" : " NULLS LAST") : "");
  }
}

int JoinDistinct::target_width(const TypedExpr& e) const {
  return e.kind == TypedExpr::Kind::kColumn ? q_.vars[e.slot].width
                                            : int(type_avg_width(e.type, e.typmod));
}

PlannedQuery JoinDistinct::plan(
    const JoinRelation& rel, const std::vector<JoinGroupingRel>& base,
    const std::function<std::unique_ptr<scans::ExecNode>(const JoinPath&)>& build) {
  const CostSettings& cs = ctx_.settings.costs;
  std::vector<std::shared_ptr<TypedExpr>> computed;
  int width = 0;
  for (const auto& t : q_.targets) {
    width += target_width(*t);
    if (t->kind != TypedExpr::Kind::kColumn) computed.push_back(t);
  }
  const double projection = select_list_cost(cs, computed);
  DistinctInputRel in;
  for (const JoinPathPtr& p : rel.paths) {
    PathCost c = p->cost;
    c.total += projection * c.rows;
    in.inputs.push_back({c, common_pathkeys(p->pathkeys, pathkeys_) == pathkeys_.size(), true});
  }
  in.cheapest = cheapest_total(in.inputs);
  std::vector<std::pair<int, const TypedExpr*>> exprs;
  for (const JoinDistinctItem& item : q_.distinct) {
    const TypedExpr& e = *q_.targets[item.target];
    exprs.push_back({e.kind == TypedExpr::Kind::kColumn ? int(e.slot) : -1, &e});
  }
  in.num_groups = join_num_groups(q_, base, exprs, in.inputs[in.cheapest].cost.rows);

  const std::optional<int64_t> bound = limit_tuples(s_);
  DistinctQuery dq = distinct_limits(ctx_.settings, s_, bound);
  dq.unique_columns = pathkeys_.size();
  dq.group_columns = q_.distinct.size();
  dq.width = width;
  dq.has_order_by = !s_.order_by.empty();
  dq.order_keys = q_.order.size();
  dq.partial = false;
  // The HashAggregate's target is the projected select list, costed again per group.
  dq.hash_output_cost = projection;
  const DistinctChoice c = choose_distinct(cs, dq, {in});

  const PathCost& input = in.inputs[c.input].cost;
  std::unique_ptr<scans::ExecNode> node = build(*rel.paths[c.input]);
  node->estimate = {input.startup, input.total, input.rows, width};
  std::vector<uint32_t> layout = rel.vars;
  node = project_join_columns(std::move(node), computed, layout);
  auto slot_of = [&](const TypedExpr& e) {
    if (e.kind == TypedExpr::Kind::kColumn)
      return uint32_t(std::find(layout.begin(), layout.end(), e.slot) - layout.begin());
    for (size_t i = 0; i < computed.size(); ++i)
      if (computed[i].get() == &e || deparse(*computed[i]) == deparse(e))
        return uint32_t(layout.size() - computed.size() + i);
    throw Error("internal error: a DISTINCT column the join does not compute");
  };

  DistinctNodeSpec spec;
  for (size_t k = 0; k < pathkeys_.size(); ++k) {
    const JoinDistinctItem& item = q_.distinct[key_items_[k]];
    spec.keys.push_back({slot_of(*q_.targets[item.target]), item.descending, item.nulls_first});
  }
  spec.key_text = key_text_;
  for (const JoinDistinctItem& item : q_.distinct) {
    const TypedExpr& e = *q_.targets[item.target];
    spec.group_slots.push_back(slot_of(e));
    spec.group_text += (spec.group_text.empty() ? "" : ", ") + deparse(e);
  }
  for (const JoinOrderItem& o : q_.order)
    spec.order_keys.push_back({slot_of(*o.expr), o.descending, o.nulls_first});
  spec.order_text = q_.order_text;
  spec.order_bound = bound.value_or(0);
  spec.width = width;
  spec.max_bytes = kSortMemoryLimitBytes;
  PlanTop top{build_distinct(std::move(node), c, spec), c.order_sort ? *c.order_sort : c.distinct};
  if (s_.limit || s_.offset.value_or(0) > 0) add_limit(s_.limit, s_.offset.value_or(0), top);

  PlannedQuery out;
  out.column_names = q_.names;
  for (const auto& t : q_.targets) {
    out.output_slots.push_back(slot_of(*t));
    const Column col{"", t->type, t->typmod};
    out.output_types.push_back(col.type == ColumnType::kInt8 ? OutputType::kInt8
                                                             : OutputType::kInt4);
    out.output_columns.push_back(col);
  }
  out.root = std::move(top.node);
  return out;
}

}  // namespace tp
