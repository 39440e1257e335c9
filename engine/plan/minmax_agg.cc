#include "engine/plan/minmax_agg.h"

#include <algorithm>
#include <string>

#include "engine/plan/parallel_cost.h"
#include "engine/plan/prepqual.h"
#include "engine/plan/selectivity.h"
#include "engine/sql/expr_ops.h"
#include "engine/sql/identifier.h"
#include "scans/sort_limit_agg.h"

namespace tp {
namespace {

// planagg.c's `arg IS NOT NULL`: on the column, or for varchar on `(v)::text`, the
// argument of the text aggregate min / max(varchar) resolve to.
Clause aggregate_not_null(const RelationEntry& rel, int column) {
  const Column& col = rel.columns[size_t(column)];
  if (col.type != TypeId::kVarchar) return Clause::is_null(column, /*negated=*/true);
  TypedExpr test;
  test.kind = TypedExpr::Kind::kIsNull;
  test.type = TypeId::kBool;
  test.negated = true;
  test.args.push_back(expr::coerce_implicitly(
      column_expr(uint32_t(column), col.type, col.typmod, sql::quote_identifier(col.name)),
      TypeId::kText, -1));
  return Clause::expression(std::move(test));
}

}  // namespace

std::optional<MinMaxPlan> plan_minmax_aggregates(PlanContext& ctx, const ScanQuery& query,
                                                 const std::vector<MinMaxCall>& calls, int width,
                                                 double output_cost) {
  const CostSettings& cs = ctx.settings.costs;
  std::vector<MinMaxCall> distinct;
  std::vector<size_t> outputs;
  for (const MinMaxCall& c : calls) {
    auto same = [&](const MinMaxCall& d) { return d.max == c.max && d.column == c.column; };
    auto it = std::find_if(distinct.begin(), distinct.end(), same);
    outputs.push_back(size_t(it - distinct.begin()));
    if (it == distinct.end()) distinct.push_back(c);
  }
  std::vector<scans::InitPlanResultNode::InitPlan> plans;
  double initplan_cost = 0;
  for (size_t k = 0; k < distinct.size(); ++k) {
    const MinMaxCall& c = distinct[k];
    ScanQuery sub;
    sub.rel = query.rel;
    // The subquery's WHERE: `col IS NOT NULL` put in front of the query's (planagg.c
    // lcons it), unless the query has it already.
    sub.clauses = query.clauses;
    sub.class_start = query.class_start;
    const Clause not_null = aggregate_not_null(*query.rel, c.column);
    if (std::none_of(sub.clauses.begin(), sub.clauses.end(),
                     [&](const Clause& q) { return same_clause(q, not_null); })) {
      sub.clauses.insert(sub.clauses.begin(), not_null);
      ++sub.class_start;
    }
    sub.constant_columns = query.constant_columns;
    sub.one_time_false = query.one_time_false;
    sub.scan_columns = {c.column};
    if (query.rel->columns[size_t(c.column)].type == TypeId::kVarchar) {
      // min / max(varchar) are min / max(text) over `(v)::text`: an expression, whose
      // width is text's default.
      sub.width_columns = 0;
      sub.computed_width = type_avg_width(TypeId::kText, kNoTypmod);
    }
    // ORDER BY a column WHERE fixes to one value is no order at all (its pathkey is
    // redundant): every path qualifies, the cheapest for one row wins.
    const bool fixed = std::find(query.constant_columns.begin(), query.constant_columns.end(),
                                 c.column) != query.constant_columns.end();
    if (!fixed) sub.order = {{c.column, c.max}};
    sub.limit = 1;
    sub.presorted_only = true;
    // Each InitPlan reads the table anew: EXPLAIN names the later ones t_1, t_2, ...
    // (x_1, x_2, ... under an alias x).
    const std::string& base = query.table_alias.empty() ? query.rel->name : query.table_alias;
    sub.alias = query.alias;
    if (k > 0) sub.alias = sql::quote_identifier(base + "_" + std::to_string(k));
    ChosenScan scan = choose_scan(ctx, sub);
    if (!scan.node) return std::nullopt;
    // The cost of fetching its first row (PostgreSQL's pathcost, the Limit's total).
    PathCost first = cost_limit(scan.path, 0, 1);
    auto limit = std::make_unique<scans::LimitNode>(std::move(scan.node), 1);
    limit->estimate = {first.startup, first.total, first.rows, scan.width};
    initplan_cost += first.total;
    plans.push_back({std::move(limit), c.type, c.typed});
  }
  MinMaxPlan out;
  out.cost = {initplan_cost, initplan_cost + output_cost + cs.cpu_tuple_cost, 1};
  out.node = std::make_unique<scans::InitPlanResultNode>(std::move(plans), std::move(outputs));
  out.node->estimate = {out.cost.startup, out.cost.total, 1, width};
  return out;
}

bool minmax_plan_wins(const PathCost& minmax, const PathCost& plain, bool plain_parallel_safe) {
  // The min/max path is added first; the plain Aggregate comes second (add_path's new
  // path) and is kept when fuzzily cheaper, or on a fuzzy tie when parallel-safe.
  switch (compare_path_costs_fuzzily(plain, minmax, /*consider_startup=*/false)) {
    case FuzzyCompare::kNewBetter:
      return false;
    case FuzzyCompare::kOldBetter:
      return true;
    case FuzzyCompare::kEqual:
      if (plain_parallel_safe) return false;
      return !(plain.total < minmax.total);
    case FuzzyCompare::kDifferent:
      return !(plain.total < minmax.total);
  }
  return true;
}

}  // namespace tp
