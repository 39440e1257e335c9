// The planner of SELECT ... GROUP BY over one table (engine/plan/grouping_paths.h), as
// one object holding its state from binding to the built plan: the serial part here,
// the parallel part (the table's Gather Merges on computed keys, partial grouping under
// Gathers) in grouping_parallel.cc.
#pragma once

#include <algorithm>
#include <functional>

#include "engine/plan/grouping.h"
#include "engine/plan/grouping_bind.h"
#include "engine/plan/grouping_nodes.h"
#include "engine/plan/grouping_paths.h"
#include "engine/plan/having_selectivity.h"
#include "engine/plan/incremental_sort.h"
#include "engine/plan/parallel_cost.h"
#include "engine/plan/parallel_paths.h"
#include "engine/plan/partial_grouping.h"
#include "engine/plan/plan_steps.h"
#include "engine/plan/rel_size.h"
#include "engine/plan/scan_choice.h"
#include "engine/plan/select_list.h"
#include "engine/plan/where_clause.h"
#include "engine/sql/identifier.h"
#include "scans/group_agg.h"
#include "scans/incremental_sort.h"
#include "scans/one_time_false.h"
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

class GroupingPlanner {
 public:
  GroupingPlanner(PlanContext& ctx, const sql::Select& s, const RelationEntry& rel)
      : ctx_(ctx), cs_(ctx.settings.costs), s_(s), rel_(rel), g_(bind_grouped_select(rel, s)) {
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
  int column_width_of(int c) const {
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

  // ORDER BY's pathkeys over the grouped rows (fixed and repeated keys dropped), and
  // how many of them lead the grouping's.
  void order_pathkeys() {
    std::vector<std::string> seen;
    for (size_t i = 0; i < g_.order.size(); ++i) {
      const UpperSortKey& o = g_.order[i];
      if (o.group_key >= 0 &&
          std::find(pathkeys_.begin(), pathkeys_.end(), size_t(o.group_key)) == pathkeys_.end())
        continue;  // WHERE fixes it
      const std::string text = deparse(*o.expr);
      if (std::find(seen.begin(), seen.end(), text) != seen.end()) continue;
      seen.push_back(text);
      order_keys_.push_back(i);
    }
    for (size_t i = 0; i < order_keys_.size() && i < pathkeys_.size(); ++i) {
      const UpperSortKey& o = g_.order[order_keys_[i]];
      const GroupKey& k = g_.keys[pathkeys_[i]];
      if (o.group_key != int(pathkeys_[i]) || o.descending != k.descending ||
          o.nulls_first != k.nulls_first)
        break;
      ++order_in_group_;
    }
  }

  // What engine/plan/grouping.h weighs the paths with: the keys, the aggregates' costs
  // and states, HAVING, the widths, the settings, ORDER BY and LIMIT.
  GroupingQuery grouping_query(const TablePaths& t) {
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
    q.input_width = t.width;
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
  const RelationEntry& rel_;
  GroupedSelect g_;
  std::optional<TableStats> stats_;
  std::vector<int> columns_;                                // the scan's columns, by slot
  std::vector<uint32_t> key_slots_;                         // each key's slot below the grouping
  std::vector<std::shared_ptr<const TypedExpr>> computed_;  // projected above the scan
  size_t computed_keys_ = 0;
  std::vector<scans::AggSpec> specs_;
  std::vector<AggCall> calls_;
  std::vector<OutputAggregate> outputs_;
  std::vector<size_t> pathkeys_;    // the keys that are group_pathkeys
  std::string sort_text_;           // their Sort Key
  std::vector<size_t> order_keys_;  // ORDER BY's keys that are sort_pathkeys
  size_t order_in_group_ = 0;
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
  Chosen chosen_;
  size_t presorted_ = 0;  // the chosen input's leading keys in order
  int width_ = 0;
};

}  // namespace grouping_detail
}  // namespace tp
