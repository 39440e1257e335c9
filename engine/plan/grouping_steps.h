// What the grouping planners over one table (engine/plan/grouping_planner.h) and over
// a join (engine/plan/join_grouping.h) share: the query bound as GroupedSelect, the
// aggregates' calls and specs, group_pathkeys and ORDER BY's pathkeys over the grouped
// rows, what engine/plan/grouping.h weighs paths with apart from the input's own
// estimates, the grouping node's spec, and the select list, ORDER BY's Sort and the
// output columns above the grouping. Each planner says how wide a column is and fills
// in `specs_`, `calls_`, `outputs_` and `pathkeys_`.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "engine/plan/grouping.h"
#include "engine/plan/grouping_bind.h"
#include "engine/plan/having_selectivity.h"
#include "engine/plan/plan_steps.h"
#include "engine/plan/rel_size.h"
#include "engine/plan/select_list.h"
#include "engine/plan/where_clause.h"
#include "scans/group_agg.h"
#include "scans/incremental_sort.h"
#include "scans/project.h"

namespace tp {
namespace grouping_detail {

// "b DESC", "(count(*)) NULLS FIRST": a sort key as EXPLAIN prints it.
inline std::string sort_key_text(const std::string& text, bool desc, bool nulls_first) {
  std::string out = text + (desc ? " DESC" : "");
  if (nulls_first != desc) out += nulls_first ? " NULLS FIRST" : " NULLS LAST";
  return out;
}

// What the chosen input and its plan are, filled in while the scan chooser's paths
// are alive.
struct Chosen {
  GroupingChoice choice;
  PathCost input;
  int input_width = 0;
};

class GroupingSteps {
 public:
  virtual ~GroupingSteps() = default;

 protected:
  GroupingSteps(PlanContext& ctx, const sql::Select& s, GroupedSelect g)
      : ctx_(ctx), cs_(ctx.settings.costs), s_(s), g_(std::move(g)) {}

  // A column's width in the grouped rows (a table column's, a join var's).
  virtual int column_width_of(int c) const = 0;

  // The key whose pathkey key k's is: itself, or an earlier key an equivalence class
  // makes equal to it (GROUP BY a.x, b.y over a.x = b.y).
  size_t pathkey_of(int k) const {
    return same_key_.empty() || same_key_[size_t(k)] < 0 ? size_t(k) : size_t(same_key_[size_t(k)]);
  }

  // ORDER BY's pathkeys over the grouped rows (fixed and repeated keys dropped), and
  // how many of them lead the grouping's.
  void order_pathkeys() {
    std::vector<std::string> seen;
    for (size_t i = 0; i < g_.order.size(); ++i) {
      const UpperSortKey& o = g_.order[i];
      if (o.group_key >= 0 &&
          std::find(pathkeys_.begin(), pathkeys_.end(), pathkey_of(o.group_key)) == pathkeys_.end())
        continue;  // WHERE fixes it
      // A key another key's class makes equal sorts as that one.
      const std::string text =
          o.group_key >= 0 ? "#" + std::to_string(pathkey_of(o.group_key)) : deparse(*o.expr);
      if (std::find(seen.begin(), seen.end(), text) != seen.end()) continue;
      seen.push_back(text);
      order_keys_.push_back(i);
    }
    for (size_t i = 0; i < order_keys_.size() && i < pathkeys_.size(); ++i) {
      const UpperSortKey& o = g_.order[order_keys_[i]];
      const GroupKey& k = g_.keys[pathkeys_[i]];
      if (o.group_key < 0 || pathkey_of(o.group_key) != pathkeys_[i] ||
          o.descending != k.descending || o.nulls_first != k.nulls_first)
        break;
      ++order_in_group_;
    }
  }

  // What engine/plan/grouping.h weighs the paths with: the keys, the aggregates' costs
  // and states, HAVING, the widths, the settings, ORDER BY and LIMIT.
  GroupingQuery common_query(int input_width) {
    GroupingQuery q;
    q.pathkeys = pathkeys_.size();
    q.group_columns = int(g_.keys.size());
    q.has_aggs = !g_.aggs.empty();
    q.can_hash = !g_.keys.empty() && std::none_of(g_.aggs.begin(), g_.aggs.end(),
                                                  [](const BoundAgg& a) { return a.distinct; });
    q.aggs = agg_clause_costs(cs_, calls_, AggSplit::kSimple);
    q.final_aggs = agg_clause_costs(cs_, calls_, AggSplit::kFinalDeserial);
    const AggTransitions trans = agg_transitions(calls_);
    q.states = {trans.states, trans.space};
    if (g_.having)
      q.having = HavingQual{
          QualCost{0, expr_cost_units(*g_.having) * cs_.cpu_operator_cost},
          having_selectivity(*g_.having, [this](const TypedExpr& e) { return reads_column(e); })};
    q.output_cost = g_.target_cost_units * cs_.cpu_operator_cost;
    q.input_width = input_width;
    q.width = grouped_width();
    const PlannerSettings& ps = ctx_.settings;
    q.enable_hashagg = ps.enable_hashagg;
    q.enable_sort = ps.enable_sort;
    q.enable_incremental_sort = ps.enable_incremental_sort;
    order_pathkeys();
    q.has_order_by = !s_.order_by.empty();
    q.order_pathkeys = order_keys_.size();
    q.order_in_group = order_in_group_;
    if (s_.limit) q.limit_count = double(*s_.limit);
    q.offset = double(s_.offset.value_or(0));
    q.limit_tuples = limit_tuples(s_) ? double(*limit_tuples(s_)) : -1;
    return q;
  }

  // Whether an expression over the grouped row reads a table column: a key, or an
  // aggregate of a column or expression (count(*) reads none).
  bool reads_column(const TypedExpr& e) const {
    if (e.kind == TypedExpr::Kind::kColumn) {
      if (e.slot < g_.keys.size()) return true;
      const BoundAgg& a = g_.aggs[e.slot - g_.keys.size()];
      return a.column >= 0 || a.arg != nullptr;
    }
    return std::any_of(e.args.begin(), e.args.end(),
                       [this](const TypedExpr& a) { return reads_column(a); });
  }

  // The final target list's width (the grouped rows').
  int grouped_width() const {
    int width = 0;
    for (const GroupedSelect::TargetEntry& t : g_.target)
      width += t.column >= 0 ? column_width_of(t.column) : type_avg_width(t.type, t.typmod);
    return width;
  }

  // The grouping node's spec over input rows whose keys are at `keys` and the
  // aggregates' inputs (or states) at `aggs`' slots; `wrapped`: a computed key reaches it
  // through a node that passes it on (a Sort, a Gather), which EXPLAIN parenthesizes.
  scans::GroupAggSpec grouping_spec(AggStrategy strategy, scans::AggMode mode,
                                    std::vector<uint32_t> keys, std::vector<scans::AggSpec> aggs,
                                    bool wrapped, int planned_partitions) const {
    scans::GroupAggSpec spec;
    spec.strategy = strategy == AggStrategy::kSorted ? scans::GroupStrategy::kSorted
                                                     : scans::GroupStrategy::kHashed;
    spec.mode = mode;
    spec.keys = std::move(keys);
    spec.aggs = std::move(aggs);
    std::vector<TypeId> key_types;
    for (const GroupKey& k : g_.keys) key_types.push_back(k.expr->type);
    if (mode == scans::AggMode::kPartial) {
      spec.row_types = scans::partial_row_types(key_types, spec.aggs);
    } else {
      spec.row_types = key_types;
      for (const OutputAggregate& o : outputs_) spec.row_types.push_back(o.result);
      spec.finalize = [outs = outputs_](size_t a, const scans::AggState& st, ValueArena& arena,
                                        bool& isnull) {
        return aggregate_datum(outs[a], st, arena, isnull);
      };
      spec.having = g_.having;
      if (g_.having) spec.having_text = deparse(*g_.having);
    }
    for (const GroupKey& k : g_.keys)
      spec.group_text += (spec.group_text.empty() ? "" : ", ") +
                         (k.column < 0 && wrapped ? "(" + k.text + ")" : k.text);
    spec.planned_partitions = planned_partitions;
    spec.max_bytes = kSortMemoryLimitBytes;
    spec.temp_space = &ctx_.storage.temp_space();
    spec.hash_mem = uint64_t(hash_memory_limit(cs_));
    return spec;
  }

  // The Sort on the grouping keys, at `slots` in the rows it sorts.
  std::vector<scans::SortKey> key_sort(const std::vector<uint32_t>& slots) const {
    std::vector<scans::SortKey> keys;
    for (size_t i : pathkeys_)
      keys.push_back({slots[i], g_.keys[i].descending, g_.keys[i].nulls_first});
    return keys;
  }

  std::string presorted_text(size_t presorted) const {
    std::string text;
    for (size_t i = 0; i < presorted; ++i)
      text += (text.empty() ? "" : ", ") + g_.keys[pathkeys_[i]].text;
    return text;
  }

  // The select list and ORDER BY's keys over the grouped row (a projection where they
  // are more than a slot of it), ORDER BY's Sort, and the output columns.
  PlannedQuery outputs_above(PlanTop& top) {
    const auto upper_width = uint32_t(g_.upper_width());
    std::vector<std::shared_ptr<const TypedExpr>> projected;
    auto slot_of = [&](const std::shared_ptr<TypedExpr>& e) {
      if (e->kind == TypedExpr::Kind::kColumn) return e->slot;
      for (size_t i = 0; i < projected.size(); ++i)
        if (projected[i] == e) return upper_width + uint32_t(i);
      projected.push_back(e);
      return upper_width + uint32_t(projected.size() - 1);
    };
    PlannedQuery q;
    q.column_names = g_.names;
    for (size_t i = 0; i < g_.outputs.size(); ++i) {
      const TypedExpr& e = *g_.outputs[i];
      q.output_slots.push_back(slot_of(g_.outputs[i]));
      q.output_columns.push_back(Column{g_.names[i], e.type, e.typmod});
      q.output_types.push_back(e.type == TypeId::kInt8 ? OutputType::kInt8 : OutputType::kInt4);
    }
    std::vector<scans::SortKey> keys;
    std::string text;
    for (size_t i : order_keys_) {
      const UpperSortKey& o = g_.order[i];
      keys.push_back({slot_of(o.expr), o.descending, o.nulls_first});
      text += (text.empty() ? "" : ", ") + sort_key_text(o.text, o.descending, o.nulls_first);
    }
    if (!projected.empty()) {
      const scans::PlanEstimate e = top.node->estimate;
      top.node = std::make_unique<scans::ProjectNode>(std::move(top.node), projected);
      top.node->estimate = e;
    }
    const GroupingChoice& c = chosen_.choice;
    if (c.order_sort == InputSort::kSort) {
      const int64_t bound = limit_tuples(s_).value_or(0);
      top.node = std::make_unique<scans::SortNode>(std::move(top.node), std::move(keys), text,
                                                   bound, kSortMemoryLimitBytes);
      top.node->estimate = {c.order.startup, c.order.total, c.order.rows, width_};
      top.path = c.order;
    } else if (c.order_sort == InputSort::kIncrementalSort) {
      std::string presorted;
      for (size_t i = 0; i < c.order_presorted; ++i) {
        const UpperSortKey& o = g_.order[order_keys_[i]];
        presorted += (presorted.empty() ? "" : ", ") + o.text;
      }
      top.node = std::make_unique<scans::IncrementalSortNode>(std::move(top.node), std::move(keys),
                                                              c.order_presorted, text, presorted,
                                                              kSortMemoryLimitBytes);
      top.node->estimate = {c.order.startup, c.order.total, c.order.rows, width_};
      top.path = c.order;
    }
    return q;
  }

  PlanContext& ctx_;
  const CostSettings& cs_;
  const sql::Select& s_;
  GroupedSelect g_;
  std::vector<scans::AggSpec> specs_;
  std::vector<AggCall> calls_;
  std::vector<OutputAggregate> outputs_;
  std::vector<size_t> pathkeys_;    // the keys that are group_pathkeys
  std::vector<int> same_key_;       // per key, the key whose pathkey it shares (-1: own)
  std::string sort_text_;           // their Sort Key
  std::vector<size_t> order_keys_;  // ORDER BY's keys that are sort_pathkeys
  size_t order_in_group_ = 0;
  Chosen chosen_;
  int width_ = 0;
};

}  // namespace grouping_detail
}  // namespace tp
