#include "engine/plan/planner.h"
#include "engine/plan/gating_quals.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "engine/core/error.h"
#include "engine/core/heap_tuple.h"
#include "engine/core/stack_depth.h"
#include "engine/plan/agg_cost.h"
#include "engine/plan/aggregate_bind.h"
#include "engine/plan/aggregate_expr.h"
#include "engine/plan/distinct.h"
#include "engine/plan/distinct_clause.h"
#include "engine/plan/distinct_on.h"
#include "engine/plan/equivalence.h"
#include "engine/plan/from_subqueries.h"
#include "engine/plan/grouping_paths.h"
#include "engine/plan/join_exprs.h"
#include "engine/plan/join_query.h"
#include "engine/plan/join_select.h"
#include "engine/plan/minmax_agg.h"
#include "engine/plan/order_by.h"
#include "engine/plan/parallel_cost.h"
#include "engine/plan/parallel_paths.h"
#include "engine/plan/plan_steps.h"
#include "engine/plan/prepqual.h"
#include "engine/plan/rel_size.h"
#include "engine/plan/scan_choice.h"
#include "engine/plan/select_list.h"
#include "engine/plan/set_operations.h"
#include "engine/plan/subplans.h"
#include "engine/plan/where_clause.h"
#include "engine/sql/expr_bind.h"
#include "engine/sql/identifier.h"
#include "engine/sql/params.h"
#include "engine/sql/parser.h"
#include "scans/subplan_host.h"

namespace tp {
namespace {

int output_width(OutputType t) {
  return t == OutputType::kInt4 ? 4 : t == OutputType::kInt8 ? 8 : 32;
}

// The select list: either all plain columns or all aggregates (no GROUP BY).
struct BoundTargets {
  std::vector<int> columns;        // plain: table column per output column
  std::vector<BoundAgg> aggs;      // aggregates
  std::vector<std::string> names;  // output column names
  const sql::Expr* first_plain = nullptr;
  // Aggregate select list: each output column as an expression over `aggs` (a plain
  // aggregate is a leaf); `arithmetic` when some column is more than a leaf.
  std::vector<AggregateExpr> outputs;
  bool arithmetic = false;
  // Plain select list: per output column, its computed expression (its `columns` entry
  // is -1), or null for a table column.
  std::vector<std::shared_ptr<TypedExpr>> exprs;
  bool computed() const {
    return std::any_of(exprs.begin(), exprs.end(), [](const auto& e) { return e != nullptr; });
  }
};

BoundTargets bind_targets(const RelationEntry& rel, const sql::Select& s) {
  BoundTargets b;
  for (const sql::Target& t : s.targets) {
    const sql::Expr& e = *t.expr;
    if (e.kind == sql::ExprKind::kStar) {
      for (size_t c = 0; c < rel.columns.size(); ++c) {
        b.columns.push_back(int(c));
        b.exprs.push_back(nullptr);
        b.names.push_back(rel.columns[c].name);
      }
    } else if (e.kind == sql::ExprKind::kColumnRef) {
      b.columns.push_back(bind_column(rel, e));
      b.exprs.push_back(nullptr);
      b.names.push_back(t.alias.empty() ? e.name : t.alias);
    } else if (e.kind == sql::ExprKind::kFuncCall && calls_aggregate(e)) {
      b.outputs.push_back(bind_aggregate_expr(rel, e, b.aggs, false));
      b.names.push_back(t.alias.empty() ? e.name : t.alias);
      continue;
    } else if (calls_aggregate(e)) {
      b.outputs.push_back(bind_aggregate_expr(rel, e, b.aggs, true));
      b.names.push_back(t.alias.empty() ? "?column?" : t.alias);
      b.arithmetic = true;
      continue;
    } else {
      b.columns.push_back(-1);
      b.exprs.push_back(bind_select_expr(rel, e));
      b.names.push_back(t.alias.empty() ? sql::default_column_name(e) : t.alias);
    }
    if (!b.first_plain) b.first_plain = &e;
  }
  if (!b.aggs.empty() && b.first_plain && b.first_plain->kind == sql::ExprKind::kSubLink)
    throw not_supported("a subquery beside aggregates in the select list", b.first_plain->position);
  if (!b.aggs.empty() && b.first_plain)
    throw Error(
        "column \"" + rel.name + "." +
        (b.first_plain->kind == sql::ExprKind::kStar ? rel.columns[0].name : b.first_plain->name) +
        "\" must appear in the GROUP BY clause or be used in an aggregate function")
        .at_position(b.first_plain->position)
        .with_sqlstate(sqlstate::kGroupingError);
  return b;
}

// The scan's output: the columns the nodes above read, each once, and where each
// output column, sort key and aggregate input finds its column in the scan's rows.
struct ScanSlots {
  std::vector<int> columns;  // table column per slot
  std::vector<uint32_t> output_slots;
  std::vector<scans::SortKey> sort_keys;
  std::vector<scans::AggSpec> agg_specs;

  uint32_t slot_of(int col) {
    for (size_t i = 0; i < columns.size(); ++i)
      if (columns[i] == col) return uint32_t(i);
    columns.push_back(col);
    return uint32_t(columns.size() - 1);
  }
};

ScanSlots assign_slots(const BoundTargets& targets, const BoundOrder& order) {
  ScanSlots slots;
  for (int c : targets.columns) slots.output_slots.push_back(c < 0 ? 0 : slots.slot_of(c));
  for (size_t k = 0; k < order.keys.size(); ++k) {
    const auto& [c, desc] = order.keys[k];
    // A computed key's slot is known once the computed columns are placed.
    slots.sort_keys.push_back({c >= 0 ? slots.slot_of(c) : 0, desc, order.nulls_first[k]});
  }
  // A column ORDER BY names but need not sort by (WHERE fixes it) is still in the row,
  // as PostgreSQL's target list keeps it (resjunk): the width counts it.
  for (int c : order.written)
    if (c >= 0) slots.slot_of(c);
  // An expression argument reads the scan's slots; its value follows them (the
  // ProjectNode below the Aggregate computes it).
  for (const BoundAgg& a : targets.aggs) {
    if (a.arg) move_to_slots(*a.arg, [&](int c) { return slots.slot_of(c); });
    if (a.column >= 0) slots.slot_of(a.column);  // every scan slot before the computed ones
  }
  auto computed = uint32_t(slots.columns.size());
  for (const BoundAgg& a : targets.aggs) {
    const uint32_t slot = a.arg ? computed++ : a.column >= 0 ? slots.slot_of(a.column) : 0;
    slots.agg_specs.push_back({a.kind, slot, a.distinct, a.type, is_typed_input(a.type)});
  }
  return slots;
}

// The Aggregate above the scan; or, when PostgreSQL would pick it, Finalize Aggregate
// -> Gather -> Partial Aggregate -> Parallel Seq Scan: add_path keeps the Finalize
// path beside a parallel-safe plain one only when that is not fuzzily as cheap, and the
// cheaper one wins.
// Returns whether the plan is parallel-safe (a plain Aggregate over a serial scan).
bool add_aggregate(PlanContext& ctx, const BoundTargets& targets, std::vector<scans::AggSpec> specs,
                   const ChosenScan& scan, PlanTop& top, PlannedQuery& q) {
  const CostSettings& cs = ctx.settings.costs;
  std::vector<AggCall> calls;
  int width = 0;
  bool any_distinct = false;
  for (const BoundAgg& b : targets.aggs) {
    const ColumnType in = b.type;
    calls.push_back({b.kind, b.column, in, b.distinct, b.arg ? deparse(*b.arg) : std::string(),
                     b.arg ? expr_cost_units(*b.arg) : 0});
    any_distinct = any_distinct || b.distinct;
    OutputAggregate oa = output_aggregate(b.kind, in);
    width += oa.width;
    q.aggregates.push_back(oa);
    q.output_types.push_back(oa.type);
  }
  for (size_t i = 0; i < targets.outputs.size(); ++i) {
    const AggregateExpr& e = targets.outputs[i];
    const TypeId t = e.kind == AggregateExpr::Kind::kAggregate ? q.aggregates[e.aggregate].result
                     : e.type == OutputType::kInt4             ? TypeId::kInt4
                                                               : TypeId::kInt8;
    q.output_columns.push_back(Column{targets.names[i], t, kNoTypmod});
  }
  PathCost agg = cost_plain_agg(cs, top.path, agg_clause_costs(cs, calls, AggSplit::kSimple));
  std::vector<std::shared_ptr<const TypedExpr>> args;  // computed below each Aggregate
  for (const BoundAgg& b : targets.aggs)
    if (b.arg) args.push_back(b.arg);
  std::unique_ptr<scans::ExecNode> input = project_aggregate_args(std::move(top.node), args);
  scans::AggMode mode = scans::AggMode::kSimple;
  // An aggregate over distinct values has no partial form (PostgreSQL's neither).
  // The Partial Aggregate over each partial path competes in add_partial_path: the
  // cheapest (the first on a tie) goes under the Gather.
  const PartialScan* under = nullptr;
  std::optional<PartialAgg> best_partial;
  if (!any_distinct)
    for (const PartialScan& p : scan.partials) {
      PartialAgg a = partial_aggregate(cs, p, calls, specs);
      a.args = args;
      if (!best_partial || best_partial->path.total > a.path.total * 1.0000000001) {
        best_partial = std::move(a);
        under = &p;
      }
    }
  if (under) {
    const PartialAgg& partial = *best_partial;
    GatherPath gather = gather_partial_agg(cs, *under, partial);
    PathCost final_agg =
        cost_plain_agg(cs, gather.path, agg_clause_costs(cs, calls, AggSplit::kFinalDeserial));
    // Over a Gather the plain Aggregate is parallel-unsafe too: then add_path keeps
    // the cheaper of the two even within 1%, the one added first (the plain one) on a
    // tie.
    bool replace = false;
    if (scan.parallel_safe) {
      replace = parallel_path_survives(final_agg, agg, false) && final_agg.total < agg.total;
    } else {
      const FuzzyCompare c = compare_path_costs_fuzzily(final_agg, agg, false);
      replace = c == FuzzyCompare::kNewBetter ||
                (c == FuzzyCompare::kEqual &&
                 compare_path_costs_fuzzily(final_agg, agg, false, 1.0000000001) ==
                     FuzzyCompare::kNewBetter);
    }
    if (replace) {
      agg = final_agg;
      input = build_gather(ctx, *under, gather, &partial);
      mode = scans::AggMode::kFinalize;
      // Each participant's Partial Aggregate puts aggregate i's state at slot 5 * i.
      for (size_t i = 0; i < specs.size(); ++i) specs[i].slot = uint32_t(i) * scans::kPartialSlots;
    }
  }
  auto a = std::make_unique<scans::AggregateNode>(std::move(input), std::move(specs), mode);
  q.aggregate = a.get();
  a->estimate = {agg.startup, agg.total, agg.rows, width};
  top = {std::move(a), agg};
  return mode == scans::AggMode::kSimple && scan.parallel_safe;
}

// Output columns computed from the aggregates (`max(a) + 1`): their operators once per
// result row on the Aggregate's cost (PostgreSQL's target list cost), their types and
// widths.
void add_output_arithmetic(const CostSettings& cs, const BoundTargets& targets, PlanTop& top,
                           PlannedQuery& q) {
  int ops = 0, width = 0;
  q.output_types.clear();
  for (const AggregateExpr& e : targets.outputs) {
    ops += operator_count(e);
    width += output_width(e.type);
    q.output_types.push_back(e.type);
  }
  q.output_exprs = targets.outputs;
  top.path.total += ops * cs.cpu_operator_cost * top.path.rows;
  top.node->estimate.total_cost = top.path.total;
  top.node->estimate.width = width;
}

// min() and max() only: PostgreSQL's InitPlans over index scans, when add_path would keep
// them over the plain Aggregate in `top`.
void consider_minmax(PlanContext& ctx, const ScanQuery& sq, const BoundTargets& targets,
                     bool plain_parallel_safe, PlanTop& top, PlannedQuery& q) {
  std::vector<MinMaxCall> calls;
  for (const BoundAgg& a : targets.aggs) {
    if (a.kind != scans::AggKind::kMin && a.kind != scans::AggKind::kMax) return;
    if (a.arg) return;  // an index orders columns, not expressions
    calls.push_back({a.kind == scans::AggKind::kMax, a.column, a.type, is_typed_input(a.type)});
  }
  int ops = 0;
  for (const AggregateExpr& e : targets.outputs) ops += operator_count(e);
  std::optional<MinMaxPlan> mm = plan_minmax_aggregates(ctx, sq, calls, top.node->estimate.width,
                                                        ops * ctx.settings.costs.cpu_operator_cost);
  if (!mm) return;
  if (!minmax_plan_wins(mm->cost, top.path, plain_parallel_safe)) {
    // PostgreSQL numbered the path's $n before weighing it: they stay taken.
    minmax_params_taken() += int(calls.size());
    return;
  }
  q.aggregate = mm->node.get();
  top = {std::move(mm->node), mm->cost};
}

void add_sort(const PlannerSettings& settings, std::vector<scans::SortKey> keys,
              const std::string& key_text, const sql::Select& s, int width, PlanTop& top) {
  const std::optional<int64_t> bound = limit_tuples(s);
  PathCost sorted =
      cost_sort(settings.costs, top.path, top.path.rows, width, 0, bound ? double(*bound) : -1);
  sorted = disabled_if(!settings.enable_sort, sorted);
  auto sort = std::make_unique<scans::SortNode>(std::move(top.node), std::move(keys), key_text,
                                                bound.value_or(0), kSortMemoryLimitBytes);
  sort->estimate = {sorted.startup, sorted.total, sorted.rows, width};
  top = {std::move(sort), sorted};
}

void add_output_column(const RelationEntry& rel, const BoundTargets& targets, size_t i,
                       PlannedQuery& q) {
  const int c = targets.columns[i];
  const TypedExpr* e = targets.exprs[i].get();
  const Column col = e ? Column{targets.names[i], e->type, e->typmod} : rel.columns[size_t(c)];
  q.output_types.push_back(col.type == ColumnType::kInt8 ? OutputType::kInt8 : OutputType::kInt4);
  q.output_columns.push_back(col);
}

DistinctQuery distinct_query(const PlannerSettings& settings, const RelationEntry& rel,
                             const sql::Select& s, const BoundTargets& targets,
                             const BoundOrder& order, const DistinctClause& d) {
  DistinctQuery dq = distinct_limits(settings, s, limit_tuples(s));
  dq.unique_columns = d.keys.size();
  dq.group_columns = d.group.size();
  dq.has_order_by = !s.order_by.empty();
  dq.order_keys = order.keys.size();
  // The select list's width (ANALYZE's widths where it measured them), a repeated column
  // counted each time as PostgreSQL's target list counts it.
  const std::optional<TableStats> stats =
      rel.stats.empty() ? std::nullopt : std::optional(stats_from_catalog(rel.stats));
  for (size_t i = 0; i < targets.columns.size(); ++i) {
    const int c = targets.columns[i];
    dq.width += c >= 0 ? column_width(rel, size_t(c), stats ? &*stats : nullptr)
                       : type_avg_width(targets.exprs[i]->type, targets.exprs[i]->typmod);
  }
  return dq;
}

// The distinct plan the scan chooser picked, over its scan. A Result goes above a Unique
// directly over a scan under ORDER BY where PostgreSQL's scan would return its physical
// row (every table column, or an index-only scan's keys) rather than the select list.
// The scan slot of a DISTINCT key: a table column's, or a computed entry's output slot.
uint32_t distinct_slot(ScanSlots& slots, int c) {
  if (c >= 0) return slots.slot_of(c);
  return slots.output_slots[computed_index(c)];
}

void add_distinct(const sql::Select& s, const BoundTargets& targets, const BoundOrder& order,
                  const DistinctClause& d, const std::optional<DistinctOn>& on, ScanSlots& slots,
                  ChosenScan scan, int sq_width, PlanTop& top) {
  DistinctNodeSpec spec;
  if (on) {  // the Unique compares the DISTINCT ON columns only
    spec.unique_slots.emplace();
    for (int c : on->columns) spec.unique_slots->push_back(slots.slot_of(c));
  }
  for (size_t k = 0; k < d.keys.size(); ++k)  // ORDER BY's keys first, with their NULLS order
    spec.keys.push_back({distinct_slot(slots, d.keys[k].first), d.keys[k].second,
                         k < order.nulls_first.size() ? order.nulls_first[k] : d.keys[k].second});
  spec.key_text = d.key_text;
  for (int c : d.group) spec.group_slots.push_back(distinct_slot(slots, c));
  spec.group_text = d.group_text;
  spec.order_keys = slots.sort_keys;
  spec.order_text = order.text;
  spec.order_bound = limit_tuples(s).value_or(0);
  std::vector<int> cols = targets.columns;
  std::sort(cols.begin(), cols.end());
  const bool repeated = std::adjacent_find(cols.begin(), cols.end()) != cols.end();
  // (a scan that computes select-list expressions projects them itself: no Result)
  spec.result = !s.order_by.empty() && !repeated && !d.computed() &&
                !scan.physical_columns.empty() && scan.physical_columns != targets.columns;
  spec.width = sq_width;
  if (scan.path.rows == 0) {
    spec.input_width = 0;  // a dummy relation's empty Result (WHERE folded to FALSE)
  } else {
    top.node->estimate.width = sq_width;
  }
  spec.max_bytes = kSortMemoryLimitBytes;
  const DistinctChoice& c = *scan.distinct;
  top.path = c.order_sort ? *c.order_sort : c.distinct;
  top.node = build_distinct(std::move(top.node), c, spec);
}

// Places the computed columns, the select list's and then those only ORDER BY reads
// (resjunk), after the scan's slots, and points the computed sort keys at them; returns
// them all, for the ProjectNode above the scan.
std::vector<std::shared_ptr<TypedExpr>> place_computed(const BoundTargets& targets,
                                                       const BoundOrder& order, ScanSlots& slots,
                                                       ScanQuery& sq) {
  std::vector<std::shared_ptr<TypedExpr>> computed = targets.exprs;
  for (const auto& e : order.resjunk) computed.push_back(e);
  if (!targets.computed() && order.resjunk.empty()) return computed;
  std::vector<uint32_t> computed_slots = slots.output_slots;
  computed_slots.resize(computed.size());
  place_computed_columns(
      computed, [&](int c) { return slots.slot_of(c); }, slots.columns, computed_slots, sq);
  // A computed key is a select-list entry's slot, or a resjunk column's after them.
  for (size_t k = 0; k < order.keys.size(); ++k)
    if (order.keys[k].first < 0)
      slots.sort_keys[k].slot = computed_slots[computed_index(order.keys[k].first)];
  computed_slots.resize(targets.exprs.size());
  slots.output_slots = std::move(computed_slots);
  return computed;
}

// SELECT DISTINCT: its clause, and what the scan chooser weighs the distinct plans with.
DistinctClause plan_distinct_input(PlanContext& ctx, const sql::Select& s,
                                   const BoundTargets& targets, const BoundOrder& order,
                                   ScanSlots& slots, ScanQuery& sq) {
  const RelationEntry& rel = *sq.rel;
  DistinctClause d =
      bind_distinct_clause(rel, targets.columns, targets.exprs, slots.columns, order.keys,
                           order.text, order.written, sq.constant_columns);
  sq.order_unavailable = d.computed();
  sq.order = sq.order_unavailable ? std::vector<std::pair<int, bool>>{} : d.keys;
  for (int c : d.group)
    if (c >= 0) sq.distinct_columns.push_back(c);
  sq.distinct_expr_vars = d.estimate_vars;
  sq.distinct_boolean_exprs = d.boolean_exprs;
  sq.projection_cost = select_list_cost(ctx.settings.costs, targets.exprs);
  sq.distinct = distinct_query(ctx.settings, rel, s, targets, order, d);
  // The HashAggregate's output computes the select list's expressions per group.
  sq.distinct->hash_output_cost = sq.projection_cost;
  // A Gather Merge below sorts each participant's share in the DISTINCT order, with no
  // bound (the Unique above needs every row); a HashAggregate there groups it.
  sq.sort = {{}, d.key_text, 0, kSortMemoryLimitBytes};
  for (const auto& [c, desc] : d.keys)
    sq.sort.keys.push_back({distinct_slot(slots, c), desc, desc});
  for (int c : d.group) sq.distinct_group_slots.push_back(distinct_slot(slots, c));
  sq.distinct_group_text = d.group_text;
  return d;
}

// SELECT DISTINCT ON: sorted by ORDER BY's keys (extended by the DISTINCT ON columns it
// does not name), a Unique over the DISTINCT ON columns; no HashAggregate, no partial
// distinct paths, as PostgreSQL 15 plans it.
DistinctClause plan_distinct_on_input(PlanContext& ctx, const sql::Select& s,
                                      const BoundTargets& targets, const BoundOrder& order,
                                      const DistinctOn& on, ScanSlots& slots, ScanQuery& sq) {
  DistinctClause d;
  d.keys = order.keys;
  d.key_text = order.text;
  d.group = on.clause;
  sq.order = d.keys;
  sq.distinct_columns = on.clause;  // the groups: every DISTINCT ON item, fixed ones too
  sq.distinct = distinct_query(ctx.settings, *sq.rel, s, targets, order, d);
  sq.distinct->unique_columns = on.columns.size();
  // The rows carry the sort's columns the select list lacks (resjunk) to the Unique.
  const std::optional<TableStats> stats =
      sq.rel->stats.empty() ? std::nullopt : std::optional(stats_from_catalog(sq.rel->stats));
  std::vector<int> junk;
  for (const auto& [c, desc] : order.keys)
    if (std::find(targets.columns.begin(), targets.columns.end(), c) == targets.columns.end() &&
        std::find(junk.begin(), junk.end(), c) == junk.end())
      junk.push_back(c);
  for (int c : junk)
    sq.distinct->width += column_width(*sq.rel, size_t(c), stats ? &*stats : nullptr);
  sq.distinct->enable_hashagg = false;
  sq.distinct->partial = false;
  sq.sort = {{}, d.key_text, 0, kSortMemoryLimitBytes};
  for (size_t k = 0; k < d.keys.size(); ++k)
    sq.sort.keys.push_back(
        {slots.slot_of(d.keys[k].first), d.keys[k].second, order.nulls_first[k]});
  return d;
}

}  // namespace

namespace {

// The table's scan query: its name as EXPLAIN shows it and WHERE's restrictions (those
// reading only an InitPlan's value gate the scan instead).
ScanQuery table_scan_query(const sql::Select& s, const RelationEntry& rel) {
  ScanQuery sq;
  sq.rel = &rel;
  // EXPLAIN names the table by its alias when that differs from its name (`r1 x`).
  if (s.from && !s.from->alias.empty() && s.from->alias != rel.name) {
    sq.table_alias = s.from->alias;
    sq.alias = sql::quote_identifier(s.from->alias);
  }
  // A subquery's table named as an earlier one of the statement: `u u_1`.
  if (const std::string shown =
          subplan_display_name(s.from && !s.from->alias.empty() ? s.from->alias : rel.name);
      !shown.empty())
    sq.alias = sql::quote_identifier(shown);
  sq.clauses = restrictions(rel, s, {}, sq.one_time_false, sq.class_start);
  take_gating_quals(sq);
  sq.proven_empty = std::any_of(sq.clauses.begin(), sq.clauses.end(), [](const Clause& c) {
    return c.kind == Clause::Kind::kBool && c.value.value_or(0) == 0;
  });
  sq.constant_columns = constant_columns(sq.clauses);
  return sq;
}

PlannedQuery plan_select_core(PlanContext& ctx, const sql::Select& s) {
  if (is_join_select(s)) return plan_join_select(ctx, s);
  const RelationEntry& rel = find_table(ctx, s);
  if (!s.group_by.empty() || s.having) return plan_grouped_select(ctx, s, rel);
  BoundTargets targets = bind_targets(rel, s);
  ScanQuery sq = table_scan_query(s, rel);
  const OrderTargets order_targets{targets.columns, targets.names, targets.exprs,
                                   !targets.aggs.empty()};
  BoundOrder order =
      bind_order_by(rel, s, order_targets, sq.constant_columns, constant_expressions(sq.clauses));
  std::optional<DistinctOn> on;
  if (!s.distinct_on.empty())
    on = bind_distinct_on(rel, s, order_targets, sq.constant_columns, order);
  ScanSlots slots = assign_slots(targets, order);
  std::vector<std::shared_ptr<TypedExpr>> computed = place_computed(targets, order, slots, sq);
  PlannedQuery q;
  q.column_names = targets.names;
  q.output_slots = slots.output_slots;

  sq.scan_columns = slots.columns;
  // A computed key is no index's order: the scan is chosen unordered, sorted above.
  if (!order.computed()) sq.order = order.keys;
  sq.index_orderable_keys = order.index_orderable_keys;
  sq.aggregate = !targets.aggs.empty();
  // A LIMIT lets the scan stop early only when nothing above it must read every row: a
  // Sort over a computed key does.
  if (!order.computed()) sq.limit = limit_tuples(s);
  sq.sort = {slots.sort_keys, order.text, sq.limit.value_or(0), kSortMemoryLimitBytes};
  std::optional<DistinctClause> distinct;
  if (s.distinct && targets.aggs.empty())
    distinct = on ? plan_distinct_on_input(ctx, s, targets, order, *on, slots, sq)
                  : plan_distinct_input(ctx, s, targets, order, slots, sq);
  // Without aggregates the scan computes the select list: its cost is in every path.
  const bool projected_in_paths = targets.aggs.empty() && !distinct;
  if (projected_in_paths) sq.projection_cost = select_list_cost(ctx.settings.costs, computed);
  ChosenScan scan = choose_scan(ctx, sq);
  if (!sq.gating.empty() && scan.distinct)
    throw not_supported("SELECT DISTINCT beside an uncorrelated EXISTS", s.from->position);
  if (!sq.gating.empty() && !sq.one_time_false && scan.node) {
    charge_gating_quals(ctx.settings.costs, sq.gating, scan);
    scan.node = scans::gating_result(std::move(scan.node), sq.gating);
  }
  PlanTop top{std::move(scan.node), scan.path};
  if (targets.computed() || !order.resjunk.empty())
    top.node =
        project_select_list(std::move(top.node), std::move(computed), ctx.settings.costs, top.path,
                            scan.width, scan.distinct.has_value() || projected_in_paths);
  if (scan.distinct) {
    add_distinct(s, targets, order, *distinct, on, slots, std::move(scan), sq.distinct->width, top);
    for (size_t i = 0; i < targets.columns.size(); ++i) add_output_column(rel, targets, i, q);
    if (s.limit || s.offset.value_or(0) > 0) add_limit(s.limit, s.offset.value_or(0), top);
    q.root = std::move(top.node);
    return q;
  }

  scans::InitPlanResultNode* init_plans = nullptr;  // min/max InitPlans below a DISTINCT
  if (!targets.aggs.empty()) {
    bool safe = add_aggregate(ctx, targets, std::move(slots.agg_specs), scan, top, q);
    if (targets.arithmetic) add_output_arithmetic(ctx.settings.costs, targets, top, q);
    consider_minmax(ctx, sq, targets, safe, top, q);
    if (s.distinct)
      top.node = distinct_over_aggregate(ctx.settings, s, limit_tuples(s), std::move(top.node),
                                         top.path, init_plans);
  } else {
    for (size_t i = 0; i < targets.columns.size(); ++i) add_output_column(rel, targets, i, q);
  }
  if (!slots.sort_keys.empty() && !scan.ordered)
    add_sort(ctx.settings, std::move(slots.sort_keys), order.text, s, scan.width, top);
  // PostgreSQL plans no Limit for OFFSET 0 without a count (limit_needed).
  if (s.limit || s.offset.value_or(0) > 0) add_limit(s.limit, s.offset.value_or(0), top);
  q.root = std::move(top.node);
  // PostgreSQL attaches the InitPlans to the plan's top node.
  if (init_plans) q.root->shown_init_plans = init_plans->hand_over_init_plans();
  return q;
}

}  // namespace

PlannedQuery plan_select(PlanContext& ctx, const sql::Select& s) {
  if (current_extern_keys() == nullptr && sql::current_params() != nullptr &&
      sql::current_params()->generic())
    return plan_with_extern_keys(ctx, s, plan_select);
  if (s.set_operation) return plan_set_operation(ctx, s);
  if (has_from_subqueries(s)) {
    const sql::Select flat = pull_up_from_subqueries(ctx, s);
    PlannedQuery q = plan_select(ctx, flat);
    if (!flat.pulled_up && !is_join_select(flat)) {
      q.upper_prefix_table = flat.from->alias.empty() ? flat.from->name : flat.from->alias;
      for (const Column& c : find_table_item(ctx, *flat.from).columns)
        q.upper_prefix_columns.push_back(c.name);
    }
    return q;
  }
  if (has_subqueries(s)) return plan_with_subplans(ctx, s, plan_select_core);
  return plan_select_core(ctx, s);
}

}  // namespace tp
