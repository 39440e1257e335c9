#include "engine/plan/aggregate_bind.h"

#include <optional>

#include "engine/core/error.h"
#include "engine/core/stack_depth.h"
#include "engine/plan/select_list.h"
#include "engine/plan/where_clause.h"
#include "engine/sql/expr_bind.h"
#include "engine/sql/identifier.h"

namespace tp {
namespace {

// PostgreSQL's pg_aggregate: sum and avg over the numeric types, min and max over all
// but boolean (interval's sum and avg are not built yet).
void check_input_type(const std::string& name, TypeId t, int position) {
  const bool sum_or_avg = name == "sum" || name == "avg";
  if (sum_or_avg && t == TypeId::kInterval)
    throw Error(name + "(interval) is not supported yet")
        .at_position(position)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  const bool exists = sum_or_avg ? type_is_numeric(t) : t != TypeId::kBool;
  if (!exists)
    throw Error("function " + name + "(" + format_type(t, kNoTypmod) + ") does not exist", "",
                "No function matches the given name and argument types. You might need to add "
                "explicit type casts.")
        .at_position(position)
        .with_sqlstate(sqlstate::kUndefinedFunction);
}

}  // namespace

BoundAgg bind_aggregate(const RelationEntry& rel, const sql::Expr& e) {
  const ColumnLookup columns = [&rel](const sql::Expr& ref) {
    const int c = bind_column(rel, ref);
    const Column& col = rel.columns[size_t(c)];
    return BoundColumnRef{uint32_t(c), col.type, col.typmod, sql::quote_identifier(col.name)};
  };
  return bind_aggregate(columns, e);
}

BoundAgg bind_aggregate(const ColumnLookup& columns, const sql::Expr& e) {
  static const std::pair<const char*, scans::AggKind> kinds[] = {{"count", scans::AggKind::kCount},
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
        .at_position(e.position)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  if (e.star_arg) {
    if (*kind != scans::AggKind::kCount)
      throw Error(e.name + "(*) is not an aggregate; only count(*) is")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kWrongObjectType);
    return {scans::AggKind::kCountStar, -1, false, TypeId::kInt8, nullptr};
  }
  // count(1): a constant that is never NULL counts every row, as count(*) does (and
  // costs the same in PostgreSQL: the constant argument is free).
  if (*kind == scans::AggKind::kCount && e.args.size() == 1 && !e.distinct &&
      (e.args[0]->kind == sql::ExprKind::kIntConst || e.args[0]->kind == sql::ExprKind::kNumConst ||
       e.args[0]->kind == sql::ExprKind::kStrConst || e.args[0]->kind == sql::ExprKind::kBoolConst))
    return {scans::AggKind::kCountStar, -1, false, TypeId::kInt8, nullptr};
  if (e.args.size() != 1)
    throw Error("function " + e.name + " takes one argument here")
        .at_position(e.position)
        .with_sqlstate(sqlstate::kUndefinedFunction);
  // min and max over distinct values are min and max, but PostgreSQL still plans them as
  // DISTINCT aggregates: a transition state of their own, no partial aggregation.
  const bool distinct = e.distinct;
  if (e.args[0]->kind != sql::ExprKind::kColumnRef) {
    if (calls_aggregate(*e.args[0]))
      throw Error("aggregate function calls cannot be nested")
          .at_position(e.args[0]->position)
          .with_sqlstate(sqlstate::kGroupingError);
    BoundAgg a{*kind, -1, false, TypeId::kInt8,
               std::make_shared<TypedExpr>(finish_output(bind_expr(*e.args[0], columns)))};
    a.type = a.arg->type;
    if (distinct)
      throw Error(e.name + "(DISTINCT) over an expression is not supported yet")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    if (*kind != scans::AggKind::kCount) check_input_type(e.name, a.type, e.position);
    return a;
  }
  const BoundColumnRef ref = columns(*e.args[0]);
  const int column = int(ref.slot);
  const TypeId type = ref.type;
  // count(a) counts a's non-NULL values whatever their type.
  if (*kind != scans::AggKind::kCount) check_input_type(e.name, type, e.position);
  return {*kind, column, distinct, type, nullptr};
}

// Integer arithmetic over aggregates and integer constants (engine/plan/aggregate_expr.h);
// its aggregates join `b.aggs`.
AggregateExpr bind_aggregate_expr(const RelationEntry& rel, const sql::Expr& e,
                                  std::vector<BoundAgg>& aggs, bool in_arithmetic) {
  check_stack_depth();
  AggregateExpr x;
  auto refuse = [&](const std::string& what) {
    return Error(what + " in an expression over aggregates is not supported")
        .at_position(e.position)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  };
  switch (e.kind) {
    case sql::ExprKind::kFuncCall: {
      x.kind = AggregateExpr::Kind::kAggregate;
      x.aggregate = aggs.size();
      aggs.push_back(bind_aggregate(rel, e));
      const BoundAgg& a = aggs.back();
      const OutputAggregate out = output_aggregate(a.kind, a.type);
      x.type = out.type;
      if (in_arithmetic && (x.type == OutputType::kNumeric || out.result == TypeId::kInt2 ||
                            (is_typed_input(a.type) && a.kind != scans::AggKind::kCount)))
        throw refuse(e.name + "() (a " + format_type(out.result, kNoTypmod) + " result)");
      return x;
    }
    case sql::ExprKind::kIntConst:
      x.value = e.ival;
      x.type = e.ival == int64_t(int32_t(e.ival)) ? OutputType::kInt4 : OutputType::kInt8;
      return x;
    case sql::ExprKind::kUnary:
      if (e.name == "+") return bind_aggregate_expr(rel, *e.args[0], aggs, true);
      x.kind = AggregateExpr::Kind::kNegate;
      x.args.push_back(bind_aggregate_expr(rel, *e.args[0], aggs, true));
      x.type = x.args[0].type;
      return x;
    case sql::ExprKind::kBinary:
      x.kind = AggregateExpr::Kind::kBinary;
      x.op = e.name[0];
      for (const auto& a : e.args) x.args.push_back(bind_aggregate_expr(rel, *a, aggs, true));
      x.type = x.args[0].type == OutputType::kInt8 || x.args[1].type == OutputType::kInt8
                   ? OutputType::kInt8
                   : OutputType::kInt4;
      return x;
    case sql::ExprKind::kColumnRef:
      throw Error("column \"" + rel.name + "." + e.name +
                  "\" must appear in the GROUP BY clause or be used in an aggregate function")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kGroupingError);
    case sql::ExprKind::kNumConst:
      throw refuse("a numeric constant");
    default:
      throw refuse("this operation");
  }
}

}  // namespace tp
