#include "engine/plan/planner.h"

#include <algorithm>
#include <optional>

#include "engine/core/error.h"
#include "engine/plan/scan_choice.h"
#include "engine/plan/where_clause.h"
#include "engine/sql/identifier.h"

namespace tp {
namespace {

// The in-memory sort refuses to hold more row data than this (scans/README.md).
constexpr uint64_t kSortMemoryLimitBytes = uint64_t(2) << 30;

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";
}

// Per-tuple transition and final function cost of an aggregate (every
// transition / final function of these has procost 1).
void add_agg_costs(const CostSettings& cs, scans::AggKind kind, ColumnType input, QualCost& trans,
                   QualCost& final_cost) {
  trans.per_tuple += cs.cpu_operator_cost;
  bool has_final =
      kind == scans::AggKind::kAvg || (kind == scans::AggKind::kSum && input == ColumnType::Int8);
  if (has_final) final_cost.per_tuple += cs.cpu_operator_cost;
}

int output_width(OutputType t) {
  return t == OutputType::kInt4 ? 4 : t == OutputType::kInt8 ? 8 : 32;
}

}  // namespace

PlannedQuery plan_select(PlanContext& ctx, const sql::Select& s) {
  const RelationEntry* found = ctx.catalog.find(s.from->name);
  if (!found)
    throw Error("relation " + quoted(s.from->name) + " does not exist")
        .at_position(s.from->position);
  if (!found->is_table())
    throw Error("cannot read index " + quoted(found->name) + " as a table")
        .at_position(s.from->position);
  const RelationEntry& rel = *found;
  const PlannerSettings& settings = ctx.settings;
  const CostSettings& cs = settings.costs;
  PlannedQuery q;

  // Select list: either all plain columns or all aggregates (no GROUP BY).
  std::vector<int> target_columns;  // plain: table column per output column
  std::vector<std::pair<scans::AggKind, int>> aggs;
  const sql::Expr* first_plain = nullptr;
  for (const sql::Target& t : s.targets) {
    const sql::Expr& e = *t.expr;
    if (e.kind == sql::ExprKind::Star) {
      for (size_t c = 0; c < rel.columns.size(); ++c) {
        target_columns.push_back(int(c));
        q.column_names.push_back(rel.columns[c].name);
      }
      if (!first_plain) first_plain = &e;
      continue;
    }
    if (e.kind == sql::ExprKind::ColumnRef) {
      target_columns.push_back(bind_column(rel, e));
      q.column_names.push_back(t.alias.empty() ? e.name : t.alias);
      if (!first_plain) first_plain = &e;
      continue;
    }
    if (e.kind == sql::ExprKind::FuncCall) {
      static const std::pair<const char*, scans::AggKind> kinds[] = {
          {"count", scans::AggKind::kCount},
          {"sum", scans::AggKind::kSum},
          {"min", scans::AggKind::kMin},
          {"max", scans::AggKind::kMax},
          {"avg", scans::AggKind::kAvg}};
      std::optional<scans::AggKind> kind;
      for (auto& [name, k] : kinds)
        if (e.name == name) kind = k;
      if (!kind)
        throw Error("function " + e.name +
                    "() is not available in a query over a table: the "
                    "select list takes columns and count, sum, min, max, avg")
            .at_position(e.position);
      if (e.star_arg) {
        if (*kind != scans::AggKind::kCount)
          throw Error(e.name + "(*) is not an aggregate; only count(*) is").at_position(e.position);
        aggs.push_back({scans::AggKind::kCountStar, -1});
      } else {
        if (e.args.size() != 1 || e.args[0]->kind != sql::ExprKind::ColumnRef)
          throw Error(e.name + "() takes one column here").at_position(e.position);
        aggs.push_back({*kind, bind_column(rel, *e.args[0])});
      }
      q.column_names.push_back(t.alias.empty() ? e.name : t.alias);
      continue;
    }
    throw Error(
        "the select list takes *, columns and aggregates (count, sum, min, max, avg); "
        "expressions are not supported")
        .at_position(e.position);
  }
  if (!aggs.empty() && first_plain)
    throw Error(
        "column \"" + rel.name + "." +
        (first_plain->kind == sql::ExprKind::Star ? rel.columns[0].name : first_plain->name) +
        "\" must appear in the GROUP BY clause or be used in an aggregate function")
        .at_position(first_plain->position);

  // Sort keys: an output column name or position, else a table column.
  std::vector<std::pair<int, bool>> order;  // table column, descending
  std::string key_text;
  for (const sql::OrderItem& o : s.order_by) {
    if (!aggs.empty())
      throw Error("ORDER BY is not supported with aggregates (the result is one row)")
          .at_position(o.expr->position);
    int col = -1;
    if (o.expr->kind == sql::ExprKind::IntConst) {
      int64_t k = o.expr->ival;
      if (k < 1 || k > int64_t(target_columns.size()))
        throw Error("ORDER BY position " + std::to_string(k) + " is not in select list")
            .at_position(o.expr->position);
      col = target_columns[size_t(k - 1)];
    } else if (o.expr->kind == sql::ExprKind::ColumnRef) {
      for (size_t i = 0; i < q.column_names.size() && col < 0; ++i)
        if (q.column_names[i] == o.expr->name) col = target_columns[i];
      if (col < 0) col = bind_column(rel, *o.expr);
    } else {
      throw Error("ORDER BY takes columns (by name or position)").at_position(o.expr->position);
    }
    order.push_back({col, o.descending});
    key_text += (key_text.empty() ? "" : ", ") +
                sql::quote_identifier(rel.columns[size_t(col)].name) +
                (o.descending ? " DESC" : "");
  }

  // Scan output: the columns the nodes above read, each once.
  std::vector<int> scan_columns;
  auto slot_of = [&](int col) -> uint32_t {
    for (size_t i = 0; i < scan_columns.size(); ++i)
      if (scan_columns[i] == col) return uint32_t(i);
    scan_columns.push_back(col);
    return uint32_t(scan_columns.size() - 1);
  };
  for (int c : target_columns) q.output_slots.push_back(slot_of(c));
  std::vector<scans::SortKey> sort_keys;
  for (auto& [c, desc] : order) sort_keys.push_back({slot_of(c), desc});
  std::vector<scans::AggSpec> agg_specs;
  for (auto& [kind, c] : aggs) agg_specs.push_back({kind, c >= 0 ? slot_of(c) : 0});

  // WHERE: PostgreSQL's restriction clauses, ordered by evaluation cost as its
  // order_qual_clauses does.
  ScanQuery sq;
  sq.rel = &rel;
  if (s.where) sq.clauses = restriction_clauses(bind_where(rel, *s.where));
  std::stable_sort(sq.clauses.begin(), sq.clauses.end(), [&](const Clause& a, const Clause& b) {
    return qual_cost(cs, std::span(&a, 1)).per_tuple < qual_cost(cs, std::span(&b, 1)).per_tuple;
  });
  sq.scan_columns = scan_columns;
  sq.order = order;
  sq.aggregate = !aggs.empty();
  sq.limit = s.limit;
  ChosenScan scan = choose_scan(ctx, sq);
  std::unique_ptr<scans::ExecNode> node = std::move(scan.node);
  PathCost path = scan.path;
  const int scan_width = scan.width;

  if (!aggs.empty()) {
    QualCost trans, final_cost;
    int width = 0;
    for (auto& [kind, c] : aggs) {
      ColumnType in = c >= 0 ? rel.columns[size_t(c)].type : ColumnType::Int8;
      add_agg_costs(cs, kind, in, trans, final_cost);
      OutputAggregate oa = output_aggregate(kind, in);
      width += output_width(oa.type);
      q.aggregates.push_back(oa);
      q.output_types.push_back(oa.type);
    }
    PathCost agg;
    agg.startup = path.total + trans.startup + trans.per_tuple * path.rows + final_cost.startup +
                  final_cost.per_tuple;
    agg.total = agg.startup + cs.cpu_tuple_cost;
    agg.rows = 1;
    auto a = std::make_unique<scans::AggregateNode>(std::move(node), std::move(agg_specs));
    q.aggregate = a.get();
    a->estimate = {agg.startup, agg.total, agg.rows, width};
    node = std::move(a);
    path = agg;
  } else {
    for (int c : target_columns)
      q.output_types.push_back(rel.columns[size_t(c)].type == ColumnType::Int8 ? OutputType::kInt8
                                                                               : OutputType::kInt4);
  }

  if (!sort_keys.empty() && !scan.ordered) {
    double limit_tuples = s.limit ? double(*s.limit) : -1;
    PathCost sorted = cost_sort(cs, path, path.rows, scan_width, 0, limit_tuples);
    sorted = disabled_if(!settings.enable_sort, sorted);
    auto sort = std::make_unique<scans::SortNode>(std::move(node), std::move(sort_keys), key_text,
                                                  s.limit ? *s.limit : 0, kSortMemoryLimitBytes);
    sort->estimate = {sorted.startup, sorted.total, sorted.rows, scan_width};
    node = std::move(sort);
    path = sorted;
  }
  if (s.limit) {
    PathCost limited = cost_limit(path, 0, double(*s.limit));
    int width = node->estimate.width;
    auto limit = std::make_unique<scans::LimitNode>(std::move(node), *s.limit);
    limit->estimate = {limited.startup, limited.total, limited.rows, width};
    node = std::move(limit);
  }
  q.root = std::move(node);
  return q;
}

}  // namespace tp
