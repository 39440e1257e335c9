// The select list's aggregate calls bound to the table: count(*), count, sum, avg, min
// and max over a column or an expression of any type PostgreSQL 15 has the aggregate for (sum and
// avg over smallint, integer, bigint, numeric, real and double precision; min and max over all but
// boolean; a missing one is its 42883), and integer arithmetic over them
// (engine/plan/aggregate_expr.h).
#pragma once

#include <memory>
#include <vector>

#include "engine/core/typed_expr.h"
#include "engine/core/types.h"
#include "engine/plan/aggregate_expr.h"
#include "engine/sql/ast.h"
#include "engine/sql/expr_bind.h"
#include "engine/storage/catalog.h"
#include "scans/sort_limit_agg.h"

namespace tp {

struct BoundAgg {
  scans::AggKind kind = scans::AggKind::kCountStar;
  int column = -1;              // the table column it reads (-1: count(*))
  bool distinct = false;        // over distinct values: count(DISTINCT a)
  TypeId type = TypeId::kInt8;  // the input's type
  // An argument other than a column (`n * (1 - d)`): over the table's columns until the
  // planner moves it onto the scan's slots; computed below the Aggregate.
  std::shared_ptr<TypedExpr> arg;
};

// Whether the Aggregate reads the input as a typed value (scans/typed_agg.h) rather than
// as an integer.
inline bool is_typed_input(TypeId t) {
  return t != TypeId::kInt4 && t != TypeId::kInt8;
}

// An aggregate call of the select list: its kind and the table column it reads.
BoundAgg bind_aggregate(const RelationEntry& rel, const sql::Expr& e);
// The same over any columns: `columns` gives a reference's id (a table column, a join's
// var), which `BoundAgg::column` and the argument's slots then hold.
BoundAgg bind_aggregate(const ColumnLookup& columns, const sql::Expr& e);

// An output column over aggregates; its aggregates join `aggs`. `in_arithmetic`: inside
// an operator, where only integer results may stand.
AggregateExpr bind_aggregate_expr(const RelationEntry& rel, const sql::Expr& e,
                                  std::vector<BoundAgg>& aggs, bool in_arithmetic);

}  // namespace tp
