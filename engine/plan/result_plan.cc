#include "engine/plan/result_plan.h"

#include "engine/core/error.h"
#include "engine/sql/expr_bind.h"
#include "engine/sql/expr_ops.h"
#include "scans/one_time_false.h"

namespace tp {
namespace {

[[noreturn]] void refuse(const char* what) {
  throw Error(std::string("EXPLAIN of a SELECT without FROM with ") + what +
              " is not supported yet")
      .with_sqlstate(sqlstate::kFeatureNotSupported);
}

// Aggregates and set-returning functions make other nodes (Aggregate, ProjectSet).
bool calls_aggregate_or_series(const sql::Expr& e) {
  if (e.kind == sql::ExprKind::kFuncCall) {
    static const char* const kNames[] = {"count", "sum", "avg", "min", "max", "generate_series"};
    for (const char* n : kNames)
      if (e.name == n) return true;
  }
  for (const auto& a : e.args)
    if (a && calls_aggregate_or_series(*a)) return true;
  return false;
}

}  // namespace

PlannedQuery plan_result(PlanContext& ctx, const sql::Select& s) {
  if (s.where) refuse("WHERE");
  if (!s.order_by.empty()) refuse("ORDER BY");
  if (s.distinct) refuse("DISTINCT");
  if (s.limit || s.offset) refuse("LIMIT or OFFSET");
  if (!s.values.empty()) refuse("VALUES");
  const CostSettings& cs = ctx.settings.costs;
  const ColumnLookup no_columns = [](const sql::Expr& ref) -> BoundColumnRef {
    throw Error("column \"" + ref.name + "\" does not exist")
        .at_position(ref.position)
        .with_sqlstate(sqlstate::kUndefinedColumn);
  };
  // random(): the statement's generator (volatile, evaluated per row as PostgreSQL's).
  const CallLookup random_calls = [](const sql::Expr& call) -> std::optional<TypedExpr> {
    if (call.name == "random" && call.args.empty()) return expr::random_call();
    return std::nullopt;
  };
  double units = 0;
  int width = 0;
  for (const auto& t : s.targets) {
    if (t.expr->kind == sql::ExprKind::kStar)
      throw Error("SELECT * with no tables specified is not valid")
          .at_position(t.expr->position)
          .with_sqlstate(sqlstate::kSyntaxError);
    if (calls_aggregate_or_series(*t.expr)) refuse("aggregates or set-returning functions");
    const TypedExpr e = bind_expr(*t.expr, no_columns, random_calls);
    units += expr_cost_units(e);
    width += type_avg_width(e.type, e.typmod);
  }
  PlannedQuery q;
  q.root = std::make_unique<scans::OneRowResultNode>();
  q.root->estimate = {0, cs.cpu_tuple_cost + units * cs.cpu_operator_cost, 1, width};
  return q;
}

}  // namespace tp
