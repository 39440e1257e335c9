// The planner of SELECT ... GROUP BY over one table (engine/plan/grouping_paths.h), as
// one object holding its state from binding to the built plan (what it shares with the
// join's grouping planner in engine/plan/grouping_steps.h): the serial part here,
// the parallel part (the table's Gather Merges on computed keys, partial grouping under
// Gathers) in grouping_parallel.cc.
#pragma once

#include <algorithm>
#include <functional>

#include "engine/plan/grouping.h"
#include "engine/plan/grouping_bind.h"
#include "engine/plan/grouping_nodes.h"
#include "engine/plan/grouping_paths.h"
#include "engine/plan/grouping_steps.h"
#include "engine/plan/having_selectivity.h"
#include "engine/plan/incremental_sort.h"
#include "engine/plan/parallel_cost.h"
#include "engine/plan/parallel_paths.h"
#include "engine/plan/partial_grouping.h"
#include "engine/plan/plan_steps.h"
#include "engine/plan/rel_size.h"
#include "engine/plan/scan_choice.h"
#include "engine/plan/select_list.h"
#include "engine/plan/subplans.h"
#include "engine/plan/where_clause.h"
#include "engine/sql/identifier.h"
#include "scans/group_agg.h"
#include "scans/incremental_sort.h"
#include "scans/one_time_false.h"
#include "scans/project.h"

namespace tp {
namespace grouping_detail {

class GroupingPlanner : public GroupingSteps {
 public:
  GroupingPlanner(PlanContext& ctx, const sql::Select& s, const RelationEntry& rel)
      : GroupingSteps(ctx, s, bind_grouped_select(rel, s)), rel_(rel) {
    if (!rel.stats.empty()) stats_ = stats_from_catalog(rel.stats);
  }

  PlannedQuery plan() {
    ScanQuery sq;
    sq.rel = &rel_;
    if (s_.from && !s_.from->alias.empty() && s_.from->alias != rel_.name) {
      sq.table_alias = s_.from->alias;
      sq.alias = sql::quote_identifier(s_.from->alias);
    }
    sq.clauses = restrictions(rel_, s_, g_.having_to_where, sq.one_time_false, sq.class_start);
    // `column = $n` over a Param (an InitPlan's value, a generic plan's parameter): an
    // index key too (Index Cond: (a = $1)).
    for (Clause& c : sq.clauses)
      if (std::optional<Clause> p = init_param_clause(c)) c = std::move(*p);
    sq.proven_empty = std::any_of(sq.clauses.begin(), sq.clauses.end(), [](const Clause& c) {
      return c.kind == Clause::Kind::kBool && c.value.value_or(0) == 0;
    });
    sq.constant_columns = constant_columns(sq.clauses);
    place_scan_target(sq);
    choose_pathkeys(sq);
    sq.limit = limit_tuples(s_);
    sq.upper = [this](TablePaths t) { return choose(std::move(t)); };
    gated_ = sq.one_time_false;
    if (sq.proven_empty) return build(choose(empty_relation(sq)));
    return build(choose_scan(ctx_, sq));
  }

 private:
  int column_width_of(int c) const override {
    if (dummy_) return column_avg_width(rel_.columns[size_t(c)]);
    return column_width(rel_, size_t(c), stats_ ? &*stats_ : nullptr);
  }

  // WHERE reduced to FALSE: PostgreSQL's dummy relation, one path that returns nothing
  // (a Result), whose columns were never measured: its row is as wide as the
  // expressions the scan would compute, its columns counted by their types'.
  TablePaths empty_relation(const ScanQuery& sq) {
    dummy_ = true;
    empty_view_.columns.resize(rel_.columns.size());
    for (size_t c = 0; c < rel_.columns.size(); ++c)
      empty_view_.columns[c].type = rel_.columns[c].type;
    TablePaths t;
    t.paths.push_back({PathCost{0, 0, 0}, 0, true, {}});
    t.builders.push_back([] { return std::make_unique<scans::OneTimeFalseNode>(nullptr); });
    t.view = &empty_view_;
    if (computed_keys_ > 0) {
      t.width = sq.computed_width;
      for (size_t i = 0; i < sq.width_columns; ++i) t.width += column_width_of(columns_[i]);
    }
    return t;
  }

  // The scan's target: the keys that are columns and the columns the rest reads (what
  // its width counts), then those only computed keys read; after them the computed
  // keys and the aggregates' expression arguments (projected above the scan).
  void place_scan_target(ScanQuery& sq) {
    auto slot_of = [&](int c) {
      auto it = std::find(columns_.begin(), columns_.end(), c);
      if (it != columns_.end()) return uint32_t(it - columns_.begin());
      columns_.push_back(c);
      return uint32_t(columns_.size() - 1);
    };
    for (const GroupKey& k : g_.keys)
      if (k.column >= 0) slot_of(k.column);
    for (int c : g_.input_vars) slot_of(c);
    sq.width_columns = columns_.size();
    for (const GroupKey& k : g_.keys)
      if (k.column < 0)
        for (int c : expr_columns(*k.expr)) slot_of(c);
    for (const BoundAgg& a : g_.aggs) {
      if (a.column >= 0) slot_of(a.column);
      if (a.arg)
        for (int c : expr_columns(*a.arg)) slot_of(c);
    }
    auto next = uint32_t(columns_.size());
    double key_units = 0;
    for (const GroupKey& k : g_.keys) {
      if (k.column >= 0) {
        key_slots_.push_back(slot_of(k.column));
        continue;
      }
      auto e = std::make_shared<TypedExpr>(*k.expr);
      move_to_slots(*e, slot_of);
      key_units += expr_cost_units(*e);
      sq.computed_width += type_avg_width(e->type, e->typmod);
      computed_.push_back(std::move(e));
      key_slots_.push_back(next++);
    }
    computed_keys_ = computed_.size();
    for (const BoundAgg& a : g_.aggs) {
      uint32_t slot = 0;
      if (a.arg) {
        auto e = std::make_shared<TypedExpr>(*a.arg);
        move_to_slots(*e, slot_of);
        computed_.push_back(std::move(e));
        slot = next++;
      } else if (a.column >= 0) {
        slot = slot_of(a.column);
      }
      specs_.push_back({a.kind, slot, a.distinct, a.type, is_typed_input(a.type)});
      calls_.push_back({a.kind, a.column, a.type, a.distinct, a.arg ? deparse(*a.arg) : "",
                        a.arg ? expr_cost_units(*a.arg) : 0,
                        a.arg           ? a.arg->typmod
                        : a.column >= 0 ? rel_.columns[size_t(a.column)].typmod
                                        : kNoTypmod});
      outputs_.push_back(output_aggregate(a.kind, a.type));
    }
    sq.scan_columns = columns_;
    sq.projection_cost = key_units * cs_.cpu_operator_cost;
    projection_cost_ = sq.projection_cost;
  }

  // group_pathkeys: the keys WHERE does not fix; the leading ones that are columns are
  // the order an index may give.
  void choose_pathkeys(ScanQuery& sq) {
    const std::vector<std::string> fixed_exprs = constant_expressions(sq.clauses);
    auto fixed = [&](const GroupKey& k) {
      if (k.column >= 0)
        return std::find(sq.constant_columns.begin(), sq.constant_columns.end(), k.column) !=
               sq.constant_columns.end();
      return std::find(fixed_exprs.begin(), fixed_exprs.end(), k.text) != fixed_exprs.end();
    };
    for (size_t i = 0; i < g_.keys.size(); ++i)
      if (!fixed(g_.keys[i])) pathkeys_.push_back(i);
    sq.sort = {{}, "", 0, kSortMemoryLimitBytes};
    bool index_prefix = true;  // no index gives an expression's order
    for (size_t i : pathkeys_) {
      const GroupKey& k = g_.keys[i];
      const std::string text =
          sort_key_text(k.column >= 0 ? k.text : "(" + k.text + ")", k.descending, k.nulls_first);
      sort_text_ += (sort_text_.empty() ? "" : ", ") + text;
      index_prefix = index_prefix && k.column >= 0;
      if (!index_prefix) continue;
      if (k.nulls_first != k.descending && sq.index_orderable_keys == SIZE_MAX)
        sq.index_orderable_keys = sq.order.size();
      sq.order.push_back({k.column, k.descending});
      ++sorted_prefix_;
      sq.sort.keys.push_back({key_slots_[i], k.descending, k.nulls_first});
      sq.sort.key_text += (sq.sort.key_text.empty() ? "" : ", ") + text;
    }
  }

  // What engine/plan/grouping.h weighs the table's paths with: the common part, and the
  // Incremental Sorts' group estimates over the table's statistics.
  GroupingQuery grouping_query(const TablePaths& t) {
    GroupingQuery q = common_query(t.width);
    q.incremental_sort = t.incremental_sort;
    q.order_incremental_sort = [this, view = t.view, rel_rows = t.size.rows, width = q.width](
                                   const PathCost& grouped, size_t presorted, double limit) {
      std::vector<int> cols, vars;
      int bools = 0;
      for (size_t i = 0; i < presorted; ++i) {
        const GroupKey& k = g_.keys[pathkeys_[i]];
        if (k.column >= 0)
          cols.push_back(k.column);
        else if (k.expr->type == TypeId::kBool)
          ++bools;
        else
          for (int c : expr_columns(*k.expr)) vars.push_back(c);
      }
      const double groups = estimate_num_groups(*view, cols, grouped.rows, rel_rows, bools, vars);
      return cost_incremental_sort(cs_, grouped, groups, width, limit);
    };
    return q;
  }

  // The table's pathlist as PostgreSQL has it when grouping starts: add_path weighs the
  // paths made before the keys' projection is costed onto them (the scan's own Gathers
  // without it), then apply_scanjoin_target_to_paths projects the survivors (a Gather
  // at its leader) and adds Gathers over the projected partial paths, the first `made`
  // paths' and the sorted ones after them.
  std::vector<RelPath> table_pathlist(const TablePaths& t, size_t made, bool startup) const {
    const double partial_rows = t.partials.empty() ? 0 : t.partials[0].path.rows;
    auto bare = [&](size_t i) {
      PathCost c = t.paths[i].cost;
      c.total -= projection_cost_ * (t.paths[i].parallel_safe ? c.rows : partial_rows);
      return c;
    };
    std::vector<RelPath> kept;
    for (size_t i = 0; i < made; ++i)
      add_path(kept, {bare(i), t.paths[i].parallel_safe, int(i), int(t.paths[i].keys)}, startup);
    for (RelPath& k : kept)
      k.cost = k.parallel_safe
                   ? t.paths[size_t(k.id)].cost
                   : PathCost{k.cost.startup, k.cost.total + projection_cost_ * k.cost.rows,
                              k.cost.rows};
    for (size_t i = 0; i < t.paths.size(); ++i)
      if (!t.paths[i].parallel_safe)
        add_path(kept, {t.paths[i].cost, false, int(i), int(t.paths[i].keys)}, startup);
    return kept;
  }

  // estimate_num_groups over the keys, for `rows` input rows.
  double groups_over(const RelationStatsView& view, double rows, double rel_rows) const {
    if (g_.keys.empty()) return 1;  // HAVING without GROUP BY: one group
    std::vector<int> columns, expr_vars;
    int boolean_exprs = 0;
    for (const GroupKey& k : g_.keys) {
      if (k.column >= 0)
        columns.push_back(k.column);
      else if (k.expr->type == TypeId::kBool)
        ++boolean_exprs;
      else
        for (int c : expr_columns(*k.expr)) expr_vars.push_back(c);
    }
    return estimate_num_groups(view, columns, rows, rel_rows, boolean_exprs, expr_vars);
  }

  ChosenScan choose(TablePaths t) {
    const bool startup = s_.limit.has_value();
    const size_t made = t.paths.size();
    add_sorted_gathers(t);
    GroupingInputRel rel;
    std::vector<size_t> ids;
    for (const RelPath& k : table_pathlist(t, made, startup)) {
      rel.inputs.push_back({k.cost, t.paths[size_t(k.id)].keys, k.parallel_safe});
      ids.push_back(size_t(k.id));
    }
    rel.cheapest = cheapest_total_input(rel.inputs);
    rel.num_groups = num_groups_ =
        groups_over(*t.view, rel.inputs[rel.cheapest].cost.rows, t.size.rows);
    const GroupingQuery q = grouping_query(t);
    std::vector<GroupingInputRel> rels{rel};
    std::vector<size_t> partial_ids;
    if (can_partial(t)) rels.push_back(partial_relation(t, q, startup, partial_ids));
    chosen_.choice = choose_grouping(cs_, q, rels);
    width_ = q.width;
    ChosenScan out;
    if (chosen_.choice.rel == 1) {
      out.node = gather_node(partial_paths_[partial_ids[chosen_.choice.input]]);
      chosen_.input = partial_paths_[partial_ids[chosen_.choice.input]].cost;
      chosen_.input_width = partial_width_;
      out.path = chosen_.input;
      return out;
    }
    const size_t id = ids[chosen_.choice.input];
    const PathCost path = rel.inputs[chosen_.choice.input].cost;
    chosen_.input = path;
    chosen_.input_width = t.width;
    out.node = t.builders[id]();
    out.node->estimate = {path.startup, path.total, path.rows, t.width};
    // Restrictions proven false: PostgreSQL's gating Result over the scan.
    if (gated_) {
      out.node = std::make_unique<scans::OneTimeFalseNode>(std::move(out.node));
      out.node->estimate = {path.startup, path.total, path.rows, t.width};
    }
    presorted_ = t.paths[id].keys;
    projected_below_ = id >= first_sorted_gather_;
    out.path = chosen_.input;
    out.width = t.width;
    return out;
  }

  // The parallel part (engine/plan/grouping_parallel.cc): the table's Gather Merges on
  // computed keys, and the partially grouped relation.
  void add_sorted_gathers(TablePaths& t);
  bool can_partial(const TablePaths& t) const;
  GroupingInputRel partial_relation(const TablePaths& t, const GroupingQuery& q, bool startup,
                                    std::vector<size_t>& ids);
  std::unique_ptr<scans::ExecNode> gather_node(const PartialGroupedPath& p);

  PlannedQuery build(ChosenScan scan) {
    const GroupingChoice& c = chosen_.choice;
    PlanTop top{std::move(scan.node), chosen_.input};
    GroupingNodes n;
    std::vector<scans::AggSpec> aggs = specs_;
    std::vector<uint32_t> keys = key_slots_;
    if (c.rel == 0) {
      if (!projected_below_) n.computed = computed_;
    } else {
      // Over the Gather: each row is a group's keys, then its aggregates' states.
      for (size_t i = 0; i < keys.size(); ++i) keys[i] = uint32_t(i);
      for (size_t a = 0; a < aggs.size(); ++a)
        aggs[a].slot = uint32_t(keys.size() + scans::kPartialSlots * a);
    }
    n.input_sort = c.input_sort;
    n.sort_keys = key_sort(keys);
    n.sort_text = sort_text_;
    n.presorted = presorted_;
    n.presorted_text = presorted_text(presorted_);
    n.sort_estimate = {c.sort.startup, c.sort.total, c.sort.rows, chosen_.input_width};
    n.spec = grouping_spec(
        c.strategy, c.rel == 0 ? scans::AggMode::kSimple : scans::AggMode::kFinalize, keys, aggs,
        c.rel == 1 || c.input_sort != InputSort::kNone, c.planned_partitions);
    n.agg_estimate = {c.agg.startup, c.agg.total, c.agg.rows, width_};
    top.node = n.build(std::move(top.node));
    top.path = c.agg;
    PlannedQuery q = outputs_above(top);
    if (s_.limit || s_.offset.value_or(0) > 0) add_limit(s_.limit, s_.offset.value_or(0), top);
    q.root = std::move(top.node);
    return q;
  }

  const RelationEntry& rel_;
  std::optional<TableStats> stats_;
  std::vector<int> columns_;                                // the scan's columns, by slot
  std::vector<uint32_t> key_slots_;                         // each key's slot below the grouping
  std::vector<std::shared_ptr<const TypedExpr>> computed_;  // projected above the scan
  size_t computed_keys_ = 0;
  double projection_cost_ = 0;  // the computed keys' per row
  double num_groups_ = 1;
  size_t sorted_prefix_ = 0;               // the leading pathkeys an index can give (columns)
  size_t first_sorted_gather_ = SIZE_MAX;  // the table paths from add_sorted_gathers on
  bool projected_below_ = false;           // the chosen input computed the keys already
  std::vector<PartialScan> partials_;      // the table's, the keys' projection costed
  std::vector<PartialGroupedPath> partial_paths_;
  int partial_width_ = 0;
  bool dummy_ = false;
  bool gated_ = false;  // the scan sits under a gating Result
  RelationStatsView empty_view_;
  size_t presorted_ = 0;  // the chosen input's leading keys in order
};

}  // namespace grouping_detail
}  // namespace tp
